// kernel/src/snapshot_fields.h — the fields of every record a snapshot holds, in order.
//
// A record's fields are listed once here and walked by both SnapshotWriter and SnapshotReader
// (snapshot_archive.h). Fields that are caches — recomputed from the others after a restore by
// Partition::RebuildCaches, exactly as after a config reload — are left out and named beside the
// list. Each list is checked against the struct's field count: a field added to a record and
// not here (or to the caches' list) fails the build.
#ifndef ALLOCORE_KERNEL_SRC_SNAPSHOT_FIELDS_H_
#define ALLOCORE_KERNEL_SRC_SNAPSHOT_FIELDS_H_

#include <cstdint>

#include "acl.h"
#include "allocore/kernel.h"
#include "field_count.h"
#include "partition_records.h"
#include "placement.h"
#include "queue_properties.h"
#include "snapshot_archive.h"

namespace allocore::internal {

// ---- records whose fields are private: they list them themselves (SnapshotFields) -----------

template <typename A, typename T>
requires requires(A& a, T& v) { std::remove_const_t<T>::SnapshotFields(a, v); }
void Fields(A& a, T& v) { std::remove_const_t<T>::SnapshotFields(a, v); }

// ---- queues ----------------------------------------------------------------------------------

static_assert(FieldCount<QueueProperties>() == 7);
template <typename A, Is<QueueProperties> T>
void Fields(A& a, T& v) {
  a(v.sort_policy, v.priority_sort_enabled, v.fenced, v.offset, v.preemption_policy,
    v.unsched_ask_backoff_on, v.preemption_delay_ms);
}
static_assert(FieldCount<UnschedAskBackoff>() == 2);
template <typename A, Is<UnschedAskBackoff> T>
void Fields(A& a, T& v) {
  a(v.asks, v.delay_ms);
}
static_assert(FieldCount<ChildTemplate>() == 4);
template <typename A, Is<ChildTemplate> T>
void Fields(A& a, T& v) {
  a(v.properties, v.guaranteed, v.max, v.max_apps);
}
static_assert(FieldCount<Limit>() == 2);
template <typename A, Is<Limit> T>
void Fields(A& a, T& v) {
  a(v.max_resources, v.max_apps);
}
static_assert(FieldCount<LimitUsage>() == 2);
template <typename A, Is<LimitUsage> T>
void Fields(A& a, T& v) {
  a(v.allocated, v.running_apps);
}
static_assert(FieldCount<QueueLimits>() == 7);
template <typename A, Is<QueueLimits> T>
void Fields(A& a, T& v) {
  a(v.users, v.groups, v.group_order, v.any_user, v.any_group, v.user_usage, v.group_usage);
}
// Caches: child_priorities, priority, order, accepted_with_pending.
static_assert(FieldCount<Queue>() == 18 + 4);
template <typename A, Is<Queue> T>
void Fields(A& a, T& v) {
  a(v.parent, v.children, v.sibling_order, v.leaf, v.dynamic, v.alive, v.state, v.props,
    v.guaranteed, v.max, v.max_apps, v.allocated, v.pending, v.running_apps, v.allocating_accepted,
    v.reservations, v.apps, v.starting_apps);
}
static_assert(FieldCount<QueueSide>() == 10);
template <typename A, Is<QueueSide> T>
void Fields(A& a, T& v) {
  a(v.name, v.path, v.properties, v.submit_acl, v.admin_acl, v.child_template, v.limits, v.backoff,
    v.quota_delay_ms, v.quota_start);
}

// ---- asks and applications -------------------------------------------------------------------

static_assert(FieldCount<AskKey>() == 4);
template <typename A, Is<AskKey> T>
void Fields(A& a, T& v) {
  a(v.neg_priority, v.create_time, v.add_seq, v.slot);
}
// The six one-bit flags travel as one number (a bit-field cannot be bound to a reference).
static_assert(FieldCount<AskHot>() == 5 + 6);
template <typename A, Is<AskHot> T>
void Fields(A& a, T& v) {
  auto flags = static_cast<uint8_t>((v.alive ? 1u : 0u) | (v.removed ? 2u : 0u) |
                                    (v.placeholder ? 4u : 0u) | (v.preemption_triggered ? 8u : 0u) |
                                    (v.has_required_node ? 16u : 0u) | (v.gang_member ? 32u : 0u));
  a(v.pending, v.app, v.shape, v.priority, v.reservations, flags);
  if constexpr (A::kReading) {
    if (flags >= 64) a.Fail("an ask with unknown flags");
    v.alive = (flags & 1u) != 0;
    v.removed = (flags & 2u) != 0;
    v.placeholder = (flags & 4u) != 0;
    v.preemption_triggered = (flags & 8u) != 0;
    v.has_required_node = (flags & 16u) != 0;
    v.gang_member = (flags & 32u) != 0;
  }
}
static_assert(FieldCount<Ask>() == 10);
template <typename A, Is<Ask> T>
void Fields(A& a, T& v) {
  a(v.id, v.create_time, v.add_seq, v.first_add_seq, v.allocations, v.allow_preemption,
    v.originator, v.preempt_checked_at, v.task_group, v.required_node);
}
static_assert(FieldCount<Reservation>() == 3);
template <typename A, Is<Reservation> T>
void Fields(A& a, T& v) {
  a(v.ask, v.node, v.created);
}
static_assert(FieldCount<TaskGroup>() == 4);
template <typename A, Is<TaskGroup> T>
void Fields(A& a, T& v) {
  a(v.name, v.count, v.replaced, v.timed_out);
}
// Cache: priority.
static_assert(FieldCount<App>() == 14 + 1);
template <typename A, Is<App> T>
void Fields(A& a, T& v) {
  a(v.queue, v.state, v.stateaware_disabled, v.alive, v.in_queue, v.submission_seq,
    v.submission_time, v.allocated, v.pending, v.allocated_placeholder, v.ask_order, v.reservations,
    v.live_allocations, v.live_placeholders);
}
static_assert(FieldCount<AppSide>() == 18);
template <typename A, Is<AppSide> T>
void Fields(A& a, T& v) {
  a(v.id, v.user, v.groups, v.limit_group, v.counted_in_limits, v.asks_by_id, v.asks,
    v.backoff_deadline, v.timer, v.timer_due, v.timer_seq, v.gang_hard, v.placeholder_timeout,
    v.placeholder_ask, v.task_groups, v.placeholder_timer, v.placeholder_timer_due,
    v.placeholder_timer_seq);
}

// ---- nodes and allocations -------------------------------------------------------------------

static_assert(FieldCount<Node>() == 11);
template <typename A, Is<Node> T>
void Fields(A& a, T& v) {
  a(v.id, v.capacity, v.occupied, v.allocated, v.available, v.id_rank, v.schedulable, v.alive,
    v.score, v.reservation, v.allocations);
}
static_assert(FieldCount<Allocation>() == 15);
template <typename A, Is<Allocation> T>
void Fields(A& a, T& v) {
  a(v.app, v.ask, v.node, v.resource, v.seq, v.age, v.live, v.placeholder, v.required_node,
    v.allow_preemption, v.originator, v.priority, v.task_group, v.ask_create_time, v.ask_add_seq);
}
static_assert(FieldCount<ForeignPod>() == 2);
template <typename A, Is<ForeignPod> T>
void Fields(A& a, T& v) {
  a(v.node, v.resource);
}

// ---- what the partitions share ---------------------------------------------------------------

static_assert(FieldCount<CachedGroups>() == 2);
template <typename A, Is<CachedGroups> T>
void Fields(A& a, T& v) {
  a(v.groups, v.stored_at);
}
static_assert(FieldCount<PlacementRule>() == 6);
template <typename A, Is<PlacementRule> T>
void Fields(A& a, T& v) {
  a(v.kind, v.name, v.create, v.value, v.filter, v.parent);
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_SNAPSHOT_FIELDS_H_

// kernel/src/partition_records.h — the records a partition keeps in its slot tables (queues,
// applications, asks, nodes, allocations, reservations), each split into what the walk reads
// (dense, by slot) and what only calls and queries read (a side table by the same slot;
// kernel/README decision 35), with the constants their rules are written in.
#ifndef ALLOCORE_KERNEL_SRC_PARTITION_RECORDS_H_
#define ALLOCORE_KERNEL_SRC_PARTITION_RECORDS_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "acl.h"
#include "allocore/config.h"
#include "allocore/kernel.h"
#include "allocore/resource.h"
#include "names.h"
#include "node_index.h"
#include "queue_order.h"
#include "queue_properties.h"
#include "resource_shapes.h"
#include "semantics_profile.h"

namespace allocore::internal {

inline constexpr int32_t kNoPriority = std::numeric_limits<int32_t>::min();
inline constexpr std::string_view kDefaultQueuePath = "root.default";
inline constexpr std::string_view kRecoveryQueueName = "@recovery@";
inline constexpr std::string_view kRecoveryQueuePath = "root.@recovery@";
// Who a forced application without a user runs as (YuniKorn 1.6+).
inline constexpr std::string_view kAnonymousUser = "nobody";
inline constexpr std::string_view kAnonymousGroup = "nogroup";

// The application's tag application.create.force reads true (YuniKorn's forced creation).
bool IsCreateForced(const Tags& tags);
inline constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();
// Exact sums of int64 quantities (pending totals for dominance sweeps).
__extension__ typedef __int128 WideInt;

inline constexpr int64_t kReservationDelayMs = 2'000;
// yunikorn-1.9 (YUNIKORN-3219): a reservation whose ask the headroom refuses is cancelled once
// it is older than this (YuniKorn's reservationWaitTimeout, 60 min, counted twice:
// time.Since(created + 60 min) > 60 min).
inline constexpr int64_t kReservationCancelAfterMs = 2 * 60 * 60 * 1'000;
inline constexpr int64_t kNeverChecked = std::numeric_limits<int64_t>::min();
// General preemption attempts per leaf visit of the regular walk, shared by its applications.
inline constexpr int kMaxPreemptionAttemptsPerLeaf = 10;
inline constexpr int64_t kStartingTimeoutMs = 5 * 60 * 1'000;
inline constexpr int64_t kCompletingTimeoutMs = 30 * 1'000;
inline constexpr int64_t kTerminatedTimeoutMs = int64_t{3} * 24 * 60 * 60 * 1'000;
inline constexpr int64_t kDefaultPlaceholderTimeoutMs = 15 * 60 * 1'000;
// A user's cached groups are trusted this long after they were stored (YUNIKORN-3250).
inline constexpr int64_t kUserGroupCacheMs = 300 * 1'000;

struct CachedGroups {
  std::vector<std::string_view> groups;
  int64_t stored_at = 0;
};

// State shared by all partitions of a kernel.
struct KernelContext {
  const Profile* profile = &ProfileFor(Semantics::kYunikorn12);
  NameTable names;
  ResourceTypes types;
  int64_t now = 0;
  int64_t next_allocation_seq = 1;
  int64_t next_allocation_age = 1;  // Allocation::age
  int64_t next_submission_seq = 1;
  int64_t next_ask_seq = 1;
  int64_t next_timer_seq = 0;          // timers due together fire in start order, across partitions
  uint32_t next_partition_serial = 1;  // PartitionHandle::serial
  // One user -> groups cache for every partition (§8.1), as YuniKorn keeps one per process.
  absl::flat_hash_map<std::string_view, CachedGroups> user_groups;

  // The groups an application of `user` is admitted with: the given ones (stored for the
  // user), or when none are given the user's cached groups, or [user] (stored too).
  std::vector<std::string_view> ResolveGroups(std::string_view user,
                                              const std::vector<std::string>& given);
  // Marks the names the context refers to (partition_names.cc); drops expired cache entries.
  void MarkNames(NameMarks* marks);
};

enum class QueueState : uint8_t { kActive, kDraining, kStopped };

// User and group limits of one queue (YuniKorn 1.4+ enforcement, Appendix A.2).
struct Limit {
  std::optional<Resource> max_resources;
  uint64_t max_apps = 0;  // 0 = not limited
};
struct LimitUsage {
  Resource allocated;
  int64_t running_apps = 0;
};
struct QueueLimits {
  absl::flat_hash_map<std::string, Limit> users;
  absl::flat_hash_map<std::string, Limit> groups;
  std::vector<std::string> group_order;  // configured groups, in config order
  std::optional<Limit> any_user;         // wildcard "*"
  std::optional<Limit> any_group;
  absl::flat_hash_map<std::string_view, LimitUsage> user_usage;
  absl::flat_hash_map<std::string_view, LimitUsage> group_usage;
};

// What a dynamic leaf created below a parent starts with (§3.4).
struct ChildTemplate {
  PropertyMap properties;
  std::optional<Resource> guaranteed;
  std::optional<Resource> max;
  uint64_t max_apps = 0;
};

// What the walk and the caches read of a queue, by slot in Partition::queues_; what only
// configuration, admission and queries read is in QueueSide (same slot).
struct Queue {
  uint32_t parent = kNoSlot;
  std::vector<uint32_t> children;
  int64_t sibling_order = 0;  // tie-break among siblings: config order, dynamic after
  bool leaf = true;
  bool dynamic = false;
  bool alive = true;
  QueueState state = QueueState::kActive;
  QueueProperties props;  // parsed from QueueSide::properties
  std::optional<Resource> guaranteed;
  std::optional<Resource> max;
  uint64_t max_apps = 0;

  Resource allocated;
  Resource pending;
  absl::btree_map<int32_t, int32_t> child_priorities;  // priority -> count
  int32_t priority = kNoPriority;                      // effective, presented to the parent
  Order order;  // children or applications (OrderEntry; full keys in Partition::*_keys_)
  uint64_t running_apps = 0;
  absl::flat_hash_set<uint32_t> allocating_accepted;
  int64_t reservations = 0;  // reservations held by applications in this subtree

  // Leaves only.
  absl::btree_set<std::pair<int64_t, uint32_t>> apps;  // (submission seq, app slot)
  int32_t starting_apps = 0;
  absl::btree_set<std::pair<int64_t, uint32_t>> accepted_with_pending;
};

// A queue's names, raw properties, ACLs, template and limits (side table
// Partition::queue_side_, same slot as its Queue).
struct QueueSide {
  std::string_view name;  // lower-case
  std::string_view path;
  PropertyMap properties;  // effective (merged) raw properties
  Acl submit_acl;
  Acl admin_acl;
  std::shared_ptr<const ChildTemplate> child_template;  // own, or inherited from the parent
  std::unique_ptr<QueueLimits> limits;                  // null when no limit is configured
  UnschedAskBackoff backoff;  // Queue::props.unsched_ask_backoff_on says whether it is on
  // yunikorn-1.9 quota-change preemption: quota.preemption.delay (0: off; configured queues
  // only) and when usage above the max is to be taken back (nullopt: not due).
  int64_t quota_delay_ms = 0;
  std::optional<int64_t> quota_start;
};

struct AskKey {
  int64_t neg_priority;
  int64_t create_time;
  int64_t add_seq;
  uint32_t slot;
  friend bool operator<(const AskKey& a, const AskKey& b) {
    return std::tie(a.neg_priority, a.create_time, a.add_seq, a.slot) <
           std::tie(b.neg_priority, b.create_time, b.add_seq, b.slot);
  }
};

// What the walk reads of an ask, dense by slot in Partition::ask_hot_ (kernel/README decision
// 35): 32 bytes, two asks to a cache line, nothing cold between them. The resource is a shape
// id into Partition::shapes_ (asks of one workload share a shape).
struct AskHot {
  int64_t pending = 0;  // pending repeats
  uint32_t app = kNoSlot;
  uint32_t shape = ResourceShapes::kNone;
  int32_t priority = 0;
  int32_t reservations = 0;
  bool alive : 1 = false;
  bool removed : 1 = false;  // RemoveAsk'ed while allocations remain: releasable, not removable
  bool placeholder : 1 = false;
  bool preemption_triggered : 1 = false;  // it preempted (either preemptor; never reset)
  bool has_required_node : 1 = false;     // Ask::required_node is set
  bool gang_member : 1 = false;           // Ask::task_group is set
};
static_assert(sizeof(AskHot) <= 32, "the walk's view of an ask must stay within 32 bytes");

// The rest of an ask (side table Partition::asks_, same slot): what only calls, the
// preemptors, the gang passes and the queries read.
struct Ask {
  std::string_view id;
  int64_t create_time = 0;
  int64_t add_seq = 0;
  int64_t first_add_seq = 0;          // its key in App::asks (a re-add keeps it)
  std::vector<uint32_t> allocations;  // live allocations, oldest first
  bool allow_preemption = true;
  bool originator = false;
  int64_t preempt_checked_at = kNeverChecked;  // the general preemptor's last attempt
  std::string_view task_group;                 // empty: not a gang member
  std::string_view required_node;              // empty: any node
};

struct Reservation {
  uint32_t ask;
  uint32_t node;
  int64_t created = 0;  // when it was made (yunikorn-1.9's wait-timeout counts from it)
};

enum class TimerKind : uint8_t { kNone, kStarting, kCompleting, kExpire };

// YuniKorn's placeholderData: per task group, placeholder asks added (one per AddAsk call, not
// per repeat), placeholders replaced and timed out. A real ask of the group waits for the
// placeholder pass while count > replaced + timed_out.
struct TaskGroup {
  std::string_view name;
  int64_t count = 0;
  int64_t replaced = 0;
  int64_t timed_out = 0;
};

// What the walk and the caches read of an application, by slot in Partition::apps_; its ids,
// users, ask index, timers and gang bookkeeping are in AppSide (same slot).
struct App {
  uint32_t queue = kNoSlot;
  AppState state = AppState::kNew;
  bool stateaware_disabled = false;
  bool alive = false;
  bool in_queue = false;
  int32_t priority = kNoPriority;
  int64_t submission_seq = 0;
  int64_t submission_time = 0;  // receive time, lowered by asks' creation times (1.9 profile)
  Resource allocated;           // placeholders included; `allocated_placeholder` is their part
  Resource pending;
  Resource allocated_placeholder;
  absl::btree_set<AskKey> ask_order;
  std::vector<Reservation> reservations;
  int64_t live_allocations = 0;
  int64_t live_placeholders = 0;
};

// The rest of an application (side table Partition::app_side_, same slot).
struct AppSide {
  std::string_view id;
  std::string_view user;
  std::vector<std::string_view> groups;
  std::string_view limit_group;    // the group whose limits apply (empty: none)
  bool counted_in_limits = false;  // counts as a running application of its user and group
  absl::flat_hash_map<std::string_view, uint32_t> asks_by_id;
  // Every live ask, in the order its id was first added: first-add seq -> slot (a btree, so
  // that removing one of 100,000 asks does not shift the others).
  absl::btree_map<int64_t, uint32_t> asks;
  // A copy to iterate while asks go (most applications have a few: no heap allocation).
  absl::InlinedVector<uint32_t, 8> AskSlots() const {
    absl::InlinedVector<uint32_t, 8> slots;
    slots.reserve(asks.size());
    for (const auto& [seq, slot] : asks) slots.push_back(slot);
    return slots;
  }
  // yunikorn-1.9: the regular walk skips the application while now < backoff_deadline (0:
  // never backed off), set when too many of its asks were unschedulable in one visit.
  int64_t backoff_deadline = 0;
  TimerKind timer = TimerKind::kNone;
  int64_t timer_due = 0;
  int64_t timer_seq = 0;

  // Gang scheduling.
  bool gang_hard = false;
  int64_t placeholder_timeout = kDefaultPlaceholderTimeoutMs;
  Resource placeholder_ask;
  std::vector<TaskGroup> task_groups;
  bool placeholder_timer = false;
  int64_t placeholder_timer_due = 0;
  int64_t placeholder_timer_seq = 0;
};

struct Node {
  std::string_view id;
  Resource capacity;
  Resource occupied;
  Resource allocated;
  Resource available;  // capacity - allocated - occupied, kept current
  uint64_t id_rank = 0;
  bool schedulable = true;
  bool alive = false;
  double score = 0;
  std::optional<std::pair<uint32_t, uint32_t>> reservation;  // (app, ask)
  // Live, oldest first. Inline up to 16: most nodes hold a few pods, and a node's first
  // allocations then never reach the allocator.
  absl::InlinedVector<uint32_t, 16> allocations;
  const Resource& Available() const { return available; }
  // The walk places asks only on schedulable nodes without a reservation.
  bool Eligible() const { return schedulable && !reservation; }
  void RecomputeAvailable() { available = Sub(Sub(capacity, allocated), occupied); }
  NodeKey key(uint32_t slot) const { return NodeKey{score, id_rank, slot}; }
};

struct Allocation {
  uint32_t app = kNoSlot;
  uint32_t ask = kNoSlot;
  uint32_t node = kNoSlot;
  Resource resource;
  int64_t seq = 0;  // the allocation record's (0: recovered, which the scheduler did not decide)
  // 1, 2, 3, ... over every allocation, recovered ones included: "oldest first" everywhere, and
  // whether a slot still holds the allocation it held (slots are reused).
  int64_t age = 0;
  bool live = false;
  // What the allocation keeps of its ask as it was when allocated (a re-added ask is a new ask
  // in YuniKorn; its earlier allocations keep the old one): gang membership and what the
  // required-node preemptor sorts and filters by.
  bool placeholder = false;
  bool required_node = false;
  bool allow_preemption = true;
  bool originator = false;
  int32_t priority = 0;
  std::string_view task_group;
  int64_t ask_create_time = 0;
  int64_t ask_add_seq = 0;
};

// Another scheduler's pod, by its id in Partition::foreign_.
struct ForeignPod {
  uint32_t node = kNoSlot;
  Resource resource;
};

enum class NodePolicy : uint8_t { kFair, kBinPacking };

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_PARTITION_RECORDS_H_

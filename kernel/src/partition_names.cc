// What a partition refers to in the name table, for Kernel::ReleaseUnusedNames.
//
// Every string_view a partition keeps into the name table must be marked here: a name left
// unmarked is released and the view dangles. The fuzzers release names between calls, so an
// entity field missing below shows up under ASan as a use after free.
#include "partition.h"

namespace allocore::internal {

void KernelContext::MarkNames(NameMarks* marks) {
  // An expired cache entry acts as no entry at all (ResolveGroups stores afresh), so dropping
  // it changes nothing observable and lets its user's and groups' names go.
  absl::erase_if(user_groups, [&](const auto& entry) {
    return now - entry.second.stored_at >= kUserGroupCacheMs;
  });
  for (const auto& [user, cached] : user_groups) {
    marks->Mark(user);
    for (std::string_view group : cached.groups) marks->Mark(group);
  }
}

void Partition::MarkNames(NameMarks* marks) const {
  marks->Mark(name_);
  for (size_t slot = 0; slot < queues_.size(); ++slot) {
    if (!queues_[slot].alive) continue;
    const QueueSide& q = queue_side_[slot];
    marks->Mark(q.name);
    marks->Mark(q.path);
    if (q.limits != nullptr) {
      for (const auto& [user, usage] : q.limits->user_usage) marks->Mark(user);
      for (const auto& [group, usage] : q.limits->group_usage) marks->Mark(group);
    }
  }
  // Terminated applications stay alive (and named) until they expire.
  for (size_t slot = 0; slot < apps_.size(); ++slot) {
    if (!apps_[slot].alive) continue;
    const AppSide& a = app_side_[slot];
    marks->Mark(a.id);
    // An application that terminated in a queue since removed still reports the queue's path
    // until it expires.
    if (uint32_t queue = apps_[slot].queue; queue != kNoSlot) {
      marks->Mark(queue_side_[queue].name);
      marks->Mark(queue_side_[queue].path);
    }
    marks->Mark(a.user);
    marks->Mark(a.limit_group);
    for (std::string_view group : a.groups) marks->Mark(group);
    for (const TaskGroup& group : a.task_groups) marks->Mark(group.name);
  }
  // A removed ask stays named while allocations of it live.
  for (size_t slot = 0; slot < asks_.size(); ++slot) {
    const Ask& k = asks_[slot];
    if (!ask_hot_[slot].alive && k.allocations.empty()) continue;
    marks->Mark(k.id);
    marks->Mark(k.task_group);
    marks->Mark(k.required_node);
  }
  for (const Node& n : nodes_) {
    if (n.alive) marks->Mark(n.id);
  }
  for (const auto& [id, foreign] : foreign_) marks->Mark(id);
  for (const Allocation& alloc : allocations_) {
    if (alloc.live) marks->Mark(alloc.task_group);
  }
}

}  // namespace allocore::internal

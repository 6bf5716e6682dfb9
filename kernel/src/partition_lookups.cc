// A partition's records found by id or by handle slot, and the queue-path accounting every
// change of usage or pending goes through; the user -> groups cache of the kernel context.
#include "message.h"
#include "partition.h"

namespace allocore::internal {

std::vector<std::string_view> KernelContext::ResolveGroups(std::string_view user,
                                                           const std::vector<std::string>& given) {
  CachedGroups& entry = user_groups[user];
  bool fresh = !entry.groups.empty() && now - entry.stored_at < kUserGroupCacheMs;
  if (given.empty() && fresh) return entry.groups;
  entry.groups.clear();
  for (const std::string& g : given) entry.groups.push_back(names.Intern(g));
  if (entry.groups.empty()) entry.groups.push_back(user);
  entry.stored_at = now;
  return entry.groups;
}

void Partition::AddToPath(uint32_t queue, Resource Queue::*field, const Resource& delta) {
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) AddTo(&(queues_[q].*field), delta);
}

void Partition::SubFromPath(uint32_t queue, Resource Queue::*field, const Resource& delta) {
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) {
    SubFromClampNegative(&(queues_[q].*field), delta);
  }
}

uint32_t Partition::FindApp(std::string_view id) const {
  auto it = apps_by_id_.find(id);
  return it == apps_by_id_.end() ? kNoSlot : it->second;
}

uint32_t Partition::FindNode(std::string_view id) const {
  auto it = nodes_by_id_.find(id);
  return it == nodes_by_id_.end() ? kNoSlot : it->second;
}

uint32_t Partition::FindAsk(uint32_t app, std::string_view id) const {
  auto it = app_side_[app].asks_by_id.find(id);
  return it == app_side_[app].asks_by_id.end() ? kNoSlot : it->second;
}

uint32_t Partition::LiveApp(uint32_t app, uint32_t generation) const {
  if (app >= apps_.size() || AppGeneration(app) != generation) return kNoSlot;
  return apps_[app].alive && apps_[app].in_queue ? app : kNoSlot;
}

uint32_t Partition::LiveAsk(uint32_t ask, uint32_t generation) const {
  if (ask >= asks_.size() || AskGeneration(ask) != generation) return kNoSlot;
  return ask_hot_[ask].alive ? ask : kNoSlot;
}

uint32_t Partition::LiveNode(uint32_t node, uint32_t generation) const {
  if (node >= nodes_.size() || NodeGeneration(node) != generation) return kNoSlot;
  return nodes_[node].alive ? node : kNoSlot;
}

}  // namespace allocore::internal

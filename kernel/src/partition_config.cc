// Building and reconciling a partition's queue tree and policies from configuration.
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "contract.h"
#include "message.h"
#include "name_rules.h"
#include "partition.h"

namespace allocore::internal {
namespace {

constexpr int64_t kUnconfiguredOrderBase = int64_t{1} << 40;

std::string Lower(std::string_view s) {
  return absl::AsciiStrToLower(absl::string_view(s.data(), s.size()));
}

}  // namespace

Partition::Partition(KernelContext* context, std::string_view name)
    : context_(context),
      name_(context->names.Intern(name)),
      serial_(context->next_partition_serial++) {}

uint32_t Partition::NewQueue(std::string_view name, uint32_t parent, bool dynamic) {
  ALLOCORE_DCHECK(parent == kNoSlot ? queues_.empty() : parent < queues_.size());
  auto slot = static_cast<uint32_t>(queues_.size());
  Queue& q = queues_.emplace_back();
  QueueSide& side = queue_side_.emplace_back();
  queue_keys_.resize(queues_.size());
  q.order = Order(OrderEntryLess(this));
  std::string lower = Lower(name);
  side.name = context_->names.Intern(lower);
  side.path = parent == kNoSlot ? side.name
                                : context_->names.Intern(Cat(queue_side_[parent].path, ".", lower));
  // Removal drops a queue's entry, so the path is not indexed; should it be, the key must be
  // this queue's name (the old one may have been released), not only the value.
  queues_by_path_.erase(side.path);
  queues_by_path_.emplace(side.path, slot);
  q.parent = parent;
  q.dynamic = dynamic;
  q.sibling_order = kUnconfiguredOrderBase + next_sibling_order_++;
  if (parent != kNoSlot) {
    queues_[parent].children.push_back(slot);
    queues_[parent].leaf = false;
  }
  return slot;
}

uint32_t Partition::FindQueue(std::string_view path) const {
  if (root_ == kNoSlot) return kNoSlot;
  auto find = [&](std::string_view lower) {
    auto it = queues_by_path_.find(lower);
    return it != queues_by_path_.end() && queues_[it->second].alive ? it->second : kNoSlot;
  };
  // Paths match case-insensitively; most arrive lower-case already and need no copy.
  bool lower = std::none_of(path.begin(), path.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  return lower ? find(path) : find(Lower(path));
}

std::vector<uint32_t> Partition::PathToRoot(uint32_t queue) const {
  std::vector<uint32_t> path;
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) path.push_back(q);
  return path;
}

absl::StatusOr<Resource> Partition::ToResource(const Quantities& quantities, std::string_view what,
                                               std::string_view what_id) {
  Resource r;
  for (const auto& [name, value] : quantities) {
    int type = context_->types.Find(name);  // a known type, without building a StatusOr
    if (type < 0) {
      auto interned = context_->types.Intern(name);
      if (!interned.ok()) {
        return absl::InvalidArgumentError(Cat(what, what_id, ": ", interned.status().message()));
      }
      type = *interned;
    }
    if (value < 0) {
      return absl::InvalidArgumentError(
          Cat(what, what_id, ": negative quantity ", value, " for resource '", name, "'"));
    }
    r.Set(type, value);
  }
  return r;
}

absl::StatusOr<std::optional<Resource>> Partition::ToLimit(
    const std::optional<QuantityMap>& quantities) {
  if (!quantities) return std::optional<Resource>();
  auto r = ToResource(*quantities, "queue resources");
  if (!r.ok()) return r.status();
  // YuniKorn keeps guaranteed / max only when strictly positive (§3.5).
  if (!StrictlyGreaterThanZero(*r)) return std::optional<Resource>();
  return std::optional<Resource>(*r);
}

absl::Status Partition::ApplyQueueConfig(const QueueConfig& config, uint32_t parent,
                                         const PropertyMap& parent_properties, int64_t order,
                                         absl::flat_hash_set<uint32_t>* seen) {
  uint32_t q = kNoSlot;
  std::string lower = Lower(config.name);
  if (parent == kNoSlot) {
    if (root_ == kNoSlot) root_ = NewQueue(lower, kNoSlot, false);
    q = root_;
  } else {
    for (uint32_t child : queues_[parent].children) {
      if (queues_[child].alive && queue_side_[child].name == lower) q = child;
    }
    if (q == kNoSlot) q = NewQueue(lower, parent, false);
  }
  seen->insert(q);
  auto guaranteed = ToLimit(config.resources.guaranteed);
  if (!guaranteed.ok()) return guaranteed.status();
  auto max = ToLimit(config.resources.max);
  if (!max.ok()) return max.status();
  const Resource* max_before = QuotaMax(q);
  const std::optional<Resource> old_max =
      max_before != nullptr ? std::optional<Resource>(*max_before) : std::nullopt;
  const int64_t old_quota_delay = queue_side_[q].quota_delay_ms;
  ParsedProperties parsed;
  {
    Queue& queue = queues_[q];
    QueueSide& queue_side = queue_side_[q];
    queue.dynamic = false;
    queue.sibling_order = order;
    if (queue.state == QueueState::kDraining) queue.state = QueueState::kActive;
    queue_side.properties = MergeProperties(parent_properties, config.properties);
    parsed = ParseProperties(queue_side.properties, context_->profile->semantics);
    queue.props = parsed.queue;
    queue_side.backoff = parsed.backoff;
    queue.guaranteed = *guaranteed;
    queue.max = *max;
    queue.max_apps = config.max_applications;
    queue_side.submit_acl = Acl::Parse(config.submit_acl);
    queue_side.admin_acl = Acl::Parse(config.admin_acl);
    queue_side.child_template = parent == kNoSlot ? nullptr : queue_side_[parent].child_template;
    queue.leaf = ConfiguredAsLeaf(config, parent == kNoSlot) && queue.children.empty();
  }
  // YuniKorn sets the delay, and moves the start time, only where the key is present.
  if (const std::optional<int64_t> delay = parsed.quota_delay_ms) {
    queue_side_[q].quota_delay_ms = *delay;
    QuotaConfigChanged(q, old_max, old_quota_delay);
  } else {
    queue_side_[q].quota_delay_ms = 0;  // a removed property is reset (decision 6)
  }
  if (const auto& tc = config.child_template;
      tc && (tc->max_applications != 0 || !tc->properties.empty() ||
             (tc->resources.guaranteed && !tc->resources.guaranteed->empty()) ||
             (tc->resources.max && !tc->resources.max->empty()))) {
    auto child_template = std::make_shared<ChildTemplate>();
    child_template->properties = tc->properties;
    auto template_guaranteed = ToLimit(tc->resources.guaranteed);
    if (!template_guaranteed.ok()) return template_guaranteed.status();
    auto template_max = ToLimit(tc->resources.max);
    if (!template_max.ok()) return template_max.status();
    child_template->guaranteed = *template_guaranteed;
    child_template->max = *template_max;
    child_template->max_apps = tc->max_applications;
    queue_side_[q].child_template = std::move(child_template);
  }
  absl::Status limits = ApplyLimits(config, q, parent == kNoSlot ? partition_limits_ : nullptr);
  if (!limits.ok()) return limits;
  PropertyMap properties = queue_side_[q].properties;
  for (size_t i = 0; i < config.queues.size(); ++i) {
    absl::Status status =
        ApplyQueueConfig(config.queues[i], q, properties, static_cast<int64_t>(i), seen);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The default weights name types without registering them (a full registry must not refuse a
// config over them): a weight is resolved once its type is known. Until then no node of this
// partition can report that type, so no score depends on it.
void Partition::ResolveDefaultNodeWeights() {
  if (!default_node_weights_) return;
  node_weights_.clear();
  for (std::string_view name : {"vcore", "memory"}) {
    int type = context_->types.Find(name);
    if (type >= 0) node_weights_.emplace_back(type, 1.0);
  }
}

absl::Status Partition::ApplyConfig(const PartitionConfig& config, bool dry_run,
                                    std::vector<Decision>* out) {
  (void)out;
  if (config.queues.size() != 1) {
    return absl::InvalidArgumentError("partition config must hold exactly the root queue");
  }
  // 1.6+ run the provided rule (without create) when no rule is configured.
  std::vector<PlacementRuleConfig> implicit_rules;
  if (config.placement_rules.empty() && context_->profile->implicit_provided_rule) {
    implicit_rules.push_back({.name = "provided"});
  }
  auto placement =
      PlacementRules::Build(implicit_rules.empty() ? config.placement_rules : implicit_rules,
                            context_->profile->name_charset);
  if (!placement.ok()) return placement.status();
  if (dry_run) {
    // A leaf holding applications cannot become a parent, and a queue with live children
    // cannot become a leaf.
    std::vector<std::pair<const QueueConfig*, uint32_t>> stack{{&config.queues[0], root_}};
    while (!stack.empty()) {
      auto [qc, q] = stack.back();
      stack.pop_back();
      if (q == kNoSlot) continue;
      const Queue& queue = queues_[q];
      const QueueSide& queue_side = queue_side_[q];
      bool wants_parent = queue.parent == kNoSlot || qc->parent || !qc->queues.empty();
      if (wants_parent && queue.leaf && !queue.apps.empty()) {
        return absl::FailedPreconditionError(
            Cat("queue ", queue_side.path, " holds applications and cannot become a parent queue"));
      }
      for (const QueueConfig& child : qc->queues) {
        uint32_t match = kNoSlot;
        for (uint32_t c : queue.children) {
          if (queues_[c].alive && queue_side_[c].name == Lower(child.name)) match = c;
        }
        if (match != kNoSlot) stack.push_back({&child, match});
      }
    }
    return absl::OkStatus();
  }

  placement_ = std::move(*placement);
  // Decision 34.1: absent, the key means off in v1.2.0 and on in 1.4+ (the profile says).
  preemption_enabled_ =
      config.preemption_enabled.value_or(context_->profile->preemption_enabled_by_default);
  quota_preemption_enabled_ =
      context_->profile->quota_preemption && config.quota_preemption_enabled.value_or(false);
  node_policy_ =
      config.node_sort_policy.type == "binpacking" ? NodePolicy::kBinPacking : NodePolicy::kFair;
  node_weights_.clear();
  default_node_weights_ = config.node_sort_policy.resource_weights.empty();
  if (default_node_weights_) {
    ResolveDefaultNodeWeights();
  } else {
    for (const auto& [name, weight] : config.node_sort_policy.resource_weights) {
      if (weight <= 0) continue;
      auto type = context_->types.Intern(name);
      if (!type.ok()) return type.status();
      node_weights_.emplace_back(*type, weight);
    }
  }

  absl::flat_hash_set<uint32_t> seen;
  has_limits_ = false;
  partition_limits_ = &config.limits;
  absl::Status status = ApplyQueueConfig(config.queues[0], kNoSlot, {}, 0, &seen);
  partition_limits_ = nullptr;
  if (!status.ok()) return status;
  // Configured queues missing from the new config drain, and go once empty (§2.7).
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    Queue& queue = queues_[q];
    if (!queue.alive || seen.contains(q)) continue;
    bool managed_removed = !queue.dynamic;
    for (uint32_t p = queue.parent; p != kNoSlot && !managed_removed; p = queues_[p].parent) {
      if (queues_[p].state == QueueState::kDraining) managed_removed = true;
    }
    if (managed_removed) queue.state = QueueState::kDraining;
  }
  RebuildCaches();
  RemoveDrainedQueues();
  return absl::OkStatus();
}

void Partition::RemoveDrainedQueues() {
  bool removed = true;
  while (removed) {
    removed = false;
    for (uint32_t q = 0; q < queues_.size(); ++q) {
      Queue& queue = queues_[q];
      if (!queue.alive || q == root_) continue;
      bool removable = queue.state == QueueState::kDraining || queue.dynamic;
      if (!removable || !queue.apps.empty()) continue;
      bool has_children = false;
      for (uint32_t c : queue.children) has_children |= queues_[c].alive;
      if (has_children) continue;
      queue.alive = false;
      SetQuotaStart(q, std::nullopt);
      // The path's name may be released now: the index must not keep a view of it.
      queues_by_path_.erase(queue_side_[q].path);
      Queue& parent = queues_[queue.parent];
      if (queue_keys_[q]) {
        parent.order.erase(EntryOf(*queue_keys_[q], /*app=*/false));
        queue_keys_[q].reset();
      }
      auto it = parent.child_priorities.find(queue.priority);
      if (queue.priority != kNoPriority && it != parent.child_priorities.end() &&
          --it->second == 0) {
        parent.child_priorities.erase(it);
      }
      std::erase(parent.children, q);
      QueuePathChanged(queue.parent);
      removed = true;
    }
  }
}

absl::StatusOr<uint32_t> Partition::CreateDynamicQueues(std::string_view path) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(path.data(), path.size()), '.');
  if (parts.empty() || Lower({parts[0].data(), parts[0].size()}) != "root") {
    return absl::InvalidArgumentError(Cat("queue path ", path, " does not start with root"));
  }
  if (parts.size() > static_cast<size_t>(kMaxQueueDepth)) {
    return absl::InvalidArgumentError(Cat("queue path ", path, " has ", parts.size(),
                                          " levels; allocore supports at most ", kMaxQueueDepth,
                                          " (kMaxQueueDepth)"));
  }
  uint32_t q = root_;
  size_t i = 1;
  for (; i < parts.size(); ++i) {
    uint32_t next = kNoSlot;
    std::string lower = Lower({parts[i].data(), parts[i].size()});
    for (uint32_t child : queues_[q].children) {
      if (queues_[child].alive && queue_side_[child].name == lower) next = child;
    }
    if (next == kNoSlot) break;
    q = next;
  }
  if (i == parts.size()) return q;
  if (queues_[q].leaf) {
    return absl::FailedPreconditionError(
        Cat("queue ", queue_side_[q].path, " is a leaf and cannot get child queues"));
  }
  if (queues_[q].state != QueueState::kActive) {
    return absl::FailedPreconditionError(
        Cat("queue ", queue_side_[q].path, " is draining and cannot get new child queues"));
  }
  for (size_t k = i; k < parts.size(); ++k) {
    absl::string_view raw = parts[k];
    if (i == 1 && k == 1 && Lower({raw.data(), raw.size()}) == kRecoveryQueueName) {
      return absl::InvalidArgumentError(
          Cat("'", kRecoveryQueueName, "' is reserved for the recovery queue"));
    }
    const NameCharset charset = context_->profile->name_charset;
    if (!IsValidQueueName({raw.data(), raw.size()}, charset)) {
      return absl::InvalidArgumentError(Cat("'", std::string_view(raw.data(), raw.size()),
                                            "' is not a valid queue name (", QueueNameRule(charset),
                                            ")"));
    }
  }
  for (; i < parts.size(); ++i) {
    uint32_t parent = q;
    q = NewQueue({parts[i].data(), parts[i].size()}, parent, /*dynamic=*/true);
    Queue& queue = queues_[q];
    QueueSide& queue_side = queue_side_[q];
    const QueueSide& up_side = queue_side_[parent];
    queue_side.child_template = up_side.child_template;
    queue.leaf = i + 1 == parts.size();
    if (!queue.leaf) continue;
    if (up_side.child_template) {
      queue_side.properties = up_side.child_template->properties;
      queue.guaranteed = up_side.child_template->guaranteed;
      queue.max = up_side.child_template->max;
      queue.max_apps = up_side.child_template->max_apps;
    } else if (context_->profile->dynamic_leaf_inherits_sort_policy) {
      for (const auto& [key, value] : up_side.properties) {
        if (key == "application.sort.policy") queue_side.properties.emplace_back(key, value);
      }
    }
    const ParsedProperties parsed =
        ParseProperties(queue_side.properties, context_->profile->semantics);
    queue.props = parsed.queue;
    queue_side.backoff = parsed.backoff;
  }
  return q;
}

absl::StatusOr<std::string> Partition::PlaceApplication(
    const AppSpec& spec, std::string_view user, const std::vector<std::string_view>& groups) {
  QueueView view{
      [this](std::string_view p) { return FindQueue(p) != kNoSlot; },
      [this](std::string_view p) {
        uint32_t q = FindQueue(p);
        return q != kNoSlot && queues_[q].leaf;
      },
  };
  PlacementRequest request{spec.queue, user, &groups, &spec.tags};
  const Profile& profile = *context_->profile;
  for (const auto& rule : placement_.rules()) {
    auto placed = PlacementRules::Place(*rule, request, view);
    if (!placed.ok()) {
      return absl::InvalidArgumentError(Cat("failed to place application ", spec.id, " of user ",
                                            user, ": rule '", rule->name,
                                            "': ", placed.status().message()));
    }
    if (placed->queue.empty()) continue;
    uint32_t q = FindQueue(placed->queue);
    if (q == kNoSlot) {
      // Deepest existing ancestor decides the access.
      std::string ancestor = placed->queue;
      while (q == kNoSlot && ancestor.find('.') != std::string::npos) {
        ancestor.resize(ancestor.rfind('.'));
        q = FindQueue(ancestor);
      }
      if (q == kNoSlot || !SubmitAllowed(q, user, groups)) continue;
    } else if (!PlacementTakes(q, user, groups)) {
      continue;
    }
    return Lower(placed->queue);
  }
  if (profile.placement_fallback == PlacementFallback::kRootDefault) {
    // 1.6+: the implicit last rule. Forced applications go to the recovery queue unchecked,
    // the others to root.default when it takes them.
    if (IsCreateForced(spec.tags)) return std::string(kRecoveryQueuePath);
    if (uint32_t q = FindQueue(kDefaultQueuePath);
        q != kNoSlot && PlacementTakes(q, user, groups)) {
      return std::string(kDefaultQueuePath);
    }
  }
  return absl::NotFoundError(Cat("application ", spec.id, " of user ", user,
                                 " rejected: no placement rule matched a queue the user may "
                                 "submit to"));
}

bool Partition::PlacementTakes(uint32_t queue, std::string_view user,
                               const std::vector<std::string_view>& groups) const {
  if (!queues_[queue].leaf || !SubmitAllowed(queue, user, groups)) return false;
  return !(context_->profile->placement_skips_draining &&
           queues_[queue].state == QueueState::kDraining);
}

bool IsCreateForced(const Tags& tags) {
  // Go's strconv.ParseBool of the tag, whose key is matched without case; the first match.
  for (const auto& [key, value] : tags) {
    if (!absl::EqualsIgnoreCase(absl::string_view(key.data(), key.size()),
                                "application.create.force")) {
      continue;
    }
    return value == "1" || value == "t" || value == "T" || value == "true" || value == "TRUE" ||
           value == "True";
  }
  return false;
}

absl::StatusOr<uint32_t> Partition::RecoveryQueue() {
  if (uint32_t q = FindQueue(kRecoveryQueuePath); q != kNoSlot) return q;
  // A dynamic FIFO leaf of the root that no ACL lets anyone submit to; it takes the root's
  // child template's resources but none of its properties (YuniKorn 1.6+ NewRecoveryQueue).
  uint32_t q = NewQueue(kRecoveryQueueName, root_, /*dynamic=*/true);
  Queue& queue = queues_[q];
  const QueueSide& root_side = queue_side_[root_];
  queue.leaf = true;
  if (root_side.child_template) {
    queue.guaranteed = root_side.child_template->guaranteed;
    queue.max = root_side.child_template->max;
    queue.max_apps = root_side.child_template->max_apps;
  }
  queue.props = QueueProperties{};
  return q;
}

bool Partition::SubmitAllowed(uint32_t queue, std::string_view user,
                              const std::vector<std::string_view>& groups) const {
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) {
    if (queue_side_[q].submit_acl.Allows(user, groups) ||
        queue_side_[q].admin_acl.Allows(user, groups)) {
      return true;
    }
  }
  return false;
}

}  // namespace allocore::internal

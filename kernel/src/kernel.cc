// Kernel: the public API over the partitions. Routes calls by partition name, owns the
// logical clock and the shared name/resource-type tables.
#include "allocore/kernel.h"

#include "absl/strings/str_join.h"
#include "allocore/status_macros.h"
#include "api_limits.h"
#include "config_types.h"
#include "field_count.h"
#include "kernel_impl.h"
#include "message.h"
#include "partition.h"

namespace allocore {

using internal::CheckNamesAndResources;
using internal::FieldCount;

namespace {

// An option added to one description of an ask must be added to all of them and to
// CopyAskOptions: AskSpec is the options plus partition, app, id and resources; the handle
// call's arguments and the event are the options plus id and resources.
constexpr size_t kAskOptions = 8;
static_assert(FieldCount<AskSpec>() == kAskOptions + 4);
static_assert(FieldCount<AskArgs>() == kAskOptions + 2);
static_assert(FieldCount<BasicAskArgs<std::string>>() == kAskOptions + 2);

}  // namespace

AskArgs AskArgsOf(const AskSpec& spec, const Resource& resources) {
  AskArgs args{.id = spec.id, .resources = resources};
  CopyAskOptions(spec, args);
  return args;
}

std::string_view DecisionTypeName(DecisionType type) {
  switch (type) {
    case DecisionType::kAllocation:
      return "allocation";
    case DecisionType::kAppRejected:
      return "app_rejected";
    case DecisionType::kAppState:
      return "app_state";
    case DecisionType::kRelease:
      return "release";
    case DecisionType::kAskRemoved:
      return "ask_removed";
    case DecisionType::kPreemption:
      return "preemption";
    case DecisionType::kRecovered:
      return "recovered";
    case DecisionType::kQuotaPreemption:
      return "quota_preemption";
  }
  return "?";
}

std::string_view ReleaseReasonName(ReleaseReason reason) {
  switch (reason) {
    case ReleaseReason::kReleased:
      return "released";
    case ReleaseReason::kRemoved:
      return "removed";
    case ReleaseReason::kReplaced:
      return "replaced";
    case ReleaseReason::kPreempted:
      return "preempted";
    case ReleaseReason::kTimeout:
      return "timeout";
    case ReleaseReason::kQuota:
      return "quota";
  }
  return "released";
}

std::string_view AppStateName(AppState state) {
  switch (state) {
    case AppState::kNew:
      return "New";
    case AppState::kAccepted:
      return "Accepted";
    case AppState::kStarting:
      return "Starting";
    case AppState::kRunning:
      return "Running";
    case AppState::kCompleting:
      return "Completing";
    case AppState::kCompleted:
      return "Completed";
    case AppState::kFailing:
      return "Failing";
    case AppState::kFailed:
      return "Failed";
    case AppState::kRejected:
      return "Rejected";
    case AppState::kExpired:
      return "Expired";
    case AppState::kResuming:
      return "Resuming";
  }
  return "New";
}

namespace {

absl::Status ValidationStatus(SchedulerConfig& config, Semantics semantics) {
  std::vector<ConfigError> errors = ValidateConfig(config, semantics);
  std::vector<std::string> messages;
  for (const ConfigError& e : errors) {
    if (!e.warning) messages.push_back(e.ToString(config.source_name));
  }
  if (messages.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(messages, "\n"));
}

}  // namespace

Kernel::Kernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Kernel::~Kernel() = default;

absl::StatusOr<std::unique_ptr<Kernel>> Kernel::Create(SchedulerConfig config,
                                                       KernelOptions options) {
  if (options.max_applications < 0 || options.max_asks < 0 || options.max_live_allocations < 0) {
    return absl::InvalidArgumentError("KernelOptions: a budget must not be negative (0: no cap)");
  }
  if (options.semantics != Semantics::kYunikorn12 && options.semantics != Semantics::kYunikorn19) {
    return absl::InvalidArgumentError(
        Cat("KernelOptions: unknown semantics profile (known: ", SemanticsNames(), ")"));
  }
  if (config.partitions.empty()) config = DefaultSchedulerConfig();
  absl::Status valid = ValidationStatus(config, options.semantics);
  if (!valid.ok()) return valid;
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->context.profile = &internal::ProfileFor(options.semantics);
  // Type ids fix the order resources are printed in. A first partition that sorts nodes by the
  // default weights starts the registry with their types, vcore then memory, unless the config
  // needs those slots for types of its own (the weights then wait for their types).
  if (config.partitions[0].node_sort_policy.resource_weights.empty()) {
    (void)impl->context.types.Intern("vcore");
    (void)impl->context.types.Intern("memory");
  }
  absl::Status types = internal::ProbeConfigTypes(config, impl->context.types);
  if (!types.ok() && impl->context.types.size() > 0) {
    impl->context.types = ResourceTypes();
    types = internal::ProbeConfigTypes(config, impl->context.types);
  }
  if (!types.ok()) return types;
  std::vector<Decision> ignored;
  for (const PartitionConfig& pc : config.partitions) {
    auto partition = std::make_unique<Partition>(&impl->context, pc.name);
    absl::Status status = partition->ApplyConfig(pc, /*dry_run=*/true, &ignored);
    if (status.ok()) status = partition->ApplyConfig(pc, /*dry_run=*/false, &ignored);
    if (!status.ok()) return status;
    partition->set_index(static_cast<uint32_t>(impl->partitions.size()));
    impl->partitions.push_back(std::move(partition));
  }
  return std::unique_ptr<Kernel>(new Kernel(std::move(impl)));
}

absl::Status Kernel::UpdateConfig(SchedulerConfig config, std::vector<Decision>* out) {
  if (config.partitions.empty()) config = DefaultSchedulerConfig();
  absl::Status valid = ValidationStatus(config, impl_->options.semantics);
  if (!valid.ok()) return valid;
  // The reload is applied whole or not at all: everything that can fail is tried first. The
  // type registry is shared by the partitions, so it is probed for the whole config at once.
  absl::Status types = internal::ProbeConfigTypes(config, impl_->context.types);
  if (!types.ok()) return types;
  std::vector<Decision> ignored;
  std::vector<std::unique_ptr<Partition>> created;
  for (const PartitionConfig& pc : config.partitions) {
    Partition* target = impl_->Find(pc.name);
    if (target == nullptr) {
      target = created.emplace_back(std::make_unique<Partition>(&impl_->context, pc.name)).get();
    }
    absl::Status status = target->ApplyConfig(pc, /*dry_run=*/true, &ignored);
    if (!status.ok()) {
      return absl::FailedPreconditionError(Cat("partition ", pc.name, ": ", status.message()));
    }
  }
  for (const PartitionConfig& pc : config.partitions) {
    Partition* target = impl_->Find(pc.name);
    for (auto& fresh : created) {
      if (target == nullptr && fresh->name() == pc.name) target = fresh.get();
    }
    absl::Status status = target->ApplyConfig(pc, /*dry_run=*/false, out);
    // Not expected after the dry run; the partitions stay in place, never half moved.
    if (!status.ok()) return status;
  }
  std::vector<std::unique_ptr<Partition>> next;
  for (const PartitionConfig& pc : config.partitions) {
    for (auto* pool : {&impl_->partitions, &created}) {
      for (auto& p : *pool) {
        if (p && p->name() == pc.name) next.push_back(std::move(p));
      }
    }
  }
  for (auto& removed : impl_->partitions) {
    if (removed) removed->Shutdown(out);
  }
  impl_->partitions = std::move(next);
  for (size_t i = 0; i < impl_->partitions.size(); ++i) {
    impl_->partitions[i]->set_index(static_cast<uint32_t>(i));
  }
  return absl::OkStatus();
}

absl::Status Kernel::AddNode(const NodeSpec& node, std::vector<Decision>* out) {
  ALLOCORE_RETURN_IF_ERROR(internal::CheckNodeSpec(node));
  auto p = impl_->Require(node.partition, "add_node");
  if (!p.ok()) return p.status();
  return (*p)->AddNode(node, out);
}

absl::Status Kernel::UpdateNode(const NodeUpdate& update, std::vector<Decision>* out) {
  ALLOCORE_RETURN_IF_ERROR(internal::CheckNodeUpdate(update));
  auto p = impl_->Require(update.partition, "update_node");
  if (!p.ok()) return p.status();
  return (*p)->UpdateNode(update, out);
}

absl::Status Kernel::RemoveNode(std::string_view partition, std::string_view id,
                                std::vector<Decision>* out) {
  if (absl::Status limit = internal::CheckNameLengths("remove_node", {{"node id", id}});
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(partition, "remove_node");
  if (!p.ok()) return p.status();
  return (*p)->RemoveNode(id, out);
}

absl::Status Kernel::AddApplication(const AppSpec& app, std::vector<Decision>* out) {
  ALLOCORE_RETURN_IF_ERROR(internal::CheckAppSpec(app));
  auto p = impl_->Require(app.partition, "add_app");
  if (!p.ok()) return p.status();
  // A rejection is remembered as a record too, so the budget applies to every call.
  if (absl::Status budget =
          Impl::Budget("add_app", impl_->usage().applications, impl_->options.max_applications,
                       "applications", "max_applications");
      !budget.ok()) {
    return budget;
  }
  return (*p)->AddApplication(app, out);
}

absl::Status Kernel::RemoveApplication(std::string_view partition, std::string_view id,
                                       std::vector<Decision>* out) {
  if (absl::Status limit = internal::CheckNameLengths("remove_app", {{"application id", id}});
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(partition, "remove_app");
  if (!p.ok()) return p.status();
  return (*p)->RemoveApplication(id, out);
}

absl::Status Kernel::AddAsk(const AskSpec& ask, std::vector<Decision>* out) {
  ALLOCORE_RETURN_IF_ERROR(internal::CheckAskSpec(ask));
  auto p = impl_->Require(ask.partition, "add_ask");
  if (!p.ok()) return p.status();
  // An ask added again under its key replaces the old one and takes no new record.
  if (impl_->options.max_asks > 0 && !(*p)->HasAsk(ask.app, ask.id)) {
    if (absl::Status budget = Impl::Budget("add_ask", impl_->usage().asks, impl_->options.max_asks,
                                           "asks", "max_asks");
        !budget.ok()) {
      return budget;
    }
  }
  return (*p)->AddAsk(ask, out);
}

absl::Status Kernel::RemoveAsk(std::string_view partition, std::string_view app,
                               std::string_view ask, std::vector<Decision>* out) {
  if (absl::Status limit =
          internal::CheckNameLengths("remove_ask", {{"application id", app}, {"ask id", ask}});
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(partition, "remove_ask");
  if (!p.ok()) return p.status();
  return (*p)->RemoveAsk(app, ask, out);
}

absl::Status Kernel::ReleaseAllocation(std::string_view partition, std::string_view app,
                                       std::string_view ask, std::string_view node,
                                       std::vector<Decision>* out) {
  return ReleaseAllocation(partition, app, ask, node, /*seq=*/0, out);
}

absl::Status Kernel::ReleaseAllocation(std::string_view partition, std::string_view app,
                                       std::string_view ask, std::string_view node, int64_t seq,
                                       std::vector<Decision>* out) {
  if (seq < 0) return absl::InvalidArgumentError(Cat("release: seq ", seq, " is negative"));
  if (absl::Status limit = internal::CheckNameLengths(
          "release", {{"application id", app}, {"ask id", ask}, {"node id", node}});
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(partition, "release");
  if (!p.ok()) return p.status();
  return (*p)->ReleaseAllocation(app, ask, node, seq, out);
}

absl::Status Kernel::RecoverAllocation(const RecoverSpec& spec, std::vector<Decision>* out) {
  constexpr std::string_view kCall = "recover_allocation";
  ALLOCORE_RETURN_IF_ERROR(internal::CheckAskSpec(spec.ask, kCall));
  if (absl::Status limit = internal::CheckNameLengths(kCall, {{"node id", spec.node}});
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(spec.ask.partition, kCall);
  if (!p.ok()) return p.status();
  // A recovered allocation is a live allocation (and, for a new id, an ask record).
  if (absl::Status budget =
          Impl::Budget(kCall, impl_->usage().live_allocations, impl_->options.max_live_allocations,
                       "live allocations", "max_live_allocations");
      !budget.ok()) {
    return budget;
  }
  if (impl_->options.max_asks > 0 && !(*p)->HasAsk(spec.ask.app, spec.ask.id)) {
    if (absl::Status budget =
            Impl::Budget(kCall, impl_->usage().asks, impl_->options.max_asks, "asks", "max_asks");
        !budget.ok()) {
      return budget;
    }
  }
  return (*p)->RecoverAllocation(spec, out);
}

absl::Status Kernel::UpdateAllocation(const AllocationUpdate& update, std::vector<Decision>* out) {
  constexpr std::string_view kCall = "update_allocation";
  if (absl::Status limit = CheckNamesAndResources(kCall,
                                                  {{"partition", update.partition},
                                                   {"application id", update.app},
                                                   {"ask id", update.ask},
                                                   {"node id", update.node}},
                                                  update.resources);
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(update.partition, kCall);
  if (!p.ok()) return p.status();
  return (*p)->UpdateAllocation(update, out);
}

absl::Status Kernel::UpdateAsk(const AskUpdate& update, std::vector<Decision>* out) {
  constexpr std::string_view kCall = "update_ask";
  if (absl::Status limit = CheckNamesAndResources(
          kCall,
          {{"partition", update.partition}, {"application id", update.app}, {"ask id", update.id}},
          update.resources);
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(update.partition, kCall);
  if (!p.ok()) return p.status();
  return (*p)->UpdateAsk(update, out);
}

absl::Status Kernel::AddForeignAllocation(const ForeignAllocationSpec& spec,
                                          std::vector<Decision>* out) {
  constexpr std::string_view kCall = "add_foreign";
  if (absl::Status limit = CheckNamesAndResources(
          kCall, {{"partition", spec.partition}, {"foreign id", spec.id}, {"node id", spec.node}},
          spec.resources);
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(spec.partition, kCall);
  if (!p.ok()) return p.status();
  return (*p)->AddForeignAllocation(spec, out);
}

absl::Status Kernel::UpdateForeignAllocation(const ForeignAllocationUpdate& update,
                                             std::vector<Decision>* out) {
  constexpr std::string_view kCall = "update_foreign";
  if (absl::Status limit = CheckNamesAndResources(
          kCall,
          {{"partition", update.partition}, {"foreign id", update.id}, {"node id", update.node}},
          update.resources);
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(update.partition, kCall);
  if (!p.ok()) return p.status();
  return (*p)->UpdateForeignAllocation(update, out);
}

absl::Status Kernel::RemoveForeignAllocation(std::string_view partition, std::string_view id,
                                             std::vector<Decision>* out) {
  constexpr std::string_view kCall = "remove_foreign";
  if (absl::Status limit =
          internal::CheckNameLengths(kCall, {{"partition", partition}, {"foreign id", id}});
      !limit.ok()) {
    return limit;
  }
  auto p = impl_->Require(partition, kCall);
  if (!p.ok()) return p.status();
  return (*p)->RemoveForeignAllocation(id, out);
}

absl::Status Kernel::Advance(int64_t millis, std::vector<Decision>* out) {
  if (millis < 0) {
    return absl::InvalidArgumentError(
        Cat("advance: the clock only moves forward, got ", millis, " ms"));
  }
  if (impl_->context.now > std::numeric_limits<int64_t>::max() - millis) {
    return absl::OutOfRangeError("advance: the logical clock would overflow");
  }
  const int64_t to = impl_->context.now + millis;
  impl_->context.now = to;
  // Timers of all partitions fire in one global (due, start order) sequence, interleaved by
  // time with the quota-change preemption checks (yunikorn-1.9) of the whole seconds crossed;
  // a timer due at a check's time fires first. Checks that would change nothing are skipped.
  int64_t checked_through = to - millis;
  for (;;) {
    Partition* next = nullptr;
    std::pair<int64_t, int64_t> best;
    std::optional<int64_t> check;
    for (auto& p : impl_->partitions) {
      auto timer = p->NextTimer();
      if (timer && timer->first <= to && (next == nullptr || *timer < best)) {
        next = p.get();
        best = *timer;
      }
      auto at = p->NextQuotaCheck(checked_through);
      if (at && *at <= to && *at > checked_through && (!check || *at < *check)) check = at;
    }
    if (next != nullptr && (!check || best.first <= *check)) {
      next->FireNextTimer(out);
      continue;
    }
    if (!check) break;
    impl_->context.now = *check;
    for (auto& p : impl_->partitions) p->QuotaCheck(out);
    impl_->context.now = to;
    checked_through = *check;
  }
  return absl::OkStatus();
}

int64_t Kernel::now_millis() const { return impl_->context.now; }

int64_t Kernel::ReleaseUnusedNames() {
  internal::NameMarks marks;
  impl_->context.MarkNames(&marks);
  for (const auto& p : impl_->partitions) p->MarkNames(&marks);
  return static_cast<int64_t>(impl_->context.names.ReleaseUnmarked(marks));
}

int64_t Kernel::name_count() const { return static_cast<int64_t>(impl_->context.names.size()); }

absl::StatusOr<int64_t> Kernel::Schedule(int64_t max, std::string_view partition,
                                         std::vector<Decision>* out) {
  // One partition, or all of them in config order (no list is built: Schedule does not
  // allocate).
  Partition* only = nullptr;
  if (!partition.empty()) {
    auto p = impl_->Require(partition, "schedule");
    if (!p.ok()) return p.status();
    only = *p;
  }
  const size_t targets = only != nullptr ? 1 : impl_->partitions.size();
  int64_t allocations = 0;
  bool changed = true;
  while (changed && (max <= 0 || allocations < max)) {
    changed = false;
    for (size_t i = 0; i < targets; ++i) {
      Partition* p = only != nullptr ? only : impl_->partitions[i].get();
      if (max > 0 && allocations >= max) break;
      // A cycle allocates at most once, so checking before each keeps the budget exact.
      if (impl_->AllocationBudgetFull()) return allocations;
      auto [made, cycle_changed] = p->Cycle(out);
      allocations += made;
      changed |= cycle_changed;
      // Timers that became due at once (stateaware disabled) fire between cycles.
      p->FireTimers(out);
    }
  }
  return allocations;
}

std::vector<std::string> Kernel::PartitionNames() const {
  std::vector<std::string> names;
  for (const auto& p : impl_->partitions) names.emplace_back(p->name());
  return names;
}

absl::StatusOr<std::vector<QueueInfo>> Kernel::ListQueues(std::string_view partition) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  return p->ListQueues();
}

absl::StatusOr<std::vector<NodeInfo>> Kernel::ListNodes(std::string_view partition) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  return p->ListNodes();
}

absl::StatusOr<std::vector<AppInfo>> Kernel::ListApplications(std::string_view partition) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  return p->ListApplications();
}

absl::StatusOr<std::vector<AllocationInfo>> Kernel::ListAllocations(std::string_view partition,
                                                                    std::string_view app,
                                                                    std::string_view node) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  return p->ListAllocations(app, node);
}

absl::StatusOr<QueueInfo> Kernel::GetQueue(std::string_view partition,
                                           std::string_view path) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  return p->GetQueue(path);
}

absl::StatusOr<AppInfo> Kernel::GetApplication(std::string_view partition,
                                               std::string_view id) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  return p->GetApplication(id);
}

namespace {
// Schedule stops before any partition's walk when the budget is full: that is the reason,
// whatever else holds.
void PrefixBudgetReason(const Kernel::Impl& impl, PendingExplanation& e) {
  e.reason = Cat("the kernel's live allocation budget is full (", impl.usage().live_allocations,
                 " live allocations, "
                 "KernelOptions::max_live_allocations = ",
                 impl.options.max_live_allocations, "); ", e.reason);
}
}  // namespace

std::vector<PendingExplanation> Kernel::ExplainPending() const {
  std::vector<PendingExplanation> out;
  for (const auto& p : impl_->partitions) p->ExplainPending(&out);
  if (impl_->AllocationBudgetFull()) {
    for (PendingExplanation& e : out) PrefixBudgetReason(*impl_, e);
  }
  return out;
}

absl::StatusOr<PendingExplanation> Kernel::ExplainAsk(std::string_view partition,
                                                      std::string_view app,
                                                      std::string_view ask) const {
  const Partition* p = impl_->Find(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  absl::StatusOr<PendingExplanation> e = p->ExplainAsk(app, ask);
  if (e.ok() && impl_->AllocationBudgetFull()) PrefixBudgetReason(*impl_, *e);
  return e;
}

Kernel::Usage Kernel::usage() const { return impl_->usage(); }
const KernelOptions& Kernel::options() const { return impl_->options; }

bool Kernel::allocation_budget_blocks() const {
  if (!impl_->AllocationBudgetFull()) return false;
  for (const auto& p : impl_->partitions) {
    if (p->HasPending()) return true;
  }
  return false;
}

const ResourceTypes& Kernel::resource_types() const { return impl_->context.types; }

absl::Status Kernel::CheckConsistency() const {
  for (const auto& p : impl_->partitions) {
    absl::Status status = p->CheckConsistency();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace allocore

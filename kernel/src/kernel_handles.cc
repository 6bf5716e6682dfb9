// Kernel's calls by handle (allocore/handles.h): the same rules as the calls by name, reached
// through a slot and a generation instead of a lookup by id.
#include "allocore/kernel.h"
#include "allocore/status_macros.h"
#include "kernel_impl.h"

namespace allocore {

using internal::CheckNamesAndResources;

// --- handles ---------------------------------------------------------------------------------

namespace {

absl::Status Stale(std::string_view what, std::string_view entity) {
  return absl::FailedPreconditionError(
      Cat(what, ": stale ", entity, " handle (the ", entity, " it named is gone)"));
}

}  // namespace

absl::StatusOr<PartitionHandle> Kernel::FindPartition(std::string_view name) const {
  for (size_t i = 0; i < impl_->partitions.size(); ++i) {
    if (impl_->partitions[i]->name() == name) {
      return impl_->partitions[i]->handle();
    }
  }
  return absl::NotFoundError(Cat("unknown partition ", name));
}

absl::StatusOr<AppHandle> Kernel::FindApplication(PartitionHandle partition,
                                                  std::string_view id) const {
  auto p = impl_->Resolve(partition, "find_app");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->FindApp(id);
  if (slot == kNoSlot) return absl::NotFoundError(Cat("unknown application ", id));
  return (*p)->AppHandleOf(slot);
}

absl::StatusOr<AskHandle> Kernel::FindAsk(AppHandle app, std::string_view id) const {
  auto p = impl_->Resolve(app.partition, "find_ask");
  if (!p.ok()) return p.status();
  uint32_t app_slot = (*p)->LiveApp(app.slot, app.generation);
  if (app_slot == kNoSlot) return Stale("find_ask", "application");
  uint32_t slot = (*p)->FindAsk(app_slot, id);
  if (slot == kNoSlot || (*p)->LiveAsk(slot, (*p)->AskGeneration(slot)) == kNoSlot) {
    return absl::NotFoundError(Cat("the application has no ask ", id));
  }
  return (*p)->AskHandleOf(slot);
}

absl::StatusOr<NodeHandle> Kernel::FindNode(PartitionHandle partition, std::string_view id) const {
  auto p = impl_->Resolve(partition, "find_node");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->FindNode(id);
  if (slot == kNoSlot) return absl::NotFoundError(Cat("unknown node ", id));
  return (*p)->NodeHandleOf(slot);
}

absl::StatusOr<QueueHandle> Kernel::FindQueue(PartitionHandle partition,
                                              std::string_view path) const {
  auto p = impl_->Resolve(partition, "find_queue");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->FindQueueSlot(path);
  if (slot == kNoSlot) return absl::NotFoundError(Cat("unknown queue ", path));
  return QueueHandle{.partition = (*p)->handle(), .slot = slot, .generation = 0};
}

absl::StatusOr<QueueInfo> Kernel::GetQueue(QueueHandle queue) const {
  auto p = impl_->Resolve(queue.partition, "get_queue");
  if (!p.ok()) return p.status();
  std::optional<QueueInfo> info =
      queue.generation == 0 ? (*p)->LiveQueueInfo(queue.slot) : std::nullopt;
  if (!info) return Stale("get_queue", "queue");
  return *std::move(info);
}

absl::StatusOr<NodeInfo> Kernel::GetNode(NodeHandle node) const {
  auto p = impl_->Resolve(node.partition, "get_node");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveNode(node.slot, node.generation);
  if (slot == kNoSlot) return Stale("get_node", "node");
  return (*p)->NodeInfoOf(slot);
}

absl::StatusOr<HandleNames> Kernel::NamesOf(AppHandle app) const {
  auto p = impl_->Resolve(app.partition, "names_of");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveApp(app.slot, app.generation);
  if (slot == kNoSlot) return Stale("names_of", "application");
  return HandleNames{.partition = (*p)->name(), .app = {}, .id = (*p)->AppId(slot)};
}

absl::StatusOr<HandleNames> Kernel::NamesOf(AskHandle ask) const {
  auto p = impl_->Resolve(ask.partition, "names_of");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveAsk(ask.slot, ask.generation);
  if (slot == kNoSlot) return Stale("names_of", "ask");
  return HandleNames{
      .partition = (*p)->name(), .app = (*p)->AppId((*p)->AskApp(slot)), .id = (*p)->AskId(slot)};
}

absl::StatusOr<HandleNames> Kernel::NamesOf(NodeHandle node) const {
  auto p = impl_->Resolve(node.partition, "names_of");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveNode(node.slot, node.generation);
  if (slot == kNoSlot) return Stale("names_of", "node");
  return HandleNames{.partition = (*p)->name(), .app = {}, .id = (*p)->NodeId(slot)};
}

absl::StatusOr<int> Kernel::ResourceTypeId(std::string_view name) {
  if (absl::Status limit =
          internal::CheckNameLengths("resource_type_id", {{"resource type", name}});
      !limit.ok()) {
    return limit;
  }
  return impl_->context.types.Intern(name);
}

absl::StatusOr<AskHandle> Kernel::AddAsk(AppHandle app, const AskArgs& ask,
                                         std::vector<Decision>* out) {
  auto p = impl_->Resolve(app.partition, "add_ask");
  if (!p.ok()) return p.status();
  uint32_t app_slot = (*p)->LiveApp(app.slot, app.generation);
  if (app_slot == kNoSlot) return Stale("add_ask", "application");
  if (absl::Status limit =
          internal::CheckAskFields("add_ask", ask.id, ask.task_group, ask.required_node, ask.count);
      !limit.ok()) {
    return limit;
  }
  if ((*p)->FindAsk(app_slot, ask.id) == kNoSlot) {
    if (absl::Status budget = Impl::Budget("add_ask", impl_->usage().asks, impl_->options.max_asks,
                                           "asks", "max_asks");
        !budget.ok()) {
      return budget;
    }
  }
  absl::StatusOr<uint32_t> slot = (*p)->AddAskTo(app_slot, ask, out);
  if (!slot.ok()) return slot.status();
  return (*p)->AskHandleOf(*slot);
}

absl::Status Kernel::RecoverAllocation(AppHandle app, const AskArgs& ask, NodeHandle node,
                                       std::vector<Decision>* out) {
  constexpr std::string_view kCall = "recover_allocation";
  auto p = impl_->Resolve(app.partition, kCall);
  if (!p.ok()) return p.status();
  uint32_t app_slot = (*p)->LiveApp(app.slot, app.generation);
  if (app_slot == kNoSlot) return Stale(kCall, "application");
  if (node.partition.serial != app.partition.serial) {
    return absl::InvalidArgumentError(
        Cat(kCall, ": the node handle is of another partition than the application's"));
  }
  uint32_t node_slot = (*p)->LiveNode(node.slot, node.generation);
  if (node_slot == kNoSlot) return Stale(kCall, "node");
  if (absl::Status limit =
          internal::CheckAskFields(kCall, ask.id, ask.task_group, ask.required_node, ask.count);
      !limit.ok()) {
    return limit;
  }
  if (absl::Status budget =
          Impl::Budget(kCall, impl_->usage().live_allocations, impl_->options.max_live_allocations,
                       "live allocations", "max_live_allocations");
      !budget.ok()) {
    return budget;
  }
  if (impl_->options.max_asks > 0 && (*p)->FindAsk(app_slot, ask.id) == kNoSlot) {
    if (absl::Status budget =
            Impl::Budget(kCall, impl_->usage().asks, impl_->options.max_asks, "asks", "max_asks");
        !budget.ok()) {
      return budget;
    }
  }
  return (*p)->RecoverAllocationAt(app_slot, ask, node_slot, out);
}

absl::Status Kernel::UpdateAllocation(AskHandle ask, NodeHandle node, const Resource& resources,
                                      std::vector<Decision>* out) {
  constexpr std::string_view kCall = "update_allocation";
  auto p = impl_->Resolve(ask.partition, kCall);
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveAsk(ask.slot, ask.generation);
  if (slot == kNoSlot) return Stale(kCall, "ask");
  uint32_t node_slot = kNoSlot;
  if (node.valid()) {
    if (node.partition.serial != ask.partition.serial) {
      return absl::InvalidArgumentError(Cat(kCall, ": the node handle is of another partition"));
    }
    node_slot = (*p)->LiveNode(node.slot, node.generation);
    if (node_slot == kNoSlot) return Stale(kCall, "node");
  }
  return (*p)->UpdateAllocationAt(slot, node_slot, resources, out);
}

absl::Status Kernel::UpdateAsk(AskHandle ask, const Resource& resources,
                               std::vector<Decision>* out) {
  constexpr std::string_view kCall = "update_ask";
  auto p = impl_->Resolve(ask.partition, kCall);
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveAsk(ask.slot, ask.generation);
  if (slot == kNoSlot) return Stale(kCall, "ask");
  return (*p)->UpdateAskAt(slot, resources, out);
}

absl::Status Kernel::AddForeignAllocation(NodeHandle node, std::string_view id,
                                          const Resource& resources, ForeignKind kind,
                                          std::vector<Decision>* out) {
  constexpr std::string_view kCall = "add_foreign";
  ALLOCORE_RETURN_IF_ERROR(internal::CheckNameLengths(kCall, {{"foreign id", id}}));
  auto p = impl_->Resolve(node.partition, kCall);
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveNode(node.slot, node.generation);
  if (slot == kNoSlot) return Stale(kCall, "node");
  return (*p)->AddForeignAllocationAt(slot, id, resources, kind, out);
}

absl::Status Kernel::RemoveAsk(AskHandle ask, std::vector<Decision>* out) {
  auto p = impl_->Resolve(ask.partition, "remove_ask");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveAsk(ask.slot, ask.generation);
  if (slot == kNoSlot) return Stale("remove_ask", "ask");
  return (*p)->RemoveAskAt(slot, out);
}

absl::Status Kernel::ReleaseAllocation(AskHandle ask, NodeHandle node, std::vector<Decision>* out) {
  return ReleaseAllocation(ask, node, /*seq=*/0, out);
}

absl::Status Kernel::ReleaseAllocation(AskHandle ask, NodeHandle node, int64_t seq,
                                       std::vector<Decision>* out) {
  if (seq < 0) return absl::InvalidArgumentError(Cat("release: seq ", seq, " is negative"));
  auto p = impl_->Resolve(ask.partition, "release");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveAsk(ask.slot, ask.generation);
  if (slot == kNoSlot) return Stale("release", "ask");
  uint32_t node_slot = kNoSlot;
  if (node.valid()) {
    if (node.partition.serial != ask.partition.serial) {
      return absl::InvalidArgumentError("release: the node handle is of another partition");
    }
    node_slot = (*p)->LiveNode(node.slot, node.generation);
    if (node_slot == kNoSlot) return Stale("release", "node");
  }
  return (*p)->ReleaseAllocationAt(slot, node_slot, "", seq, out);
}

absl::Status Kernel::RemoveApplication(AppHandle app, std::vector<Decision>* out) {
  auto p = impl_->Resolve(app.partition, "remove_app");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveApp(app.slot, app.generation);
  if (slot == kNoSlot) return Stale("remove_app", "application");
  (*p)->RemoveApplicationAt(slot, out);
  return absl::OkStatus();
}

absl::Status Kernel::RemoveNode(NodeHandle node, std::vector<Decision>* out) {
  auto p = impl_->Resolve(node.partition, "remove_node");
  if (!p.ok()) return p.status();
  uint32_t slot = (*p)->LiveNode(node.slot, node.generation);
  if (slot == kNoSlot) return Stale("remove_node", "node");
  (*p)->RemoveNodeAt(slot, out);
  return absl::OkStatus();
}

absl::StatusOr<ProbeResult> Kernel::Probe(const AskSpec& ask) const {
  ALLOCORE_RETURN_IF_ERROR(internal::CheckAskSpec(ask, "probe"));
  const Partition* p = impl_->Find(ask.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", ask.partition));
  absl::StatusOr<ProbeResult> result = p->Probe(ask);
  // Schedule stops before any partition's walk when the budget is full (as ExplainPending).
  if (result.ok() && impl_->AllocationBudgetFull()) {
    result->reason =
        Cat("the kernel's live allocation budget is full (", impl_->usage().live_allocations,
            " live allocations, KernelOptions::max_live_allocations = ",
            impl_->options.max_live_allocations, ")", result->reason.empty() ? "" : "; ",
            result->reason);
    result->node.clear();
  }
  return result;
}

}  // namespace allocore

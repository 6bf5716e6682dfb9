// allocore::Event applied to the reference model, call for call as the kernel applies it.
#include <type_traits>
#include <variant>

#include "reference/reference_model.h"

namespace allocore::reference {

absl::Status ApplyEvent(ReferenceModel& model, const Event& event, std::vector<RefDecision>* out,
                        int64_t* allocations) {
  if (allocations != nullptr) *allocations = 0;
  return std::visit(
      [&](const auto& e) -> absl::Status {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, NodeSpec>) {
          return model.AddNode(e, out);
        } else if constexpr (std::is_same_v<T, NodeUpdate>) {
          return model.UpdateNode(e, out);
        } else if constexpr (std::is_same_v<T, RemoveNodeEvent>) {
          return model.RemoveNode(e.partition, e.id, out);
        } else if constexpr (std::is_same_v<T, AppSpec>) {
          return model.AddApplication(e, out);
        } else if constexpr (std::is_same_v<T, RemoveApplicationEvent>) {
          return model.RemoveApplication(e.partition, e.id, out);
        } else if constexpr (std::is_same_v<T, AskSpec>) {
          return model.AddAsk(e, out);
        } else if constexpr (std::is_same_v<T, RemoveAskEvent>) {
          return model.RemoveAsk(e.partition, e.app, e.ask, out);
        } else if constexpr (std::is_same_v<T, ReleaseEvent>) {
          return model.ReleaseAllocation(e.partition, e.app, e.ask, e.node, e.seq, out);
        } else if constexpr (std::is_same_v<T, AdvanceEvent>) {
          return model.Advance(e.millis, out);
        } else if constexpr (std::is_same_v<T, ScheduleEvent>) {
          absl::StatusOr<int64_t> made = model.Schedule(e.max, e.partition, out);
          if (made.ok() && allocations != nullptr) *allocations = *made;
          return made.status();
        } else if constexpr (std::is_same_v<T, RecoverSpec>) {
          return model.RecoverAllocation(e, out);
        } else if constexpr (std::is_same_v<T, AllocationUpdate>) {
          return model.UpdateAllocation(e, out);
        } else if constexpr (std::is_same_v<T, AskUpdate>) {
          return model.UpdateAsk(e, out);
        } else if constexpr (std::is_same_v<T, ForeignAllocationSpec>) {
          return model.AddForeignAllocation(e, out);
        } else if constexpr (std::is_same_v<T, ForeignAllocationUpdate>) {
          return model.UpdateForeignAllocation(e, out);
        } else if constexpr (std::is_same_v<T, RemoveForeignAllocationEvent>) {
          return model.RemoveForeignAllocation(e.partition, e.id, out);
        } else if constexpr (std::is_same_v<T, UpdateConfigEvent>) {
          return absl::UnimplementedError("the reference model has no UpdateConfig");
        } else {
          // AddAskByHandleEvent, RemoveAskByHandleEvent, ...: the model knows names only.
          return absl::UnimplementedError("the reference model has no handles");
        }
      },
      event);
}

}  // namespace allocore::reference

// Events as values (allocore/events.h): each one is the Kernel call it names.
#include "allocore/events.h"

#include <type_traits>

namespace allocore {

absl::Status ApplyEvent(Kernel& kernel, const NodeSpec& e, std::vector<Decision>* out) {
  return kernel.AddNode(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const NodeUpdate& e, std::vector<Decision>* out) {
  return kernel.UpdateNode(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveNodeEvent& e, std::vector<Decision>* out) {
  return kernel.RemoveNode(e.partition, e.id, out);
}
absl::Status ApplyEvent(Kernel& kernel, const AppSpec& e, std::vector<Decision>* out) {
  return kernel.AddApplication(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveApplicationEvent& e,
                        std::vector<Decision>* out) {
  return kernel.RemoveApplication(e.partition, e.id, out);
}
absl::Status ApplyEvent(Kernel& kernel, const AskSpec& e, std::vector<Decision>* out) {
  return kernel.AddAsk(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveAskEvent& e, std::vector<Decision>* out) {
  return kernel.RemoveAsk(e.partition, e.app, e.ask, out);
}
absl::Status ApplyEvent(Kernel& kernel, const ReleaseEvent& e, std::vector<Decision>* out) {
  return kernel.ReleaseAllocation(e.partition, e.app, e.ask, e.node, e.seq, out);
}
absl::Status ApplyEvent(Kernel& kernel, const AdvanceEvent& e, std::vector<Decision>* out) {
  return kernel.Advance(e.millis, out);
}
absl::Status ApplyEvent(Kernel& kernel, const ScheduleEvent& e, std::vector<Decision>* out,
                        int64_t* allocations) {
  absl::StatusOr<int64_t> made = kernel.Schedule(e.max, e.partition, out);
  if (allocations != nullptr) *allocations = made.ok() ? *made : 0;
  return made.status();
}
absl::Status ApplyEvent(Kernel& kernel, const UpdateConfigEvent& e, std::vector<Decision>* out) {
  return kernel.UpdateConfig(e.config, out);
}
absl::Status ApplyEvent(Kernel& kernel, const AddAskByHandleEvent& e, std::vector<Decision>* out) {
  AskArgs args{.id = e.ask.id, .resources = e.ask.resources};
  CopyAskOptions(e.ask, args);
  return kernel.AddAsk(e.app, args, out).status();
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveAskByHandleEvent& e,
                        std::vector<Decision>* out) {
  return kernel.RemoveAsk(e.ask, out);
}
absl::Status ApplyEvent(Kernel& kernel, const ReleaseByHandleEvent& e, std::vector<Decision>* out) {
  return kernel.ReleaseAllocation(e.ask, e.node, e.seq, out);
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveApplicationByHandleEvent& e,
                        std::vector<Decision>* out) {
  return kernel.RemoveApplication(e.app, out);
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveNodeByHandleEvent& e,
                        std::vector<Decision>* out) {
  return kernel.RemoveNode(e.node, out);
}

absl::Status ApplyEvent(Kernel& kernel, const RecoverSpec& e, std::vector<Decision>* out) {
  return kernel.RecoverAllocation(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const AllocationUpdate& e, std::vector<Decision>* out) {
  return kernel.UpdateAllocation(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const AskUpdate& e, std::vector<Decision>* out) {
  return kernel.UpdateAsk(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const ForeignAllocationSpec& e,
                        std::vector<Decision>* out) {
  return kernel.AddForeignAllocation(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const ForeignAllocationUpdate& e,
                        std::vector<Decision>* out) {
  return kernel.UpdateForeignAllocation(e, out);
}
absl::Status ApplyEvent(Kernel& kernel, const RemoveForeignAllocationEvent& e,
                        std::vector<Decision>* out) {
  return kernel.RemoveForeignAllocation(e.partition, e.id, out);
}

absl::Status ApplyEvent(Kernel& kernel, const Event& event, std::vector<Decision>* out,
                        int64_t* allocations) {
  if (allocations != nullptr) *allocations = 0;
  return std::visit(
      [&](const auto& e) {
        if constexpr (std::is_same_v<std::decay_t<decltype(e)>, ScheduleEvent>) {
          return ApplyEvent(kernel, e, out, allocations);
        } else {
          return ApplyEvent(kernel, e, out);
        }
      },
      event);
}

int64_t ApplyEvents(Kernel& kernel, std::span<const Event> events, std::vector<Decision>* out,
                    std::vector<EventResult>* results) {
  int64_t refused = 0;
  if (results != nullptr) results->reserve(results->size() + events.size());
  for (const Event& event : events) {
    EventResult result;
    result.status = ApplyEvent(kernel, event, out, &result.allocations);
    refused += result.status.ok() ? 0 : 1;
    if (results != nullptr) results->push_back(std::move(result));
  }
  return refused;
}

}  // namespace allocore

// Events as values (allocore/events.h): each one is the Kernel call it names.
#include "allocore/events.h"

namespace allocore {
namespace {

template <typename... Fns>
struct Overloaded : Fns... {
  using Fns::operator()...;
};
template <typename... Fns>
Overloaded(Fns...) -> Overloaded<Fns...>;

}  // namespace

absl::Status ApplyEvent(Kernel& kernel, const Event& event, std::vector<Decision>* out,
                        int64_t* allocations) {
  if (allocations != nullptr) *allocations = 0;
  return std::visit(
      Overloaded{
          [&](const NodeSpec& e) { return kernel.AddNode(e, out); },
          [&](const NodeUpdate& e) { return kernel.UpdateNode(e, out); },
          [&](const RemoveNodeEvent& e) { return kernel.RemoveNode(e.partition, e.id, out); },
          [&](const AppSpec& e) { return kernel.AddApplication(e, out); },
          [&](const RemoveApplicationEvent& e) {
            return kernel.RemoveApplication(e.partition, e.id, out);
          },
          [&](const AskSpec& e) { return kernel.AddAsk(e, out); },
          [&](const RemoveAskEvent& e) { return kernel.RemoveAsk(e.partition, e.app, e.ask, out); },
          [&](const ReleaseEvent& e) {
            return kernel.ReleaseAllocation(e.partition, e.app, e.ask, e.node, out);
          },
          [&](const AdvanceEvent& e) { return kernel.Advance(e.millis, out); },
          [&](const ScheduleEvent& e) {
            absl::StatusOr<int64_t> made = kernel.Schedule(e.max, e.partition, out);
            if (made.ok() && allocations != nullptr) *allocations = *made;
            return made.status();
          },
          [&](const UpdateConfigEvent& e) { return kernel.UpdateConfig(e.config, out); },
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

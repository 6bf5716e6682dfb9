// allocore/events.h — the kernel's calls as values, applied as a batch.
//
// An Event is one state-changing call of Kernel (kernel.h) with its arguments; a batch is a
// span of them, applied in order by one ApplyEvents call, which returns what each event did.
// Producers that queue work (KernelService), replays and benchmarks speak this one vocabulary.
// Each event is the kernel call it names, with that call's guarantees: a refused event changes
// nothing and the batch goes on with the next one.
//
// Example:
//   std::vector<allocore::Event> batch = {
//       allocore::NodeSpec{.id = "n1", .capacity = {{"memory", 100}}},
//       allocore::AppSpec{.id = "app", .queue = "root.a", .user = "u"},
//       allocore::AskSpec{.app = "app", .id = "x", .resources = {{"memory", 10}}},
//       allocore::ScheduleEvent{}};
//   std::vector<allocore::EventResult> results;
//   allocore::ApplyEvents(kernel, batch, &out, &results);   // results[3].allocations == 1

#ifndef ALLOCORE_EVENTS_H_
#define ALLOCORE_EVENTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "allocore/config.h"
#include "allocore/export.h"
#include "allocore/kernel.h"

namespace allocore {

struct RemoveNodeEvent {
  std::string partition = kDefaultPartition;
  std::string id;
};
struct RemoveApplicationEvent {
  std::string partition = kDefaultPartition;
  std::string id;
};
struct RemoveAskEvent {
  std::string partition = kDefaultPartition;
  std::string app;
  std::string ask;
};
struct ReleaseEvent {
  std::string partition = kDefaultPartition;
  std::string app;
  std::string ask;
  std::string node;  // empty: the oldest live allocation of the ask
  int64_t seq = 0;   // > 0: exactly the allocation with this seq (contract version 3)
};
struct AdvanceEvent {
  int64_t millis = 0;
};
struct ScheduleEvent {
  std::string partition;  // empty: every partition
  int64_t max = 0;        // <= 0: until nothing more can be allocated
};
struct UpdateConfigEvent {
  SchedulerConfig config;
};

// The calls by handle (allocore/handles.h), as owned values that can wait in a queue.
struct AddAskByHandleEvent {
  AppHandle app;
  BasicAskArgs<std::string> ask;
};
struct RemoveAskByHandleEvent {
  AskHandle ask;
};
struct ReleaseByHandleEvent {
  AskHandle ask;
  NodeHandle node;  // invalid: the oldest live allocation of the ask
  int64_t seq = 0;  // > 0: exactly the allocation with this seq
};
struct RemoveApplicationByHandleEvent {
  AppHandle app;
};
struct RemoveNodeByHandleEvent {
  NodeHandle node;
};

struct RemoveForeignAllocationEvent {
  std::string partition = kDefaultPartition;
  std::string id;
};

// NodeSpec: AddNode, NodeUpdate: UpdateNode, AppSpec: AddApplication, AskSpec: AddAsk,
// RecoverSpec: RecoverAllocation, AllocationUpdate: UpdateAllocation, AskUpdate: UpdateAsk,
// ForeignAllocationSpec: AddForeignAllocation, ForeignAllocationUpdate: UpdateForeignAllocation.
using Event =
    std::variant<NodeSpec, NodeUpdate, RemoveNodeEvent, AppSpec, RemoveApplicationEvent, AskSpec,
                 RemoveAskEvent, ReleaseEvent, AdvanceEvent, ScheduleEvent, UpdateConfigEvent,
                 AddAskByHandleEvent, RemoveAskByHandleEvent, ReleaseByHandleEvent,
                 RemoveApplicationByHandleEvent, RemoveNodeByHandleEvent, RecoverSpec,
                 AllocationUpdate, AskUpdate, ForeignAllocationSpec, ForeignAllocationUpdate,
                 RemoveForeignAllocationEvent>;

struct EventResult {
  absl::Status status;      // the call's status (non-OK: refused, nothing changed)
  int64_t allocations = 0;  // ScheduleEvent: allocations made
};

// Applies `events` in order, appending every decision to `out`; `results` (may be null) gets
// one entry per event. Returns the number of refused events.
ALLOCORE_EXPORT int64_t ApplyEvents(Kernel& kernel, std::span<const Event> events,
                                    std::vector<Decision>* out, std::vector<EventResult>* results);
// One event; its status (and, for a ScheduleEvent, the allocations in `allocations`).
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const Event& event,
                                                      std::vector<Decision>* out,
                                                      int64_t* allocations = nullptr);
// One event of a known type, without building an Event (what the variant form dispatches to).
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const NodeSpec& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const NodeUpdate& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const RemoveNodeEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const AppSpec& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const RemoveApplicationEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const AskSpec& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const RemoveAskEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const ReleaseEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const AdvanceEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const ScheduleEvent& e,
                                                      std::vector<Decision>* out,
                                                      int64_t* allocations = nullptr);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const UpdateConfigEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const AddAskByHandleEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const RemoveAskByHandleEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const ReleaseByHandleEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const RemoveApplicationByHandleEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const RemoveNodeByHandleEvent& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const RecoverSpec& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const AllocationUpdate& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel, const AskUpdate& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const ForeignAllocationSpec& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const ForeignAllocationUpdate& e,
                                                      std::vector<Decision>* out);
[[nodiscard]] ALLOCORE_EXPORT absl::Status ApplyEvent(Kernel& kernel,
                                                      const RemoveForeignAllocationEvent& e,
                                                      std::vector<Decision>* out);

}  // namespace allocore

#endif  // ALLOCORE_EVENTS_H_

// Helpers of the recording tests (event_recorder_test, kernel_service_test, c_api_test's
// driver, the restart tests): a scenario as the events a manager sends, and decisions as JSON
// lines without their step numbers, so that a live kernel's decisions and a replay's records
// compare byte for byte.
#ifndef ALLOCORE_TESTS_ADAPTERS_RECORDING_TEST_UTIL_H_
#define ALLOCORE_TESTS_ADAPTERS_RECORDING_TEST_UTIL_H_

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "allocore/events.h"
#include "allocore/kernel.h"

namespace allocore::adapters::testing_util {

// The record type a decision is reported as.
inline RecordType RecordTypeOf(DecisionType type) {
  switch (type) {
    case DecisionType::kAllocation:
      return RecordType::kAllocation;
    case DecisionType::kAppRejected:
      return RecordType::kAppRejected;
    case DecisionType::kAppState:
      return RecordType::kAppState;
    case DecisionType::kRelease:
      return RecordType::kRelease;
    case DecisionType::kAskRemoved:
      return RecordType::kAskRemoved;
    case DecisionType::kPreemption:
      return RecordType::kPreemption;
    case DecisionType::kRecovered:
      return RecordType::kRecovered;
    case DecisionType::kQuotaPreemption:
      return RecordType::kQuotaPreemption;
  }
  return RecordType::kError;
}

// The event a manager sends for `step`: the step's call (the node of an add_node); none for a
// probe, which is a question, not a call.
inline std::optional<Event> EventOf(const ScenarioStep& step) {
  return std::visit(
      [](const auto& action) -> std::optional<Event> {
        using T = std::decay_t<decltype(action)>;
        if constexpr (std::is_same_v<T, ProbeStep>) {
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, AddNodeStep>) {
          return Event(action.node);
        } else {
          return Event(action);
        }
      },
      step.action);
}

// The scenario as the events a manager would send: its nodes, then before every step the
// runner's 1 ms tick and the step's event.
inline std::vector<Event> EventsOf(const Scenario& scenario) {
  std::vector<Event> events;
  for (const AddNodeStep& node : scenario.nodes) events.emplace_back(node.node);
  for (const ScenarioStep& step : scenario.steps) {
    events.emplace_back(AdvanceEvent{.millis = 1});
    if (std::optional<Event> event = EventOf(step)) events.push_back(*std::move(event));
  }
  return events;
}

// A live kernel's decisions as the decision stream writes them, every step number 0 (a live
// kernel has no steps; a replay numbers its records by step).
inline std::string DecisionLines(const std::vector<Decision>& decisions, const Kernel& kernel) {
  std::string lines;
  for (const Decision& decision : decisions) {
    Record record{.type = RecordTypeOf(decision.type), .step = 0, .decision = &decision};
    record.types = &kernel.resource_types();
    AppendJsonLine(record, &lines);
  }
  return lines;
}

// The decisions of a replay (error and probe records are not decisions), as DecisionLines.
class DecisionCollector : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel& kernel) override {
    if (record.decision == nullptr) return;
    Record copy = record;
    copy.step = 0;
    copy.types = no_types ? nullptr : &kernel.resource_types();
    AppendJsonLine(copy, &lines);
  }
  std::string lines;
  bool no_types = false;  // as lines written without the kernel's resource type names
};

// A replay that checks the decision digests the recorder wrote against its own decisions.
inline absl::StatusOr<RunResult> CheckedReplay(const Scenario& scenario,
                                               RunObserver* observer = nullptr) {
  RunOptions options;
  options.check_decision_digests = true;
  return RunScenario(scenario, options, observer);
}

// The same for a log streamed step by step, as `allocore run LOG --check` reads it.
inline absl::StatusOr<RunResult> CheckedReplay(ScenarioStream& stream) {
  RunOptions options;
  options.check_decision_digests = true;
  return RunScenarioSteps(stream.header(), stream.step_count(), stream.steps(), options, nullptr);
}

inline std::string ReplayDecisions(const Scenario& scenario) {
  DecisionCollector decisions;
  absl::StatusOr<RunResult> run = RunScenario(scenario, {}, &decisions);
  return run.ok() ? decisions.lines : "replay refused: " + std::string(run.status().message());
}

// Points the process's open descriptor of `path` at `to` instead (dup2), as a disk that
// filled up would turn a writer's next write into a failure. False when no descriptor is open
// on `path`.
inline bool RedirectOpenFileForTest(const std::string& path, const char* to) {
  std::error_code error;
  const std::filesystem::path target = std::filesystem::canonical(path, error);
  if (error) return false;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    std::error_code link_error;
    if (std::filesystem::read_symlink(entry.path(), link_error) != target || link_error) continue;
    const int fd = std::stoi(entry.path().filename().string());
    const int replacement = ::open(to, O_WRONLY | O_CLOEXEC);
    if (replacement < 0) return false;
    const bool moved = ::dup2(replacement, fd) == fd;
    ::close(replacement);
    return moved;
  }
  return false;
}

}  // namespace allocore::adapters::testing_util

#endif  // ALLOCORE_TESTS_ADAPTERS_RECORDING_TEST_UTIL_H_

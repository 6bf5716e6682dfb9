// allocore/adapters/scenario.h — scenario files (the `allocore run` contract) -> kernel calls.
//
// A scenario is a scheduler config, nodes registered up front and a list of steps (events and
// scheduling requests), optionally with the decisions it must produce. The format is the
// public contract in share/doc/allocore/docs/scenario-format.md; this header is its C++ side:
//
//   LoadScenarioFile / LoadScenarioText   YAML -> Scenario (strict: unknown keys, wrong kinds
//                                         and bad values are errors naming file:line:column
//                                         and the step index)
//   RunScenario                           Scenario -> kernel calls -> records, one per
//                                         decision or refused call, in order
//   CheckExpectations                     the run against the scenario's `expect:` block
//
// Guarantees:
//   1. No exception escapes: yaml-cpp errors become absl::Status values.
//   2. Deterministic: the same scenario gives the same records, whatever RunOptions say about
//      call granularity (schedule_chunk) or timing.
//   3. A loaded Scenario is self-contained (config_file is already read and validated).
//
// Example:
//   auto scenario = allocore::adapters::LoadScenarioFile("reservation.yaml");
//   if (!scenario.ok()) { /* exit 2: scenario.status().message() names file:line:col */ }
//   MyObserver observer;                       // receives every Record
//   auto run = allocore::adapters::RunScenario(*scenario, {}, &observer);
//   auto check = allocore::adapters::CheckExpectations(*scenario->expect, *run);
//   if (!check.ok) std::fputs(check.diff.c_str(), stderr);
#ifndef ALLOCORE_ADAPTERS_SCENARIO_H_
#define ALLOCORE_ADAPTERS_SCENARIO_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/export.h"
#include "allocore/kernel.h"

namespace allocore::adapters {

// ---------------------------------------------------------------------------------------------
// The scenario as data
// ---------------------------------------------------------------------------------------------

// Step kinds in contract order; the values match the alternatives of StepAction.
enum class StepKind : uint8_t {
  kAddApp,
  kAddAsk,
  kSchedule,
  kRelease,
  kRemoveAsk,
  kRemoveApp,
  kAddNode,
  kUpdateNode,
  kRemoveNode,
  kUpdateConfig,
  kAdvance,
  kProbe,  // an extension of the contract: a what-if question, answered by a `probe` record
  // Version 3: a manager's lifecycle.
  kRecoverAllocation,
  kUpdateAllocation,
  kUpdateAsk,
  kAddForeign,
  kUpdateForeign,
  kRemoveForeign,
};
inline constexpr size_t kStepKindCount = static_cast<size_t>(StepKind::kRemoveForeign) + 1;
// The YAML key of the step kind: "add_app", "schedule", ...
ALLOCORE_EXPORT std::string_view StepKindName(StepKind kind);

// The steps that are kernel calls are the kernel's own events (allocore/events.h).
using ScheduleStep = ScheduleEvent;  // partition empty: every partition, in config order
using ReleaseStep = ReleaseEvent;
using RemoveAskStep = RemoveAskEvent;
using RemoveAppStep = RemoveApplicationEvent;
using RemoveNodeStep = RemoveNodeEvent;
using UpdateConfigStep = UpdateConfigEvent;  // decoded, not validated: the kernel decides
using AdvanceStep = AdvanceEvent;
struct AddNodeStep {
  NodeSpec node;
  Tags attributes;  // accepted and kept; the kernel does not use node attributes
};
// Kernel::Probe of an ask that is not submitted (`id` optional); changes nothing.
struct ProbeStep {
  AskSpec ask;
};

using RecoverAllocationStep = RecoverSpec;
using UpdateAllocationStep = AllocationUpdate;
using UpdateAskStep = AskUpdate;
using AddForeignStep = ForeignAllocationSpec;
using UpdateForeignStep = ForeignAllocationUpdate;
using RemoveForeignStep = RemoveForeignAllocationEvent;

// One alternative per StepKind, in the same order.
using StepAction =
    std::variant<AppSpec, AskSpec, ScheduleStep, ReleaseStep, RemoveAskStep, RemoveAppStep,
                 AddNodeStep, NodeUpdate, RemoveNodeStep, UpdateConfigStep, AdvanceStep, ProbeStep,
                 RecoverAllocationStep, UpdateAllocationStep, UpdateAskStep, AddForeignStep,
                 UpdateForeignStep, RemoveForeignStep>;

// What a recorded event log says of the decisions up to and including one step
// (docs/event-log-format.md, "Decision digests"): how many the live kernel made and their
// running digest. `allocore run LOG --check` compares it with the replay's.
struct RecordedDigest {
  int64_t decisions = 0;
  uint32_t digest = 0;
  uint64_t offset = 0;  // of the digest record in the log, for messages
};

struct ScenarioStep {
  StepAction action;
  SourceLocation location;  // of the step's key in the file
  // A log with decision digests (Scenario::decision_digests): the recorded digest after this
  // step, present exactly when the live kernel's step made a decision.
  std::optional<RecordedDigest> recorded_digest;

  StepKind kind() const { return static_cast<StepKind>(action.index()); }
};

// One entry of `expect.allocations`; an absent key matches anything.
struct ExpectedAllocation {
  std::optional<std::string> partition;  // extension of the contract (optional key)
  std::optional<std::string> queue;
  std::optional<std::string> app;
  std::optional<std::string> ask;
  std::optional<std::string> node;
  std::optional<std::string> reason;  // expect.releases only: released | removed | replaced | ...
  // expect.app_states only (version 3): the states and, optionally, the step of the record.
  std::optional<std::string> from;
  std::optional<std::string> to;
  std::optional<int64_t> step;
  // allocations and releases: the allocation's seq (an optional key of this project's).
  std::optional<int64_t> seq;
  std::optional<int64_t> victims;  // expect.quota_preemptions only (version 3)
  SourceLocation location;
};

struct ScenarioExpect {
  std::optional<std::vector<ExpectedAllocation>> allocations;
  std::optional<std::vector<ExpectedAllocation>> releases;    // version 2, checked in order
  std::optional<std::vector<ExpectedAllocation>> app_states;  // version 3, every app_state
  std::optional<std::vector<ExpectedAllocation>> recovered;   // version 3, every recovered
  // version 3, every quota_preemption record: queue, victims, partition, step
  std::optional<std::vector<ExpectedAllocation>> quota_preemptions;
  std::optional<std::vector<std::string>> rejected_apps;
  std::optional<int64_t> errors;
};

// How a run moves the logical clock between steps.
enum class StepClock : uint8_t {
  // 1 ms before every step (the scenario contract): what a step's timers see is its index.
  kTickBeforeEachStep,
  // Only `advance` steps move it: a log recorded from a live kernel
  // (allocore/adapters/event_recorder.h), whose time came from its Advance calls alone.
  kAdvanceStepsOnly,
};

// The caps of KernelOptions (0: none) a scenario runs under: a recorded log carries its
// kernel's, since a full max_live_allocations budget stops Schedule and so shapes decisions.
struct KernelBudgets {
  int64_t max_applications = 0;
  int64_t max_asks = 0;
  int64_t max_live_allocations = 0;
};

struct Scenario {
  std::string name;
  // The top-level `semantics:` (or the load options' override); the kernel's profile.
  Semantics semantics = Semantics::kYunikorn12;
  std::string source_name;  // the file as named on the command line, or a "<built-in: ...>"
  SchedulerConfig config;   // validated (ValidateConfig ran and found no error)
  std::vector<std::string> config_warnings;  // formatted "file:line:col: warning: ..."
  std::vector<AddNodeStep> nodes;            // registered at step 0, in this order
  std::vector<ScenarioStep> steps;
  std::optional<ScenarioExpect> expect;
  // Scenario files always tick; event logs say (version 2 of the format).
  StepClock clock = StepClock::kTickBeforeEachStep;
  // RunOptions::kernel_options overrides each cap it sets (non-zero).
  KernelBudgets budgets;
  // An event log of version 3 recorded with digests: every step that made a decision carries
  // ScenarioStep::recorded_digest, so a step without one made none.
  bool decision_digests = false;
};

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

struct ScenarioLoadOptions {
  // Accept a bare YuniKorn queues.yaml (a document with top-level `partitions:`) as a scenario
  // with that config and no nodes or steps. Used by `allocore tree`.
  bool allow_bare_config = false;
  // The profile to run under, whatever the file's `semantics:` says (allocore run --semantics).
  std::optional<Semantics> semantics;
};

// Errors: InvalidArgument (malformed scenario or invalid config) or NotFound/PermissionDenied
// (unreadable file); the message holds one problem per line, each starting with
// "file:line:col: " and, inside `steps:`, "step N (kind): " (N is 1-based, as in records).
ALLOCORE_EXPORT absl::StatusOr<Scenario> LoadScenarioText(std::string_view text,
                                                          const std::string& source_name,
                                                          const ScenarioLoadOptions& options = {});
ALLOCORE_EXPORT absl::StatusOr<Scenario> LoadScenarioFile(const std::string& path,
                                                          const ScenarioLoadOptions& options = {});

// The built-in default scenario: the priority tree of YuniKorn's "App & Queue Priorities"
// design (same config, node and asks as tests/scenarios/priority-tree.yaml).
ALLOCORE_EXPORT std::string_view DefaultScenarioText();
inline constexpr char kDefaultScenarioSource[] = "<built-in: priority-tree>";
ALLOCORE_EXPORT absl::StatusOr<Scenario> LoadDefaultScenario();

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

enum class RecordType : uint8_t {
  kAllocation,
  kAppRejected,
  kAppState,
  kRelease,
  kError,
  kAskRemoved,
  kProbe,            // an extension of the contract (consumers ignore types they do not know)
  kPreemption,       // an ask chose victims (general preemption); their releases follow
  kRecovered,        // version 3: an allocation a manager reported running (recover_allocation)
  kQuotaPreemption,  // version 3 (yunikorn-1.9): a queue brought back under its max
};
inline constexpr size_t kRecordTypeCount = 10;
// The `type` value of the decision stream: "allocation", "app_rejected", ...
ALLOCORE_EXPORT std::string_view RecordTypeName(RecordType type);

// One line of the decision stream. Views are valid during the observer callback only.
struct Record {
  RecordType type = RecordType::kAllocation;
  int64_t step = 0;                      // 1-based step index; 0 for nodes registered up front
  const Decision* decision = nullptr;    // every type but kError and kProbe
  std::string_view message;              // kError: "add_ask: unknown application app-9"
  const AskSpec* probed = nullptr;       // kProbe: the question
  const ProbeResult* probe = nullptr;    // kProbe: the kernel's answer
  const ResourceTypes* types = nullptr;  // kPreemption: names of the detail's resource types
};

// Receives the records of a run as they are produced.
class ALLOCORE_EXPORT RunObserver {
 public:
  virtual ~RunObserver() = default;
  // `kernel` is the state right after the call that produced the record.
  virtual void OnRecord(const Record& record, const Kernel& kernel) = 0;
  // Before every Schedule call, with the state it starts from.
  virtual void BeforeSchedule(const Kernel& /*kernel*/) {}
  // After every kernel call: `step` of `total_steps` is under way.
  virtual void OnProgress(int64_t /*step*/, int64_t /*total_steps*/) {}
  // Around each step's kernel calls (the clock has ticked already): what the step asks for,
  // then the state it left (its records came in between).
  virtual void BeforeStep(const ScenarioStep& /*step*/, const Kernel& /*kernel*/) {}
  virtual void AfterStep(const ScenarioStep& /*step*/, const Kernel& /*kernel*/) {}
};

struct RunOptions {
  // 0: one Schedule call per `schedule` step, as written. N > 0: the step is driven as calls of
  // at most N allocations each, until one makes fewer (same decisions; finer timing, progress
  // and per-allocation observation). 1 gives one allocation per call. Exception: a step that
  // schedules every partition of a config with several partitions is always one call (a
  // scheduling cycle visits every partition, and cutting cycles short would reorder them).
  int64_t schedule_chunk = 0;
  // Replay steps 1..last_step only (-1: every step; 0: only register the nodes).
  int64_t last_step = -1;
  // Record the latency of every allocation in RunResult::allocation_latency_nanos.
  bool collect_latencies = false;
  // Fill RunResult::allocations (needed by CheckExpectations); off saves memory on big runs.
  bool keep_allocations = true;
  // The kernel's memory budget. A `schedule` step the full live allocation budget stops while
  // asks are pending gets an error record saying so.
  KernelOptions kernel_options;
  // Continue from a snapshot (share/doc/allocore/docs/snapshot-format.md) instead of the
  // scenario's config and nodes: the kernel is Kernel::Restore(*from_snapshot), and steps
  // 1..resume_after_step are read but not applied (the snapshot holds what they did), so the
  // records keep the step numbers of an uninterrupted run. Refused when the snapshot's
  // semantics profile is not the scenario's.
  const std::string* from_snapshot = nullptr;
  int64_t resume_after_step = 0;
  // >= 0: RunResult::snapshot is Kernel::Snapshot() after that step (0: after the nodes).
  int64_t snapshot_after_step = -1;
  // A scenario with decision digests (a recorded log): compare the replay's decisions with the
  // recorded digests after every step and keep the first difference in
  // RunResult::digest_divergence. Not checked on a run that resumes after step 0 of a snapshot
  // (the digests count the decisions of the skipped steps too).
  bool check_decision_digests = false;
};

// The first step after which a replay's decisions differ from a recorded log's.
struct DigestDivergence {
  int64_t step = 0;
  StepKind kind = StepKind::kAddApp;
  int64_t recorded_decisions = 0;  // up to and including the step
  int64_t replayed_decisions = 0;
  uint32_t recorded_digest = 0;
  uint32_t replayed_digest = 0;
  std::optional<uint64_t> digest_offset;  // the recorded digest's record; none: no record
  // The kernel refused the replayed step (a recorded log holds only accepted events): its
  // message.
  std::optional<std::string> refused;
};

struct ActualAllocation {
  int64_t step = 0;
  int64_t seq = 0;
  int32_t priority = 0;
  // Views into names the kernel interned (valid while RunResult::kernel lives).
  std::string_view partition;
  std::string_view queue;
  std::string_view app;
  std::string_view ask;
  std::string_view node;
  std::string_view reason;  // releases: ReleaseReasonName
  std::string_view from;    // app states: AppStateName
  std::string_view to;
  int64_t victims = -1;  // quota preemptions: how many were taken (-1 on other records)
};

struct ErrorRecord {
  int64_t step = 0;
  std::string message;
  absl::StatusCode code = absl::StatusCode::kUnknown;  // the refusal's status code
};

struct RunResult {
  std::unique_ptr<Kernel> kernel;  // the final state, for queries (ExplainPending, ListQueues)
  std::vector<ActualAllocation> allocations;        // empty unless RunOptions::keep_allocations
  std::vector<ActualAllocation> releases;           // likewise, every release in order
  std::vector<ActualAllocation> app_states;         // likewise, every app_state record in order
  std::vector<ActualAllocation> recovered;          // likewise, every recovered record in order
  std::vector<ActualAllocation> quota_preemptions;  // likewise, every quota_preemption record
  int64_t allocation_count = 0;
  std::vector<std::string> rejected_apps;  // in decision order
  std::vector<ErrorRecord> errors;
  int64_t records = 0;    // every record, errors included
  int64_t steps_run = 0;  // steps applied (nodes not counted)
  // RunOptions::snapshot_after_step: the kernel's snapshot after that step (nullopt when the
  // scenario ended before it).
  std::optional<std::string> snapshot;
  // Wall time spent inside kernel calls (Create, node registration, clock ticks, every step).
  int64_t kernel_nanos = 0;
  // Wall time spent getting the steps from their source (reading and decoding a streamed file).
  int64_t step_read_nanos = 0;
  // kernel_nanos by the kind of step the calls served, and how many steps of each kind ran.
  // The clock tick before every step counts as kAdvance (with the advance steps), the nodes of
  // the scenario's `nodes:` list as kAddNode; kernel creation and name releases are in
  // kernel_nanos only.
  std::array<int64_t, kStepKindCount> kernel_nanos_by_kind{};
  std::array<int64_t, kStepKindCount> steps_by_kind{};
  // The step whose kernel calls took longest (0: node registration), its kind and that time.
  int64_t slowest_step = 0;
  StepKind slowest_step_kind = StepKind::kAddNode;
  int64_t slowest_step_nanos = 0;
  // With RunOptions::collect_latencies: per allocation, the wall time of the Schedule call
  // that made it divided by the allocations of that call.
  std::vector<int64_t> allocation_latency_nanos;
  // `schedule` steps the full live allocation budget stopped (RunOptions::kernel_options).
  int64_t budget_blocked_steps = 0;
  // RunOptions::check_decision_digests: the steps whose recorded digest matched the replay's,
  // and the first step after which they differ (nullopt: none differs).
  int64_t digests_checked = 0;
  std::optional<DigestDivergence> digest_divergence;
};

// Creates the kernel, registers the nodes (step 0), then for every step advances the logical
// clock by 1 ms and applies the step. A refused kernel call becomes an error record and the
// run goes on. Non-OK only when the kernel refuses the initial config.
// `observer` may be null.
ALLOCORE_EXPORT absl::StatusOr<RunResult> RunScenario(const Scenario& scenario,
                                                      const RunOptions& options,
                                                      RunObserver* observer);

// Where the steps of a run come from when they are not all in memory (a streamed file).
class ALLOCORE_EXPORT StepSource {
 public:
  virtual ~StepSource() = default;
  // The next step, valid until the next call; nullptr after the last one. A non-OK status ends
  // the run.
  virtual absl::StatusOr<const ScenarioStep*> Next() = 0;
};

// As RunScenario for `header` (config, nodes; its steps are ignored) and the `total_steps`
// steps `steps` delivers, one at a time. Non-OK also when the source fails.
ALLOCORE_EXPORT absl::StatusOr<RunResult> RunScenarioSteps(const Scenario& header,
                                                           int64_t total_steps, StepSource& steps,
                                                           const RunOptions& options,
                                                           RunObserver* observer);

// ---------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------

struct CheckResult {
  bool ok = true;
  std::string diff;  // empty when ok; otherwise readable, several lines, ends with '\n'
};

// Allocations are compared in order (only the keys the expectation names), rejected_apps as a
// set, errors by count.
ALLOCORE_EXPORT CheckResult CheckExpectations(const ScenarioExpect& expect, const RunResult& run);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_SCENARIO_H_

// Scenario -> kernel calls -> records (see scenario.h).
//
// Invariants:
//   1. Records are reported in the order the kernel produced the decisions; a refused call
//      adds exactly one error record and nothing else (the kernel changed nothing).
//   2. Before step N (1-based) the logical clock moves by 1 ms; what that tick fires belongs to
//      step N. Nodes are registered at time 0 as step 0. A recorded log
//      (StepClock::kAdvanceStepsOnly) has no tick: its advance steps are its kernel's clock.
//   3. Only kernel calls are inside the timed sections; observer callbacks are not.
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "allocore/adapters/scenario.h"
#include "decision_digest.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

std::string_view View(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

// The steps of a Scenario in memory.
class VectorSource final : public StepSource {
 public:
  explicit VectorSource(const std::vector<ScenarioStep>& steps) : steps_(steps) {}
  absl::StatusOr<const ScenarioStep*> Next() override {
    if (next_ >= steps_.size()) return nullptr;
    return &steps_[next_++];
  }

 private:
  const std::vector<ScenarioStep>& steps_;
  size_t next_ = 0;
};

class Runner {
 public:
  Runner(const Scenario& scenario, int64_t total_steps, StepSource& source,
         const RunOptions& options, RunObserver* observer)
      : scenario_(scenario),
        total_steps_(total_steps),
        source_(source),
        options_(options),
        observer_(observer) {}

  absl::StatusOr<RunResult> Run() {
    Clock::time_point start = Clock::now();
    // The scenario's profile (its `semantics:`, or the loader's override) is the kernel's.
    KernelOptions kernel_options = options_.kernel_options;
    kernel_options.semantics = scenario_.semantics;
    // The scenario's budgets (a recorded log's) unless the run sets its own.
    auto cap = [](int64_t run, int64_t scenario) { return run != 0 ? run : scenario; };
    kernel_options.max_applications =
        cap(kernel_options.max_applications, scenario_.budgets.max_applications);
    kernel_options.max_asks = cap(kernel_options.max_asks, scenario_.budgets.max_asks);
    kernel_options.max_live_allocations =
        cap(kernel_options.max_live_allocations, scenario_.budgets.max_live_allocations);
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        options_.from_snapshot != nullptr ? Kernel::Restore(*options_.from_snapshot)
                                          : Kernel::Create(scenario_.config, kernel_options);
    result_.kernel_nanos += NanosSince(start);
    if (!kernel.ok()) {
      return absl::InvalidArgumentError(internal::Cat(
          scenario_.source_name,
          options_.from_snapshot != nullptr ? ": " : ": the kernel refused the configuration: ",
          View(kernel.status())));
    }
    result_.kernel = *std::move(kernel);
    kernel_ = result_.kernel.get();
    if (kernel_->options().semantics != scenario_.semantics) {
      return absl::InvalidArgumentError(
          internal::Cat(scenario_.source_name, ": the snapshot's kernel decides like ",
                        SemanticsName(kernel_->options().semantics), ", the scenario runs under ",
                        SemanticsName(scenario_.semantics)));
    }

    const int64_t total_steps = total_steps_;
    int64_t last_step = total_steps;
    if (options_.last_step >= 0) last_step = std::min(last_step, options_.last_step);

    step_ = 0;
    if (options_.from_snapshot == nullptr) {
      for (const AddNodeStep& node : scenario_.nodes) {
        const int64_t before = result_.kernel_nanos;
        Timed(StepKind::kAddNode, [&] { return ApplyEvent(*kernel_, node.node, &out_); });
        Attribute(StepKind::kAddNode, result_.kernel_nanos - before, /*steps=*/1);
      }
    }
    if (observer_) observer_->OnProgress(0, total_steps);
    NoteStepTime(result_.kernel_nanos, StepKind::kAddNode);
    const int64_t resume_after = options_.from_snapshot != nullptr ? options_.resume_after_step : 0;
    for (int64_t i = 0; i < resume_after && i < last_step; ++i) {
      absl::StatusOr<const ScenarioStep*> skipped = source_.Next();
      if (!skipped.ok()) return skipped.status();
      if (*skipped == nullptr) {
        return absl::InvalidArgumentError(
            internal::Cat(scenario_.source_name, ": the snapshot was taken after step ",
                          resume_after, ", the scenario has ", i, " steps"));
      }
      step_ = i + 1;
    }
    TakeSnapshotAfter(step_);
    // The recorded digests count the decisions of every step from the first one on.
    digesting_ = options_.check_decision_digests && scenario_.decision_digests && resume_after == 0;
    for (int64_t i = step_; i < last_step; ++i) {
      Clock::time_point read_start = Clock::now();
      absl::StatusOr<const ScenarioStep*> next = source_.Next();
      result_.step_read_nanos += NanosSince(read_start);
      if (!next.ok()) return next.status();
      if (*next == nullptr) break;
      const ScenarioStep& step = **next;
      step_ = i + 1;
      const int64_t kernel_before = result_.kernel_nanos;
      if (scenario_.clock == StepClock::kTickBeforeEachStep) {
        Timed(StepKind::kAdvance, [&] { return ApplyEvent(*kernel_, AdvanceEvent{1}, &out_); });
      }
      const int64_t step_before = result_.kernel_nanos;
      Attribute(StepKind::kAdvance, step_before - kernel_before, /*steps=*/0);
      if (observer_) observer_->BeforeStep(step, *kernel_);
      Apply(step);
      if (digesting_) CheckDigest(step);
      Attribute(step.kind(), result_.kernel_nanos - step_before, /*steps=*/1);
      if (observer_) observer_->AfterStep(step, *kernel_);
      MaybeReleaseNames();
      NoteStepTime(result_.kernel_nanos - kernel_before, step.kind());
      result_.steps_run = step_;
      if (observer_) observer_->OnProgress(step_, total_steps);
      TakeSnapshotAfter(step_);
    }
    return std::move(result_);
  }

 private:
  void TakeSnapshotAfter(int64_t step) {
    if (step == options_.snapshot_after_step && !result_.snapshot) {
      result_.snapshot = kernel_->Snapshot();
    }
  }

  // The replay's decisions so far against the recorded digest after `step`; the first step
  // where they differ is kept (later steps are not compared: everything after it may differ).
  void CheckDigest(const ScenarioStep& step) {
    std::optional<std::string> refused = std::move(refused_in_step_);
    refused_in_step_.reset();
    if (result_.digest_divergence) return;
    const std::optional<RecordedDigest>& recorded = step.recorded_digest;
    // No digest: the live kernel's step made no decision.
    const int64_t recorded_decisions =
        recorded ? recorded->decisions : digest_before_step_decisions_;
    const uint32_t recorded_digest = recorded ? recorded->digest : digest_before_step_value_;
    // A recorded log holds only events the live kernel accepted: a refusal is a divergence
    // even when the step decided nothing.
    if (refused || recorded_decisions != digest_.count() || recorded_digest != digest_.value()) {
      result_.digest_divergence = DigestDivergence{
          .step = step_,
          .kind = step.kind(),
          .recorded_decisions = recorded_decisions,
          .replayed_decisions = digest_.count(),
          .recorded_digest = recorded_digest,
          .replayed_digest = digest_.value(),
          .digest_offset = recorded ? std::optional(recorded->offset) : std::nullopt,
          .refused = std::move(refused)};
      return;
    }
    ++result_.digests_checked;
    digest_before_step_decisions_ = digest_.count();
    digest_before_step_value_ = digest_.value();
  }

  void Attribute(StepKind kind, int64_t nanos, int64_t steps) {
    result_.kernel_nanos_by_kind[static_cast<size_t>(kind)] += nanos;
    result_.steps_by_kind[static_cast<size_t>(kind)] += steps;
  }

  void NoteStepTime(int64_t nanos, StepKind kind) {
    if (nanos <= result_.slowest_step_nanos) return;
    result_.slowest_step = step_;
    result_.slowest_step_kind = kind;
    result_.slowest_step_nanos = nanos;
  }

  // Runs one kernel call under the clock, then reports its decisions (or its refusal).
  // Unique pod ids would grow the kernel's name table without bound. The step's records are
  // consumed (formatted or counted) by now, so the names nothing refers to can go; releasing
  // when the table has doubled keeps the cost amortised. Kept allocations view the names, so
  // runs that keep them (--check, walkthroughs: small scenarios) keep every name.
  void MaybeReleaseNames() {
    if (options_.keep_allocations) return;
    if (kernel_->name_count() < 2 * names_after_release_ + 4096) return;
    Clock::time_point start = Clock::now();
    kernel_->ReleaseUnusedNames();
    result_.kernel_nanos += NanosSince(start);
    names_after_release_ = kernel_->name_count();
  }

  template <typename Call>
  void Timed(StepKind kind, Call&& call) {
    Clock::time_point start = Clock::now();
    absl::Status status = call();
    result_.kernel_nanos += NanosSince(start);
    Report(kind, status);
  }

  void Report(StepKind kind, const absl::Status& status) {
    if (!status.ok()) {
      // A refused call changed nothing, so `out_` holds no decision of it.
      out_.clear();
      if (digesting_ && !refused_in_step_) refused_in_step_ = std::string(View(status));
      // "add_ask: <reason>"; kept as is when the kernel already names the call that way.
      std::string prefix = internal::Cat(StepKindName(kind), ": ");
      std::string_view reason = View(status);
      std::string message =
          reason.starts_with(prefix) ? std::string(reason) : internal::Cat(prefix, reason);
      Record record{.type = RecordType::kError, .step = step_, .message = message};
      ++result_.records;
      if (observer_) observer_->OnRecord(record, *kernel_);
      result_.errors.push_back(
          {.step = step_, .message = std::move(message), .code = status.code()});
      return;
    }
    if (digesting_) digest_.Add(out_);
    for (const Decision& decision : out_) {
      Record record{.step = step_, .decision = &decision, .message = {}};
      switch (decision.type) {
        case DecisionType::kAllocation:
          record.type = RecordType::kAllocation;
          ++result_.allocation_count;
          if (!options_.keep_allocations) break;
          result_.allocations.push_back(Placed(decision));
          break;
        case DecisionType::kAppRejected:
          record.type = RecordType::kAppRejected;
          result_.rejected_apps.emplace_back(decision.app);
          break;
        case DecisionType::kAppState:
          record.type = RecordType::kAppState;
          if (!options_.keep_allocations) break;
          result_.app_states.push_back({.step = step_,
                                        .partition = decision.partition,
                                        .app = decision.app,
                                        .from = AppStateName(decision.from),
                                        .to = AppStateName(decision.to)});
          break;
        case DecisionType::kRelease:
          record.type = RecordType::kRelease;
          if (!options_.keep_allocations) break;
          result_.releases.push_back({.step = step_,
                                      .seq = decision.seq,
                                      .priority = 0,
                                      .partition = decision.partition,
                                      .queue = decision.queue,
                                      .app = decision.app,
                                      .ask = decision.ask,
                                      .node = decision.node,
                                      .reason = ReleaseReasonName(decision.release_reason)});
          break;
        case DecisionType::kAskRemoved:
          record.type = RecordType::kAskRemoved;
          break;
        case DecisionType::kPreemption:
          record.type = RecordType::kPreemption;
          record.types = &kernel_->resource_types();
          break;
        case DecisionType::kRecovered:
          record.type = RecordType::kRecovered;
          if (!options_.keep_allocations) break;
          result_.recovered.push_back(Placed(decision));
          break;
        case DecisionType::kQuotaPreemption:
          record.type = RecordType::kQuotaPreemption;
          record.types = &kernel_->resource_types();
          if (!options_.keep_allocations) break;
          result_.quota_preemptions.push_back({.step = step_,
                                               .partition = decision.partition,
                                               .queue = decision.queue,
                                               .victims = decision.count});
          break;
      }
      ++result_.records;
      if (observer_) observer_->OnRecord(record, *kernel_);
    }
    out_.clear();
  }

  // An allocation or a recovered allocation as the run keeps it (seq 0 for a recovered one).
  ActualAllocation Placed(const Decision& decision) const {
    return {.step = step_,
            .seq = decision.seq,
            .priority = decision.priority,
            .partition = decision.partition,
            .queue = decision.queue,
            .app = decision.app,
            .ask = decision.ask,
            .node = decision.node};
  }

  void Schedule(const ScheduleStep& step) {
    // A cycle visits every partition (one allocation attempt each), so stopping a call after
    // N allocations would reorder the partitions' allocations: a step that schedules every
    // partition of a multi-partition config is always one call.
    int64_t chunk = options_.schedule_chunk;
    if (chunk > 0 && step.partition.empty() && kernel_->PartitionNames().size() > 1) chunk = 0;
    int64_t made = 0;
    while (true) {
      int64_t max = step.max;
      if (chunk > 0) {
        max = step.max > 0 ? std::min(chunk, step.max - made) : chunk;
        if (max <= 0) break;
      }
      if (observer_) observer_->BeforeSchedule(*kernel_);
      Clock::time_point start = Clock::now();
      absl::StatusOr<int64_t> count = kernel_->Schedule(max, step.partition, &out_);
      const int64_t nanos = NanosSince(start);
      result_.kernel_nanos += nanos;
      if (!count.ok()) {
        Report(StepKind::kSchedule, count.status());
        return;
      }
      if (options_.collect_latencies && *count > 0) {
        result_.allocation_latency_nanos.insert(result_.allocation_latency_nanos.end(),
                                                static_cast<size_t>(*count), nanos / *count);
      }
      Report(StepKind::kSchedule, absl::OkStatus());
      made += *count;
      // Fewer than asked means the last cycle changed nothing: the step is complete.
      if (chunk <= 0 || *count < max) break;
      if (observer_) observer_->OnProgress(step_, total_steps_);
    }
    if (kernel_->allocation_budget_blocks()) {
      ++result_.budget_blocked_steps;
      // A notice of the runner's, not a refusal of the kernel's call.
      const std::optional<std::string> refused = refused_in_step_;
      absl::Cleanup keep = [&] { refused_in_step_ = refused; };
      Report(StepKind::kSchedule,
             absl::ResourceExhaustedError(internal::Cat(
                 "the live allocation budget is full (", kernel_->usage().live_allocations,
                 " live allocations, max ", kernel_->options().max_live_allocations,
                 "): asks stay pending until allocations are released")));
    }
  }

  // A question, not an event: its answer is a record of its own, and nothing changes.
  void Probe(const AskSpec& ask) {
    Clock::time_point start = Clock::now();
    absl::StatusOr<ProbeResult> answer = kernel_->Probe(ask);
    result_.kernel_nanos += NanosSince(start);
    if (!answer.ok()) {
      Report(StepKind::kProbe, answer.status());
      return;
    }
    Record record{.type = RecordType::kProbe, .step = step_, .probed = &ask, .probe = &*answer};
    ++result_.records;
    if (observer_) observer_->OnRecord(record, *kernel_);
  }

  void Apply(const ScenarioStep& step) {
    const StepKind kind = step.kind();
    std::visit(
        [&](const auto& action) {
          using T = std::decay_t<decltype(action)>;
          if constexpr (std::is_same_v<T, ScheduleStep>) {
            Schedule(action);  // in chunks, timed per call
          } else if constexpr (std::is_same_v<T, ProbeStep>) {
            Probe(action.ask);
          } else if constexpr (std::is_same_v<T, AddNodeStep>) {
            Timed(kind, [&] { return ApplyEvent(*kernel_, action.node, &out_); });
          } else {
            // Every other step is a kernel event (allocore/events.h).
            Timed(kind, [&] { return ApplyEvent(*kernel_, action, &out_); });
          }
        },
        step.action);
  }

  const Scenario& scenario_;
  const int64_t total_steps_;
  StepSource& source_;
  const RunOptions& options_;
  RunObserver* observer_;
  RunResult result_;
  Kernel* kernel_ = nullptr;
  int64_t step_ = 0;
  std::vector<Decision> out_;
  int64_t names_after_release_ = 0;
  bool digesting_ = false;
  std::optional<std::string> refused_in_step_;  // the step's first refusal, while digesting
  internal::DecisionDigest digest_;
  // The recorded digest as of the last step checked (a step without a record leaves it).
  int64_t digest_before_step_decisions_ = 0;
  uint32_t digest_before_step_value_ = 0;
};

}  // namespace

std::string_view RecordTypeName(RecordType type) {
  switch (type) {
    case RecordType::kAllocation:
      return "allocation";
    case RecordType::kAppRejected:
      return "app_rejected";
    case RecordType::kAppState:
      return "app_state";
    case RecordType::kRelease:
      return "release";
    case RecordType::kError:
      return "error";
    case RecordType::kAskRemoved:
      return "ask_removed";
    case RecordType::kPreemption:
      return "preemption";
    case RecordType::kProbe:
      return "probe";
    case RecordType::kRecovered:
      return "recovered";
    case RecordType::kQuotaPreemption:
      return "quota_preemption";
  }
  return "unknown";
}

absl::StatusOr<RunResult> RunScenario(const Scenario& scenario, const RunOptions& options,
                                      RunObserver* observer) {
  VectorSource source(scenario.steps);
  return Runner(scenario, static_cast<int64_t>(scenario.steps.size()), source, options, observer)
      .Run();
}

absl::StatusOr<RunResult> RunScenarioSteps(const Scenario& header, int64_t total_steps,
                                           StepSource& steps, const RunOptions& options,
                                           RunObserver* observer) {
  return Runner(header, total_steps, steps, options, observer).Run();
}

}  // namespace allocore::adapters

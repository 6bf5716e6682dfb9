// allocore run — replay a scenario and print its decisions (docs/scenario-format.md).
//
// Output goes through one large buffer written in 1 MiB chunks. Timing (--stats) is split as:
//   parse   reading, YAML parsing, config decoding and validation of the scenario (for a
//           streamed file both reads: the check before the run and the steps during it)
//   kernel  wall time inside kernel calls (Kernel::Create, nodes, clock ticks, every step)
//   output  formatting records and writing them (and the --explain report)
//   other   the rest of the wall time (the runner's bookkeeping, --check, clock reads)
// The per-allocation latency is the wall time of a Schedule(max=1) call that made one
// allocation: with --stats every `schedule` step is driven one allocation per call (the
// decisions are the same as with one call per step; only the timing granularity changes).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/queue_tree_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

using adapters::Record;
using adapters::RecordType;
using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: allocore run [SCENARIO.yaml|LOG|-] [--check] [--format jsonl|table] [--quiet]\n"
    "                    [--stats] [--explain] [--semantics PROFILE] [--max-allocations N]\n"
    "                    [--latency-csv FILE] [--snapshot-at STEP=FILE]\n"
    "                    [--from-snapshot [STEP=]FILE]\n"
    "\n"
    "Replays a scenario (docs/scenario-format.md) through the allocation kernel and\n"
    "prints every decision. Without SCENARIO it runs the built-in priority-tree walk-through\n"
    "(YuniKorn's \"App & Queue Priorities\" design) as a table; `-` reads the scenario from\n"
    "stdin (config_file: paths are then relative to the working directory). Besides the\n"
    "contract's steps, `- probe: {app: A, resources: {...}}` asks where an ask that is not\n"
    "submitted would go now (fields as add_ask, id optional); the answer is a \"probe\" record\n"
    "with the node, or the reason it would not be placed, and nothing changes. A LOG is an\n"
    "event log written by `allocore pack` (recognised by its first bytes): it replays as the\n"
    "scenario it was packed from, with the same records.\n"
    "\n"
    "  --check           compare the run with the scenario's expect: block; on a mismatch print\n"
    "                    a diff on stderr and exit 1. A log recorded from a live kernel\n"
    "                    (event log version 3) carries digests of the decisions the kernel\n"
    "                    made: the replay's decisions are compared with them step by step, and\n"
    "                    the first step after which they differ is named (exit 1)\n"
    "  --format FORMAT   jsonl: one JSON object per decision (default when stdout is not a\n"
    "                    terminal); table: aligned rows with the effective queue priorities\n"
    "                    each allocation changed\n"
    "  --quiet           no decision output\n"
    "  --stats           on stderr: decisions, wall time, per-allocation latency p50/p99/max\n"
    "                    (one Schedule(max=1) call per allocation), the time split between\n"
    "                    parsing, kernel and output, and the kernel time by step kind\n"
    "  --explain         after the run, why every still-pending ask is pending (JSON lines of\n"
    "                    type \"pending\" in jsonl format)\n"
    "  --semantics PROFILE\n"
    "                    decide like yunikorn-1.2 (YuniKorn v1.2.0, the default) or yunikorn-1.9\n"
    "                    (YuniKorn 1.9); overrides the scenario's own `semantics:`\n"
    "  --latency-csv FILE\n"
    "                    write the per-allocation latency histogram (CSV upper_ns,count;\n"
    "                    bench/plot.py --latency-csv FILE OUT.svg draws it)\n"
    "  --max-allocations N\n"
    "                    the kernel's budget of live allocations (default 500000; 0: none):\n"
    "                    once it is full a schedule step allocates nothing more and gets an\n"
    "                    error record, so that a scenario cannot exhaust the memory; a log\n"
    "                    recorded from a live kernel runs under that kernel's budget unless\n"
    "                    this is given\n"
    "  --snapshot-at STEP=FILE\n"
    "                    write the kernel's snapshot after step STEP (0: after the scenario's\n"
    "                    nodes) to FILE (docs/snapshot-format.md)\n"
    "  --from-snapshot [STEP=]FILE\n"
    "                    start from the kernel of a snapshot instead of the scenario's config\n"
    "                    and nodes; with STEP, the snapshot was taken after that step of this\n"
    "                    scenario and the run goes on with the next one (the records keep\n"
    "                    their step numbers); without it, every step is applied (a log\n"
    "                    recorded since the snapshot). --check then compares the log's\n"
    "                    decision digests only (not with STEP, nor with an expect: block)\n"
    "  --help            this text\n"
    "\n"
    "exit codes: 0 ok, 1 expectation mismatch (--check), 2 unusable input (unreadable file, YAML\n"
    "syntax error, invalid configuration, unknown step kind, bad option)\n";

enum class Format { kAuto, kJsonl, kTable };

// Live allocations a replay may hold by default: far above what real traces keep alive (the
// Alibaba GPU trace ten times over holds at most 560 at once) and low enough that a scenario
// asking for a billion repeats stops within a second and under 100 MiB (about 160 bytes per
// live allocation today) rather than taking the machine's memory.
constexpr int64_t kDefaultMaxAllocations = 500000;

struct Options {
  std::string scenario;  // empty: the built-in default
  bool check = false;
  bool quiet = false;
  bool stats = false;
  bool explain = false;
  std::string latency_csv;  // write the per-allocation latency histogram here
  Format format = Format::kAuto;
  int64_t max_allocations = kDefaultMaxAllocations;
  bool max_allocations_given = false;  // on the command line (else a recorded log's own budget)
  std::optional<Semantics> semantics;  // --semantics: overrides the scenario's
  int64_t snapshot_at = -1;            // --snapshot-at: after this step, to snapshot_file
  std::string snapshot_file;
  int64_t resume_after = 0;  // --from-snapshot: the snapshot's step, and its file
  std::string from_snapshot;
};

// The largest snapshot `--from-snapshot` reads (a kernel of millions of asks is a few GiB).
constexpr uint64_t kMaxSnapshotBytes = uint64_t{16} << 30;

// "STEP=FILE" (`step_required`) or "[STEP=]FILE": false after printing why not.
bool ParseStepAndFile(const std::string& flag, const std::string& value, bool step_required,
                      int64_t* step, std::string* file) {
  const size_t equals = value.find('=');
  std::optional<int64_t> parsed;
  if (equals != std::string::npos) parsed = ParseInt64(std::string_view(value).substr(0, equals));
  if (parsed && *parsed >= 0 && equals + 1 < value.size()) {
    *step = *parsed;
    *file = value.substr(equals + 1);
    return true;
  }
  if (!step_required && !value.empty() && !parsed) {
    *file = value;
    return true;
  }
  std::fprintf(stderr, "allocore run: %s needs %sFILE with STEP a number >= 0, got '%s'\n",
               flag.c_str(), step_required ? "STEP=" : "[STEP=]", value.c_str());
  return false;
}

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Counts records by type, writes JSON lines when asked, draws the progress line, and forwards
// to the table collector in table mode.
class RunSink : public adapters::RunObserver {
 public:
  // `start`: when the command started (the progress line appears once a run took 1 s).
  RunSink(OutputBuffer* jsonl, adapters::RecordTable* table, bool progress, Clock::time_point start)
      : jsonl_(jsonl), table_(table), progress_(progress), start_(start) {}

  void OnRecord(const Record& record, const Kernel& kernel) override {
    ++counts_[static_cast<size_t>(record.type)];
    if (jsonl_ != nullptr) {
      Clock::time_point start = Clock::now();
      adapters::AppendJsonLine(record, jsonl_->text());
      jsonl_->MaybeFlush();
      output_nanos_ += NanosSince(start);
    }
    if (table_ != nullptr) table_->OnRecord(record, kernel);
  }

  void BeforeSchedule(const Kernel& kernel) override {
    if (table_ != nullptr) table_->BeforeSchedule(kernel);
  }

  void OnProgress(int64_t step, int64_t total_steps) override {
    if (!progress_) return;
    Clock::time_point now = Clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(200))
      return;
    last_draw_ = now;
    drawn_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r\033[Kallocore run: step %lld/%lld, %lld allocations, %.1f s",
                 static_cast<long long>(step), static_cast<long long>(total_steps),
                 static_cast<long long>(count(RecordType::kAllocation)), seconds);
    std::fflush(stderr);
  }

  // Clears the progress line, if one was drawn.
  void EndProgress() {
    if (drawn_) std::fputs("\r\033[K", stderr);
    drawn_ = false;
  }

  int64_t count(RecordType type) const { return counts_[static_cast<size_t>(type)]; }
  int64_t output_nanos() const { return output_nanos_; }

 private:
  OutputBuffer* jsonl_;
  adapters::RecordTable* table_;
  bool progress_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
  int64_t counts_[adapters::kRecordTypeCount] = {};
  int64_t output_nanos_ = 0;
};

// The per-allocation latencies as a histogram, CSV "upper_ns,count": buckets a quarter of a
// power of two wide (about 19% each), empty ones left out. bench/plot.py --latency-csv draws it.
bool WriteLatencyHistogram(const adapters::RunResult& run, const std::string& path) {
  std::vector<int64_t> counts;
  auto bucket = [](int64_t nanos) {
    double position = 4.0 * std::log2(static_cast<double>(std::max<int64_t>(nanos, 1)));
    return static_cast<size_t>(std::ceil(position));
  };
  for (int64_t nanos : run.allocation_latency_nanos) {
    size_t b = bucket(nanos);
    if (b >= counts.size()) counts.resize(b + 1);
    ++counts[b];
  }
  std::string text = "upper_ns,count\n";
  for (size_t b = 0; b < counts.size(); ++b) {
    if (counts[b] == 0) continue;
    text +=
        std::to_string(static_cast<int64_t>(std::floor(std::exp2(static_cast<double>(b) / 4.0)))) +
        "," + std::to_string(counts[b]) + "\n";
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool ok = file != nullptr && std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (file != nullptr) ok = std::fclose(file) == 0 && ok;
  if (!ok) std::fprintf(stderr, "allocore run: cannot write %s\n", path.c_str());
  return ok;
}

// Returns 0 and fills `options`, -1 after --help, or the exit code to return (2: message
// and usage printed).
int ParseArgs(int argc, char** argv, Options* options) {
  CLI::App app;
  std::string format;
  std::string max_allocations;
  std::string semantics;
  std::string snapshot_at;
  std::string from_snapshot;
  app.add_option("--snapshot-at", snapshot_at);
  app.add_option("--from-snapshot", from_snapshot);
  app.add_flag("--check", options->check);
  app.add_flag("-q,--quiet", options->quiet);
  app.add_flag("--stats", options->stats);
  app.add_flag("--explain", options->explain);
  app.add_option("--format", format);
  app.add_option("--max-allocations", max_allocations);
  app.add_option("--latency-csv", options->latency_csv);
  app.add_option("--semantics", semantics);
  app.add_option("scenario", options->scenario);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "run", kUsage)) {
    return *exit_code == 0 ? -1 : *exit_code;
  }
  if (!snapshot_at.empty() && !ParseStepAndFile("--snapshot-at", snapshot_at, true,
                                                &options->snapshot_at, &options->snapshot_file)) {
    return 2;
  }
  if (!from_snapshot.empty() &&
      !ParseStepAndFile("--from-snapshot", from_snapshot, false, &options->resume_after,
                        &options->from_snapshot)) {
    return 2;
  }
  if (!options->from_snapshot.empty() && options->check && options->resume_after > 0) {
    std::fprintf(stderr,
                 "allocore run: --check compares a whole run with the expect: block or a "
                 "recorded log's digests; a run resumed after step %lld is not one\n",
                 static_cast<long long>(options->resume_after));
    return 2;
  }
  if (!ParseSemanticsOption("run", semantics, &options->semantics)) return 2;
  if (!format.empty()) {
    if (format == "jsonl") {
      options->format = Format::kJsonl;
    } else if (format == "table") {
      options->format = Format::kTable;
    } else {
      std::fprintf(stderr, "allocore run: unknown format '%s' (jsonl or table)\n", format.c_str());
      return 2;
    }
  }
  if (!max_allocations.empty()) {
    if (!ParseIntOption("run", "--max-allocations", max_allocations, "a number >= 0 (0: no budget)",
                        0, INT64_MAX, &options->max_allocations)) {
      return 2;
    }
    options->max_allocations_given = true;
  }
  return 0;
}

// The header of the built-in walk-through: what it is and the queue tree it starts from.
void AppendWalkthroughHeader(const adapters::RecordTable& table, const Kernel& kernel,
                             std::string* out) {
  *out +=
      "allocore: the priority tree of YuniKorn's \"App & Queue Priorities\" design\n"
      "\n"
      "Seven apps under offset and fenced queues ask for 11 allocations on one ample node, so\n"
      "the order is decided by effective queue priority alone. The queue order is re-evaluated\n"
      "after every allocation.\n"
      "\n"
      "Effective queue priorities before scheduling:\n"
      "\n";
  for (const auto& [partition, queues] : table.initial_queues()) {
    adapters::AppendQueueTreeText(queues, kernel.resource_types(),
                                  adapters::QueueTreeDetail::kPriorities, out, "  ");
  }
  *out += "\nAllocations, in order:\n\n";
}

void AppendStats(const Options& options, const adapters::RunResult& run, const RunSink& sink,
                 int64_t wall_nanos, int64_t parse_nanos, int64_t output_nanos, std::string* out) {
  const int64_t allocations = sink.count(RecordType::kAllocation);
  char line[256];
  *out += "stats: " + Count(run.records, "decision") + " (" + Count(allocations, "allocation") +
          ", " + Count(sink.count(RecordType::kRelease), "release") + ", " +
          Count(sink.count(RecordType::kAppState), "app state change") + ", " +
          Count(sink.count(RecordType::kAppRejected), "rejection") + ", " +
          Count(sink.count(RecordType::kError), "error") + ") in " + Count(run.steps_run, "step") +
          "\n";
  *out += "  wall time    " + FormatDuration(wall_nanos) + "\n";

  std::vector<int64_t> latencies = run.allocation_latency_nanos;
  if (!latencies.empty()) {
    std::sort(latencies.begin(), latencies.end());
    auto rank = [&](int percent) {
      // Nearest rank: the smallest value with at least `percent`% of the samples at or below.
      size_t index = (latencies.size() * static_cast<size_t>(percent) + 99) / 100;
      return latencies[std::max<size_t>(index, 1) - 1];
    };
    *out += "  latency      per allocation (one Schedule(max=1) call each): p50 " +
            FormatDuration(rank(50)) + ", p99 " + FormatDuration(rank(99)) + ", max " +
            FormatDuration(latencies.back()) + "\n";
  } else {
    *out += "  latency      no allocation was made\n";
  }
  if (run.steps_run > 0 || run.slowest_step_nanos > 0) {
    *out += "  slowest step " + std::to_string(run.slowest_step) + " (";
    *out += run.slowest_step == 0 ? std::string("kernel creation and nodes")
                                  : std::string(adapters::StepKindName(run.slowest_step_kind));
    *out += "): " + FormatDuration(run.slowest_step_nanos) + " in the kernel\n";
  }
  if (allocations > 0 && run.kernel_nanos > 0) {
    std::snprintf(line, sizeof(line), "  throughput   %.0f allocations/s of kernel time\n",
                  static_cast<double>(allocations) * 1e9 / static_cast<double>(run.kernel_nanos));
    *out += line;
  }
  const int64_t other =
      std::max<int64_t>(0, wall_nanos - parse_nanos - run.kernel_nanos - output_nanos);
  auto share = [&](int64_t part) {
    std::snprintf(
        line, sizeof(line), " (%.1f%%)",
        wall_nanos > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(wall_nanos) : 0.0);
    return std::string(line);
  };
  *out += "  time split   parse " + FormatDuration(parse_nanos) + share(parse_nanos) + ", kernel " +
          FormatDuration(run.kernel_nanos) + share(run.kernel_nanos) + ", output " +
          FormatDuration(output_nanos) + share(output_nanos) + ", other " + FormatDuration(other) +
          share(other) + "\n";
  if (options.quiet) *out += "               (--quiet: no decision output was formatted)\n";
  // Where the kernel's time went, by the kind of step its calls served, largest first.
  std::vector<size_t> kinds;
  for (size_t k = 0; k < adapters::kStepKindCount; ++k) {
    if (run.kernel_nanos_by_kind[k] > 0) kinds.push_back(k);
  }
  std::stable_sort(kinds.begin(), kinds.end(), [&](size_t a, size_t b) {
    return run.kernel_nanos_by_kind[a] > run.kernel_nanos_by_kind[b];
  });
  if (!kinds.empty())
    *out += "  kernel time  by step kind (advance: every step's clock tick too)\n";
  for (size_t k : kinds) {
    const int64_t nanos = run.kernel_nanos_by_kind[k];
    const int64_t steps = run.steps_by_kind[k];
    std::snprintf(line, sizeof(line), "    %-14s %10s %5.1f%%",
                  std::string(adapters::StepKindName(static_cast<adapters::StepKind>(k))).c_str(),
                  FormatDuration(nanos).c_str(),
                  run.kernel_nanos > 0
                      ? 100.0 * static_cast<double>(nanos) / static_cast<double>(run.kernel_nanos)
                      : 0.0);
    *out += line;
    if (steps > 0)
      *out += "  " + Count(steps, "step") + ", " + FormatDuration(nanos / steps) + " each";
    *out += "\n";
  }
}

// What --check says of a recorded log's decision digests.
std::string DigestVerdict(const adapters::RunResult& run) {
  char digest[16];
  auto hex = [&](uint32_t value) {
    std::snprintf(digest, sizeof(digest), "%08x", value);
    return std::string(digest);
  };
  if (!run.digest_divergence) {
    return "the replay decided as the recording: " + Count(run.steps_run, "step") +
           " replayed, every decision digest matches";
  }
  const adapters::DigestDivergence& d = *run.digest_divergence;
  if (d.refused) {
    return "the replay diverges from the recording at step " + std::to_string(d.step) + " (" +
           std::string(adapters::StepKindName(d.kind)) +
           "): the kernel refused it on replay, the live kernel had accepted it (" + *d.refused +
           "); every step before it decided alike";
  }
  std::string recorded =
      d.digest_offset
          ? "the recording counts " + Count(d.recorded_decisions, "decision") +
                " up to the end of it (digest " + hex(d.recorded_digest) +
                ", the digest record at offset " + std::to_string(*d.digest_offset) + ")"
          : "the recording's step made no decision (" + Count(d.recorded_decisions, "decision") +
                " before it, digest " + hex(d.recorded_digest) + ")";
  return "the replay diverges from the recording at step " + std::to_string(d.step) + " (" +
         std::string(adapters::StepKindName(d.kind)) + "): " + recorded + ", the replay " +
         Count(d.replayed_decisions, "decision") + " (digest " + hex(d.replayed_digest) +
         "); every step before it decided alike";
}

}  // namespace

int RunCommand(int argc, char** argv) {
  const Clock::time_point start = Clock::now();
  Options options;
  if (int code = ParseArgs(argc, argv, &options); code != 0) return code < 0 ? 0 : code;

  // --- load --------------------------------------------------------------------------------
  // Files are streamed: checked whole first (the steps are decoded meanwhile on a second
  // thread, a few MiB ahead), then replayed one step at a time (memory does not grow with the
  // file).
  const bool builtin = options.scenario.empty();
  absl::StatusOr<std::unique_ptr<adapters::ScenarioStream>> stream;
  absl::StatusOr<adapters::Scenario> builtin_scenario;
  if (builtin) {
    builtin_scenario = adapters::LoadDefaultScenario();
    if (builtin_scenario.ok() && options.semantics)
      builtin_scenario->semantics = *options.semantics;
  } else {
    stream = adapters::ScenarioStream::Open(options.scenario, adapters::kStreamAboveBytes,
                                            {.semantics = options.semantics});
  }
  const int64_t parse_nanos = NanosSince(start);
  if (!(builtin ? builtin_scenario.status() : stream.status()).ok()) {
    // One problem per line, each starting with "file:line:col: ".
    std::fprintf(stderr, "%s\n",
                 MessageOf(builtin ? builtin_scenario.status() : stream.status()).c_str());
    return 2;
  }
  const adapters::Scenario* scenario = builtin ? &*builtin_scenario : &(*stream)->header();
  const int64_t step_count =
      builtin ? static_cast<int64_t>(scenario->steps.size()) : (*stream)->step_count();
  PrintWarnings(scenario->config_warnings);
  if (options.check && !scenario->expect && !scenario->decision_digests) {
    std::fprintf(stderr,
                 "allocore run: %s: --check, but the scenario has no expect: block and no "
                 "decision digests (only logs recorded from a live kernel by event log version 3 "
                 "or later carry them)\n",
                 scenario->source_name.c_str());
    return 2;
  }
  if (options.check && scenario->expect && !options.from_snapshot.empty()) {
    std::fprintf(stderr,
                 "allocore run: %s: --check compares a whole run with the expect: block; a run "
                 "from a snapshot is not one\n",
                 scenario->source_name.c_str());
    return 2;
  }

  // --- choose the output ---------------------------------------------------------------------
  Format format = options.format;
  if (format == Format::kAuto) {
    format = builtin || IsTerminal(stdout) ? Format::kTable : Format::kJsonl;
  }
  const bool table_mode = format == Format::kTable && !options.quiet;
  const bool walkthrough = table_mode && builtin;
  const bool progress = IsTerminal(stderr);

  OutputBuffer stdout_buffer(stdout);
  std::unique_ptr<adapters::RecordTable> table;
  if (table_mode) {
    table = std::make_unique<adapters::RecordTable>(
        adapters::RecordTable::Options{.allocations_only = walkthrough, .priority_changes = true});
  }
  RunSink sink(format == Format::kJsonl && !options.quiet ? &stdout_buffer : nullptr, table.get(),
               progress, start);

  adapters::RunOptions run_options;
  run_options.collect_latencies = options.stats || !options.latency_csv.empty();
  run_options.keep_allocations = (options.check && scenario->expect) || walkthrough;
  run_options.check_decision_digests = options.check && scenario->decision_digests;
  run_options.kernel_options.max_live_allocations = options.max_allocations;
  // A recorded log replays under its kernel's budget (none included), which decided with it.
  if (!options.max_allocations_given && scenario->clock == adapters::StepClock::kAdvanceStepsOnly) {
    run_options.kernel_options.max_live_allocations = scenario->budgets.max_live_allocations;
  }
  // One allocation per Schedule call where it matters (exact priority changes per row, exact
  // per-allocation latency); otherwise bounded calls, so that a long step shows progress and
  // its decisions are written as they come instead of piling up in one call's list.
  run_options.schedule_chunk =
      table_mode || options.stats || !options.latency_csv.empty() ? 1 : 4096;
  run_options.snapshot_after_step = options.snapshot_at;
  std::optional<std::string> from_snapshot;
  if (!options.from_snapshot.empty()) {
    from_snapshot = ReadBinaryFile("run", options.from_snapshot, kMaxSnapshotBytes);
    if (!from_snapshot) return 2;
    run_options.from_snapshot = &*from_snapshot;
    run_options.resume_after_step = options.resume_after;
  }

  // --- run -----------------------------------------------------------------------------------
  absl::StatusOr<adapters::RunResult> run =
      builtin ? adapters::RunScenario(*scenario, run_options, &sink)
              : adapters::RunScenarioSteps(*scenario, step_count, (*stream)->steps(), run_options,
                                           &sink);
  sink.EndProgress();
  if (!run.ok()) {
    stdout_buffer.Flush();
    std::fprintf(stderr, "allocore run: %s\n", MessageOf(run.status()).c_str());
    return 2;
  }
  if (options.snapshot_at >= 0) {
    if (!run->snapshot) {
      stdout_buffer.Flush();
      std::fprintf(stderr, "allocore run: --snapshot-at %lld: the scenario has %lld steps\n",
                   static_cast<long long>(options.snapshot_at), static_cast<long long>(step_count));
      return 2;
    }
    if (!WriteOutput("run", options.snapshot_file, *run->snapshot)) return 2;
  }

  // --- report --------------------------------------------------------------------------------
  Clock::time_point output_start = Clock::now();
  std::string* out = stdout_buffer.text();
  if (table_mode) {
    if (walkthrough) {
      AppendWalkthroughHeader(*table, *run->kernel, out);
    } else {
      *out += "scenario " + (scenario->name.empty() ? std::string("(unnamed)") : scenario->name) +
              " (" + scenario->source_name + "): " + Count(step_count, "step") + ", " +
              Count(static_cast<int64_t>(scenario->nodes.size()), "node") + "\n\n";
    }
    table->Render(out, walkthrough ? "  " : "");
    if (table->rows() > 0) *out += "\n";
    *out += Count(sink.count(RecordType::kAllocation), "allocation");
    if (walkthrough) {
      *out += "; " + Count(table->hidden_records(), "other record") +
              " not shown (`allocore run --format jsonl` lists every one).\n";
      if (scenario->expect) {
        adapters::CheckResult seed = adapters::CheckExpectations(*scenario->expect, *run);
        *out += seed.ok ? "The order matches the seed's walk-through.\n"
                        : "The order DIFFERS from the seed's walk-through:\n" + seed.diff;
      }
    } else {
      *out += ", " + Count(sink.count(RecordType::kError), "error") + ", " +
              Count(run->records, "record") + " in all.\n";
    }
  }
  if (options.explain) {
    std::vector<PendingExplanation> pending = run->kernel->ExplainPending();
    if (format == Format::kJsonl) {
      for (const PendingExplanation& p : pending) adapters::AppendPendingJsonLine(p, out);
    } else if (pending.empty()) {
      *out += "\nNothing is pending.\n";
    } else {
      *out += "\nStill pending:\n\n";
      adapters::AppendPendingTable(pending, out);
    }
  }
  stdout_buffer.Flush();
  const int64_t output_nanos = sink.output_nanos() + NanosSince(output_start);
  if (!stdout_buffer.ok()) {
    std::fprintf(stderr, "allocore run: error writing the output\n");
    return 2;
  }

  if (run->budget_blocked_steps > 0) {
    std::fprintf(stderr,
                 "allocore run: %s: the live allocation budget (--max-allocations %lld) was full "
                 "in %s while asks were pending (see the error records); "
                 "raise it with --max-allocations N or 0 for none\n",
                 scenario->source_name.c_str(),
                 static_cast<long long>(run_options.kernel_options.max_live_allocations),
                 Count(run->budget_blocked_steps, "schedule step").c_str());
  }
  int exit_code = 0;
  if (options.check && scenario->expect) {
    adapters::CheckResult check = adapters::CheckExpectations(*scenario->expect, *run);
    if (!check.ok) {
      std::fprintf(stderr, "allocore run: %s: the run does not match expect:\n%s",
                   scenario->source_name.c_str(), check.diff.c_str());
      exit_code = 1;
    }
  }
  if (run_options.check_decision_digests) {
    std::string verdict = DigestVerdict(*run);
    std::fprintf(stderr, "allocore run: %s: %s\n", scenario->source_name.c_str(), verdict.c_str());
    if (run->digest_divergence) exit_code = 1;
  }
  if (!options.latency_csv.empty() && !WriteLatencyHistogram(*run, options.latency_csv)) {
    return 2;
  }
  if (options.stats) {
    std::string stats;
    // A streamed file is read twice: the check before the run and the steps during it.
    AppendStats(options, *run, sink, NanosSince(start), parse_nanos + run->step_read_nanos,
                output_nanos, &stats);
    std::fputs(stats.c_str(), stderr);
  }
  return exit_code;
}

}  // namespace allocore::cli

// allocore report — what a queue configuration does to a workload, measured on a replay
// (docs/report-format.md), or the same workload under two configurations side by side.
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/report.h"
#include "allocore/adapters/report_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "allocore/semantics.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: allocore report SCENARIO|LOG [--format text|json|html] [-o DIR]\n"
    "                       [--semantics PROFILE] [--config QUEUES.yaml] [--waiters N]\n"
    "                       [--max-allocations N]\n"
    "       allocore report --compare A B --trace SCENARIO|LOG [--format ...] [-o DIR]\n"
    "\n"
    "Replays a scenario or an event log and measures, in logical time, per partition and per\n"
    "queue: how long asks waited from submission to allocation (count, p50, p90, p99, max,\n"
    "the longest waiters and why they waited), usage over time against guarantee and max per\n"
    "resource type, each queue's share of the cluster against its guarantee and a fairness\n"
    "index per parent, preemptions, placeholder timeouts, rejected applications by reason,\n"
    "and how packed the nodes were (docs/report-format.md).\n"
    "\n"
    "  --format FORMAT   text (default), json (schema: docs/report.schema.json) or html (one\n"
    "                    self-contained page with the pictures; nothing is fetched)\n"
    "  -o DIR            write report.txt, report.json and report.html into DIR (created if\n"
    "                    missing) instead of printing one format; tools/report/plot_report.py\n"
    "                    DIR/report.json DIR draws the pictures as PNG files\n"
    "  --semantics PROFILE\n"
    "                    decide like yunikorn-1.2 or yunikorn-1.9 (overrides the scenario's)\n"
    "  --config FILE     replace the scenario's config by this YuniKorn queues.yaml (with\n"
    "                    --compare: for each side that does not give its own)\n"
    "  --waiters N       how many of the longest waits to list per partition (default 10)\n"
    "  --max-allocations N\n"
    "                    the kernel's live allocation budget, as for `allocore run` (default\n"
    "                    500000; 0: none)\n"
    "  --compare A B     run the workload twice and show what changes from A to B, the\n"
    "                    largest differences first. Each of A and B is one of:\n"
    "                      FILE                  a queues.yaml replacing the scenario's config\n"
    "                      semantics=PROFILE     the scenario under another profile\n"
    "                      nodes=fair|binpacking the scenario under another node policy\n"
    "                      scenario              the scenario as it is\n"
    "  --trace FILE      the workload of --compare (or give it as SCENARIO)\n"
    "  --help            this text\n"
    "\n"
    "exit codes: 0 ok, 2 unusable input or an output that could not be written\n";

constexpr int64_t kDefaultMaxAllocations = 500000;

// Forwards to the collector and draws a progress line on a terminal.
class ReportSink : public adapters::RunObserver {
 public:
  ReportSink(adapters::ReportCollector* collector, std::string label, bool progress)
      : collector_(collector),
        label_(std::move(label)),
        progress_(progress),
        start_(Clock::now()) {}
  ~ReportSink() override {
    if (drawn_) std::fputs("\r\033[K", stderr);
  }
  void OnRecord(const adapters::Record& record, const Kernel& kernel) override {
    collector_->OnRecord(record, kernel);
  }
  void BeforeStep(const adapters::ScenarioStep& step, const Kernel& kernel) override {
    collector_->BeforeStep(step, kernel);
  }
  void AfterStep(const adapters::ScenarioStep& step, const Kernel& kernel) override {
    collector_->AfterStep(step, kernel);
  }
  void OnProgress(int64_t step, int64_t total_steps) override {
    if (!progress_) return;
    const Clock::time_point now = Clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(200))
      return;
    last_draw_ = now;
    drawn_ = true;
    std::fprintf(stderr, "\r\033[Kallocore report: %s: step %lld/%lld, %.1f s", label_.c_str(),
                 static_cast<long long>(step), static_cast<long long>(total_steps),
                 std::chrono::duration<double>(now - start_).count());
    std::fflush(stderr);
  }

 private:
  adapters::ReportCollector* collector_;
  std::string label_;
  bool progress_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

struct Options {
  std::string scenario;
  std::string format = "text";
  std::string out_dir;
  std::optional<Semantics> semantics;
  std::string config;
  int64_t waiters = 10;
  int64_t max_allocations = kDefaultMaxAllocations;
  bool max_allocations_given = false;
  std::vector<std::string> compare;
};

// What one side of a run changes in the scenario.
struct Variant {
  std::string label;
  std::optional<SchedulerConfig> config;
  std::optional<Semantics> semantics;
  std::optional<std::string> node_policy;
};

std::optional<Variant> ParseVariant(const std::string& spec, Semantics semantics) {
  Variant v{.label = spec};
  if (spec == "scenario") return v;
  if (spec.starts_with("semantics=")) {
    v.semantics = ParseSemantics(spec.substr(10));
    if (!v.semantics) {
      std::fprintf(stderr, "allocore report: --compare %s: unknown profile (%s)\n", spec.c_str(),
                   std::string(SemanticsNames()).c_str());
      return std::nullopt;
    }
    return v;
  }
  if (spec.starts_with("nodes=")) {
    v.node_policy = spec.substr(6);
    if (*v.node_policy != "fair" && *v.node_policy != "binpacking") {
      std::fprintf(stderr, "allocore report: --compare %s: the node policy is fair or binpacking\n",
                   spec.c_str());
      return std::nullopt;
    }
    return v;
  }
  adapters::ConfigLoadResult loaded = adapters::LoadConfigFile(spec, semantics);
  bool failed = false;
  for (const ConfigError& error : loaded.errors) {
    std::fprintf(stderr, "%s\n", error.ToString(spec).c_str());
    failed = failed || !error.warning;
  }
  if (!loaded.config || failed) {
    std::fprintf(stderr, "allocore report: --compare %s: not a usable queues.yaml\n", spec.c_str());
    return std::nullopt;
  }
  v.config = std::move(loaded.config);
  return v;
}

// The scenario's header with the variant applied (the steps stay with the stream).
adapters::Scenario Header(const adapters::Scenario& scenario, const Variant& variant) {
  adapters::Scenario header;
  header.name = scenario.name;
  header.semantics = variant.semantics.value_or(scenario.semantics);
  header.source_name = scenario.source_name;
  header.config = variant.config.value_or(scenario.config);
  header.nodes = scenario.nodes;
  header.clock = scenario.clock;
  header.budgets = scenario.budgets;
  if (variant.node_policy) {
    for (PartitionConfig& partition : header.config.partitions) {
      partition.node_sort_policy.type = *variant.node_policy;
    }
  }
  return header;
}

std::optional<adapters::Report> Replay(adapters::ScenarioStream& stream, const Variant& variant,
                                       const Options& options, bool progress) {
  const adapters::Scenario header = Header(stream.header(), variant);
  adapters::RunOptions run_options;
  run_options.keep_allocations = false;
  run_options.schedule_chunk = 4096;
  run_options.kernel_options.max_live_allocations = options.max_allocations;
  if (!options.max_allocations_given && header.clock == adapters::StepClock::kAdvanceStepsOnly) {
    run_options.kernel_options.max_live_allocations = header.budgets.max_live_allocations;
  }
  adapters::ReportCollector collector(
      {.longest_waiters = options.waiters, .buckets = 120, .max_series_queues = 64});
  absl::StatusOr<adapters::RunResult> run;
  {
    ReportSink sink(&collector, variant.label, progress);
    run =
        adapters::RunScenarioSteps(header, stream.step_count(), stream.steps(), run_options, &sink);
  }
  if (!run.ok()) {
    std::fprintf(stderr, "allocore report: %s: %s\n", variant.label.c_str(),
                 MessageOf(run.status()).c_str());
    return std::nullopt;
  }
  if (!run->errors.empty()) {
    std::fprintf(stderr, "allocore report: note: %s: %s refused by the kernel\n",
                 variant.label.c_str(),
                 Count(static_cast<int64_t>(run->errors.size()), "step was", "steps were").c_str());
  }
  return collector.Finish(header, *run);
}

bool MakeDirectory(const std::string& dir) {
  if (mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) {
    struct stat info {};
    if (stat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return true;
    std::fprintf(stderr, "allocore report: -o %s: not a directory\n", dir.c_str());
    return false;
  }
  std::fprintf(stderr, "allocore report: -o %s: %s\n", dir.c_str(), std::strerror(errno));
  return false;
}

int ParseArgs(int argc, char** argv, Options* options) {
  std::string semantics, waiters, max_allocations;
  CLI::App app;
  app.add_option("--format", options->format);
  app.add_option("-o,--output", options->out_dir);
  app.add_option("--semantics", semantics);
  app.add_option("--config", options->config);
  app.add_option("--waiters", waiters);
  app.add_option("--max-allocations", max_allocations);
  app.add_option("--compare", options->compare)->expected(2)->allow_extra_args(false);
  app.add_option("--trace", options->scenario);
  std::string positional;
  app.add_option("scenario", positional);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "report", kUsage)) {
    return *exit_code == 0 ? -1 : *exit_code;
  }
  if (!positional.empty()) {
    if (!options->scenario.empty()) {
      std::fprintf(stderr, "allocore report: give the workload once (SCENARIO or --trace)\n");
      return 2;
    }
    options->scenario = positional;
  }
  if (options->scenario.empty()) {
    std::fprintf(stderr, "allocore report: which scenario or log? (see --help)\n");
    return 2;
  }
  if (options->format != "text" && options->format != "json" && options->format != "html") {
    std::fprintf(stderr, "allocore report: unknown format '%s' (text, json or html)\n",
                 options->format.c_str());
    return 2;
  }
  if (!ParseSemanticsOption("report", semantics, &options->semantics)) return 2;
  if (!waiters.empty() && !ParseIntOption("report", "--waiters", waiters, "a number in [0, 1000]",
                                          0, 1000, &options->waiters)) {
    return 2;
  }
  if (!max_allocations.empty()) {
    if (!ParseIntOption("report", "--max-allocations", max_allocations, "a number >= 0", 0,
                        INT64_MAX, &options->max_allocations)) {
      return 2;
    }
    options->max_allocations_given = true;
  }
  return 0;
}

bool Emit(const Options& options, const std::string& text, const std::string& json,
          const std::string& html) {
  if (options.out_dir.empty()) {
    const std::string& chosen =
        options.format == "json" ? json : (options.format == "html" ? html : text);
    return WriteOutput("report", "-", chosen);
  }
  if (!MakeDirectory(options.out_dir)) return false;
  const std::string base = options.out_dir + "/";
  if (!WriteOutput("report", base + "report.txt", text) ||
      !WriteOutput("report", base + "report.json", json) ||
      !WriteOutput("report", base + "report.html", html)) {
    return false;
  }
  std::fprintf(stderr, "allocore report: wrote %sreport.html, report.json and report.txt\n",
               base.c_str());
  return true;
}

}  // namespace

int ReportCommand(int argc, char** argv) {
  Options options;
  if (int code = ParseArgs(argc, argv, &options); code != 0) return code < 0 ? 0 : code;

  absl::StatusOr<std::unique_ptr<adapters::ScenarioStream>> stream = adapters::ScenarioStream::Open(
      options.scenario, adapters::kStreamAboveBytes, {.semantics = options.semantics});
  if (!stream.ok()) {
    std::fprintf(stderr, "%s\n", MessageOf(stream.status()).c_str());
    return 2;
  }
  const adapters::Scenario& scenario = (*stream)->header();
  PrintWarnings(scenario.config_warnings);
  const bool progress = IsTerminal(stderr);

  if (options.compare.empty()) {
    Variant variant{.label = options.scenario};
    if (!options.config.empty()) {
      std::optional<Variant> config = ParseVariant(options.config, scenario.semantics);
      if (!config) return 2;
      variant.config = std::move(config->config);
    }
    std::optional<adapters::Report> report = Replay(**stream, variant, options, progress);
    if (!report) return 2;
    std::string text, json, html;
    adapters::AppendReportText(*report, &text);
    adapters::AppendReportJson(*report, &json);
    adapters::AppendReportHtml(*report, &html);
    return Emit(options, text, json, html) ? 0 : 2;
  }

  std::optional<Variant> a = ParseVariant(options.compare[0], scenario.semantics);
  std::optional<Variant> b = ParseVariant(options.compare[1], scenario.semantics);
  if (!a || !b) return 2;
  // --config is the config of a side that does not name its own.
  if (!options.config.empty()) {
    std::optional<Variant> base = ParseVariant(options.config, scenario.semantics);
    if (!base) return 2;
    for (Variant* side : {&*a, &*b}) {
      if (!side->config) side->config = base->config;
    }
  }
  std::optional<adapters::Report> report_a = Replay(**stream, *a, options, progress);
  if (!report_a) return 2;
  std::optional<adapters::Report> report_b = Replay(**stream, *b, options, progress);
  if (!report_b) return 2;
  adapters::ReportComparison comparison =
      adapters::CompareReports(a->label, *std::move(report_a), b->label, *std::move(report_b));
  std::string text, json, html;
  adapters::AppendComparisonText(comparison, &text);
  adapters::AppendComparisonJson(comparison, &json);
  adapters::AppendComparisonHtml(comparison, &html);
  return Emit(options, text, json, html) ? 0 : 2;
}

}  // namespace allocore::cli

// fuzz_scenario — arbitrary bytes as a scenario file, through the whole `allocore run` path:
// LoadScenarioText, RunScenario with an observer that writes every record as a JSON line and
// into a RecordTable and feeds the report's collector, CheckExpectations, the pending report,
// the queue trees and the report in every format.
//
// Checked for every input:
//   1. No crash, no hang, bounded memory; a refused scenario has a message.
//   2. After the run, Kernel::CheckConsistency() passes.
//   3. Guarantee 2 of scenario.h: the records are the same whatever RunOptions::schedule_chunk
//      says (the run is repeated one allocation per Schedule call and the JSON lines compared).
//   4. ScenarioStream (forced to stream) never refuses what the loader accepts, refuses with
//      the loader's message, and gives the loader's records whenever both accept (YAML corners
//      only libyaml accepts are the one allowed difference; see scenario_stream.h).
//   5. The usage and pending the report's collector tracks equal the kernel's after the run.
//
// Two things are cut short so that a valid but enormous workload is not reported as a hang:
// ask counts are capped at kMaxCount, and inputs whose `config_file:` could name a device or
// a special file (/dev, /proc, /sys, /run, or any backslash escape) are skipped. Relative
// `config_file:` paths resolve against tests/scenarios/, so configs/two-queues.yaml loads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/queue_tree_format.h"
#include "allocore/adapters/report.h"
#include "allocore/adapters/report_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "allocore/kernel.h"
#include "event_sequence.h"

#ifndef ALLOCORE_FUZZ_SCENARIO_DIR
#define ALLOCORE_FUZZ_SCENARIO_DIR "."
#endif

namespace allocore::fuzz {
namespace {

constexpr int64_t kMaxCount = 64;

class JsonSink : public adapters::RunObserver {
 public:
  explicit JsonSink(adapters::RecordTable* table, adapters::ReportCollector* report = nullptr)
      : table_(table), report_(report) {}
  void OnRecord(const adapters::Record& record, const Kernel& kernel) override {
    adapters::AppendJsonLine(record, &lines_);
    if (table_ != nullptr) table_->OnRecord(record, kernel);
    if (report_ != nullptr) report_->OnRecord(record, kernel);
  }
  void BeforeSchedule(const Kernel& kernel) override {
    if (table_ != nullptr) table_->BeforeSchedule(kernel);
  }
  void BeforeStep(const adapters::ScenarioStep& step, const Kernel& kernel) override {
    if (report_ != nullptr) report_->BeforeStep(step, kernel);
  }
  void AfterStep(const adapters::ScenarioStep& step, const Kernel& kernel) override {
    if (report_ != nullptr) report_->AfterStep(step, kernel);
  }
  const std::string& lines() const { return lines_; }

 private:
  adapters::RecordTable* table_;
  adapters::ReportCollector* report_;
  std::string lines_;
};

bool MayNameSpecialFile(std::string_view text) {
  if (text.find("config_file") == std::string_view::npos) return false;
  for (std::string_view bad : {"/dev", "/proc", "/sys", "/run", "\\"}) {
    if (text.find(bad) != std::string_view::npos) return true;
  }
  return false;
}

// The streaming reader against the loader: the same verdict, the same message when refused,
// the same records when valid (both runs under one live allocation budget instead of the
// count cap, which only the loaded scenario could apply).
void CompareWithStream(std::string_view text, const std::string& name,
                       const absl::StatusOr<adapters::Scenario>& loaded) {
  auto stream = adapters::ScenarioStream::OpenText(std::string(text), name,
                                                   /*stream_above_bytes=*/0);
  if (!stream.ok()) {
    // The stream hands anything it cannot take to the loader: never a refusal of its own.
    if (loaded.ok() || stream.status().message() != loaded.status().message()) {
      Fail("the stream refused what the loader says\nloader: " + loaded.status().ToString() +
           "\nstream: " + stream.status().ToString());
    }
    return;
  }
  // Accepted by the stream but not by the loader: the stream decoded every step with the
  // loader's own decoder, so only the YAML readers differ there (libyaml accepts corners of
  // YAML that yaml-cpp refuses, as `{memor?: 1}`; see scenario_stream.h).
  if (!loaded.ok()) return;
  adapters::RunOptions options;
  options.kernel_options.max_live_allocations = 4096;
  JsonSink from_loader(nullptr);
  auto a = adapters::RunScenario(*loaded, options, &from_loader);
  JsonSink from_stream(nullptr);
  auto b = adapters::RunScenarioSteps((*stream)->header(), (*stream)->step_count(),
                                      (*stream)->steps(), options, &from_stream);
  if (a.ok() != b.ok() || from_loader.lines() != from_stream.lines()) {
    Fail("the streamed run differs from the loaded one\n--- loaded ---\n" + from_loader.lines() +
         "--- streamed ---\n" + from_stream.lines());
  }
}

void CheckScenario(std::string_view text) {
  if (MayNameSpecialFile(text)) return;
  const std::string name = std::string(ALLOCORE_FUZZ_SCENARIO_DIR) + "/fuzz-input.yaml";
  auto loaded = adapters::LoadScenarioText(text, name, {});
  CompareWithStream(text, name, loaded);
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) Fail("a refused scenario without a message");
    return;
  }
  adapters::Scenario scenario = *std::move(loaded);
  for (adapters::ScenarioStep& step : scenario.steps) {
    if (auto* ask = std::get_if<AskSpec>(&step.action))
      ask->count = std::min(ask->count, kMaxCount);
  }

  adapters::RecordTable table(adapters::RecordTable::Options{});
  adapters::ReportCollector report;
  JsonSink sink(&table, &report);
  auto run = adapters::RunScenario(scenario, {}, &sink);
  if (!run.ok()) {
    if (run.status().message().empty()) Fail("a refused run without a message");
    return;
  }
  const Kernel& kernel = *run->kernel;
  absl::Status consistency = kernel.CheckConsistency();
  if (!consistency.ok()) Fail("CheckConsistency after the run: " + consistency.ToString());

  std::string out;
  table.Render(&out);
  absl::Status tracked = report.CheckUsage(kernel);
  if (!tracked.ok()) Fail("the report's tracked usage: " + tracked.ToString());
  const adapters::Report figures = report.Finish(scenario, *run);
  adapters::AppendReportText(figures, &out);
  adapters::AppendReportJson(figures, &out);
  adapters::AppendReportHtml(figures, &out);
  if (scenario.expect) (void)adapters::CheckExpectations(*scenario.expect, *run);
  std::vector<PendingExplanation> pending = kernel.ExplainPending();
  for (const PendingExplanation& p : pending) adapters::AppendPendingJsonLine(p, &out);
  adapters::AppendPendingTable(pending, &out);
  std::vector<adapters::PartitionQueues> trees;
  for (const std::string& partition : kernel.PartitionNames()) {
    auto queues = kernel.ListQueues(partition);
    if (!queues.ok()) Fail("ListQueues(" + partition + "): " + queues.status().ToString());
    adapters::AppendQueueTreeText(*queues, kernel.resource_types(),
                                  adapters::QueueTreeDetail::kFull, &out);
    trees.push_back({partition, *queues});
  }
  adapters::AppendQueueTreeDot(trees, kernel.resource_types(), &out);

  // The same run, one allocation per Schedule call: the same records.
  JsonSink fine(nullptr);
  adapters::RunOptions one_by_one;
  one_by_one.schedule_chunk = 1;
  auto again = adapters::RunScenario(scenario, one_by_one, &fine);
  if (!again.ok()) Fail("the run with schedule_chunk=1 failed: " + again.status().ToString());
  if (fine.lines() != sink.lines()) {
    Fail("schedule_chunk=1 changed the records\n--- schedule_chunk=0 ---\n" + sink.lines() +
         "--- schedule_chunk=1 ---\n" + fine.lines());
  }
}

}  // namespace
}  // namespace allocore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  allocore::fuzz::CheckScenario(text);
  return 0;
}

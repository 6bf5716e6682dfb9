// allocore/c_scenario.h: `allocore run`, `pack` and `report --format json` as calls, on the
// adapters' scenario runner, so that a foreign caller gets the command's decisions without
// parsing its output.
#include "allocore/c_scenario.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/report.h"
#include "allocore/adapters/report_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "allocore/c.h"
#include "c_internal.h"

namespace adapters = allocore::adapters;

struct allocore_run_t {
  allocore_decisions_t decisions;
  std::vector<int64_t> decision_steps;
  std::vector<adapters::ErrorRecord> errors;
  int64_t steps = 0;
  std::unique_ptr<allocore::Kernel> kernel;
};

namespace {

using allocore::c_abi::InvalidArgument;
using allocore::c_abi::Ok;
using allocore::c_abi::SetError;

// `allocore run`'s and `allocore report`'s live allocation budget when none is given: a bound
// on memory that no scenario of the corpus reaches.
constexpr int64_t kDefaultMaxLiveAllocations = 500000;

// A scenario opened for a run under the caller's options: its header (config replaced when
// asked) and its steps as a stream.
struct OpenedScenario {
  std::unique_ptr<adapters::ScenarioStream> stream;
  adapters::Scenario header;
  adapters::RunOptions run_options;
};

absl::StatusOr<OpenedScenario> Open(const char* path, const allocore_run_options_t* options) {
  if (path == nullptr || path[0] == '\0') return absl::InvalidArgumentError("a path is required");
  absl::StatusOr<std::optional<allocore::Semantics>> semantics =
      allocore::c_abi::SemanticsArg(options != nullptr ? options->semantics : nullptr);
  if (!semantics.ok()) return semantics.status();
  adapters::ScenarioLoadOptions load_options;
  load_options.semantics = *semantics;
  absl::StatusOr<std::unique_ptr<adapters::ScenarioStream>> stream =
      adapters::ScenarioStream::Open(path, adapters::kStreamAboveBytes, load_options);
  if (!stream.ok()) return stream.status();
  OpenedScenario opened;
  opened.stream = *std::move(stream);
  const adapters::Scenario& scenario = opened.stream->header();
  adapters::Scenario& header = opened.header;
  header.name = scenario.name;
  header.semantics = scenario.semantics;
  header.source_name = scenario.source_name;
  header.config = scenario.config;
  header.nodes = scenario.nodes;
  header.clock = scenario.clock;
  header.budgets = scenario.budgets;
  if (options != nullptr && options->config_path != nullptr && options->config_path[0] != '\0') {
    adapters::ConfigLoadResult loaded =
        adapters::LoadConfigFile(options->config_path, header.semantics);
    std::string problems;
    for (const allocore::ConfigError& error : loaded.errors) {
      if (error.warning) continue;
      absl::StrAppend(&problems, problems.empty() ? "" : "\n",
                      error.ToString(options->config_path));
    }
    if (!loaded.config || !problems.empty()) {
      return absl::InvalidArgumentError(
          problems.empty() ? absl::StrCat(options->config_path, ": not a usable queues.yaml")
                           : problems);
    }
    header.config = *std::move(loaded.config);
  }
  adapters::RunOptions& run_options = opened.run_options;
  run_options.keep_allocations = false;
  run_options.schedule_chunk = 4096;
  run_options.kernel_options.max_live_allocations = kDefaultMaxLiveAllocations;
  // A recorded log replays under its kernel's budget, which decided with it.
  if (header.clock == adapters::StepClock::kAdvanceStepsOnly) {
    run_options.kernel_options.max_live_allocations = header.budgets.max_live_allocations;
  }
  if (options != nullptr && options->max_live_allocations > 0) {
    run_options.kernel_options.max_live_allocations = options->max_live_allocations;
  }
  return opened;
}

class DecisionCollector : public adapters::RunObserver {
 public:
  explicit DecisionCollector(allocore_run_t* run) : run_(run) {}
  void OnRecord(const adapters::Record& record, const allocore::Kernel& /*kernel*/) override {
    if (record.decision == nullptr) return;
    allocore::c_abi::AppendOwned(std::span<const allocore::Decision>(record.decision, 1),
                                 &run_->decisions);
    run_->decision_steps.push_back(record.step);
  }

 private:
  allocore_run_t* run_;
};

// Writes `bytes` to `path` through a temporary file renamed into place: a failed write leaves
// no partial file.
absl::Status WriteWhole(const std::string& path, std::string_view bytes) {
  const std::string temp = path + ".tmp";
  std::FILE* out = std::fopen(temp.c_str(), "wb");
  if (out == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(temp, ": ", std::strerror(errno)));
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  const bool closed = std::fclose(out) == 0;
  if (!written || !closed || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::InternalError(absl::StrCat(path, ": could not write all of it"));
  }
  return absl::OkStatus();
}

}  // namespace

extern "C" {

allocore_run_t* allocore_run_file(const char* path, const allocore_run_options_t* options,
                                  char** errptr) {
  try {
    absl::StatusOr<OpenedScenario> opened = Open(path, options);
    if (!Ok(opened.status(), errptr)) return nullptr;
    auto run = std::make_unique<allocore_run_t>();
    DecisionCollector collector(run.get());
    absl::StatusOr<adapters::RunResult> result =
        adapters::RunScenarioSteps(opened->header, opened->stream->step_count(),
                                   opened->stream->steps(), opened->run_options, &collector);
    if (!Ok(result.status(), errptr)) return nullptr;
    run->errors = std::move(result->errors);
    run->steps = result->steps_run;
    run->kernel = std::move(result->kernel);
    return run.release();
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

void allocore_run_destroy(allocore_run_t* run) { delete run; }
const allocore_decisions_t* allocore_run_decisions(const allocore_run_t* run) {
  return run == nullptr ? nullptr : &run->decisions;
}
int64_t allocore_run_decision_step(const allocore_run_t* run, size_t i) {
  return run == nullptr || i >= run->decision_steps.size() ? 0 : run->decision_steps[i];
}
int64_t allocore_run_steps(const allocore_run_t* run) { return run == nullptr ? 0 : run->steps; }
size_t allocore_run_error_count(const allocore_run_t* run) {
  return run == nullptr ? 0 : run->errors.size();
}
int64_t allocore_run_error_step(const allocore_run_t* run, size_t i) {
  return run == nullptr || i >= run->errors.size() ? 0 : run->errors[i].step;
}
const char* allocore_run_error_message(const allocore_run_t* run, size_t i) {
  return run == nullptr || i >= run->errors.size() ? "" : run->errors[i].message.c_str();
}
int allocore_run_error_code(const allocore_run_t* run, size_t i) {
  return run == nullptr || i >= run->errors.size() ? ALLOCORE_OK
                                                   : static_cast<int>(run->errors[i].code);
}
allocore_kernel_t* allocore_run_take_kernel(allocore_run_t* run) {
  if (run == nullptr || run->kernel == nullptr) return nullptr;
  return allocore::c_abi::WrapKernel(std::move(run->kernel));
}

void allocore_pack_file(const char* scenario_path, const char* log_path, const char* semantics,
                        char** errptr) {
  if (scenario_path == nullptr || log_path == nullptr || log_path[0] == '\0') {
    InvalidArgument(errptr, "a scenario path and a log path are required");
    return;
  }
  absl::StatusOr<std::optional<allocore::Semantics>> release =
      allocore::c_abi::SemanticsArg(semantics);
  if (!Ok(release.status(), errptr)) return;
  adapters::ScenarioLoadOptions load_options;
  load_options.semantics = *release;
  absl::StatusOr<adapters::Scenario> scenario =
      adapters::LoadScenarioFile(scenario_path, load_options);
  if (!Ok(scenario.status(), errptr)) return;
  // A recorded log's digests hold its own profile's decisions: under another one they go.
  if (scenario->decision_digests && load_options.semantics) {
    scenario->decision_digests = false;
    for (adapters::ScenarioStep& step : scenario->steps) step.recorded_digest.reset();
  }
  (void)Ok(WriteWhole(log_path, adapters::PackScenario(*scenario)), errptr);
}

char* allocore_report_json(const char* path, const allocore_run_options_t* options, size_t* len,
                           char** errptr) {
  if (len != nullptr) *len = 0;
  try {
    absl::StatusOr<OpenedScenario> opened = Open(path, options);
    if (!Ok(opened.status(), errptr)) return nullptr;
    adapters::ReportCollector collector(
        {.longest_waiters = 10, .buckets = 120, .max_series_queues = 64});
    absl::StatusOr<adapters::RunResult> result =
        adapters::RunScenarioSteps(opened->header, opened->stream->step_count(),
                                   opened->stream->steps(), opened->run_options, &collector);
    if (!Ok(result.status(), errptr)) return nullptr;
    const adapters::Report report = collector.Finish(opened->header, *result);
    std::string json;
    adapters::AppendReportJson(report, &json);
    char* text = static_cast<char*>(std::malloc(json.size() + 1));
    if (text == nullptr) {
      SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
      return nullptr;
    }
    std::memcpy(text, json.data(), json.size());
    text[json.size()] = '\0';
    if (len != nullptr) *len = json.size();
    return text;
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

}  // extern "C"

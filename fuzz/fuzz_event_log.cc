// fuzz_event_log — arbitrary bytes as an event log (allocore pack), through ReadEventLog and the
// streamed reader `allocore run LOG` uses, then the replay.
//
// Checked for every input:
//   1. No crash, no hang, bounded memory; a refused log has a message naming the source and
//      an offset (or the version).
//   2. The log read from memory and the log read from a file agree: both refuse, or both
//      give the same scenario header, step count, warnings and records.
//   3. A log that reads packs again to a log that reads back to the same records (the codec's
//      fields are the structs' fields: what the reader builds, the writer writes).
//   4. After the replay, Kernel::CheckConsistency() passes.
// Ask counts are capped at kMaxCount so that a valid but enormous workload is not a hang.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "event_sequence.h"

namespace allocore::fuzz {
namespace {

constexpr int64_t kMaxCount = 64;

class Lines : public adapters::RunObserver {
 public:
  void OnRecord(const adapters::Record& record, const Kernel&) override {
    adapters::AppendJsonLine(record, &text);
  }
  std::string text;
};

std::string Replay(const adapters::Scenario& scenario) {
  Lines lines;
  adapters::RunOptions options;
  options.kernel_options.max_live_allocations = 10000;
  absl::StatusOr<adapters::RunResult> run = adapters::RunScenario(scenario, options, &lines);
  if (!run.ok()) {
    if (run.status().message().empty()) Fail("a refused replay without a message");
    return "refused: " + std::string(run.status().message());
  }
  if (absl::Status consistent = run->kernel->CheckConsistency(); !consistent.ok()) {
    Fail("CheckConsistency after the replay: " + consistent.ToString());
  }
  return lines.text;
}

void CapCounts(adapters::Scenario* scenario) {
  for (adapters::ScenarioStep& step : scenario->steps) {
    if (auto* ask = std::get_if<AskSpec>(&step.action))
      ask->count = std::min(ask->count, kMaxCount);
  }
}

void Check(std::string_view bytes) {
  absl::StatusOr<adapters::EventLogContents> read = adapters::ReadEventLog(bytes, "fuzz.alog");

  // The same bytes through the file reader.
  char path[] = "/tmp/allocore-fuzz-event-log.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return;
  const bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  close(fd);
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<adapters::ScenarioStream>> stream =
      written ? adapters::OpenEventLogStream(path, {}, &warnings)
              : absl::InternalError("could not write the input");
  std::vector<adapters::ScenarioStep> streamed_steps;
  if (stream.ok()) {
    adapters::StepSource& steps = (*stream)->steps();
    while (true) {
      absl::StatusOr<const adapters::ScenarioStep*> step = steps.Next();
      if (!step.ok()) Fail("a checked log failed on its second read: " + step.status().ToString());
      if (*step == nullptr) break;
      streamed_steps.push_back(**step);
    }
  }
  std::remove(path);
  if (!written) return;

  if (read.ok() != stream.ok()) {
    Fail("the memory and file readers disagree\nmemory: " + read.status().ToString() +
         "\nfile: " + stream.status().ToString());
  }
  if (!read.ok()) {
    const std::string message(read.status().message());
    if (message.find("fuzz.alog: ") != 0) Fail("a refusal that does not name the log: " + message);
    return;
  }
  if (static_cast<int64_t>(read->scenario.steps.size()) != (*stream)->step_count() ||
      streamed_steps.size() != read->scenario.steps.size() ||
      read->warnings.size() != warnings.size()) {
    Fail("the memory and file readers read different logs");
  }

  adapters::Scenario scenario = read->scenario;
  CapCounts(&scenario);
  const std::string records = Replay(scenario);
  adapters::Scenario from_file = (*stream)->header();
  from_file.steps = std::move(streamed_steps);
  CapCounts(&from_file);
  if (Replay(from_file) != records) Fail("the file reader's replay differs from memory's");

  absl::StatusOr<adapters::EventLogContents> again =
      adapters::ReadEventLog(adapters::PackScenario(read->scenario), "fuzz.alog");
  if (!again.ok()) Fail("a read log packs to one that does not read: " + again.status().ToString());
  adapters::Scenario repacked = again->scenario;
  CapCounts(&repacked);
  if (Replay(repacked) != records) Fail("the repacked log replays differently");
}

}  // namespace
}  // namespace allocore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  allocore::fuzz::Check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

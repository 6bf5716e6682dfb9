// fuzz_event_log — arbitrary bytes as an event log (allocore pack), through ReadEventLog and the
// streamed reader `allocore run LOG` uses, then the replay; and as a kernel snapshot
// (Kernel::Restore) when they start like one.
//
// Checked for every input:
//   1. No crash, no hang, bounded memory; a refused log has a message naming the source and
//      an offset (or the version).
//   2. The log read from memory and the log read from a file agree: both refuse, or both
//      give the same scenario header, step count, warnings and records.
//   3. A log that reads packs again to a log that reads back to the same records (the codec's
//      fields are the structs' fields: what the reader builds, the writer writes).
//   4. After the replay, Kernel::CheckConsistency() passes, and the kernel's snapshot restores
//      to a kernel with the same snapshot.
//   5. Bytes that start with ALLOCSNP are a snapshot. The target writes the header's length and
//      checksum to match the body (the checksum would stop nearly every mutation before the
//      decoder, and snapshot_test covers it), then restores: refused with a message naming a
//      byte offset, or a kernel that passes CheckConsistency, snapshots and restores again to
//      the same bytes, and stays consistent through a schedule and a clock jump.
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
#include "allocore/crc32c.h"
#include "allocore/kernel.h"
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
  const std::string snapshot = run->kernel->Snapshot();
  absl::StatusOr<std::unique_ptr<Kernel>> restored = Kernel::Restore(snapshot);
  if (!restored.ok()) Fail("a kernel's own snapshot is refused: " + restored.status().ToString());
  if ((*restored)->Snapshot() != snapshot) Fail("a restored kernel snapshots to other bytes");
  return lines.text;
}

void CheckSnapshot(std::string_view bytes) {
  constexpr size_t kHeader = 24;
  std::string snapshot(bytes);
  if (snapshot.size() >= kHeader) {
    std::string body = snapshot.substr(kHeader);
    const uint32_t crc = Crc32c(body);
    for (size_t i = 0; i < 4; ++i) snapshot[12 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
    for (size_t i = 0; i < 8; ++i) {
      snapshot[16 + i] = static_cast<char>((uint64_t{body.size()} >> (8 * i)) & 0xff);
    }
  }
  absl::StatusOr<std::unique_ptr<Kernel>> restored = Kernel::Restore(snapshot);
  if (!restored.ok()) {
    const std::string message(restored.status().message());
    if (message.find("snapshot: ") != 0) Fail("a refused snapshot without its offset: " + message);
    return;
  }
  Kernel& kernel = **restored;
  if (absl::Status consistent = kernel.CheckConsistency(); !consistent.ok()) {
    Fail("CheckConsistency after a restore: " + consistent.ToString());
  }
  const std::string again = kernel.Snapshot();
  absl::StatusOr<std::unique_ptr<Kernel>> second = Kernel::Restore(again);
  if (!second.ok()) Fail("a restored kernel's snapshot is refused: " + second.status().ToString());
  if ((*second)->Snapshot() != again) Fail("a restored kernel snapshots to other bytes");
  std::vector<Decision> out;
  (void)kernel.Schedule(kMaxCount, "", &out);
  (void)kernel.Advance(int64_t{4} * 24 * 60 * 60 * 1000, &out);
  if (absl::Status consistent = kernel.CheckConsistency(); !consistent.ok()) {
    Fail("CheckConsistency after a restored kernel ran: " + consistent.ToString());
  }
}

void CapCounts(adapters::Scenario* scenario) {
  for (adapters::ScenarioStep& step : scenario->steps) {
    if (auto* ask = std::get_if<AskSpec>(&step.action))
      ask->count = std::min(ask->count, kMaxCount);
  }
}

void Check(std::string_view bytes) {
  if (bytes.substr(0, 8) == "ALLOCSNP") {
    CheckSnapshot(bytes);
    return;
  }
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
  // Decision digests (version 3) read alike by both readers and survive a repack.
  auto same_digests = [](const std::vector<adapters::ScenarioStep>& a,
                         const std::vector<adapters::ScenarioStep>& b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      const auto& x = a[i].recorded_digest;
      const auto& y = b[i].recorded_digest;
      if (x.has_value() != y.has_value()) return false;
      if (x && (x->decisions != y->decisions || x->digest != y->digest)) return false;
    }
    return a.size() == b.size();
  };
  if (read->scenario.decision_digests != (*stream)->header().decision_digests ||
      !same_digests(read->scenario.steps, streamed_steps)) {
    Fail("the memory and file readers read different decision digests");
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
  if (again->scenario.decision_digests != read->scenario.decision_digests ||
      !same_digests(again->scenario.steps, read->scenario.steps)) {
    Fail("a repacked log lost or changed its decision digests");
  }
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

// allocore/adapters/event_log.h — scenarios as compact binary event logs, and back.
//
// An event log holds what a scenario file holds (the config, the nodes registered up front, the
// steps, the expectations) in framed binary records: every record carries its length and a
// CRC-32C, names are written once per log and referred to by number, quantities are varints.
// Reading one costs a fraction of parsing its YAML, and it replays through the same runner, so
// its decision stream is the scenario's, byte for byte. The format and its version rules are in
// share/doc/allocore/docs/event-log-format.md.
//
//   PackScenario          Scenario -> log bytes (allocore pack)
//   ReadEventLog          log bytes -> Scenario, checked whole before anything runs
//   ScenarioToYaml        Scenario -> scenario YAML a person can read and edit (allocore unpack)
//   OpenEventLogStream    a log file replayed step by step in bounded memory (allocore run LOG);
//                         ScenarioStream::Open takes logs too (it reads the first bytes)
//
// Bad input: a log whose last frame is cut short (a writer that stopped mid-write) is read up
// to that frame, with a warning; a damaged frame, an unknown record, a log of a newer version or
// a config that does not validate is refused with an error naming the offset. Nothing is
// returned, and so nothing reaches a kernel, before the whole log has been checked.
//
// Example:
//   auto scenario = allocore::adapters::LoadScenarioFile("s.yaml");
//   std::string log = allocore::adapters::PackScenario(*scenario);
//   auto back = allocore::adapters::ReadEventLog(log, "s.alog");  // back->scenario, ->warnings
#ifndef ALLOCORE_ADAPTERS_EVENT_LOG_H_
#define ALLOCORE_ADAPTERS_EVENT_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "allocore/export.h"

namespace allocore::adapters {

// The first 8 bytes of every event log.
inline constexpr std::string_view kEventLogMagic = "ALLOCLOG";
// The format version this build writes, and the newest it reads (it reads every older one).
// Version 2 added the header's clock and kernel budgets, for logs recorded from a live kernel
// (allocore/adapters/event_recorder.h); version 3 the decision digests a recorder writes, which
// `allocore run LOG --check` compares with the replay's decisions.
inline constexpr uint32_t kEventLogVersion = 3;
// The largest record a log may hold (a config of many thousand queues is a few MiB).
inline constexpr uint32_t kMaxEventLogFrameBytes = uint32_t{256} << 20;

// Whether `head` (the first bytes of a file) starts like an event log.
ALLOCORE_EXPORT bool LooksLikeEventLog(std::string_view head);

// The scenario as an event log: header, nodes, expectations, steps, end record.
ALLOCORE_EXPORT std::string PackScenario(const Scenario& scenario);

struct EventLogContents {
  Scenario scenario;
  // Problems the log was read past (a last frame cut short): "LOG: ..." lines.
  std::vector<std::string> warnings;
};

// Reads a whole log from memory. `source_name` names it in messages and becomes the scenario's
// source_name. Errors: InvalidArgument, the message naming the source and the byte offset.
ALLOCORE_EXPORT absl::StatusOr<EventLogContents> ReadEventLog(
    std::string_view bytes, const std::string& source_name,
    const ScenarioLoadOptions& options = {});

// A log file as a ScenarioStream: the file is checked whole first (every frame's checksum,
// every record decoded), then the steps are decoded again one at a time as the run takes them,
// so memory does not grow with the log. Warnings (a cut-short tail) go to `warnings`, or, when it
// is null, to the header's config_warnings (which `allocore run` prints before it runs).
ALLOCORE_EXPORT absl::StatusOr<std::unique_ptr<ScenarioStream>> OpenEventLogStream(
    const std::string& path, const ScenarioLoadOptions& options,
    std::vector<std::string>* warnings);

// What ScenarioToYaml writes first for a recorded log (StepClock::kAdvanceStepsOnly): the YAML
// replays with the contract's 1 ms tick before every step, so timer-driven decisions may differ
// from the log's.
inline constexpr char kRecordedClockNote[] =
    "# recorded from a live kernel: its clock moved only by advance steps; replayed from this\n"
    "# file every step ticks 1 ms first, so timer-driven decisions may differ from the log's\n";

// The scenario as YAML in the contract's format (share/doc/allocore/docs/scenario-format.md);
// loading the text gives the same config, nodes, steps and expectations (source locations
// aside).
ALLOCORE_EXPORT std::string ScenarioToYaml(const Scenario& scenario);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_EVENT_LOG_H_

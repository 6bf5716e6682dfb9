// allocore/adapters/scenario_stream.h — replaying a scenario file without holding its steps.
//
// LoadScenarioFile builds the whole scenario in memory, which caps a replay at 64 MiB of YAML
// and makes its memory grow with the file. ScenarioStream reads the file twice with libyaml's
// event parser instead: the first read checks everything (every step is decoded, exactly as
// the loader decodes it, and dropped) and keeps the rest of the scenario (config, nodes,
// expect); the second read hands the steps out one at a time to RunScenarioSteps. Memory is
// then what the kernel and a few MiB of steps hold, whatever the file's length, and nothing
// has run when the file turns out to be unusable. The second read starts on a thread of its
// own while the first one checks (on a second handle of the file) and decodes steps ahead
// into a queue bounded by 4 MiB of the file's text: on two cores the reads overlap and the
// replay no longer waits for the file to be parsed twice in turn.
//
// The loader stays the reference. Files up to `stream_above_bytes` (default 8 MiB: every
// hand-written scenario) are simply loaded. Larger ones are streamed, except that a file the
// stream cannot take as it is (aliases or anchors, a problem of any kind, a bare config) is
// handed to LoadScenarioText while it is within the loader's 64 MiB, so that its messages are
// the loader's; over 64 MiB the stream reports problems itself, with file:line:col. libyaml
// and yaml-cpp differ in rare corners of YAML syntax (libyaml accepts `{memor?: 1}`, yaml-cpp
// does not): a streamed file is read as libyaml reads it. Whatever both read, they read alike
// (scenario_stream_test and fuzz_scenario compare them).
//
// Example:
//   auto stream = allocore::adapters::ScenarioStream::Open("replay.yaml");
//   if (!stream.ok()) { /* exit 2 */ }
//   auto run = allocore::adapters::RunScenarioSteps((*stream)->header(), (*stream)->step_count(),
//                                                  (*stream)->steps(), options, &observer);
#ifndef ALLOCORE_ADAPTERS_SCENARIO_STREAM_H_
#define ALLOCORE_ADAPTERS_SCENARIO_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "allocore/adapters/scenario.h"
#include "allocore/export.h"

namespace allocore::adapters {

// The largest file a stream reads: memory does not grow with it, so the bound is on time.
inline constexpr uint64_t kMaxStreamedBytes = uint64_t{16} << 30;  // 16 GiB
// Files up to this size are loaded whole (the loader is exact and they are small).
inline constexpr uint64_t kStreamAboveBytes = uint64_t{8} << 20;  // 8 MiB

class ALLOCORE_EXPORT ScenarioStream {
 public:
  // Reads `path` ("-": stdin, copied to a temporary file first) once, checking it whole.
  // Errors as LoadScenarioFile's (InvalidArgument: file:line:col per problem; NotFound,
  // PermissionDenied).
  // `options` as for LoadScenarioFile (a semantics override).
  static absl::StatusOr<std::unique_ptr<ScenarioStream>> Open(
      const std::string& path, uint64_t stream_above_bytes = kStreamAboveBytes,
      const ScenarioLoadOptions& options = {});
  // The same for a text in memory (tests and fuzzers compare it with LoadScenarioText, with
  // `stream_above_bytes` 0 to stream whatever the size).
  static absl::StatusOr<std::unique_ptr<ScenarioStream>> OpenText(
      std::string text, const std::string& source_name,
      uint64_t stream_above_bytes = kStreamAboveBytes, const ScenarioLoadOptions& options = {});
  virtual ~ScenarioStream() = default;

  // The scenario without its steps when streamed(); the whole scenario otherwise.
  virtual const Scenario& header() const = 0;
  virtual int64_t step_count() const = 0;
  // False when the file was loaded whole (it needed the loader).
  virtual bool streamed() const = 0;
  // The steps in order; a second call starts over.
  virtual StepSource& steps() = 0;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_SCENARIO_STREAM_H_

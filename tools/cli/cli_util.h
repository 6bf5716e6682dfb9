// tools/cli/cli_util.h — small helpers shared by the subcommands: strict flag values, buffered
// output in big chunks, durations for humans.
#ifndef ALLOCORE_TOOLS_CLI_CLI_UTIL_H_
#define ALLOCORE_TOOLS_CLI_CLI_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "allocore/semantics.h"

namespace CLI {
class App;
}  // namespace CLI

namespace allocore::adapters {
struct Scenario;
struct ScenarioLoadOptions;
class ScenarioStream;
}  // namespace allocore::adapters

namespace allocore::cli {

// Parses a command's arguments with CLI11, the one option parser of every command:
// `--x=y` and `--x y`, `--` ends the options, an unknown option or a bad value is refused.
// `-h`/`--help` prints `usage` on stdout. Returns nullopt to go on, or the exit code: 0 after
// --help, 2 after an error (`allocore COMMAND: message` and the usage on stderr).
std::optional<int> ParseOptions(CLI::App* app, int argc, char** argv, std::string_view command,
                                std::string_view usage);

// A decimal integer with an optional sign and nothing else; nullopt otherwise.
std::optional<int64_t> ParseInt64(std::string_view text);
std::optional<uint64_t> ParseUint64(std::string_view text);

// The value `text` of an integer option `flag` into `*value` when it lies in [min, max]. False
// after printing "allocore COMMAND: FLAG needs NEED, got 'TEXT'" (`need` says the range).
bool ParseIntOption(std::string_view command, std::string_view flag, const std::string& text,
                    std::string_view need, int64_t min, int64_t max, int64_t* value);

// The profile `text` names, into `*semantics`; an empty `text` leaves it as it is. False after
// printing "allocore COMMAND: unknown --semantics 'TEXT' (known: ...)".
bool ParseSemanticsOption(std::string_view command, const std::string& text,
                          std::optional<Semantics>* semantics);

// The message of `status` alone, as the commands print it (file:line:col first when it has one).
std::string MessageOf(const absl::Status& status);

// Each warning on a line of its own on stderr (config warnings, a log's warnings).
void PrintWarnings(const std::vector<std::string>& warnings);

// The scenario or event log at `path` ("-": stdin) whole, its steps included, its config
// warnings printed; nullopt after printing why not.
std::optional<adapters::Scenario> ReadWholeScenario(const std::string& path,
                                                    const adapters::ScenarioLoadOptions& options);

// Writes `bytes` to `path` ("-": stdout). False after printing why not
// ("allocore COMMAND: PATH: reason").
bool WriteOutput(const std::string& command, const std::string& path, std::string_view bytes);

// The whole of a binary file of at most `max_bytes`; nullopt after printing why not
// ("allocore COMMAND: PATH: reason").
std::optional<std::string> ReadBinaryFile(const std::string& command, const std::string& path,
                                          uint64_t max_bytes);

// The stream's steps into `scenario->steps` (a scenario read whole). False after printing why
// not.
bool TakeAllSteps(adapters::ScenarioStream& stream, adapters::Scenario* scenario);

// True when `stream` is a terminal.
bool IsTerminal(std::FILE* stream);

// "1 node", "2 nodes": `count` and the noun, plural unless count is 1 (`plural` when the
// noun does not just take an "s").
std::string Count(int64_t count, std::string_view noun, std::string_view plural = {});

// "850 ns", "12.3 us", "45.6 ms", "1.23 s".
std::string FormatDuration(int64_t nanos);

// Text collected in memory and written with fwrite in large chunks (no per-line flushing).
class OutputBuffer {
 public:
  static constexpr size_t kChunk = size_t{1} << 20;

  explicit OutputBuffer(std::FILE* stream) : stream_(stream) { text_.reserve(kChunk + 4096); }
  ~OutputBuffer() { Flush(); }
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;

  std::string* text() { return &text_; }
  // Writes when a chunk is full.
  void MaybeFlush() {
    if (text_.size() >= kChunk) Flush();
  }
  void Flush();
  // False when a write failed (disk full, closed pipe).
  bool ok() const { return ok_; }

 private:
  std::FILE* stream_;
  std::string text_;
  bool ok_ = true;
};

}  // namespace allocore::cli

#endif  // ALLOCORE_TOOLS_CLI_CLI_UTIL_H_

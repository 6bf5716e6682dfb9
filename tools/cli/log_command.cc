// allocore pack / unpack — scenarios to binary event logs and back.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

constexpr char kPackUsage[] =
    "usage: allocore pack SCENARIO|- -o LOG [--semantics yunikorn-1.2|yunikorn-1.9]\n"
    "\n"
    "Writes the scenario (config, nodes, steps, expect block) as a binary event log\n"
    "(docs/event-log-format.md): framed records with checksums, names written once.\n"
    "`allocore run LOG` replays it with the same decisions, byte for byte, much faster than\n"
    "its YAML; `allocore unpack LOG` turns it back into a scenario file.\n"
    "\n"
    "  -o, --output LOG  where to write the log (required; `-` writes to stdout)\n"
    "  --semantics P     the profile to record, whatever the scenario's `semantics:` says\n"
    "  --help            this text\n"
    "\n"
    "exit codes: 0 ok, 2 unusable input or output\n";

constexpr char kUnpackUsage[] =
    "usage: allocore unpack LOG [-o FILE]\n"
    "\n"
    "Writes an event log (allocore pack) as a scenario file a person can read and edit;\n"
    "loading it gives the log's config, nodes, steps and expectations. A log whose last\n"
    "record was cut short is read up to that record, with a warning.\n"
    "\n"
    "  -o, --output FILE  where to write the scenario (default: stdout)\n"
    "  --help            this text\n"
    "\n"
    "exit codes: 0 ok, 2 unusable input or output\n";

}  // namespace

int PackCommand(int argc, char** argv) {
  std::string input;
  std::string output;
  std::string semantics_text;
  CLI::App app;
  app.add_option("-o,--output", output);
  app.add_option("--semantics", semantics_text);
  app.add_option("scenario", input);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "pack", kPackUsage)) {
    return *exit_code;
  }
  if (input.empty() || output.empty()) {
    std::fprintf(stderr, "allocore pack: a SCENARIO and -o LOG are required\n\n%s", kPackUsage);
    return 2;
  }
  adapters::ScenarioLoadOptions load_options;
  if (!ParseSemanticsOption("pack", semantics_text, &load_options.semantics)) return 2;
  std::optional<adapters::Scenario> read = ReadWholeScenario(input, load_options);
  if (!read) return 2;
  adapters::Scenario& scenario = *read;
  // A recorded log's decision digests are those of its own profile: under another one they
  // would make every `run --check` of the new log fail, so they are left out.
  if (scenario.decision_digests && load_options.semantics) {
    scenario.decision_digests = false;
    for (adapters::ScenarioStep& step : scenario.steps) step.recorded_digest.reset();
    std::fprintf(stderr,
                 "allocore pack: %s: --semantics given: the recorded decision digests are left "
                 "out (they hold the recorded profile's decisions)\n",
                 input.c_str());
  }
  return WriteOutput("pack", output, adapters::PackScenario(scenario)) ? 0 : 2;
}

int UnpackCommand(int argc, char** argv) {
  std::string input;
  std::string output = "-";
  CLI::App app;
  app.add_option("-o,--output", output);
  app.add_option("log", input);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "unpack", kUnpackUsage)) {
    return *exit_code;
  }
  if (input.empty()) {
    std::fprintf(stderr, "allocore unpack: a LOG is required\n\n%s", kUnpackUsage);
    return 2;
  }
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<adapters::ScenarioStream>> stream =
      adapters::OpenEventLogStream(input, {}, &warnings);
  if (!stream.ok()) {
    std::fprintf(stderr, "%s\n", MessageOf(stream.status()).c_str());
    return 2;
  }
  PrintWarnings(warnings);
  adapters::Scenario scenario = (*stream)->header();
  if (scenario.clock == adapters::StepClock::kAdvanceStepsOnly) {
    std::fprintf(stderr,
                 "allocore unpack: %s: warning: a recorded log, whose clock moved only by "
                 "advance steps; the YAML replays with a 1 ms tick before every step, so "
                 "timer-driven decisions may differ\n",
                 input.c_str());
  }
  if (!TakeAllSteps(**stream, &scenario)) return 2;
  return WriteOutput("unpack", output, adapters::ScenarioToYaml(scenario)) ? 0 : 2;
}

}  // namespace allocore::cli

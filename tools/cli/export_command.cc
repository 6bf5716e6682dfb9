// allocore export — a scenario's state at a step as YuniKorn's full state dump.
#include <cstdio>
#include <string>

#include "CLI/CLI.hpp"
#include "allocore/adapters/cluster_export.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

constexpr char kExportUsage[] =
    "usage: allocore export yunikorn SCENARIO|LOG [--at-step N] [-o FILE] [--semantics P]\n"
    "\n"
    "Replays the scenario up to step N and writes the state YuniKorn would report then, as the\n"
    "JSON of its full state dump (GET /ws/v1/fullstatedump): nodes, applications with their\n"
    "running allocations and pending requests, in the format of the profile's release (1.2\n"
    "or 1.8-1.9). `allocore import yunikorn` reads it back (docs/import.md).\n"
    "\n"
    "  --at-step N        the state after step N (1-based; default: after the last step)\n"
    "  -o, --output FILE  where to write the dump (default: stdout)\n"
    "  --semantics P      yunikorn-1.2 or yunikorn-1.9, whatever the scenario says\n"
    "  --help             this text\n"
    "\n"
    "exit codes: 0 ok, 2 unusable input or output\n";

}  // namespace

int ExportCommand(int argc, char** argv) {
  std::string target;
  std::string input;
  std::string output = "-";
  std::string semantics_text;
  int64_t at_step = -1;
  CLI::App app;
  app.add_option("target", target);
  app.add_option("scenario", input);
  app.add_option("--at-step", at_step);
  app.add_option("-o,--output", output);
  app.add_option("--semantics", semantics_text);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "export", kExportUsage)) {
    return *exit_code;
  }
  if (target != "yunikorn" || input.empty()) {
    std::fprintf(stderr, "allocore export: %s\n\n%s",
                 target != "yunikorn" ? "the only target is yunikorn" : "a SCENARIO is required",
                 kExportUsage);
    return 2;
  }
  adapters::ScenarioLoadOptions load_options;
  if (!ParseSemanticsOption("export", semantics_text, &load_options.semantics)) return 2;
  std::optional<adapters::Scenario> scenario = ReadWholeScenario(input, load_options);
  if (!scenario) return 2;
  adapters::ExportOptions options;
  options.at_step = at_step;
  absl::StatusOr<std::string> dump = adapters::ExportYunikornStateDump(*scenario, options);
  if (!dump.ok()) {
    std::fprintf(stderr, "allocore export: %s\n", MessageOf(dump.status()).c_str());
    return 2;
  }
  return WriteOutput("export", output, *dump) ? 0 : 2;
}

}  // namespace allocore::cli

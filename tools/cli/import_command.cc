// allocore import — a running cluster (YuniKorn's state dump, Kubernetes objects) as a scenario.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "allocore/adapters/cluster_import.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

constexpr char kImportUsage[] =
    "usage: allocore import yunikorn STATEDUMP.json --config QUEUES.yaml [options]\n"
    "       allocore import kubernetes OBJECTS.json --config QUEUES.yaml [options]\n"
    "\n"
    "Writes a scenario that rebuilds a running cluster: the config, the nodes, running pods as\n"
    "recover_allocation, other schedulers' pods as add_foreign, pending pods as add_ask with\n"
    "their creation times, priorities, task groups and required nodes, then one schedule step.\n"
    "Then `allocore run` explains why each pending pod waits, `allocore report` measures\n"
    "and compares configurations on it, as on any scenario. docs/import.md has the mapping.\n"
    "\n"
    "  yunikorn     the JSON of YuniKorn's GET /ws/v1/fullstatedump (v1.2 or v1.9)\n"
    "  kubernetes   `kubectl get nodes,pods -A -o json`, mapped as the k8shim of the\n"
    "               --semantics release maps pods (`-` reads stdin)\n"
    "\n"
    "  --config FILE      the queues.yaml the cluster runs with, or its ConfigMap (required:\n"
    "                     neither source carries ACLs, placement rules or user limits)\n"
    "  -o, --output FILE  where to write the scenario (default: stdout); written whole or\n"
    "                     not at all\n"
    "  --semantics P      yunikorn-1.2 or yunikorn-1.9 (default: what a dump says of its\n"
    "                     release, else yunikorn-1.2)\n"
    "  --scheduler-name N kubernetes: pods with this spec.schedulerName are YuniKorn's\n"
    "                     (default yunikorn); other pods on nodes are foreign\n"
    "  --no-schedule      leave out the final schedule step\n"
    "  --follow SECONDS   then SECONDS one-second cycles (advance 1 s, schedule), to see what\n"
    "                     happens once timers such as preemption.delay run out (at most 86400)\n"
    "  --strict           fail when anything would be dropped or guessed (the warnings)\n"
    "  --quiet            no summary on stderr (warnings are still printed)\n"
    "  --help             this text\n"
    "\n"
    "exit codes: 0 ok, 2 unusable input (the message names the file, line, object and field)\n";

// Writes `bytes` beside `path` and renames it into place, so that a failure leaves nothing.
bool WriteWhole(const std::string& path, std::string_view bytes) {
  if (path == "-") return WriteOutput("import", path, bytes);
  std::string temporary = path + ".tmp" + std::to_string(::getpid());
  if (!WriteOutput("import", temporary, bytes)) {
    std::remove(temporary.c_str());
    return false;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "allocore import: %s: %s\n", path.c_str(), std::strerror(errno));
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

}  // namespace

int ImportCommand(int argc, char** argv) {
  std::string source_kind;
  std::string input;
  std::string output = "-";
  std::string semantics_text;
  bool no_schedule = false;
  bool quiet = false;
  adapters::ImportOptions options;
  CLI::App app;
  app.add_option("kind", source_kind);
  app.add_option("input", input);
  app.add_option("--config", options.config_path);
  app.add_option("-o,--output", output);
  app.add_option("--semantics", semantics_text);
  app.add_option("--scheduler-name", options.scheduler_name);
  app.add_flag("--no-schedule", no_schedule);
  app.add_option("--follow", options.follow_seconds);
  app.add_flag("--strict", options.strict);
  app.add_flag("--quiet", quiet);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "import", kImportUsage)) {
    return *exit_code;
  }
  if (source_kind != "yunikorn" && source_kind != "kubernetes") {
    std::fprintf(stderr, "allocore import: %s (known: yunikorn, kubernetes)\n\n%s",
                 source_kind.empty() ? "which source? (yunikorn or kubernetes)"
                                     : ("unknown source '" + source_kind + "'").c_str(),
                 kImportUsage);
    return 2;
  }
  if (input.empty() || options.config_path.empty()) {
    std::fprintf(stderr, "allocore import: an input file and --config are required\n\n%s",
                 kImportUsage);
    return 2;
  }
  if (!ParseSemanticsOption("import", semantics_text, &options.semantics)) return 2;
  options.schedule = !no_schedule;
  absl::StatusOr<adapters::ImportResult> imported =
      source_kind == "yunikorn" ? adapters::ImportYunikornStateDump(input, options)
                                : adapters::ImportKubernetesObjects(input, options);
  if (!imported.ok()) {
    std::fprintf(stderr, "allocore import: %s\n", MessageOf(imported.status()).c_str());
    return 2;
  }
  PrintWarnings(imported->scenario.config_warnings);
  if (!imported->warnings.empty()) {
    std::fprintf(stderr, "allocore import: warning: dropped or guessed (--strict refuses):\n%s",
                 adapters::FormatImportWarnings(imported->warnings).c_str());
  }
  if (!WriteWhole(output, adapters::ScenarioToYaml(imported->scenario))) return 2;
  if (!quiet) {
    const adapters::ImportSummary& s = imported->summary;
    std::fprintf(stderr, "allocore import: %s%s%s: %s, %s, %s running, %s pending, %s\n",
                 input.c_str(), s.source_version.empty() ? "" : " from ", s.source_version.c_str(),
                 Count(s.nodes, "node").c_str(), Count(s.applications, "application").c_str(),
                 Count(s.running, "pod").c_str(), Count(s.pending, "ask").c_str(),
                 Count(s.foreign, "foreign pod").c_str());
  }
  return 0;
}

}  // namespace allocore::cli

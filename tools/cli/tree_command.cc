// allocore tree — the queue tree of a config, or of a scenario replayed up to a step.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "allocore/adapters/queue_tree_format.h"
#include "allocore/adapters/scenario.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

constexpr char kUsage[] =
    "usage: allocore tree CONFIG|SCENARIO|- [--at-step N] [--format text|dot]\n"
    "\n"
    "Prints the queue tree of every partition with effective priority, offset, fence, sort\n"
    "policy, guaranteed and max resources, allocated and pending resources and running\n"
    "applications. CONFIG is a YuniKorn queues.yaml; a SCENARIO is replayed first (its nodes,\n"
    "then its steps up to N; default: all). `-` reads it from stdin.\n"
    "\n"
    "  --at-step N       replay steps 1..N only (0: nodes registered, no step applied)\n"
    "  --format FORMAT   text (default) or dot (a Graphviz digraph: allocore tree f.yaml\n"
    "                    --format dot | dot -Tsvg > tree.svg)\n"
    "  --help            this text\n"
    "\n"
    "exit codes: 0 ok, 2 unusable input\n";

}  // namespace

int TreeCommand(int argc, char** argv) {
  std::string path;
  int64_t at_step = -1;
  std::string format = "text";
  std::string at_step_text;
  CLI::App app;
  app.add_option("--at-step", at_step_text);
  app.add_option("--format", format);
  app.add_option("file", path);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "tree", kUsage)) {
    return *exit_code;
  }
  if (format != "text" && format != "dot") {
    std::fprintf(stderr, "allocore tree: unknown format '%s' (text or dot)\n", format.c_str());
    return 2;
  }
  const bool dot = format == "dot";
  if (!at_step_text.empty() && !ParseIntOption("tree", "--at-step", at_step_text,
                                               "a step number >= 0", 0, INT64_MAX, &at_step)) {
    return 2;
  }
  if (path.empty()) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }

  absl::StatusOr<adapters::Scenario> scenario =
      adapters::LoadScenarioFile(path, {.allow_bare_config = true});
  if (!scenario.ok()) {
    std::fprintf(stderr, "%s\n", MessageOf(scenario.status()).c_str());
    return 2;
  }
  PrintWarnings(scenario->config_warnings);
  const auto steps = static_cast<int64_t>(scenario->steps.size());
  if (at_step > steps) {
    std::fprintf(stderr, "allocore tree: --at-step %lld, but %s has %lld steps\n",
                 static_cast<long long>(at_step), path.c_str(), static_cast<long long>(steps));
    return 2;
  }
  adapters::RunOptions run_options;
  run_options.last_step = at_step;
  absl::StatusOr<adapters::RunResult> run = adapters::RunScenario(*scenario, run_options, nullptr);
  if (!run.ok()) {
    std::fprintf(stderr, "allocore tree: %s\n", MessageOf(run.status()).c_str());
    return 2;
  }
  const Kernel& kernel = *run->kernel;

  std::vector<adapters::PartitionQueues> partitions;
  for (const std::string& name : kernel.PartitionNames()) {
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel.ListQueues(name);
    if (!queues.ok()) {
      std::fprintf(stderr, "allocore tree: partition %s: %s\n", name.c_str(),
                   MessageOf(queues.status()).c_str());
      return 2;
    }
    partitions.push_back({.partition = name, .queues = *std::move(queues)});
  }

  OutputBuffer output(stdout);
  std::string* out = output.text();
  if (dot) {
    adapters::AppendQueueTreeDot(partitions, kernel.resource_types(), out);
  } else {
    for (size_t i = 0; i < partitions.size(); ++i) {
      if (i > 0) *out += "\n";
      *out += "partition " + partitions[i].partition;
      if (steps > 0 || !scenario->nodes.empty()) {
        *out += ", after step " + std::to_string(run->steps_run) + " of " + std::to_string(steps);
      }
      *out += "\n\n";
      adapters::AppendQueueTreeText(partitions[i].queues, kernel.resource_types(),
                                    adapters::QueueTreeDetail::kFull, out);
    }
  }
  output.Flush();
  if (!run->errors.empty()) {
    std::fprintf(stderr, "allocore tree: note: %s refused by the kernel\n",
                 Count(static_cast<int64_t>(run->errors.size()), "step was", "steps were").c_str());
  }
  if (!output.ok()) {
    std::fprintf(stderr, "allocore tree: error writing the output\n");
    return 2;
  }
  return 0;
}

}  // namespace allocore::cli

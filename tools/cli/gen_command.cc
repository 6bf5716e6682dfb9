// allocore gen — write synthetic scenario files (adapters/workload_gen.h does the work).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "allocore/adapters/alibaba_trace.h"
#include "allocore/adapters/workload_gen.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

// The trace ships with allocore: data/alibaba-gpu-v2023 in the repository, installed under
// share/allocore. Without --data, the first of these that holds it is read: ALLOCORE_ALIBABA_DATA,
// the repository of a build tree (build*/bin/allocore), the install prefix
// (bin/allocore -> share/allocore), then data/alibaba-gpu-v2023 under the working directory.
constexpr char kTraceFile[] = "openb_pod_list_default.csv";

std::vector<std::filesystem::path> DefaultTraceDirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("ALLOCORE_ALIBABA_DATA"); env != nullptr && env[0] != '\0') {
    dirs.emplace_back(env);
  }
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    std::filesystem::path bin = self.parent_path();
    dirs.push_back(bin.parent_path().parent_path() / "data" / "alibaba-gpu-v2023");
    dirs.push_back(bin.parent_path() / "share" / "allocore" / "alibaba-gpu-v2023");
  }
  dirs.emplace_back("data/alibaba-gpu-v2023");
  return dirs;
}

// The directory to read the trace from, or nullopt after saying where it looked.
std::optional<std::string> DefaultTraceDir() {
  std::vector<std::filesystem::path> dirs = DefaultTraceDirs();
  for (const std::filesystem::path& dir : dirs) {
    std::error_code error;
    if (std::filesystem::is_regular_file(dir / kTraceFile, error)) return dir.string();
  }
  std::fprintf(stderr, "allocore gen alibaba: no trace found (%s) in:\n", kTraceFile);
  for (const std::filesystem::path& dir : dirs) std::fprintf(stderr, "  %s\n", dir.c_str());
  std::fprintf(stderr, "name a copy with --data DIR\n");
  return std::nullopt;
}

constexpr char kUsage[] =
    "usage: allocore gen yunikorn-shape --nodes N --pods M [-o FILE]\n"
    "       allocore gen alibaba [--data DIR] [--scale N] [--policy fair|binpacking] [-o FILE]\n"
    "       allocore gen random --seed S [--queues Q] [--apps A] [--asks K] [--nodes N]\n"
    "                           [--steps T] [-o FILE]\n"
    "\n"
    "Writes a scenario file (stdout unless -o) for `allocore run`.\n"
    "\n"
    "yunikorn-shape   the shape of YuniKorn core's BenchmarkScheduling: queues root.a and\n"
    "                 root.b with guarantees, one app and one ask per queue (M/2 allocations\n"
    "                 of {memory: 10, vcore: 1} each), N nodes with room for M/N + 1 each,\n"
    "                 then one schedule step. Try: --nodes 5000 --pods 100000\n"
    "alibaba          the Alibaba GPU cluster trace v2023 (1,523 nodes, 8,152 pods with arrival\n"
    "                 and deletion times; allocore ships it, DIR defaults to the copy in the\n"
    "                 repository or the install, see data/alibaba-gpu-v2023/README.md):\n"
    "                 a queue per QoS class, one app with one ask per pod, arrivals, schedule\n"
    "                 steps and deletions in time order; --scale N repeats nodes and pods\n"
    "                 N times (default 1), --policy sets the node sort policy (default fair)\n"
    "random           a deep queue tree with offsets, fences and limits, and T steps of churn\n"
    "                 (apps, asks, schedules, releases, removals, clock advances, node changes,\n"
    "                 config reloads); the same options always give the same file. Defaults:\n"
    "                 --queues 12 --apps 16 --asks 48 --nodes 6 --steps 150\n"
    "\n"
    "exit codes: 0 ok, 2 bad options or unwritable output\n";

int Fail(const char* message, const char* value = nullptr) {
  if (value != nullptr) {
    std::fprintf(stderr, "allocore gen: %s '%s'\n", message, value);
  } else {
    std::fprintf(stderr, "allocore gen: %s\n", message);
  }
  return 2;
}

int Write(const std::string& text, const std::string& path) {
  std::FILE* file = path.empty() || path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    std::perror(("allocore gen: " + path).c_str());
    return 2;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok = (file == stdout ? std::fflush(file) : std::fclose(file)) == 0 && ok;
  if (!ok) return Fail("error writing the output");
  return 0;
}

// allocore gen alibaba [--data DIR] [--scale N] [--policy fair|binpacking] [-o FILE]
int GenAlibaba(adapters::AlibabaTraceOptions options, const std::string& output) {
  std::FILE* file = output.empty() || output == "-" ? stdout : std::fopen(output.c_str(), "wb");
  if (file == nullptr) {
    std::perror(("allocore gen: " + output).c_str());
    return 2;
  }
  absl::StatusOr<adapters::AlibabaTraceSummary> written =
      adapters::WriteAlibabaScenario(options, file);
  bool closed = file == stdout || std::fclose(file) == 0;
  if (!written.ok()) {
    std::string message(written.status().message().data(), written.status().message().size());
    return Fail(message.c_str());
  }
  if (!closed) return Fail("error writing the output");
  std::fprintf(stderr, "allocore gen alibaba: %lld nodes, %lld pods, %lld steps\n",
               static_cast<long long>(written->nodes), static_cast<long long>(written->pods),
               static_cast<long long>(written->steps));
  return 0;
}

}  // namespace

int GenCommand(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string_view generator = argv[1];
  if (generator == "help" || generator == "--help" || generator == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (generator != "yunikorn-shape" && generator != "alibaba" && generator != "random") {
    std::fprintf(
        stderr,
        "allocore gen: %s '%s': name a generator first (yunikorn-shape, alibaba or "
        "random)\n\n%s",
        generator.starts_with("-") ? "an option before the generator" : "unknown generator",
        argv[1], kUsage);
    return 2;
  }
  // One subcommand per generator, each with its own options (CLI11 refuses the others).
  CLI::App app;
  app.set_help_flag();
  app.require_subcommand(1);
  bool help = false;
  std::string output;
  std::map<std::string, std::string> values;  // option -> text, checked after parsing
  auto add = [&](CLI::App* command, std::vector<std::string> options) {
    command->set_help_flag();
    command->add_flag("-h,--help", help);
    command->add_option("-o,--output", output);
    for (const std::string& option : options) command->add_option(option, values[option]);
  };
  CLI::App* shape = app.add_subcommand("yunikorn-shape");
  add(shape, {"--nodes", "--pods"});
  CLI::App* alibaba = app.add_subcommand("alibaba");
  add(alibaba, {"--data", "--scale", "--policy"});
  CLI::App* random = app.add_subcommand("random");
  add(random, {"--seed", "--queues", "--apps", "--asks", "--nodes", "--steps"});
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "gen", kUsage)) {
    return *exit_code;
  }
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  // The integer `option` was given as (nullopt and an error printed when it is malformed).
  bool malformed = false;
  auto number = [&](const std::string& option, int64_t* out) {
    const std::string& text = values[option];
    if (text.empty()) return false;
    std::optional<int64_t> n = ParseInt64(text);
    if (!n) {
      Fail((option + " needs an integer, got").c_str(), text.c_str());
      malformed = true;
      return false;
    }
    *out = *n;
    return true;
  };
  if (alibaba->parsed()) {
    adapters::AlibabaTraceOptions options;
    if (values["--data"].empty()) {
      std::optional<std::string> found = DefaultTraceDir();
      if (!found) return 2;
      options.data_dir = *found;
    } else {
      options.data_dir = values["--data"];
    }
    if (!values["--policy"].empty()) options.node_policy = values["--policy"];
    number("--scale", &options.scale);
    if (malformed) return 2;
    return GenAlibaba(options, output);
  }
  absl::StatusOr<std::string> text;
  if (shape->parsed()) {
    adapters::YunikornShapeOptions options;
    bool has_nodes = number("--nodes", &options.nodes);
    bool has_pods = number("--pods", &options.pods);
    if (malformed) return 2;
    if (!has_nodes || !has_pods) return Fail("yunikorn-shape needs --nodes and --pods");
    text = adapters::GenerateYunikornShapeScenario(options);
  } else {
    adapters::RandomScenarioOptions options;
    if (values["--seed"].empty()) return Fail("random needs --seed");
    std::optional<uint64_t> seed = ParseUint64(values["--seed"]);
    if (!seed) return Fail("--seed needs an unsigned integer, got", values["--seed"].c_str());
    options.seed = *seed;
    number("--queues", &options.queues);
    number("--apps", &options.apps);
    number("--asks", &options.asks);
    number("--nodes", &options.nodes);
    number("--steps", &options.steps);
    if (malformed) return 2;
    text = adapters::GenerateRandomScenario(options);
  }
  if (!text.ok()) {
    std::string message(text.status().message().data(), text.status().message().size());
    return Fail(message.c_str());
  }
  return Write(*text, output);
}

}  // namespace allocore::cli

// allocore gen — write synthetic scenario files (adapters/workload_gen.h does the work).
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "allocore/adapters/alibaba_trace.h"
#include "allocore/adapters/workload_gen.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

// Where the trace sits when allocore runs from its repository root (../shared beside it).
constexpr char kDefaultAlibabaData[] = "../shared/data/alibaba-gpu-v2023";

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
    "                 and deletion times; DIR defaults to ../shared/data/alibaba-gpu-v2023):\n"
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
int GenAlibaba(int argc, char** argv) {
  adapters::AlibabaTraceOptions options;
  options.data_dir = kDefaultAlibabaData;
  std::string output;
  for (int i = 2; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) return Fail("missing value after", argv[i]);
    const char* value = argv[++i];
    if (flag == "-o" || flag == "--output") {
      output = value;
    } else if (flag == "--data") {
      options.data_dir = value;
    } else if (flag == "--policy") {
      options.node_policy = value;
    } else if (flag == "--scale") {
      std::optional<int64_t> scale = ParseInt64(value);
      if (!scale) return Fail("--scale needs an integer, got", value);
      options.scale = *scale;
    } else {
      std::fprintf(stderr, "allocore gen alibaba: unknown option '%.*s'\n\n%s",
                   static_cast<int>(flag.size()), flag.data(), kUsage);
      return 2;
    }
  }
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
  std::string_view kind = argv[1];
  if (kind == "--help" || kind == "-h" || kind == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (kind == "alibaba") return GenAlibaba(argc, argv);
  if (kind != "yunikorn-shape" && kind != "random") {
    std::fprintf(stderr, "allocore gen: unknown generator '%s'\n\n%s", argv[1], kUsage);
    return 2;
  }
  adapters::YunikornShapeOptions shape;
  adapters::RandomScenarioOptions random;
  bool has_nodes = false;
  bool has_pods = false;
  bool has_seed = false;
  std::string output;
  for (int i = 2; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) return Fail("missing value after", argv[i]);
    const char* value = argv[++i];
    if (flag == "-o" || flag == "--output") {
      output = value;
      continue;
    }
    if (kind == "random" && flag == "--seed") {
      std::optional<uint64_t> seed = ParseUint64(value);
      if (!seed) return Fail("--seed needs an unsigned integer, got", value);
      random.seed = *seed;
      has_seed = true;
      continue;
    }
    std::optional<int64_t> number = ParseInt64(value);
    if (!number) return Fail("expected an integer, got", value);
    if (kind == "yunikorn-shape" && flag == "--nodes") {
      shape.nodes = *number;
      has_nodes = true;
    } else if (kind == "yunikorn-shape" && flag == "--pods") {
      shape.pods = *number;
      has_pods = true;
    } else if (kind == "random" && flag == "--queues") {
      random.queues = *number;
    } else if (kind == "random" && flag == "--apps") {
      random.apps = *number;
    } else if (kind == "random" && flag == "--asks") {
      random.asks = *number;
    } else if (kind == "random" && flag == "--nodes") {
      random.nodes = *number;
    } else if (kind == "random" && flag == "--steps") {
      random.steps = *number;
    } else {
      std::fprintf(stderr, "allocore gen %s: unknown option '%.*s'\n\n%s", argv[1],
                   static_cast<int>(flag.size()), flag.data(), kUsage);
      return 2;
    }
  }
  absl::StatusOr<std::string> text;
  if (kind == "yunikorn-shape") {
    if (!has_nodes || !has_pods) return Fail("yunikorn-shape needs --nodes and --pods");
    text = adapters::GenerateYunikornShapeScenario(shape);
  } else {
    if (!has_seed) return Fail("random needs --seed");
    text = adapters::GenerateRandomScenario(random);
  }
  if (!text.ok()) {
    std::string message(text.status().message().data(), text.status().message().size());
    return Fail(message.c_str());
  }
  return Write(*text, output);
}

}  // namespace allocore::cli

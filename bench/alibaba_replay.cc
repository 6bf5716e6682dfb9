// allocore_alibaba_replay — the Alibaba GPU trace replay benchmark, one configuration per run:
//
//   allocore_alibaba_replay --data DIR --scale N --policy fair|binpacking
//
// Writes the trace's scenario (WriteAlibabaScenario) to a temporary file, replays it the way
// `allocore run --stats` does (streamed, one Schedule(max=1) call per allocation, no decision
// output) and prints one line:
//
//   alibaba-gpu-v2023 policy=fair scale=10 nodes=15230 pods=81520 allocs_per_s=X p50_ns=Y
//   p99_ns=Z rss_mib=W
//
// allocs_per_s counts kernel time only; p50/p99 are nearest-rank percentiles of the
// per-allocation latency; rss_mib is the process's peak resident set (one configuration per
// process, so that runs do not inherit each other's peak). tools/dev bench alibaba runs the
// four configurations (scale 1 and 10, both policies).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/alibaba_trace.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"

namespace {

int Usage() {
  std::fputs("usage: allocore_alibaba_replay --data DIR --scale N --policy fair|binpacking\n",
             stderr);
  return 2;
}

int64_t Rank(const std::vector<int64_t>& sorted, int percent) {
  size_t index = (sorted.size() * static_cast<size_t>(percent) + 99) / 100;
  return sorted[std::max<size_t>(index, 1) - 1];
}

}  // namespace

int main(int argc, char** argv) {
  allocore::adapters::AlibabaTraceOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    if (flag == "--data") {
      options.data_dir = argv[i + 1];
    } else if (flag == "--scale") {
      options.scale = std::atoll(argv[i + 1]);
    } else if (flag == "--policy") {
      options.node_policy = argv[i + 1];
    } else {
      return Usage();
    }
  }
  if (argc % 2 != 1 || options.data_dir.empty()) return Usage();

  char path[] = "/tmp/allocore-alibaba-XXXXXX";
  int fd = ::mkstemp(path);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "w");
  if (file == nullptr) {
    std::perror("allocore_alibaba_replay: temporary file");
    return 2;
  }
  absl::StatusOr<allocore::adapters::AlibabaTraceSummary> written =
      allocore::adapters::WriteAlibabaScenario(options, file);
  std::fclose(file);
  if (!written.ok()) {
    std::fprintf(stderr, "allocore_alibaba_replay: %s\n", written.status().ToString().c_str());
    ::unlink(path);
    return 2;
  }
  auto stream = allocore::adapters::ScenarioStream::Open(path);
  if (!stream.ok()) {
    std::fprintf(stderr, "allocore_alibaba_replay: %s\n", stream.status().ToString().c_str());
    ::unlink(path);
    return 2;
  }
  allocore::adapters::RunOptions run_options;
  run_options.collect_latencies = true;
  run_options.schedule_chunk = 1;
  run_options.keep_allocations = false;
  auto run = allocore::adapters::RunScenarioSteps((*stream)->header(), (*stream)->step_count(),
                                                  (*stream)->steps(), run_options, nullptr);
  ::unlink(path);
  if (!run.ok() || run->allocation_latency_nanos.empty() || run->kernel_nanos <= 0) {
    std::fprintf(stderr, "allocore_alibaba_replay: the replay failed or allocated nothing: %s\n",
                 run.status().ToString().c_str());
    return 1;
  }
  std::vector<int64_t> latencies = std::move(run->allocation_latency_nanos);
  std::sort(latencies.begin(), latencies.end());
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  const double allocs_per_s =
      static_cast<double>(run->allocation_count) * 1e9 / static_cast<double>(run->kernel_nanos);
  std::printf(
      "alibaba-gpu-v2023 policy=%s scale=%lld nodes=%lld pods=%lld allocs_per_s=%.0f "
      "p50_ns=%lld p99_ns=%lld rss_mib=%.1f\n",
      options.node_policy.c_str(), static_cast<long long>(options.scale),
      static_cast<long long>(written->nodes), static_cast<long long>(written->pods), allocs_per_s,
      static_cast<long long>(Rank(latencies, 50)), static_cast<long long>(Rank(latencies, 99)),
      static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}

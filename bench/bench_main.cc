// bench/bench_main.cc — main() of the benchmark binaries.
//
// Besides the Google Benchmark flags it understands one private mode, used by
// BM_Memory_PeakRss to measure a clean process:
//   --allocore_peak_rss_child=NODES   run the YuniKorn shape with NODES nodes and 10,000 pods
//                                     (NODES = 0: do nothing), print peak_rss_kb=N, exit.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_support.h"

namespace {

constexpr char kChildFlag[] = "--allocore_peak_rss_child=";

// Prints "peak_rss_kb=N" (VmHWM of this process) after the run.
int RunPeakRssChild(int64_t nodes) {
  using namespace allocore::bench;
  bool ok = true;
  if (nodes > 0) {
    YunikornShapeWorkload shape = MakeYunikornShape(nodes, 10000);
    auto kernel = NewKernel(shape.config);
    std::vector<allocore::Decision> out;
    ApplyAll(*kernel, shape.setup, &out);
    ApplyAll(*kernel, shape.timed, &out);
    ok = out.size() > 10000;
  }
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 1;
  char line[256];
  long long kb = -1;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
  }
  std::fclose(status);
  std::printf("peak_rss_kb=%lld\n", kb);
  return ok && kb >= 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kChildFlag, sizeof(kChildFlag) - 1) == 0) {
      return RunPeakRssChild(std::strtoll(argv[i] + sizeof(kChildFlag) - 1, nullptr, 10));
    }
  }
  allocore::bench::AddAllocatorContext();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// bench/memory_benchmark.cc — bytes per entity and the peak RSS of the 50,000-node case.
//
// Bytes are counted by the replaced operator new/delete of alloc_counter.cc (usable sizes, so
// allocator rounding is included): the net growth of live bytes while N entities are added,
// divided by N. Specs and the decision vector are built before counting starts, so only what
// the kernel keeps is counted. Amortised container growth is included (vectors and hash
// tables sized for N, as they would be in a real cluster of that size).
//
// "Names" are the interned id strings: measured by interning the same ids into the structure
// the kernel uses for them (a deque of strings plus a hash set of views) and subtracted to
// give the *_excl_names counters (the targets: <= 256 B per node, <= 128 B per ask).
//
// Hot bytes (the targets: <= 128 B per node, <= 96 B per pending ask) are what the
// scheduling walk reads, counted from the kernel's own layout: per node its entry in the node
// index and its availability row (node_index.h; the blocks' headers add under 4 B per node);
// per pending ask its AskHot record (partition.h) plus its entry in the application's ask
// order, measured by building the same btrees. Resource shapes (one per distinct resource)
// and everything else the kernel keeps are cold: bytes_per_* minus hot_bytes_per_*.
//
// Peak RSS: a fresh child process (this binary, --allocore_peak_rss_child=NODES) runs the
// YuniKorn shape with 50,000 nodes and 10,000 pods and reports its VmHWM (peak resident set),
// next to the same child doing nothing (the process baseline).
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <string>
#include <string_view>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_set.h"
#include "bench_support.h"
#include "node_index.h"
#include "partition.h"

namespace allocore::bench {
namespace {

SchedulerConfig OneLeafConfig() {
  TreeOptions tree;
  tree.leaves = 1;
  return MakeTreeConfig(tree).config;
}

// Bytes the kernel's name interning takes for `ids` (same structure as kernel/src/names.h).
int64_t NameBytes(const std::vector<std::string>& ids) {
  AllocCounter::Start();
  std::deque<std::string> storage;
  absl::flat_hash_set<std::string_view> set;
  for (const std::string& id : ids) set.insert(storage.emplace_back(id));
  AllocCounter::Stop();
  return AllocCounter::LiveBytes();
}

// Bytes per entry of `apps` ask orders holding `count` asks between them, filled in the order
// the kernel fills them (AddAsk order: increasing keys).
double AskOrderBytesPerEntry(int64_t count, int64_t apps) {
  std::vector<absl::btree_set<internal::AskKey>> orders(static_cast<size_t>(apps));
  AllocCounter::Start();
  for (int64_t i = 0; i < count; ++i) {
    orders[static_cast<size_t>(i % apps)].insert(
        {.neg_priority = 0, .create_time = 0, .add_seq = i, .slot = static_cast<uint32_t>(i)});
  }
  AllocCounter::Stop();
  return static_cast<double>(AllocCounter::LiveBytes()) / static_cast<double>(count);
}

void Report(benchmark::State& state, const char* entity, int64_t count, int64_t bytes,
            int64_t name_bytes) {
  const double n = static_cast<double>(count);
  state.counters[std::string("bytes_per_") + entity] = static_cast<double>(bytes) / n;
  state.counters[std::string("name_bytes_per_") + entity] = static_cast<double>(name_bytes) / n;
  state.counters[std::string("bytes_per_") + entity + "_excl_names"] =
      static_cast<double>(bytes - name_bytes) / n;
}

void BM_Memory_Node(benchmark::State& state) {
  const int64_t count = state.range(0);
  std::vector<NodeSpec> specs;
  std::vector<std::string> ids;
  for (int64_t i = 0; i < count; ++i) {
    specs.push_back(MakeNode(i, 1000, 1000));
    ids.push_back(specs.back().id);
  }
  int64_t bytes = 0;
  for (auto _ : state) {
    auto kernel = NewKernel(OneLeafConfig());
    std::vector<Decision> out;
    out.reserve(16);
    AllocCounter::Start();
    for (const NodeSpec& spec : specs) CheckOk(kernel->AddNode(spec, &out), "AddNode");
    AllocCounter::Stop();
    bytes = AllocCounter::LiveBytes();
  }
  Report(state, "node", count, bytes, NameBytes(ids));
  state.counters["hot_bytes_per_node"] =
      static_cast<double>(sizeof(internal::NodeIndex::Entry) + sizeof(internal::FitQuantities));
}

void BM_Memory_Application(benchmark::State& state) {
  const int64_t count = state.range(0);
  std::vector<AppSpec> specs;
  std::vector<std::string> ids;
  for (int64_t i = 0; i < count; ++i) {
    AppSpec app;
    app.id = "app-" + std::to_string(i);
    app.queue = "root.q0";
    app.user = "user";
    specs.push_back(app);
    ids.push_back(app.id);
  }
  int64_t bytes = 0;
  for (auto _ : state) {
    auto kernel = NewKernel(OneLeafConfig());
    std::vector<Decision> out;
    out.reserve(static_cast<size_t>(count) * 2 + 16);
    CheckOk(kernel->AddNode(MakeNode(0, 1000, 1000), &out), "AddNode");
    AllocCounter::Start();
    for (const AppSpec& spec : specs) CheckOk(kernel->AddApplication(spec, &out), "AddApp");
    AllocCounter::Stop();
    bytes = AllocCounter::LiveBytes();
  }
  Report(state, "app", count, bytes, NameBytes(ids));
}

// asks pending asks spread over `apps` applications (ask ids repeat across applications, so
// names are counted once per distinct id).
void BM_Memory_PendingAsk(benchmark::State& state) {
  const int64_t count = state.range(0);
  const int64_t apps = state.range(1);
  std::vector<AskSpec> specs;
  std::vector<std::string> ids;
  for (int64_t i = 0; i < count; ++i) {
    std::string id = "ask-" + std::to_string(i / apps);
    if (i < count / apps) ids.push_back(id);
    specs.push_back(MakeAsk("app-" + std::to_string(i % apps), id, 10, 1, 1));
  }
  int64_t bytes = 0;
  for (auto _ : state) {
    auto kernel = NewKernel(OneLeafConfig());
    std::vector<Decision> out;
    out.reserve(static_cast<size_t>(apps) * 2 + 16);
    CheckOk(kernel->AddNode(MakeNode(0, 1000, 1000), &out), "AddNode");
    for (int64_t a = 0; a < apps; ++a) {
      AppSpec app;
      app.id = "app-" + std::to_string(a);
      app.queue = "root.q0";
      app.user = "user";
      CheckOk(kernel->AddApplication(app, &out), "AddApp");
    }
    AllocCounter::Start();
    for (const AskSpec& spec : specs) CheckOk(kernel->AddAsk(spec, &out), "AddAsk");
    AllocCounter::Stop();
    bytes = AllocCounter::LiveBytes();
  }
  Report(state, "ask", count, bytes, NameBytes(ids));
  state.counters["hot_bytes_per_ask"] =
      static_cast<double>(sizeof(internal::AskHot)) + AskOrderBytesPerEntry(count, apps);
}

void BM_Memory_Allocation(benchmark::State& state) {
  const int64_t count = state.range(0);
  int64_t bytes = 0;
  for (auto _ : state) {
    YunikornShapeWorkload shape = MakeYunikornShape(1000, count);
    auto kernel = NewKernel(shape.config);
    std::vector<Decision> out;
    out.reserve(static_cast<size_t>(count) + 64);
    ApplyAll(*kernel, shape.setup, &out);
    for (size_t i = 0; i + 1 < shape.timed.size(); ++i) Apply(*kernel, shape.timed[i], &out);
    AllocCounter::Start();
    int64_t made = Apply(*kernel, shape.timed.back(), &out);
    AllocCounter::Stop();
    bytes = AllocCounter::LiveBytes();
    if (made != count) {
      state.SkipWithError("not every pod was allocated");
      return;
    }
  }
  state.counters["bytes_per_allocation"] = static_cast<double>(bytes) / static_cast<double>(count);
}

void BM_Memory_Queue(benchmark::State& state) {
  TreeOptions tree;
  tree.leaves = state.range(0);
  tree.depth = 3;
  TreeConfig config = MakeTreeConfig(tree);
  int64_t bytes = 0;
  for (auto _ : state) {
    SchedulerConfig copy = config.config;
    AllocCounter::Start();
    auto kernel = NewKernel(copy);
    AllocCounter::Stop();
    bytes = AllocCounter::LiveBytes();
  }
  state.counters["bytes_per_leaf_queue"] =
      static_cast<double>(bytes) / static_cast<double>(config.leaves.size());
}

std::string SelfPath() {
  std::string path(4096, '\0');
  ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  path.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return path;
}

// Peak RSS (bytes) of a child process running the YuniKorn shape with `nodes` nodes. The child
// reports its own VmHWM: the rusage of a spawned child would include the parent's resident set
// from before exec (Linux carries the pre-exec high-water mark over).
int64_t ChildPeakRss(int64_t nodes, std::string* error) {
  std::string command = "'" + SelfPath() + "' --allocore_peak_rss_child=" + std::to_string(nodes);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *error = "popen failed";
    return 0;
  }
  long long kb = -1;
  char line[256];
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    std::sscanf(line, "peak_rss_kb=%lld", &kb);
  }
  if (pclose(pipe) != 0 || kb < 0) {
    *error = "child run failed";
    return 0;
  }
  return static_cast<int64_t>(kb) * 1024;
}

void BM_Memory_PeakRss(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  int64_t peak = 0, baseline = 0;
  std::string error;
  for (auto _ : state) {
    peak = ChildPeakRss(nodes, &error);
    baseline = ChildPeakRss(0, &error);
  }
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  state.counters["peak_rss_bytes"] = static_cast<double>(peak);
  state.counters["baseline_rss_bytes"] = static_cast<double>(baseline);
  state.counters["kernel_rss_bytes"] = static_cast<double>(peak - baseline);
}

BENCHMARK(BM_Memory_Node)->ArgName("nodes")->Arg(100000)->Iterations(1);
BENCHMARK(BM_Memory_Application)->ArgName("apps")->Arg(100000)->Iterations(1);
BENCHMARK(BM_Memory_PendingAsk)
    ->ArgNames({"asks", "apps"})
    ->Args({100000, 1})
    ->Args({100000, 1000})
    ->Iterations(1);
BENCHMARK(BM_Memory_Allocation)->ArgName("allocations")->Arg(100000)->Iterations(1);
BENCHMARK(BM_Memory_Queue)->ArgName("leaves")->Arg(10000)->Iterations(1);
BENCHMARK(BM_Memory_PeakRss)->ArgName("nodes")->Arg(50000)->Iterations(1);

}  // namespace
}  // namespace allocore::bench

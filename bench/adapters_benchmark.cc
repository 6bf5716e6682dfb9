// bench/adapters_benchmark.cc — config parsing of a 10,000-queue file and scenario replay.
//
//   BM_Config_Parse           LoadConfigText of a generated queues.yaml with 10,000 queues
//                             (100 parents x 99 leaves, properties, guaranteed and max)
//   BM_Config_Create          Kernel::Create from the parsed config (validate + build the tree)
//   BM_Config_Reload          Kernel::UpdateConfig with the same config on a running kernel
//   BM_Scenario_Replay_*      RunScenario of generated scenarios (workload_gen.h): the
//                             YuniKorn shape and a random churn scenario; records per second
//
// The YAML is generated in memory and parsing is timed alone. Verification: the parsed
// config must hold every queue with its limits; the YuniKorn-shape replay must make the same
// allocations as the same steps applied directly to a kernel (themselves compared with the
// reference model on a prefix); the random replay must be deterministic (two runs, same
// records).
#include <string>

#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/workload_gen.h"
#include "bench_support.h"

namespace allocore::bench {
namespace {

constexpr int kParents = 100;
constexpr int kLeavesPerParent = 99;

std::string TenThousandQueueYaml() {
  std::string y;
  y += "partitions:\n  - name: default\n    queues:\n      - name: root\n";
  y += "        submitacl: '*'\n        queues:\n";
  for (int p = 0; p < kParents; ++p) {
    y += "          - name: parent" + std::to_string(p) + "\n";
    y += "            parent: true\n";
    y += "            properties:\n              application.sort.policy: fair\n";
    y += "            resources:\n              max: {memory: 100Gi, vcore: 1000}\n";
    y += "            queues:\n";
    for (int l = 0; l < kLeavesPerParent; ++l) {
      y += "              - name: leaf" + std::to_string(l) + "\n";
      y += "                maxapplications: 50\n";
      y += "                properties:\n";
      y += "                  priority.offset: \"" + std::to_string(l % 10) + "\"\n";
      y += "                resources:\n";
      y += "                  guaranteed: {memory: 1Gi, vcore: 2}\n";
      y += "                  max: {memory: 1Gi, vcore: 10}\n";
    }
  }
  y += "    nodesortpolicy:\n      type: fair\n";
  return y;
}

int64_t CountQueues(const std::vector<QueueConfig>& queues) {
  int64_t n = 0;
  for (const QueueConfig& q : queues) n += 1 + CountQueues(q.queues);
  return n;
}

// Non-empty: why the parsed config is not the generated one.
std::string CheckParsed(const adapters::ConfigLoadResult& result) {
  if (!result.config) {
    return result.errors.empty() ? "no config" : result.errors.front().ToString("queues.yaml");
  }
  const SchedulerConfig& c = *result.config;
  if (c.partitions.size() != 1) return "partitions";
  int64_t queues = CountQueues(c.partitions[0].queues);
  if (queues != 1 + kParents + kParents * kLeavesPerParent) {
    return "parsed " + std::to_string(queues) + " queues";
  }
  const QueueConfig& leaf = c.partitions[0].queues[0].queues.back().queues.back();
  if (leaf.max_applications != 50 || !leaf.resources.max) return "leaf limits not parsed";
  for (const auto& [name, value] : *leaf.resources.max) {
    if (name == "vcore" && value != 10000) return "vcore quantity not in milli-cores";
    if (name == "memory" && value != int64_t{1} << 30) return "memory quantity not parsed";
  }
  return "";
}

void BM_Config_Parse(benchmark::State& state) {
  const std::string yaml = TenThousandQueueYaml();
  {
    std::string problem = CheckParsed(adapters::LoadConfigText(yaml, "queues.yaml"));
    if (!problem.empty()) {
      state.SkipWithError(("parsed config is wrong: " + problem).c_str());
      return;
    }
  }
  for (auto _ : state) {
    adapters::ConfigLoadResult result = adapters::LoadConfigText(yaml, "queues.yaml");
    benchmark::DoNotOptimize(result);
  }
  const int64_t queues = 1 + kParents + kParents * kLeavesPerParent;
  state.SetItemsProcessed(state.iterations() * queues);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(yaml.size()));
  state.counters["queues"] = static_cast<double>(queues);
}

SchedulerConfig ParsedConfig() {
  adapters::ConfigLoadResult result = adapters::LoadConfigText(TenThousandQueueYaml(), "q.yaml");
  if (!result.config) CheckOk(absl::InvalidArgumentError(CheckParsed(result)), "LoadConfigText");
  return *result.config;
}

void BM_Config_Create(benchmark::State& state) {
  const SchedulerConfig config = ParsedConfig();
  for (auto _ : state) {
    auto kernel = Kernel::Create(config);
    if (!kernel.ok()) {
      state.SkipWithError(std::string(kernel.status().message()).c_str());
      break;
    }
    state.PauseTiming();
    kernel->reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * CountQueues(config.partitions[0].queues));
}

void BM_Config_Reload(benchmark::State& state) {
  const SchedulerConfig config = ParsedConfig();
  auto kernel = NewKernel(config);
  std::vector<Decision> out;
  for (auto _ : state) {
    absl::Status s = kernel->UpdateConfig(config, &out);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * CountQueues(config.partitions[0].queues));
}

// Scenario steps as bench Ops (the kinds the YuniKorn-shape generator writes).
bool ToOps(const adapters::Scenario& scenario, Workload* w) {
  w->config = scenario.config;
  for (const adapters::AddNodeStep& n : scenario.nodes) w->ops.push_back(n.node);
  for (const adapters::ScenarioStep& step : scenario.steps) {
    w->ops.push_back(AdvanceOp{1});  // RunScenario advances the clock 1 ms before every step
    if (const auto* app = std::get_if<AppSpec>(&step.action)) {
      w->ops.push_back(*app);
    } else if (const auto* ask = std::get_if<AskSpec>(&step.action)) {
      w->ops.push_back(*ask);
    } else if (const auto* s = std::get_if<adapters::ScheduleStep>(&step.action)) {
      if (!s->partition.empty()) return false;
      w->ops.push_back(ScheduleOp{.max = s->max});
    } else {
      return false;
    }
  }
  return true;
}

void ReportReplay(benchmark::State& state, int64_t records, int64_t allocations, double seconds) {
  state.SetItemsProcessed(records);
  if (seconds > 0) {
    state.counters["records_per_s"] = static_cast<double>(records) / seconds;
    state.counters["allocs_per_s"] = static_cast<double>(allocations) / seconds;
  }
}

void BM_Scenario_Replay_YunikornShape(benchmark::State& state) {
  adapters::YunikornShapeOptions options;
  options.nodes = state.range(0);
  options.pods = 10000;
  std::string yaml = ValueOrDie(adapters::GenerateYunikornShapeScenario(options), "generate");
  adapters::Scenario scenario =
      ValueOrDie(adapters::LoadScenarioText(yaml, "yunikorn-shape"), "LoadScenarioText");
  Workload direct;
  if (!ToOps(scenario, &direct)) {
    state.SkipWithError("generated scenario has steps the direct replay does not model");
    return;
  }
  Verification verified = VerifyWorkload(direct, 200);
  if (!ReportVerification(state, verified)) return;
  std::vector<const OwnedDecision*> expected;
  for (const OwnedDecision& d : verified.kernel_decisions) {
    if (d.type == DecisionType::kAllocation) expected.push_back(&d);
  }
  int64_t records = 0, allocations = 0;
  double seconds = 0;
  bool checked = false;
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    auto run = adapters::RunScenario(scenario, {}, nullptr);
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    if (!run.ok()) {
      state.SkipWithError(std::string(run.status().message()).c_str());
      break;
    }
    records += run->records;
    allocations += static_cast<int64_t>(run->allocations.size());
    if (!checked) {
      checked = true;
      bool same = run->allocations.size() == expected.size() && run->errors.empty();
      for (size_t i = 0; same && i < expected.size(); ++i) {
        const adapters::ActualAllocation& a = run->allocations[i];
        same = a.app == expected[i]->app && a.ask == expected[i]->ask &&
               a.node == expected[i]->node && a.seq == expected[i]->seq;
      }
      if (!same) {
        state.SkipWithError("scenario replay differs from the direct kernel run");
        break;
      }
    }
  }
  ReportReplay(state, records, allocations, seconds);
}

void BM_Scenario_Replay_Random(benchmark::State& state) {
  adapters::RandomScenarioOptions options;
  options.seed = 11;
  options.queues = 40;
  options.apps = 2000;
  options.asks = 20000;
  options.nodes = 200;
  options.steps = state.range(0);
  std::string yaml = ValueOrDie(adapters::GenerateRandomScenario(options), "generate");
  adapters::Scenario scenario =
      ValueOrDie(adapters::LoadScenarioText(yaml, "random"), "LoadScenarioText");
  int64_t first_records = -1;
  std::vector<int64_t> first_seqs;
  int64_t records = 0, allocations = 0;
  double seconds = 0;
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    auto run = adapters::RunScenario(scenario, {}, nullptr);
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    if (!run.ok()) {
      state.SkipWithError(std::string(run.status().message()).c_str());
      break;
    }
    if (absl::Status s = run->kernel->CheckConsistency(); !s.ok()) {
      state.SkipWithError(("CheckConsistency: " + std::string(s.message())).c_str());
      break;
    }
    std::vector<int64_t> seqs;
    for (const auto& a : run->allocations) seqs.push_back(a.step * 1000003 + a.seq);
    if (first_records < 0) {
      first_records = run->records;
      first_seqs = std::move(seqs);
    } else if (run->records != first_records || seqs != first_seqs) {
      state.SkipWithError("random scenario replay is not deterministic");
      break;
    }
    records += run->records;
    allocations += static_cast<int64_t>(run->allocations.size());
  }
  state.SetLabel("verified:self:determinism");
  ReportReplay(state, records, allocations, seconds);
}

BENCHMARK(BM_Config_Parse)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_Config_Create)->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(BM_Config_Reload)->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(BM_Scenario_Replay_YunikornShape)
    ->ArgName("nodes")
    ->Arg(1000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.2);
BENCHMARK(BM_Scenario_Replay_Random)
    ->ArgName("steps")
    ->Arg(20000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace allocore::bench

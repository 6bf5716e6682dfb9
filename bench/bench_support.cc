// bench/bench_support.cc — see bench_support.h.
#include "bench_support.h"

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#ifdef ALLOCORE_BENCH_HAVE_REFERENCE
#include "reference/reference_model.h"
#endif

namespace allocore::bench {
namespace {

std::string Str(std::string_view s) { return std::string(s); }

using test_support::Leaf;

// Builds `count` leaves below `queue` (at `level`, leaves at `depth`), depth-first.
void FillTree(QueueConfig& queue, const std::string& path, int level, int64_t count, int64_t fanout,
              const TreeOptions& options, std::vector<std::string>* leaves) {
  if (options.fence_depth == level) queue.properties.emplace_back("priority.policy", "fence");
  if (level >= 1 && static_cast<size_t>(level) <= options.offsets.size()) {
    queue.properties.emplace_back("priority.offset",
                                  std::to_string(options.offsets[static_cast<size_t>(level - 1)]));
  }
  if (level == options.depth) {
    queue.properties.emplace_back("application.sort.policy", options.app_policy);
    leaves->push_back(path);
    return;
  }
  queue.parent = true;
  int64_t capacity = 1;  // leaves one child can hold
  for (int l = level + 1; l < options.depth; ++l) capacity *= fanout;
  for (int64_t child = 0; count > 0; ++child) {
    int64_t here = std::min(count, capacity);
    std::string name = "q" + std::to_string(child);
    QueueConfig& c = queue.queues.emplace_back(Leaf(name));
    FillTree(c, path + "." + name, level + 1, here, fanout, options, leaves);
    count -= here;
  }
}

// Keeps only the fields that belong to the decision type.
OwnedDecision Normalize(OwnedDecision d) {
  switch (d.type) {
    case DecisionType::kAllocation:
      d.from = d.to = AppState::kNew;
      break;
    case DecisionType::kRecovered:
      d.seq = 0;
      d.from = d.to = AppState::kNew;
      break;
    case DecisionType::kPreemption:
    case DecisionType::kQuotaPreemption:
      d.seq = 0;
      d.from = d.to = AppState::kNew;
      break;
    case DecisionType::kRelease:
    case DecisionType::kAskRemoved:
      d.priority = 0;
      d.seq = 0;
      d.from = d.to = AppState::kNew;
      break;
    case DecisionType::kAppState:
      d.queue.clear();
      d.ask.clear();
      d.node.clear();
      d.priority = 0;
      d.seq = 0;
      break;
    case DecisionType::kAppRejected:
      d.queue.clear();
      d.ask.clear();
      d.node.clear();
      d.priority = 0;
      d.seq = 0;
      d.from = d.to = AppState::kNew;
      break;
  }
  return d;
}

absl::StatusOr<int64_t> ApplyTo(Kernel& kernel, const Op& op, std::vector<Decision>* out) {
  int64_t made = 0;
  absl::Status status = ApplyEvent(kernel, op, out, &made);
  if (!status.ok()) return status;
  return made;
}

// Compares `expected` (a prefix when `prefix_ok`) with `actual`; fills `v` on a difference.
bool Compare(const std::vector<OwnedDecision>& expected, const std::vector<OwnedDecision>& actual,
             bool prefix_ok, const char* expected_name, Verification* v) {
  size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    if (Normalize(expected[i]) == Normalize(actual[i])) continue;
    v->ok = false;
    v->detail = "decision " + std::to_string(i + 1) + ": " + expected_name + " " +
                expected[i].ToString() + ", kernel " + actual[i].ToString();
    return false;
  }
  if (expected.size() != actual.size() && !(prefix_ok && expected.size() < actual.size())) {
    v->ok = false;
    v->detail = std::string(expected_name) + " made " + std::to_string(expected.size()) +
                " decisions, kernel " + std::to_string(actual.size());
    return false;
  }
  v->compared = static_cast<int64_t>(n);
  return true;
}

}  // namespace

int64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void CheckOk(const absl::Status& status, std::string_view what) {
  if (status.ok()) return;
  std::fprintf(stderr, "allocore bench: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
               std::string(status.message()).c_str());
  std::abort();
}

TreeConfig MakeTreeConfig(const TreeOptions& options) {
  TreeConfig out;
  PartitionConfig& partition = out.config.partitions.emplace_back();
  partition.name = "default";
  partition.node_sort_policy.type = options.node_policy;
  QueueConfig& root = partition.queues.emplace_back(Leaf("root"));
  root.parent = true;
  root.submit_acl = "*";
  int64_t fanout = 1;
  if (options.depth > 0 && options.leaves > 1) {
    fanout = static_cast<int64_t>(
        std::ceil(std::pow(static_cast<double>(options.leaves), 1.0 / options.depth) - 1e-9));
    auto reach = [&](int64_t f) {
      int64_t r = 1;
      for (int l = 0; l < options.depth && r < options.leaves; ++l) r *= f;
      return r;
    };
    while (reach(fanout) < options.leaves) ++fanout;
  }
  FillTree(root, "root", 0, std::max<int64_t>(options.leaves, 1), fanout, options, &out.leaves);
  return out;
}

NodeSpec MakeNode(int64_t index, int64_t memory, int64_t vcore) {
  NodeSpec node;
  node.id = "node-" + std::to_string(index);
  node.capacity = {{"memory", memory}, {"vcore", vcore}};
  return node;
}

AskSpec MakeAsk(std::string app, std::string id, int64_t memory, int64_t vcore, int64_t count,
                int32_t priority) {
  AskSpec ask;
  ask.app = std::move(app);
  ask.id = std::move(id);
  ask.resources = {{"memory", memory}, {"vcore", vcore}};
  ask.count = count;
  ask.priority = priority;
  return ask;
}

Workload YunikornShapeWorkload::Whole() const {
  Workload w{config, setup};
  w.ops.insert(w.ops.end(), timed.begin(), timed.end());
  return w;
}

YunikornShapeWorkload MakeYunikornShape(int64_t nodes, int64_t pods) {
  YunikornShapeWorkload w;
  w.config = YunikornShapeConfig();
  int64_t per_node = pods / nodes + 1;
  for (int64_t i = 0; i < nodes; ++i) w.setup.push_back(MakeNode(i, 10 * per_node, per_node));
  for (const char* queue : {"a", "b"}) {
    AppSpec app;
    app.id = std::string("app-") + queue;
    app.queue = std::string("root.") + queue;
    app.user = "testuser";
    w.setup.push_back(app);
  }
  w.timed.push_back(MakeAsk("app-a", "ask-a", 10, 1, pods / 2));
  w.timed.push_back(MakeAsk("app-b", "ask-b", 10, 1, pods - pods / 2));
  w.timed.push_back(ScheduleOp{.max = 0});
  return w;
}

std::unique_ptr<Kernel> NewKernel(const SchedulerConfig& config, Semantics semantics) {
  return ValueOrDie(Kernel::Create(config, {.semantics = semantics}), "Kernel::Create");
}

int64_t Apply(Kernel& kernel, const Op& op, std::vector<Decision>* out) {
  return ValueOrDie(ApplyTo(kernel, op, out), "kernel call");
}

void ApplyAll(Kernel& kernel, const std::vector<Op>& ops, std::vector<Decision>* out) {
  for (const Op& op : ops) Apply(kernel, op, out);
}

std::string OwnedDecision::ToString() const {
  return std::string(DecisionTypeName(type)) + "{queue=" + queue + " app=" + app + " ask=" + ask +
         " node=" + node + " seq=" + std::to_string(seq) + " " + std::string(AppStateName(from)) +
         "->" + std::string(AppStateName(to)) + "}";
}

OwnedDecision Own(const Decision& d) {
  OwnedDecision o;
  o.type = d.type;
  o.partition = Str(d.partition);
  o.queue = Str(d.queue);
  o.app = Str(d.app);
  o.ask = Str(d.ask);
  o.node = Str(d.node);
  o.priority = d.priority;
  o.seq = d.seq;
  o.from = d.from;
  o.to = d.to;
  return o;
}

std::vector<OwnedDecision> Own(const std::vector<Decision>& decisions) {
  std::vector<OwnedDecision> out;
  out.reserve(decisions.size());
  for (const Decision& d : decisions) out.push_back(Own(d));
  return out;
}

bool ReferenceModelAvailable() {
#ifdef ALLOCORE_BENCH_HAVE_REFERENCE
  return true;
#else
  return false;
#endif
}

Verification VerifyWorkload(const Workload& workload, int64_t reference_max_allocations) {
  Verification v;
  std::vector<Decision> decisions;
  auto kernel = NewKernel(workload.config, workload.semantics);
  ApplyAll(*kernel, workload.ops, &decisions);
  v.kernel_decisions = Own(decisions);
  if (absl::Status s = kernel->CheckConsistency(); !s.ok()) {
    v.ok = false;
    v.detail = "CheckConsistency: " + std::string(s.message());
    return v;
  }
#ifdef ALLOCORE_BENCH_HAVE_REFERENCE
  v.method = "reference";
  std::vector<Op> ops = workload.ops;
  bool truncated = false;
  if (reference_max_allocations > 0 && !ops.empty()) {
    if (auto* s = std::get_if<ScheduleOp>(&ops.back());
        s != nullptr && (s->max <= 0 || s->max > reference_max_allocations)) {
      s->max = reference_max_allocations;
      truncated = true;
    }
  }
  auto model = reference::ReferenceModel::Create(workload.config, workload.semantics);
  if (!model.ok()) {
    v.ok = false;
    v.detail = "ReferenceModel::Create: " + std::string(model.status().message());
    return v;
  }
  std::vector<reference::RefDecision> ref_out;
  for (const Op& op : ops) {
    absl::Status r = reference::ApplyEvent(**model, op, &ref_out);
    if (!r.ok()) {
      v.ok = false;
      v.detail = "reference refused a call the kernel accepted: " + std::string(r.message());
      return v;
    }
  }
  std::vector<OwnedDecision> expected;
  expected.reserve(ref_out.size());
  for (const reference::RefDecision& r : ref_out) {
    OwnedDecision o;
    o.type = r.type;
    o.partition = r.partition;
    o.queue = r.queue;
    o.app = r.app;
    o.ask = r.ask;
    o.node = r.node;
    o.priority = r.priority;
    o.seq = r.seq;
    o.from = r.from;
    o.to = r.to;
    expected.push_back(std::move(o));
  }
  if (!Compare(expected, v.kernel_decisions, truncated, "reference", &v)) return v;
  v.detail = "reference model, " + std::to_string(v.compared) + " decisions" +
             (truncated ? " (prefix)" : "");
#else
  v.method = "self";
  std::vector<Decision> again;
  auto second = NewKernel(workload.config);
  ApplyAll(*second, workload.ops, &again);
  if (!Compare(Own(again), v.kernel_decisions, false, "second run", &v)) return v;
  v.detail = "no reference model: second kernel run + CheckConsistency, " +
             std::to_string(v.compared) + " decisions";
#endif
  return v;
}

bool MatchOrSkip(benchmark::State& state, const Verification& verified,
                 const std::vector<Decision>& measured) {
  Verification v;
  if (Compare(verified.kernel_decisions, Own(measured), false, "verified run", &v)) return true;
  state.SkipWithError(("measured run differs from the verified run: " + v.detail).c_str());
  return false;
}

bool ReportVerification(benchmark::State& state, const Verification& v) {
  if (!v.ok) {
    state.SkipWithError(("verification failed (" + v.method + "): " + v.detail).c_str());
    return false;
  }
  state.SetLabel("verified:" + v.method + ":" + std::to_string(v.compared));
  return true;
}

int64_t Percentile(const std::vector<int64_t>& sorted, double percentile) {
  if (sorted.empty()) return 0;
  double rank = std::ceil(percentile / 100.0 * static_cast<double>(sorted.size()));
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

std::string AllocatorName() {
  using VersionFn = int (*)();
  void* symbol = dlsym(RTLD_DEFAULT, "mi_version");
  if (symbol == nullptr) return "glibc malloc";
  auto version = reinterpret_cast<VersionFn>(symbol)();
  return "mimalloc " + std::to_string(version);
}

void AddAllocatorContext() {
  benchmark::AddCustomContext("allocator", AllocatorName());
  benchmark::AddCustomContext("verification", ReferenceModelAvailable()
                                                  ? "reference model (tests/reference)"
                                                  : "second kernel run + CheckConsistency");
}

}  // namespace allocore::bench

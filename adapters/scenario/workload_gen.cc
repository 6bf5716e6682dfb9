// Synthetic scenario generators (see workload_gen.h).
//
// Randomness comes from a local splitmix64 stream and integer arithmetic only (no <random>
// distributions, whose output differs between standard libraries), so a seed gives the same
// file on every platform.
#include "allocore/adapters/workload_gen.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

// Digits needed to print 0..n-1, so that ids sort numerically as bytes.
int Digits(int64_t n) {
  int digits = 1;
  for (int64_t v = n - 1; v >= 10; v /= 10) ++digits;
  return digits;
}

std::string Padded(int64_t value, int width) {
  std::string text = internal::Cat(value);
  if (static_cast<int>(text.size()) < width) {
    text.insert(0, static_cast<size_t>(width) - text.size(), '0');
  }
  return text;
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive); the modulo bias is irrelevant for workload shapes.
  int64_t Between(int64_t lo, int64_t hi) {
    auto span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(Next() % span);
  }
  bool Chance(int percent) { return Between(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Between(0, static_cast<int64_t>(items.size()) - 1))];
  }

 private:
  uint64_t state_;
};

// --- the random workload's queue tree ------------------------------------------------------

struct GenQueue {
  std::string name;
  std::string path;
  int parent = -1;
  int depth = 0;
  std::vector<int> children;
  int64_t offset = 0;
  bool has_offset = false;
  bool fence = false;
  std::string sort_policy;  // leaves only; empty = default
  bool priority_sort_disabled = false;
  int64_t max_memory = 0;  // 0 = no max
  int64_t max_vcore = 0;   // cores (config units)
  int64_t guaranteed_memory = 0;
  int64_t guaranteed_vcore = 0;
  int64_t max_applications = 0;
};

void EmitQueue(const std::vector<GenQueue>& queues, int index, int indent, std::string* out) {
  const GenQueue& q = queues[static_cast<size_t>(index)];
  std::string pad(static_cast<size_t>(indent), ' ');
  internal::Append(out, pad, "- name: ", q.name, "\n");
  if (index == 0) internal::Append(out, pad, "  submitacl: \"*\"\n");
  std::vector<std::string> properties;
  if (q.has_offset) properties.push_back(internal::Cat("priority.offset: \"", q.offset, "\""));
  if (q.fence) properties.emplace_back("priority.policy: fence");
  if (!q.sort_policy.empty()) {
    properties.push_back(internal::Cat("application.sort.policy: ", q.sort_policy));
  }
  if (q.priority_sort_disabled) properties.emplace_back("application.sort.priority: disabled");
  if (!properties.empty()) {
    internal::Append(out, pad, "  properties:\n");
    for (const std::string& p : properties) internal::Append(out, pad, "    ", p, "\n");
  }
  if (q.max_applications > 0)
    internal::Append(out, pad, "  maxapplications: ", q.max_applications, "\n");
  if (q.max_memory > 0 || q.guaranteed_memory > 0) {
    internal::Append(out, pad, "  resources:\n");
    if (q.guaranteed_memory > 0) {
      internal::Append(out, pad, "    guaranteed: {memory: ", q.guaranteed_memory,
                       ", vcore: ", q.guaranteed_vcore, "}\n");
    }
    if (q.max_memory > 0) {
      internal::Append(out, pad, "    max: {memory: ", q.max_memory, ", vcore: ", q.max_vcore,
                       "}\n");
    }
  }
  if (!q.children.empty()) {
    internal::Append(out, pad, "  queues:\n");
    for (int child : q.children) EmitQueue(queues, child, indent + 4, out);
  }
}

void EmitConfig(const std::vector<GenQueue>& queues, int indent, std::string* out) {
  std::string pad(static_cast<size_t>(indent), ' ');
  internal::Append(out, pad, "partitions:\n", pad, "  - name: default\n", pad, "    queues:\n");
  EmitQueue(queues, 0, indent + 6, out);
}

std::vector<GenQueue> RandomTree(SplitMix64& rng, int64_t count) {
  constexpr int kMaxDepth = 6;
  std::vector<GenQueue> queues(1);
  queues[0].name = "root";
  queues[0].path = "root";
  for (int64_t i = 0; i < count; ++i) {
    // Prefer recent queues as parents: that makes deep chains as well as wide levels.
    int parent = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      auto size = static_cast<int64_t>(queues.size());
      int64_t lo = rng.Chance(60) ? std::max<int64_t>(0, size - 4) : 0;
      auto candidate = static_cast<int>(rng.Between(lo, size - 1));
      if (queues[static_cast<size_t>(candidate)].depth < kMaxDepth) {
        parent = candidate;
        break;
      }
    }
    GenQueue q;
    q.parent = parent;
    q.depth = queues[static_cast<size_t>(parent)].depth + 1;
    q.name = internal::Cat("q", i);
    q.path = internal::Cat(queues[static_cast<size_t>(parent)].path, ".", q.name);
    if (rng.Chance(40)) {
      q.has_offset = true;
      q.offset = rng.Chance(20) ? rng.Between(-1000, 1000) : rng.Between(-20, 20);
    }
    q.fence = rng.Chance(20);
    queues[static_cast<size_t>(parent)].children.push_back(static_cast<int>(queues.size()));
    queues.push_back(std::move(q));
  }
  for (size_t i = 1; i < queues.size(); ++i) {
    GenQueue& q = queues[i];
    if (!q.children.empty()) {
      q.priority_sort_disabled = rng.Chance(10);
      continue;
    }
    int64_t policy = rng.Between(0, 19);
    q.sort_policy = policy < 9 ? "fifo" : policy < 17 ? "fair" : "stateaware";
    q.priority_sort_disabled = rng.Chance(10);
    if (rng.Chance(30)) {
      q.max_memory = rng.Between(2, 20) * 100;
      q.max_vcore = rng.Between(2, 16);
    }
    if (rng.Chance(30)) {
      q.guaranteed_memory = rng.Between(1, 10) * 50;
      q.guaranteed_vcore = rng.Between(1, 4);
      if (q.max_memory > 0) {
        q.guaranteed_memory = std::min(q.guaranteed_memory, q.max_memory);
        q.guaranteed_vcore = std::min(q.guaranteed_vcore, q.max_vcore);
      }
    }
    if (rng.Chance(10)) q.max_applications = rng.Between(1, 4);
  }
  return queues;
}

}  // namespace

absl::StatusOr<std::string> GenerateYunikornShapeScenario(const YunikornShapeOptions& options) {
  if (options.nodes < 1 || options.nodes > 10'000'000) {
    return absl::InvalidArgumentError("yunikorn-shape: --nodes must be in 1..10000000");
  }
  if (options.pods < 0 || options.pods > 1'000'000'000'000) {
    return absl::InvalidArgumentError("yunikorn-shape: --pods must be in 0..10^12");
  }
  const int64_t per_node = options.pods / options.nodes + 1;
  const int64_t count_a = options.pods / 2;
  const int64_t count_b = options.pods - count_a;
  std::string out;
  out.reserve(static_cast<size_t>(options.nodes) * 64 + 1024);
  internal::Append(
      &out, "# Generated by `allocore gen yunikorn-shape --nodes ", options.nodes, " --pods ",
      options.pods,
      "`: the shape of YuniKorn core's\n"
      "# BenchmarkScheduling (two queues with guarantees, one app and one ask per queue, nodes\n"
      "# with room for pods/nodes + 1 allocations each). Config vcore is in cores (10 = 10000\n"
      "# milli); node and ask values are raw (vcore in milli-cores).\n",
      "name: yunikorn-shape-", options.nodes, "-nodes-", options.pods, "-pods\n",
      "config:\n"
      "  partitions:\n"
      "    - name: default\n"
      "      queues:\n"
      "        - name: root\n"
      "          submitacl: \"*\"\n"
      "          queues:\n"
      "            - name: a\n"
      "              resources:\n"
      "                guaranteed: {memory: 100000, vcore: 10}\n"
      "            - name: b\n"
      "              resources:\n"
      "                guaranteed: {memory: 1000000, vcore: 10}\n"
      "nodes:\n");
  const int width = Digits(options.nodes);
  const std::string capacity =
      internal::Cat("{memory: ", 10 * per_node, ", vcore: ", per_node, "}}\n");
  for (int64_t i = 0; i < options.nodes; ++i) {
    internal::Append(&out, "  - {id: node-", Padded(i, width), ", resources: ", capacity);
  }
  internal::Append(
      &out,
      "steps:\n"
      "  - add_app: {id: app-a, queue: root.a, user: bench}\n"
      "  - add_app: {id: app-b, queue: root.b, user: bench}\n"
      "  - add_ask: {app: app-a, id: ask-a, resources: {memory: 10, vcore: 1}, count: ",
      count_a,
      "}\n"
      "  - add_ask: {app: app-b, id: ask-b, resources: {memory: 10, vcore: 1}, count: ",
      count_b,
      "}\n"
      "  - schedule: {}\n"
      "expect:\n"
      "  rejected_apps: []\n"
      "  errors: 0\n");
  return out;
}

absl::StatusOr<std::string> GenerateRandomScenario(const RandomScenarioOptions& o) {
  constexpr int64_t kMaxCount = 1'000'000;
  if (o.queues < 1 || o.apps < 1 || o.asks < 1 || o.nodes < 1 || o.steps < 1 ||
      o.queues > kMaxCount || o.apps > kMaxCount || o.asks > kMaxCount || o.nodes > kMaxCount ||
      o.steps > 10 * kMaxCount) {
    return absl::InvalidArgumentError(
        "random: --queues, --apps, --asks and --nodes must be in 1..1000000, --steps in "
        "1..10000000");
  }
  SplitMix64 rng(o.seed);
  std::vector<GenQueue> queues = RandomTree(rng, o.queues);
  std::vector<int> leaves;
  for (size_t i = 1; i < queues.size(); ++i) {
    if (queues[i].children.empty()) leaves.push_back(static_cast<int>(i));
  }

  std::string out;
  internal::Append(&out, "# Generated by `allocore gen random --seed ", o.seed, " --queues ",
                   o.queues, " --apps ", o.apps, " --asks ", o.asks, " --nodes ", o.nodes,
                   " --steps ", o.steps, "`.\n", "name: random-", o.seed, "\nconfig:\n");
  EmitConfig(queues, 2, &out);

  const int width = Digits(o.nodes + o.steps);
  std::vector<std::string> nodes;  // live node ids
  int64_t next_node = 0;
  auto node_resources = [&] {
    return internal::Cat("{memory: ", rng.Between(5, 40) * 100,
                         ", vcore: ", rng.Between(4, 32) * 1000, "}");
  };
  out += "nodes:\n";
  for (; next_node < o.nodes; ++next_node) {
    std::string id = internal::Cat("node-", Padded(next_node, width));
    internal::Append(&out, "  - {id: ", id, ", resources: ", node_resources(), "}\n");
    nodes.push_back(std::move(id));
  }

  struct GenAsk {
    std::string app;
    std::string id;
  };
  std::vector<std::string> apps;       // every app ever added
  std::vector<std::string> live_apps;  // not removed yet
  std::vector<GenAsk> asks;
  // Mostly live apps; now and then a removed one, which the kernel refuses (an error record).
  auto pick_app = [&]() -> const std::string& {
    return live_apps.empty() || rng.Chance(8) ? rng.Pick(apps) : rng.Pick(live_apps);
  };
  auto pick_ask = [&]() -> const GenAsk& {
    for (int attempt = 0; attempt < 4; ++attempt) {
      const GenAsk& ask = rng.Pick(asks);
      if (std::find(live_apps.begin(), live_apps.end(), ask.app) != live_apps.end()) return ask;
    }
    return rng.Pick(asks);
  };
  const std::vector<std::string> users = {"alice", "bob", "carol", "dave"};
  const std::vector<int64_t> advance_seconds = {1, 3, 31, 301};
  int64_t apps_added = 0;
  int64_t asks_added = 0;

  out += "steps:\n";
  for (int64_t step = 0; step + 1 < o.steps; ++step) {
    // Weights shift from building up (apps, asks) to churn as the budget of adds runs out.
    const bool can_add_app = apps_added < o.apps;
    const bool can_add_ask = asks_added < o.asks && !apps.empty();
    int64_t roll = rng.Between(0, 99);
    if (can_add_app && (apps.empty() || roll < 14)) {
      std::string id = internal::Cat("app-", apps_added++);
      const GenQueue& leaf = queues[static_cast<size_t>(rng.Pick(leaves))];
      internal::Append(&out, "  - add_app: {id: ", id, ", queue: ", leaf.path,
                       ", user: ", rng.Pick(users));
      if (rng.Chance(10)) out += ", tags: {application.stateaware.disable: \"true\"}";
      out += "}\n";
      live_apps.push_back(id);
      apps.push_back(std::move(id));
    } else if (can_add_ask && roll < 45) {
      GenAsk ask{.app = pick_app(), .id = internal::Cat("ask-", asks_added++)};
      int64_t priority = rng.Chance(10) ? rng.Between(-2000, 2000) : rng.Between(-5, 30);
      internal::Append(&out, "  - add_ask: {app: ", ask.app, ", id: ", ask.id,
                       ", resources: {memory: ", rng.Between(1, 30) * 10,
                       ", vcore: ", rng.Between(1, 20) * 100, "}, priority: ", priority,
                       ", count: ", rng.Between(1, 4), "}\n");
      asks.push_back(std::move(ask));
    } else if (roll < 62) {
      if (rng.Chance(30)) {
        internal::Append(&out, "  - schedule: {max: ", rng.Between(1, 5), "}\n");
      } else {
        out += "  - schedule: {}\n";
      }
    } else if (roll < 72 && !asks.empty()) {
      const GenAsk& ask = pick_ask();
      internal::Append(&out, "  - release: {app: ", ask.app, ", ask: ", ask.id);
      if (!nodes.empty() && rng.Chance(25)) internal::Append(&out, ", node: ", rng.Pick(nodes));
      out += "}\n";
    } else if (roll < 77 && !asks.empty()) {
      const GenAsk& ask = pick_ask();
      internal::Append(&out, "  - remove_ask: {app: ", ask.app, ", id: ", ask.id, "}\n");
    } else if (roll < 81 && !apps.empty()) {
      std::string id = pick_app();
      internal::Append(&out, "  - remove_app: {id: ", id, "}\n");
      live_apps.erase(std::remove(live_apps.begin(), live_apps.end(), id), live_apps.end());
    } else if (roll < 88) {
      internal::Append(&out, "  - advance: {seconds: ", rng.Pick(advance_seconds), "}\n");
    } else if (roll < 91) {
      std::string id = internal::Cat("node-", Padded(next_node++, width));
      internal::Append(&out, "  - add_node: {id: ", id, ", resources: ", node_resources(), "}\n");
      nodes.push_back(std::move(id));
    } else if (roll < 95 && !nodes.empty()) {
      internal::Append(&out, "  - update_node: {id: ", rng.Pick(nodes));
      if (rng.Chance(70)) internal::Append(&out, ", resources: ", node_resources());
      if (rng.Chance(40))
        internal::Append(&out, ", schedulable: ", rng.Chance(70) ? "true" : "false");
      out += "}\n";
    } else if (roll < 97 && nodes.size() > 1) {
      auto index = static_cast<size_t>(rng.Between(0, static_cast<int64_t>(nodes.size()) - 1));
      internal::Append(&out, "  - remove_node: {id: ", nodes[index], "}\n");
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(index));
    } else {
      // A hot reload that moves one queue's offset and may flip its fence.
      GenQueue& q = queues[static_cast<size_t>(rng.Between(1, o.queues))];
      q.has_offset = true;
      q.offset = rng.Between(-50, 50);
      if (rng.Chance(30)) q.fence = !q.fence;
      out += "  - update_config:\n      config:\n";
      EmitConfig(queues, 8, &out);
    }
  }
  out += "  - schedule: {}\n";
  return out;
}

}  // namespace allocore::adapters

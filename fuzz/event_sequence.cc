// Decoding fuzzer bytes into configs and kernel calls (see event_sequence.h).
#include "event_sequence.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

#include "allocore/adapters/config_loader.h"
#include "digest.h"

namespace allocore::fuzz {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinInt64 = std::numeric_limits<int64_t>::min();
constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();
constexpr int32_t kMinInt32 = std::numeric_limits<int32_t>::min();

// Above this many outstanding ask repeats (an upper bound the decoder keeps), an unlimited
// Schedule becomes Schedule(kScheduleCap): an ask with count 2^62 on a node with room for it
// is a valid workload, not a hang to report.
constexpr int64_t kUnlimitedScheduleBound = 256;
constexpr int64_t kScheduleCap = 64;

// ---- Fixed configurations ------------------------------------------------------------------

struct FixedConfig {
  const char* name;
  bool modelled;  // inside the reference model's scope (tests/reference/README.md, "Scope")
  const char* yaml;
};

// vcore in a config is in cores; "Nm" keeps it in the raw milli-cores nodes and asks use.
constexpr std::array<FixedConfig, 6> kFixedConfigs = {{
    {"flat", true, R"(
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
            properties: {application.sort.policy: fair, priority.offset: "5"}
            resources: {max: {memory: 300, vcore: 3000m}}
          - name: c
            properties: {application.sort.policy: stateaware}
            resources: {guaranteed: {memory: 50}}
)"},
    {"tree", true, R"(
partitions:
  - name: default
    nodesortpolicy: {type: binpacking}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: system
            maxapplications: 3
            resources: {max: {memory: 500}, guaranteed: {memory: 100, vcore: 100m}}
            queues:
              - name: high
                maxapplications: 2
                properties: {priority.offset: "100"}
                resources: {guaranteed: {memory: 60, vcore: 50m}}
              - name: low
                properties: {priority.offset: "-100", application.sort.priority: disabled}
                maxapplications: 1
          - name: tenants
            properties: {priority.policy: fence, application.sort.policy: fair}
            submitacl: " devs"
            queues:
              - name: t1
                properties: {priority.policy: fence, priority.offset: "10"}
                resources: {max: {memory: 120, vcore: 8000m}}
              - name: t2
                submitacl: "alice,bob"
                properties: {application.sort.policy: fifo}
)"},
    {"partitions", true, R"(
partitions:
  - name: default
    nodesortpolicy:
      type: fair
      resourceweights: {memory: 2.0, vcore: 0.5, gpu: 1.0}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {max: {memory: 200, gpu: 2}}
          - name: b
  - name: second
    nodesortpolicy: {type: binpacking}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: x
            properties: {application.sort.policy: fair}
)"},
    {"placement", true, R"(
partitions:
  - name: default
    placementrules:
      - name: provided
        create: true
      - name: tag
        value: namespace
        create: true
        parent:
          name: fixed
          value: root.dyn
      - name: user
        create: true
        parent: {name: fixed, value: root.users}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: dyn
            parent: true
            childtemplate:
              maxapplications: 2
              properties: {application.sort.policy: fair}
              resources: {max: {memory: 150}}
          - name: users
            parent: true
)"},
    {"limits", true, R"(
partitions:
  - name: default
    limits:
      - limit: everyone
        users: ["*"]
        maxapplications: 4
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 100}
                maxapplications: 2
              - limit: devs
                groups: [devs]
                maxresources: {memory: 60, vcore: 4000m}
          - name: b
            maxapplications: 2
)"},
    // General preemption: leaves under a parent max with guarantees below it, a fenced leaf, a
    // disabled one, short and invalid delays, priority offsets.
    {"preemption", true, R"(
partitions:
  - name: default
    preemption: {enabled: true}
    queues:
      - name: root
        submitacl: "*"
        properties: {preemption.delay: 1ms}
        queues:
          - name: a
            resources: {max: {memory: 200, vcore: 20000m}, guaranteed: {memory: 100, vcore: 3000m}}
            queues:
              - name: a
                resources: {guaranteed: {memory: 60}}
              - name: b
                properties: {preemption.delay: 5s, priority.offset: "2"}
                resources: {guaranteed: {memory: 40, vcore: 3000m}}
              - name: c
                properties: {preemption.policy: disabled}
          - name: b
            properties: {preemption.policy: fence, preemption.delay: bogus}
            resources: {max: {memory: 150}}
            queues:
              - name: a
                resources: {guaranteed: {memory: 50}}
              - name: b
                properties: {priority.policy: fence, priority.offset: "-1"}
          - name: c
            properties: {preemption.delay: 1m30s}
            resources: {guaranteed: {memory: 30}}
)"},
}};

SchedulerConfig LoadFixed(size_t index) {
  const FixedConfig& fixed = kFixedConfigs[index];
  adapters::ConfigLoadResult loaded = adapters::LoadConfigText(fixed.yaml, fixed.name);
  if (!loaded.config) {
    std::string problems;
    for (const ConfigError& e : loaded.errors) problems += "\n  " + e.ToString(fixed.name);
    Fail(std::string("fixed config ") + fixed.name + " does not load:" + problems);
  }
  return *loaded.config;
}

// ---- Values ----------------------------------------------------------------------------------

const std::vector<std::string> kResourceNames = {"memory", "vcore", "gpu"};
const std::vector<std::string> kRareResourceNames = {"r0", "r1", "r2", "r3", "r4",
                                                     "r5", "r6", "r7", "r8", "Memory"};

int64_t EdgeQuantity(ByteReader& in) {
  static const std::vector<int64_t> kEdges = {
      -1, 0, 1, kMaxInt64, kMinInt64, kMaxInt64 - 1, int64_t{1} << 62, kMaxInt64 / 2 + 1};
  return in.Pick(kEdges);
}

// Mostly sizes that fit a few times on a node; sometimes 0, negative or at the int64 edges.
int64_t Quantity(ByteReader& in, int64_t typical_max) {
  uint8_t mode = in.Byte() % 16;
  if (mode < 13) return in.Range(1, typical_max);
  if (mode == 13) return 0;
  if (mode == 14) return EdgeQuantity(in);
  return in.Range(kMinInt64, kMaxInt64);
}

Quantities NonNegative(Quantities q) {
  for (auto& [name, value] : q) {
    if (value < 0) value = value == kMinInt64 ? kMaxInt64 : -value;
  }
  return q;
}

// Keeps |value| below 2^40, so that no sum or product of a few thousand saturates.
Quantities Bounded(Quantities q) {
  constexpr int64_t kBound = int64_t{1} << 40;
  for (auto& [name, value] : q) {
    if (value > kBound || value < -kBound) value %= kBound;
  }
  return q;
}

Quantities DecodeQuantities(ByteReader& in, int64_t typical_max) {
  Quantities q;
  uint8_t shape = in.Byte();
  if (shape % 32 == 31 && !Avoid("type-limit")) {
    // Many (possibly too many) distinct types.
    auto n = static_cast<size_t>(in.Range(1, 11));
    for (size_t i = 0; i < n; ++i) {
      const std::string& name =
          i < kResourceNames.size()
              ? kResourceNames[i]
              : kRareResourceNames[(i - kResourceNames.size()) % kRareResourceNames.size()];
      q.emplace_back(name, in.Range(1, typical_max));
    }
    return q;
  }
  // Bits 0..2: memory, vcore, gpu; bit 3: a rare name; bit 4: a duplicate of the first entry.
  for (size_t i = 0; i < kResourceNames.size(); ++i) {
    if ((shape >> i) & 1u) q.emplace_back(kResourceNames[i], Quantity(in, typical_max));
  }
  if (((shape >> 3) & 1u) && !Avoid("type-limit")) {
    q.emplace_back(in.Pick(kRareResourceNames), Quantity(in, typical_max));
  }
  if (((shape >> 4) & 1u) && !q.empty()) q.emplace_back(q.front().first, Quantity(in, typical_max));
  return q;
}

// A config quantity map (raw values, as the loader produces them).
QuantityMap DecodeLimit(ByteReader& in, int64_t typical_max) {
  QuantityMap q;
  uint8_t shape = in.Byte();
  if (shape & 1u) q.emplace_back("memory", in.Range(0, typical_max));
  if (shape & 2u) q.emplace_back("vcore", in.Range(0, typical_max));
  if (shape & 4u) q.emplace_back("gpu", in.Range(0, 4));
  if (q.empty()) q.emplace_back("memory", in.Range(1, typical_max));
  return q;
}

// A name around ApiLimits::kMaxNameBytes: just under, at, just over, or far over it.
std::string LongName(ByteReader& in, char fill) {
  static const size_t kLengths[] = {ApiLimits::kMaxNameBytes - 1, ApiLimits::kMaxNameBytes,
                                    ApiLimits::kMaxNameBytes + 1, 60000};
  return std::string(kLengths[in.Byte() % 4], fill);
}

std::string Id(ByteReader& in, const char* prefix, int count) {
  uint8_t b = in.Byte();
  if (b == 255) return "";
  if (b == 254) return std::string(prefix) + "-unknown";
  if (b == 253) return prefix + LongName(in, 'x');
  return prefix + std::to_string(1 + b % count);
}

// ---- Decoded configurations --------------------------------------------------------------

const std::vector<std::string> kAcls = {"*", "alice", "alice,bob", " devs", "bob devs", "", "* "};
const std::vector<std::string> kPolicies = {"fifo", "fair", "stateaware", "FAIR", "bogus"};

void DecodeProperties(ByteReader& in, PropertyMap* properties) {
  uint8_t which = in.Byte();
  if (which & 1u) {
    static const std::vector<std::string> kOffsets = {
        "0", "5", "-5", "100", "abc", "+3", "-0", "2147483647", "-7", "99999999999", "1"};
    properties->emplace_back("priority.offset", in.Pick(kOffsets));
  }
  if (which & 2u) properties->emplace_back("priority.policy", in.Bool() ? "fence" : "FENCE");
  if (which & 4u) {
    properties->emplace_back("application.sort.priority", in.Bool() ? "disabled" : "enabled");
  }
  if (which & 8u) properties->emplace_back("application.sort.policy", in.Pick(kPolicies));
  if (which & 16u) {
    static const std::vector<std::string> kPreemptionPolicies = {"default", "fence",    "disabled",
                                                                 "Fence",   "DISABLED", "bogus"};
    properties->emplace_back("preemption.policy", in.Pick(kPreemptionPolicies));
  }
  if (which & 32u) {
    // Go durations, valid and not (the invalid, zero and negative ones mean 30 s).
    static const std::vector<std::string> kDelays = {"1ms",
                                                     "5s",
                                                     "30s",
                                                     "1m30s",
                                                     "1.5s",
                                                     "500ms",
                                                     ".5s",
                                                     "2h45m",
                                                     "0",
                                                     "-1s",
                                                     "30",
                                                     "bogus",
                                                     "",
                                                     "1e3s",
                                                     "5 s",
                                                     "1µs",
                                                     "100000000000000000000ns",
                                                     "9223372036854775807ns",
                                                     "2562047h47m16.854775807s",
                                                     "2562048h"};
    properties->emplace_back("preemption.delay", in.Pick(kDelays));
  }
  // The unschedulable-ask backoff (yunikorn-1.9; v1.2.0 ignores both).
  if (which & 64u) {
    static const std::vector<std::string> kBackoffs = {
        "1", "2", "3", "0", "x", "-1", "18446744073709551615"};
    properties->emplace_back("application.unschedasks.backoff", in.Pick(kBackoffs));
  }
  if (which & 128u) {
    static const std::vector<std::string> kBackoffDelays = {"1ms", "2ms",   "10ms",    "1s",
                                                            "0",   "bogus", "2562048h"};
    properties->emplace_back("application.unschedasks.backoff.delay", in.Pick(kBackoffDelays));
  }
}

QueueConfig DecodeQueue(ByteReader& in, const std::string& name, int depth, bool modelled_only) {
  QueueConfig q;
  q.name = name;
  uint8_t flags = in.Byte();
  bool root = depth == 0;
  if (flags & 1u) DecodeProperties(in, &q.properties);
  if (root) {
    q.submit_acl = in.Chance(85) ? "*" : in.Pick(kAcls);
  } else {
    if (flags & 2u) q.resources.max = DecodeLimit(in, 600);
    if (flags & 4u) q.resources.guaranteed = DecodeLimit(in, 150);
    if (flags & 8u) q.max_applications = static_cast<uint64_t>(in.Range(1, 4));
    if (flags & 16u) q.submit_acl = in.Pick(kAcls);
  }
  if (flags & 64u) {
    LimitConfig& limit = q.limits.emplace_back();
    limit.limit = "decoded";
    if (in.Bool()) {
      limit.users.push_back(in.Bool() ? "*" : "alice");
    } else {
      limit.groups.push_back(in.Bool() ? "*" : "devs");
    }
    if (in.Bool()) limit.max_resources = DecodeLimit(in, 200);
    if (!limit.max_resources || in.Bool()) {
      limit.max_applications = static_cast<uint64_t>(in.Range(1, 3));
    }
  }
  int64_t children = 0;
  if (root) {
    children = in.Range(1, 3);
  } else if (depth < 3 && (flags & 32u)) {
    children = in.Range(1, 3);
  }
  static const std::vector<std::string> kNames = {"a", "b", "c"};
  for (int64_t i = 0; i < children; ++i) {
    q.queues.push_back(DecodeQueue(in, kNames[static_cast<size_t>(i)], depth + 1, modelled_only));
  }
  if (!root && children == 0 && (flags & 128u)) {
    q.parent = true;
    if (in.Bool()) {
      ChildTemplateConfig& t = q.child_template.emplace();
      t.max_applications = static_cast<uint64_t>(in.Range(0, 2));
      if (in.Bool()) t.resources.max = DecodeLimit(in, 300);
      if (in.Bool()) t.properties.emplace_back("application.sort.policy", "fair");
    }
  }
  return q;
}

void DecodePlacement(ByteReader& in, PartitionConfig* p, bool modelled_only) {
  auto n = in.Range(1, 3);
  for (int64_t i = 0; i < n; ++i) {
    PlacementRuleConfig& rule = p->placement_rules.emplace_back();
    switch (in.Byte() % 6) {
      case 0:
        rule.name = "provided";
        break;
      case 1:
        rule.name = "user";
        break;
      case 2:
        rule.name = "tag";
        rule.value = "namespace";
        break;
      case 3:
        rule.name = "fixed";
        rule.value = in.Bool() ? "root.a" : "fixedq";
        break;
      case 4:
        rule.name = modelled_only ? "provided" : "recovery";  // the model has no recovery rule
        break;
      default:
        rule.name = "tag";
        rule.value = "team";
        break;
    }
    rule.create = in.Bool();
    if (in.Chance(20)) {
      rule.filter.type = in.Bool() ? "allow" : "deny";
      rule.filter.users.push_back(in.Bool() ? "alice" : "^b.*$");
    }
    if (in.Chance(25)) {
      PlacementRuleConfig& parent = rule.parent.emplace_back();
      parent.name = "fixed";
      parent.value = in.Bool() ? "root.a" : "root.b";
    }
  }
}

std::optional<SchedulerConfig> DecodeTree(ByteReader& in, bool modelled_only) {
  SchedulerConfig config;
  config.source_name = "decoded";
  int64_t partitions = in.Chance(20) ? 2 : 1;
  for (int64_t i = 0; i < partitions; ++i) {
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = i == 0 ? "default" : "second";
    uint8_t flags = in.Byte();
    static const std::vector<std::string> kSort = {"", "fair", "binpacking"};
    p.node_sort_policy.type = in.Pick(kSort);
    if (flags & 1u) {
      static const std::vector<double> kWeights = {0, 0.5, 1, 2, 3};
      for (const std::string& t : kResourceNames) {
        if (in.Bool()) p.node_sort_policy.resource_weights.emplace_back(t, in.Pick(kWeights));
      }
    }
    p.queues.push_back(DecodeQueue(in, "root", 0, modelled_only));
    if (flags & 32u) {
      // Quota-change preemption (yunikorn-1.9; v1.2.0 ignores both keys): the partition's switch
      // and a delay on the root that every configured queue inherits.
      static const std::vector<std::string> kQuotaDelays = {"1ms", "1s",  "1500ms", "3s",
                                                            "0",   "-1s", "bogus",  "2562048h"};
      p.quota_preemption_enabled = !(flags & 64u);
      p.queues.back().properties.emplace_back("quota.preemption.delay", in.Pick(kQuotaDelays));
    }
    if (flags & 2u) DecodePlacement(in, &p, modelled_only);
    if (flags & 4u) {
      LimitConfig& limit = p.limits.emplace_back();
      limit.users.push_back("*");
      limit.max_applications = static_cast<uint64_t>(in.Range(1, 5));
    }
    if (flags & 8u) {
      p.preemption_enabled = true;
    } else if (flags & 16u) {
      p.preemption_enabled = false;
    }
  }
  SchedulerConfig normalised = config;
  for (const ConfigError& e : ValidateConfig(normalised)) {
    if (!e.warning) return std::nullopt;
  }
  return normalised;
}

// ---- Reload configurations -------------------------------------------------------------------

void CollectQueues(QueueConfig& q, std::vector<QueueConfig*>* out) {
  out->push_back(&q);
  for (QueueConfig& c : q.queues) CollectQueues(c, out);
}

// A reload candidate: another fixed config, a decoded tree, the current one changed in one
// place (often valid, sometimes not), or the empty config (= the built-in default).
SchedulerConfig DecodeReload(ByteReader& in, const SchedulerConfig& current) {
  uint8_t mode = in.Byte() % 8;
  if (mode == 0) {
    return LoadFixed(
        static_cast<size_t>(in.Range(0, static_cast<int64_t>(kFixedConfigs.size()) - 1)));
  }
  if (mode == 1) {
    std::optional<SchedulerConfig> tree = DecodeTree(in, false);
    return tree ? *tree : current;
  }
  if (mode == 2) return SchedulerConfig{};
  SchedulerConfig next = current;
  if (next.partitions.empty()) return next;
  PartitionConfig& p = next.partitions[static_cast<size_t>(
      in.Range(0, static_cast<int64_t>(next.partitions.size()) - 1))];
  std::vector<QueueConfig*> queues;
  for (QueueConfig& root : p.queues) CollectQueues(root, &queues);
  if (queues.empty()) return next;
  QueueConfig& q = *in.Pick(queues);
  bool is_root = &q == queues.front();
  switch (in.Byte() % 10) {
    case 0:
      if (is_root) {
        q.resources.max = DecodeLimit(in, 600);  // invalid: the root takes no resources
      } else if (q.resources.max) {
        q.resources.max.reset();
      } else {
        q.resources.max = DecodeLimit(in, 600);
      }
      break;
    case 1:
      q.resources.guaranteed = DecodeLimit(in, 150);
      break;
    case 2:
      q.properties.clear();
      DecodeProperties(in, &q.properties);
      break;
    case 3:
      q.max_applications = static_cast<uint64_t>(in.Range(0, 3));
      break;
    case 4: {
      // Remove a queue (a child of the chosen one): its apps drain.
      if (!q.queues.empty()) {
        q.queues.erase(q.queues.begin() + in.Range(0, static_cast<int64_t>(q.queues.size()) - 1));
      }
      break;
    }
    case 5: {
      // Add a child: a leaf becomes a parent (refused while it holds apps).
      QueueConfig child;
      child.name = in.Bool() ? "z" : "a";  // "a" may duplicate a sibling: invalid
      q.queues.push_back(child);
      break;
    }
    case 6:
      q.submit_acl = in.Pick(kAcls);
      break;
    case 7:
      p.node_sort_policy.type = in.Bool() ? "binpacking" : "fair";
      break;
    case 8:
      if (next.partitions.size() > 1) {
        next.partitions.pop_back();
      } else {
        PartitionConfig extra;
        extra.name = "second";
        QueueConfig& root = extra.queues.emplace_back();
        root.name = "root";
        root.submit_acl = "*";
        root.queues.push_back(QueueConfig{.name = "x"});
        next.partitions.push_back(extra);
      }
      break;
    default:
      q.name = in.Bool() ? "Root" : "bad name!";  // invalid names
      break;
  }
  return next;
}

// ---- Calls -----------------------------------------------------------------------------------

struct DecoderState {
  SchedulerConfig config;  // the decoder's view; a refused reload does not change the kernel
  std::vector<std::string> partitions;
  std::vector<std::string> queue_paths;  // of every partition, parents and leaves
  int64_t pending_bound = 0;             // sum of every count asked for so far
};

void CollectPaths(const QueueConfig& q, const std::string& prefix, std::vector<std::string>* out) {
  std::string path = prefix.empty() ? q.name : prefix + "." + q.name;
  out->push_back(path);
  for (const QueueConfig& c : q.queues) CollectPaths(c, path, out);
}

void SetView(DecoderState* state, const SchedulerConfig& config) {
  state->config = config;
  SchedulerConfig normalised = config;
  (void)ValidateConfig(normalised);
  state->partitions.clear();
  state->queue_paths.clear();
  for (const PartitionConfig& p : normalised.partitions) {
    state->partitions.push_back(p.name);
    for (const QueueConfig& root : p.queues) CollectPaths(root, "", &state->queue_paths);
  }
  if (state->partitions.empty()) state->partitions.push_back(kDefaultPartition);
  state->queue_paths.push_back("root.a");
}

std::string Partition(ByteReader& in, const DecoderState& state) {
  uint8_t b = in.Byte() % 16;
  if (b < 12) return state.partitions.front();
  if (b < 15) return state.partitions.back();
  return in.Bool() ? "nope" : "";
}

std::string QueueName(ByteReader& in, const DecoderState& state) {
  uint8_t b = in.Byte() % 32;
  if (b < 27) return in.Pick(state.queue_paths);
  if (b == 27) return "root.nope";
  if (b == 28) return "";
  if (b == 29) return "a";
  if (b == 30) {
    // Around kMaxQueueDepth levels: placement rules that create queues must stop there.
    std::string deep = "root";
    for (int64_t level = in.Range(kMaxQueueDepth - 3, kMaxQueueDepth + 2); level > 1; --level) {
      deep += ".d";
    }
    return deep;
  }
  std::string upper = in.Pick(state.queue_paths);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// Recovered pods, resizes and other schedulers' pods, valid or not (unknown apps, asks, nodes
// and ids, zero and negative quantities, a count of 2, a placeholder without a group).
void DecodeLifecycleCall(ByteReader& in, DecoderState& state, Call* c) {
  const uint8_t kind = in.Byte() % 6;
  c->partition = Partition(in, state);
  switch (kind) {
    case 0:
    case 1: {
      c->kind = CallKind::kRecover;
      c->ask.partition = c->partition;
      c->ask.app = Id(in, "app", 6);
      c->ask.id = in.Bool() ? Id(in, "k", 4) : Id(in, "r", 4);
      c->ask.resources = DecodeQuantities(in, 120);
      if (Avoid("negative-quantity")) c->ask.resources = NonNegative(std::move(c->ask.resources));
      const uint8_t flags = in.Byte();
      c->ask.priority = static_cast<int32_t>(flags % 8) - 2;
      if (flags & 8u) {
        c->ask.task_group = (flags & 16u) ? "tg-b" : "tg-a";
        c->ask.placeholder = (flags & 32u) != 0;
      }
      if (flags & 64u) c->ask.allow_preemption = false;
      if ((flags & 128u) && in.Bool()) c->ask.count = 2;
      c->node_id = Id(in, "n", 6);
      state.pending_bound =
          state.pending_bound > kMaxInt64 - 1 ? kMaxInt64 : state.pending_bound + 1;
      break;
    }
    case 2:
      c->kind = CallKind::kUpdateAllocation;
      c->id = Id(in, "app", 6);
      c->ask_id = in.Bool() ? Id(in, "k", 4) : Id(in, "r", 4);
      if (in.Bool()) c->node_id = Id(in, "n", 6);
      c->resources = DecodeQuantities(in, 120);
      break;
    case 3:
      c->kind = CallKind::kUpdateAsk;
      c->id = Id(in, "app", 6);
      c->ask_id = Id(in, "k", 4);
      c->resources = DecodeQuantities(in, 120);
      break;
    case 4:
      c->kind = in.Bool() ? CallKind::kAddForeign : CallKind::kUpdateForeign;
      c->id = Id(in, "f", 4);
      if (c->kind == CallKind::kAddForeign || in.Bool()) c->node_id = Id(in, "n", 6);
      c->resources = DecodeQuantities(in, 80);
      break;
    default:
      c->kind = CallKind::kRemoveForeign;
      c->id = Id(in, "f", 4);
      break;
  }
}

Call DecodeCall(ByteReader& in, DecoderState& state, const DecodeOptions& options) {
  Call c;
  uint8_t op = in.Byte() % 16;
  if (op == 15 && options.modelled_only) op = 14;
  static const std::vector<std::string> kUsers = {"alice", "bob", "carol", "dave", ""};
  static const std::vector<std::string> kGroups = {"devs", "ops", "admins"};
  switch (op) {
    case 0:
    case 1:
      c.kind = CallKind::kAddNode;
      c.node.partition = Partition(in, state);
      c.node.id = Id(in, "n", 6);
      c.node.capacity = DecodeQuantities(in, 500);
      if (in.Chance(15)) c.node.occupied = DecodeQuantities(in, 60);
      c.node.schedulable = !in.Chance(8);
      if (Avoid("saturation")) {
        c.node.capacity = Bounded(std::move(c.node.capacity));
        c.node.occupied = Bounded(std::move(c.node.occupied));
      }
      if (Avoid("negative-quantity")) {
        c.node.capacity = NonNegative(std::move(c.node.capacity));
        c.node.occupied = NonNegative(std::move(c.node.occupied));
      }
      break;
    case 2: {
      c.kind = CallKind::kUpdateNode;
      c.update.partition = Partition(in, state);
      c.update.id = Id(in, "n", 6);
      uint8_t what = in.Byte();
      if (what & 1u) c.update.capacity = DecodeQuantities(in, 500);
      if (what & 2u) c.update.occupied = DecodeQuantities(in, 60);
      if (what & 4u) c.update.schedulable = (what & 8u) == 0;
      if (Avoid("negative-quantity")) {
        if (c.update.capacity) c.update.capacity = NonNegative(std::move(*c.update.capacity));
        if (c.update.occupied) c.update.occupied = NonNegative(std::move(*c.update.occupied));
      }
      break;
    }
    case 3:
      c.kind = CallKind::kRemoveNode;
      c.partition = Partition(in, state);
      c.id = Id(in, "n", 6);
      break;
    case 4:
    case 5: {
      c.kind = CallKind::kAddApp;
      c.app.partition = Partition(in, state);
      c.app.id = Id(in, "app", 6);
      c.app.queue = QueueName(in, state);
      c.app.user = in.Pick(kUsers);
      uint8_t extra = in.Byte();
      if (extra & 1u) c.app.groups.push_back(in.Pick(kGroups));
      if (extra & 2u) c.app.groups.push_back(in.Pick(kGroups));
      if (extra & 4u) {
        c.app.tags.emplace_back(in.Bool() ? "application.stateaware.disable" : "namespace",
                                in.Bool() ? "true" : "ns1");
      }
      if (extra & 8u) c.app.tags.emplace_back("team", in.Bool() ? "red" : "Bad Name");
      if ((extra & 0xE0u) == 0xE0u) {  // hostile sizes: names, groups and tags at their limits
        uint8_t what = in.Byte();
        if (what & 1u) c.app.user = LongName(in, 'a');
        if (what & 2u) {
          size_t groups = ApiLimits::kMaxGroupsPerApplication + (what & 4u ? 1 : 0);
          c.app.groups.assign(groups, "devs");
        }
        if (what & 8u) c.app.groups.push_back(LongName(in, 'g'));
        if (what & 16u) {
          c.app.tags.assign(ApiLimits::kMaxTagsPerApplication + (what & 32u ? 1 : 0), {"k", "v"});
        }
        if (what & 64u) {
          c.app.tags.emplace_back(
              "namespace", std::string(ApiLimits::kMaxTagBytes + (what & 128u ? 1 : 0), 'n'));
        }
      }
      if (extra & 16u) {  // a gang: placeholders of {memory: 10, vcore: 1} add up to it
        uint8_t gang = in.Byte();
        int64_t members = 1 + (gang & 7u);
        c.app.placeholder_ask = {{"memory", 10 * members}, {"vcore", members}};
        c.app.gang_style = (gang & 8u) ? GangStyle::kHard : GangStyle::kSoft;
        static const int64_t kTimeouts[] = {0, 1'000, 3'000, 30'000};
        c.app.placeholder_timeout_millis = kTimeouts[(gang >> 4) & 3u];
        if (gang & 64u) c.app.placeholder_ask = {{"memory", 100'000}};  // above any max
      }
      break;
    }
    case 6:
      c.kind = CallKind::kRemoveApp;
      c.partition = Partition(in, state);
      c.id = Id(in, "app", 6);
      break;
    case 7:
    case 8:
    case 9: {
      c.kind = CallKind::kAddAsk;
      c.ask.partition = Partition(in, state);
      c.ask.app = Id(in, "app", 6);
      c.ask.id = Id(in, "k", 4);
      c.ask.resources = DecodeQuantities(in, 120);
      if (Avoid("negative-quantity")) c.ask.resources = NonNegative(std::move(c.ask.resources));
      uint8_t priority_byte = in.Byte();
      uint8_t p = priority_byte % 32;
      uint8_t gang = priority_byte >> 5;  // bits that pick task groups and required nodes
      if (gang & 1u) {
        uint8_t g = in.Byte();
        c.ask.task_group = (g & 1u) ? "tg-b" : "tg-a";
        c.ask.placeholder = (g & 2u) != 0;
        if (g & 4u) c.ask.resources = {{"memory", 10}, {"vcore", 1}};
        if (g & 8u) c.ask.task_group.clear();  // a placeholder without a group is refused
      }
      if (gang & 2u) {
        uint8_t n = in.Byte();
        c.ask.required_node = (n & 7u) == 7u ? "n-missing" : "n" + std::to_string(1 + n % 6);
      }
      if (gang & 4u) {
        uint8_t f = in.Byte();
        c.ask.allow_preemption = (f & 1u) == 0;
        c.ask.originator = (f & 2u) != 0;
      }
      if (p < 28) {
        c.ask.priority = static_cast<int32_t>(p % 10) - 3;
      } else if (p == 28) {
        c.ask.priority = kMaxInt32;
      } else if (p == 29) {
        c.ask.priority = kMinInt32;
      } else {
        c.ask.priority = static_cast<int32_t>(in.Range(kMinInt32, kMaxInt32));
      }
      uint8_t n = in.Byte() % 32;
      if (n < 28) {
        c.ask.count = 1 + n % 4;
      } else if (n == 28) {
        c.ask.count = 0;
      } else if (n == 29) {
        c.ask.count = -1;
      } else if (n == 30) {
        c.ask.count = in.Bool() ? kMaxInt64 : in.Range(5, 1000);
      } else {
        // YuniKorn's int32 count: at the limit, just past it, or a long way past.
        static const int64_t kCounts[] = {ApiLimits::kMaxAskCount, ApiLimits::kMaxAskCount + 1,
                                          int64_t{1} << 40, 100'000'000};
        c.ask.count = kCounts[in.Byte() % 4];
      }
      if (Avoid("saturation")) {
        c.ask.count = std::min<int64_t>(c.ask.count, 1000);
        c.ask.resources = Bounded(std::move(c.ask.resources));
      }
      if (c.ask.count > 0) {
        state.pending_bound = c.ask.count > kMaxInt64 - state.pending_bound
                                  ? kMaxInt64
                                  : state.pending_bound + c.ask.count;
      }
      break;
    }
    case 10:
      c.kind = CallKind::kRemoveAsk;
      c.partition = Partition(in, state);
      c.id = Id(in, "app", 6);
      c.ask_id = Id(in, "k", 4);
      break;
    case 11:
      c.kind = CallKind::kRelease;
      c.partition = Partition(in, state);
      c.id = Id(in, "app", 6);
      c.ask_id = Id(in, "k", 4);
      if (in.Bool()) c.node_id = Id(in, "n", 6);
      break;
    case 12: {
      c.kind = CallKind::kAdvance;
      uint8_t mode = in.Byte() % 16;
      static const std::vector<int64_t> kSeconds = {1, 2, 3, 29, 30, 31, 299, 300, 301};
      if (mode < 6) {
        c.value = in.Range(0, 3000);
      } else if (mode < 12) {
        c.value = in.Pick(kSeconds) * 1000;
      } else if (mode == 12) {
        c.value = 259'200'000 + in.Range(-1, 1);  // the 3-day expiry of terminated apps
      } else if (mode == 13) {
        c.value = -in.Range(1, 1000);
      } else if (mode == 14) {
        // To (almost) the end of the clock: timers set afterwards are due past int64.
        static const std::vector<int64_t> kEdges = {kMaxInt64,           kMaxInt64 / 2,
                                                    kMaxInt64 - 1,       kMaxInt64 - 100'000,
                                                    kMaxInt64 - 400'000, kMaxInt64 - 300'000'000};
        c.value = in.Pick(kEdges);
      } else {
        c.value = in.Range(0, kMaxInt64);
      }
      if (Avoid("clock-overflow")) c.value = std::min<int64_t>(c.value, int64_t{1} << 40);
      break;
    }
    case 13:
    case 14: {
      c.kind = CallKind::kSchedule;
      uint8_t b = in.Byte() % 16;
      if (op == 14 && b >= 13) {
        DecodeLifecycleCall(in, state, &c);
        break;
      }
      c.partition = b < 10 ? "" : Partition(in, state);
      static const std::vector<int64_t> kMax = {0, 0, 0, 0, 1, 1, 2, 3, 5, -1};
      c.value = in.Pick(kMax);
      if (c.value <= 0 && state.pending_bound > kUnlimitedScheduleBound) c.value = kScheduleCap;
      break;
    }
    default: {
      c.kind = CallKind::kUpdateConfig;
      c.config = DecodeReload(in, state.config);
      SchedulerConfig candidate = *c.config;
      bool valid = true;
      for (const ConfigError& e : ValidateConfig(candidate)) valid = valid && e.warning;
      if (valid) SetView(&state, *c.config);
      break;
    }
  }
  return c;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string QuantitiesText(const Quantities& q) {
  std::string out = "{";
  for (size_t i = 0; i < q.size(); ++i) {
    out += (i ? ", " : "") + Quote(q[i].first) + ": " + std::to_string(q[i].second);
  }
  return out + "}";
}

std::string PartitionText(const std::string& partition) {
  return partition == kDefaultPartition ? "" : ", partition: " + Quote(partition);
}

}  // namespace

bool Verbose() {
  static const bool verbose = [] {
    const char* v = std::getenv("ALLOCORE_FUZZ_VERBOSE");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  return verbose;
}

bool Avoid(std::string_view pattern) {
  static const std::string avoid = [] {
    const char* v = std::getenv("ALLOCORE_FUZZ_AVOID");
    return "," + std::string(v == nullptr ? "" : v) + ",";
  }();
  return avoid.find("," + std::string(pattern) + ",") != std::string::npos;
}

void Fail(const std::string& message) {
  std::fprintf(stderr, "\n=== FUZZ FINDING ===\n%s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

Sequence DecodeSequence(ByteReader& in, const DecodeOptions& options) {
  Sequence seq;
  std::vector<size_t> fixed;
  for (size_t i = 0; i < kFixedConfigs.size(); ++i) {
    if (!options.modelled_only || kFixedConfigs[i].modelled) fixed.push_back(i);
  }
  uint8_t mode = in.Byte() % 8;
  std::optional<SchedulerConfig> config;
  if (mode >= 5 && mode < 7) {
    config = DecodeTree(in, options.modelled_only);
    seq.config_name = "decoded";
  }
  if (!config) {
    // Mode 7: the last fixed config (general preemption).
    size_t index = mode == 7 ? fixed.back() : fixed[mode % fixed.size()];
    config = LoadFixed(index);
    seq.config_name = kFixedConfigs[index].name;
  }
  seq.config = *config;
  if (!options.modelled_only) {
    // One input in eight runs under a small memory budget (the model has none).
    uint8_t budget = in.Byte();
    if (budget >= 224) {
      seq.kernel_options = {.max_applications = 1 + (budget & 3),
                            .max_asks = 1 + ((budget >> 2) & 3),
                            .max_live_allocations = 1 + ((budget >> 4) & 1) * 4};
    }
  }
  DecoderState state;
  SetView(&state, seq.config);
  while (!in.empty() && seq.calls.size() < options.max_calls) {
    seq.calls.push_back(DecodeCall(in, state, options));
  }
  return seq;
}

namespace {

// The handle API's version of the call, or nullopt when it takes the call by name.
std::optional<absl::Status> ApplyByHandle(Kernel& kernel, const Call& c,
                                          std::vector<Decision>* out) {
  const std::string& partition_name = c.kind == CallKind::kAddAsk ? c.ask.partition : c.partition;
  absl::StatusOr<PartitionHandle> partition = kernel.FindPartition(partition_name);
  if (!partition.ok()) return std::nullopt;
  switch (c.kind) {
    case CallKind::kAddAsk: {
      absl::StatusOr<AppHandle> app = kernel.FindApplication(*partition, c.ask.app);
      if (!app.ok() || c.ask.resources.size() > ApiLimits::kMaxQuantityEntries) return std::nullopt;
      AskArgs args = AskArgsOf(c.ask);
      for (const auto& [type, value] : c.ask.resources) {
        const int id = kernel.resource_types().Find(type);
        if (id < 0) return std::nullopt;  // by name, a refused ask registers no type
        // By name every entry is checked (a negative one refuses the ask) before a later one of
        // the same type overwrites it; a Resource holds one quantity per type.
        if (args.resources.Has(id)) return std::nullopt;
        args.resources.Set(id, value);
      }
      return kernel.AddAsk(*app, args, out).status();
    }
    case CallKind::kRemoveAsk:
    case CallKind::kRelease: {
      absl::StatusOr<AppHandle> app = kernel.FindApplication(*partition, c.id);
      if (!app.ok()) return std::nullopt;
      absl::StatusOr<AskHandle> ask = kernel.FindAsk(*app, c.ask_id);
      if (!ask.ok()) return std::nullopt;
      if (c.kind == CallKind::kRemoveAsk) return kernel.RemoveAsk(*ask, out);
      NodeHandle node;
      if (!c.node_id.empty()) {
        absl::StatusOr<NodeHandle> found = kernel.FindNode(*partition, c.node_id);
        if (!found.ok()) return std::nullopt;
        node = *found;
      }
      return kernel.ReleaseAllocation(*ask, node, out);
    }
    case CallKind::kRemoveApp: {
      absl::StatusOr<AppHandle> app = kernel.FindApplication(*partition, c.id);
      if (!app.ok()) return std::nullopt;
      return kernel.RemoveApplication(*app, out);
    }
    case CallKind::kRemoveNode: {
      absl::StatusOr<NodeHandle> node = kernel.FindNode(*partition, c.id);
      if (!node.ok()) return std::nullopt;
      return kernel.RemoveNode(*node, out);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

Event ToEvent(const Call& c) {
  switch (c.kind) {
    case CallKind::kAddNode:
      return c.node;
    case CallKind::kUpdateNode:
      return c.update;
    case CallKind::kRemoveNode:
      return RemoveNodeEvent{.partition = c.partition, .id = c.id};
    case CallKind::kAddApp:
      return c.app;
    case CallKind::kRemoveApp:
      return RemoveApplicationEvent{.partition = c.partition, .id = c.id};
    case CallKind::kAddAsk:
      return c.ask;
    case CallKind::kRemoveAsk:
      return RemoveAskEvent{.partition = c.partition, .app = c.id, .ask = c.ask_id};
    case CallKind::kRelease:
      return ReleaseEvent{
          .partition = c.partition, .app = c.id, .ask = c.ask_id, .node = c.node_id};
    case CallKind::kAdvance:
      return AdvanceEvent{.millis = c.value};
    case CallKind::kSchedule:
      return ScheduleEvent{.partition = c.partition, .max = c.value};
    case CallKind::kUpdateConfig:
      return UpdateConfigEvent{.config = c.config ? *c.config : SchedulerConfig{}};
    case CallKind::kRecover:
      return RecoverSpec{.ask = c.ask, .node = c.node_id};
    case CallKind::kUpdateAllocation:
      return AllocationUpdate{.partition = c.partition,
                              .app = c.id,
                              .ask = c.ask_id,
                              .node = c.node_id,
                              .resources = c.resources};
    case CallKind::kUpdateAsk:
      return AskUpdate{
          .partition = c.partition, .app = c.id, .id = c.ask_id, .resources = c.resources};
    case CallKind::kAddForeign:
      return ForeignAllocationSpec{
          .partition = c.partition, .id = c.id, .node = c.node_id, .resources = c.resources};
    case CallKind::kUpdateForeign:
      return ForeignAllocationUpdate{
          .partition = c.partition, .id = c.id, .node = c.node_id, .resources = c.resources};
    case CallKind::kRemoveForeign:
      return RemoveForeignAllocationEvent{.partition = c.partition, .id = c.id};
  }
  return ScheduleEvent{};
}

void ReplayCalls(Kernel& kernel, const Sequence& seq, size_t begin, size_t end,
                 std::vector<std::string>* stream) {
  std::vector<Decision> out;
  for (size_t i = begin; i < end && i < seq.calls.size(); ++i) {
    out.clear();
    (void)kernel.Advance(1, &out);
    (void)ApplyCall(kernel, seq.calls[i], &out, nullptr);
    for (const Decision& d : out) stream->push_back(DecisionText(d));
  }
}

absl::Status ApplyCall(Kernel& kernel, const Call& c, std::vector<Decision>* out,
                       int64_t* allocations, bool by_handle) {
  if (allocations != nullptr) *allocations = 0;
  if (by_handle) {
    if (std::optional<absl::Status> status = ApplyByHandle(kernel, c, out)) return *status;
  }
  return ApplyEvent(kernel, ToEvent(c), out, allocations);
}

std::string DescribeCall(const Call& c) {
  std::ostringstream os;
  switch (c.kind) {
    case CallKind::kAddNode:
      os << "add_node: {id: " << Quote(c.node.id)
         << ", resources: " << QuantitiesText(c.node.capacity);
      if (!c.node.occupied.empty()) os << ", occupied: " << QuantitiesText(c.node.occupied);
      if (!c.node.schedulable) os << ", schedulable: false";
      os << PartitionText(c.node.partition) << "}";
      break;
    case CallKind::kUpdateNode:
      os << "update_node: {id: " << Quote(c.update.id);
      if (c.update.capacity) os << ", resources: " << QuantitiesText(*c.update.capacity);
      if (c.update.occupied) os << ", occupied: " << QuantitiesText(*c.update.occupied);
      if (c.update.schedulable) {
        os << ", schedulable: " << (*c.update.schedulable ? "true" : "false");
      }
      os << PartitionText(c.update.partition) << "}";
      break;
    case CallKind::kRemoveNode:
      os << "remove_node: {id: " << Quote(c.id) << PartitionText(c.partition) << "}";
      break;
    case CallKind::kAddApp:
      os << "add_app: {id: " << Quote(c.app.id) << ", queue: " << Quote(c.app.queue)
         << ", user: " << Quote(c.app.user);
      if (!c.app.groups.empty()) {
        os << ", groups: [";
        for (size_t i = 0; i < c.app.groups.size(); ++i) {
          os << (i ? ", " : "") << Quote(c.app.groups[i]);
        }
        os << "]";
      }
      if (!c.app.tags.empty()) {
        os << ", tags: {";
        for (size_t i = 0; i < c.app.tags.size(); ++i) {
          os << (i ? ", " : "") << Quote(c.app.tags[i].first) << ": "
             << Quote(c.app.tags[i].second);
        }
        os << "}";
      }
      if (!c.app.placeholder_ask.empty()) {
        os << ", gang_style: " << (c.app.gang_style == GangStyle::kHard ? "hard" : "soft")
           << ", placeholder_timeout: " << c.app.placeholder_timeout_millis / 1000
           << ", placeholder_ask: " << QuantitiesText(c.app.placeholder_ask);
      }
      os << PartitionText(c.app.partition) << "}";
      break;
    case CallKind::kRemoveApp:
      os << "remove_app: {id: " << Quote(c.id) << PartitionText(c.partition) << "}";
      break;
    case CallKind::kAddAsk:
      os << "add_ask: {app: " << Quote(c.ask.app) << ", id: " << Quote(c.ask.id)
         << ", resources: " << QuantitiesText(c.ask.resources) << ", priority: " << c.ask.priority
         << ", count: " << c.ask.count;
      if (!c.ask.task_group.empty()) os << ", task_group: " << Quote(c.ask.task_group);
      if (c.ask.placeholder) os << ", placeholder: true";
      if (!c.ask.required_node.empty()) os << ", required_node: " << Quote(c.ask.required_node);
      if (!c.ask.allow_preemption) os << ", allow_preemption: false";
      if (c.ask.originator) os << ", originator: true";
      os << PartitionText(c.ask.partition) << "}";
      break;
    case CallKind::kRemoveAsk:
      os << "remove_ask: {app: " << Quote(c.id) << ", id: " << Quote(c.ask_id)
         << PartitionText(c.partition) << "}";
      break;
    case CallKind::kRelease:
      os << "release: {app: " << Quote(c.id) << ", ask: " << Quote(c.ask_id);
      if (!c.node_id.empty()) os << ", node: " << Quote(c.node_id);
      os << PartitionText(c.partition) << "}";
      break;
    case CallKind::kAdvance:
      if (c.value >= 0 && c.value % 1000 == 0) {
        os << "advance: {seconds: " << c.value / 1000 << "}";
      } else {
        os << "advance: {seconds: 0}   # not expressible: advance by " << c.value << " ms";
      }
      break;
    case CallKind::kSchedule:
      os << "schedule: {";
      if (c.value != 0) os << "max: " << c.value;
      if (!c.partition.empty()) os << (c.value != 0 ? ", " : "") << "partition: " << c.partition;
      os << "}";
      break;
    case CallKind::kUpdateConfig:
      os << "update_config: {config: " << adapters::ConfigToJson(*c.config) << "}";
      break;
    case CallKind::kRecover:
      os << "recover_allocation: {app: " << Quote(c.ask.app) << ", id: " << Quote(c.ask.id)
         << ", node: " << Quote(c.node_id) << ", resources: " << QuantitiesText(c.ask.resources)
         << ", priority: " << c.ask.priority;
      if (!c.ask.task_group.empty()) os << ", task_group: " << Quote(c.ask.task_group);
      if (c.ask.placeholder) os << ", placeholder: true";
      if (!c.ask.allow_preemption) os << ", allow_preemption: false";
      if (c.ask.count != 1) os << "   # count " << c.ask.count << " (not expressible)";
      os << PartitionText(c.ask.partition) << "}";
      break;
    case CallKind::kUpdateAllocation:
      os << "update_allocation: {app: " << Quote(c.id) << ", ask: " << Quote(c.ask_id)
         << ", resources: " << QuantitiesText(c.resources);
      if (!c.node_id.empty()) os << ", node: " << Quote(c.node_id);
      os << PartitionText(c.partition) << "}";
      break;
    case CallKind::kUpdateAsk:
      os << "update_ask: {app: " << Quote(c.id) << ", id: " << Quote(c.ask_id)
         << ", resources: " << QuantitiesText(c.resources) << PartitionText(c.partition) << "}";
      break;
    case CallKind::kAddForeign:
    case CallKind::kUpdateForeign:
      os << (c.kind == CallKind::kAddForeign ? "add_foreign" : "update_foreign")
         << ": {id: " << Quote(c.id);
      if (!c.node_id.empty()) os << ", node: " << Quote(c.node_id);
      os << ", resources: " << QuantitiesText(c.resources) << PartitionText(c.partition) << "}";
      break;
    case CallKind::kRemoveForeign:
      os << "remove_foreign: {id: " << Quote(c.id) << PartitionText(c.partition) << "}";
      break;
  }
  return os.str();
}

Semantics ProfileFor(const SchedulerConfig& config, const uint8_t* data, size_t size) {
  if (size == 0 || (data[size - 1] & 1) == 0) return Semantics::kYunikorn12;
  SchedulerConfig probe = config;
  for (const ConfigError& e : ValidateConfig(probe, Semantics::kYunikorn19)) {
    if (!e.warning) return Semantics::kYunikorn12;
  }
  return Semantics::kYunikorn19;
}

std::string DescribeSequence(const Sequence& seq, size_t calls) {
  std::ostringstream os;
  os << "# decoded from fuzzer bytes; config: " << seq.config_name << "\n";
  if (seq.kernel_options.semantics != Semantics::kYunikorn12) {
    os << "semantics: " << SemanticsName(seq.kernel_options.semantics) << "\n";
  }
  if (seq.kernel_options.max_live_allocations > 0) {
    os << "# kernel budget: max_applications " << seq.kernel_options.max_applications
       << ", max_asks " << seq.kernel_options.max_asks << ", max_live_allocations "
       << seq.kernel_options.max_live_allocations << " (replay with allocore run --max-allocations "
       << seq.kernel_options.max_live_allocations << ")\n";
  }
  os << "config: " << adapters::ConfigToJson(seq.config) << "\n";
  os << "nodes: []\nsteps:\n";
  for (size_t i = 0; i < calls && i < seq.calls.size(); ++i) {
    os << "  - " << DescribeCall(seq.calls[i]) << "   # step " << i + 1 << "\n";
  }
  if (seq.calls.empty()) os << "  []\n";
  return os.str();
}

}  // namespace allocore::fuzz

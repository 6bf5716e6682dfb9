// A manager restarts: a scenario runs to step k; a fresh kernel is built from what a manager
// knows at that point (the configuration, its nodes, its live applications, the allocations
// the decision stream left running, the asks still pending) by recovering the allocations and
// adding the rest again; the remaining steps then run on it. Wherever YuniKorn's recovery says
// they must, the decisions after the restart equal the uninterrupted run's.
//
// Where they must not (and so what these scenarios avoid, RestartableReason says why):
//   - reservations are not recovered (YuniKorn rebuilds them too), and re-added asks are young
//     again, so an ask that waited for a reservation waits anew;
//   - timers (Starting, Completing, placeholder) start over, and recovered applications skip
//     admission (maxapplications, stateaware), as YuniKorn's do;
//   - seq numbers start over: recovered allocations take none;
//   - gang placeholders and required nodes, whose pending asks and timers a manager would have
//     to re-create with their history.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "adapters/recording_test_util.h"
#include "allocore/adapters/scenario.h"
#include "allocore/events.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/profiles.h"
#include "support/scenarios.h"

namespace allocore::adapters {
namespace {

struct Seen {
  int64_t step = 0;
  DecisionType type = DecisionType::kAllocation;
  int64_t seq = 0;
  std::string app;
  std::string ask;
  std::string node;
  std::string what;  // reason / state change, for releases and states

  static Seen Of(int64_t step, const Decision& d) {
    return {.step = step,
            .type = d.type,
            .seq = d.seq,
            .app = std::string(d.app),
            .ask = std::string(d.ask),
            .node = std::string(d.node),
            .what = std::string(ReleaseReasonName(d.release_reason))};
  }
};

class Recorder : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override {
    if (record.decision != nullptr) seen.push_back(Seen::Of(record.step, *record.decision));
  }
  std::vector<Seen> seen;
};

// The placements (allocations and releases) from `from_step` on, as comparable text.
std::vector<std::string> Placements(const std::vector<Seen>& seen, int64_t from_step) {
  std::vector<std::string> out;
  for (const Seen& s : seen) {
    if (s.step < from_step) continue;
    if (s.type == DecisionType::kAllocation) {
      out.push_back(
          absl::StrCat("step ", s.step, ": allocate ", s.app, "/", s.ask, " on ", s.node));
    } else if (s.type == DecisionType::kRelease) {
      out.push_back(absl::StrCat("step ", s.step, ": release ", s.app, "/", s.ask, " on ", s.node,
                                 " (", s.what, ")"));
    }
  }
  return out;
}

// Why the scenario's run cannot be cut and recovered with equal decisions (empty: it can).
std::string RestartableReason(const Scenario& scenario) {
  int64_t clock = 0;
  for (const ScenarioStep& step : scenario.steps) {
    clock += 1;
    switch (step.kind()) {
      case StepKind::kAddApp:
        if (!std::get<AppSpec>(step.action).placeholder_ask.empty()) return "a gang application";
        break;
      case StepKind::kAddAsk: {
        const AskSpec& ask = std::get<AskSpec>(step.action);
        if (ask.placeholder || !ask.task_group.empty()) return "a gang member";
        if (!ask.required_node.empty()) return "a required node";
        break;
      }
      case StepKind::kAdvance:
        clock += std::get<AdvanceStep>(step.action).millis;
        break;
      case StepKind::kSchedule:
      case StepKind::kRemoveAsk:
      case StepKind::kRemoveApp:
      case StepKind::kProbe:
      case StepKind::kAddNode:
      case StepKind::kUpdateNode:
      case StepKind::kRemoveNode:
        break;
      case StepKind::kRelease:
        if (std::get<ReleaseStep>(step.action).seq != 0) return "a release by seq";
        break;
      default:
        return absl::StrCat("a ", std::string(StepKindName(step.kind())), " step");
    }
  }
  // Asks younger than 2 s never reserve a node, and no timer fires within the run.
  if (clock >= 2000) return "a run long enough for reservations and timers";
  for (const PartitionConfig& p : scenario.config.partitions) {
    std::vector<const QueueConfig*> queues;
    for (const QueueConfig& q : p.queues) queues.push_back(&q);
    while (!queues.empty()) {
      const QueueConfig* q = queues.back();
      queues.pop_back();
      if (q->max_applications > 0) return "maxapplications (recovery skips admission)";
      for (const auto& [key, value] : q->properties) {
        if (key == "application.sort.policy" && value == "stateaware") {
          return "stateaware (recovery skips admission)";
        }
      }
      for (const QueueConfig& child : q->queues) queues.push_back(&child);
    }
  }
  return "";
}

struct AskKey {
  std::string partition, app, id;
  auto operator<=>(const AskKey&) const = default;
};

// Runs `scenario` to `cut`, rebuilds a kernel from what a manager knows then, runs the rest on
// it, and returns the restarted run's decisions (steps numbered as in the scenario); nullopt
// when an ask id holds several live allocations at the cut (an ask with count > 1: YuniKorn's
// pods each have a key of their own, and a report of a known key is no new pod), or, under
// yunikorn-1.9, a live allocation and pending repeats.
std::optional<std::vector<Seen>> RestartAt(const Scenario& scenario, int64_t cut) {
  Recorder before;
  absl::StatusOr<RunResult> partial = RunScenario(scenario, {.last_step = cut}, &before);
  EXPECT_TRUE(partial.ok()) << partial.status();
  if (!partial.ok()) return std::vector<Seen>{};

  // What the manager knows: its apps and asks (the last spec sent under each id), in the order
  // it sent them, and the allocations the stream left live.
  std::vector<AppSpec> apps;
  std::vector<const ScenarioStep*> node_steps;  // replayed in order: the nodes as they are now
  std::map<AskKey, AskSpec> asks;
  std::vector<AskKey> ask_order;
  int64_t now = 0;
  for (int64_t i = 0; i < cut; ++i) {
    const ScenarioStep& step = scenario.steps[static_cast<size_t>(i)];
    now += 1;
    if (const auto* app = std::get_if<AppSpec>(&step.action)) apps.push_back(*app);
    if (step.kind() == StepKind::kAddNode || step.kind() == StepKind::kUpdateNode ||
        step.kind() == StepKind::kRemoveNode) {
      node_steps.push_back(&step);
    }
    if (const auto* ask = std::get_if<AskSpec>(&step.action)) {
      AskKey key{ask->partition, ask->app, ask->id};
      std::erase(ask_order, key);
      ask_order.push_back(key);
      asks[key] = *ask;
    }
    if (const auto* advance = std::get_if<AdvanceStep>(&step.action)) now += advance->millis;
  }
  std::map<int64_t, const Seen*> live;  // by seq, oldest first
  for (const Seen& s : before.seen) {
    if (s.type == DecisionType::kAllocation) live[s.seq] = &s;
    if (s.type == DecisionType::kRelease) live.erase(s.seq);
  }
  // The kernel's inventory says the same (oldest first: seq order for scheduled allocations).
  absl::StatusOr<std::vector<AllocationInfo>> inventory =
      partial->kernel->ListAllocations(kDefaultPartition, "", "");
  EXPECT_TRUE(inventory.ok()) << inventory.status();
  if (inventory.ok()) {
    std::vector<std::string> listed;
    std::vector<std::string> streamed;
    for (const AllocationInfo& a : *inventory) {
      listed.push_back(absl::StrCat(a.seq, " ", a.app, "/", a.ask, " on ", a.node));
    }
    for (const auto& [seq, s] : live) {
      streamed.push_back(absl::StrCat(seq, " ", s->app, "/", s->ask, " on ", s->node));
    }
    EXPECT_EQ(listed, streamed) << "ListAllocations after step " << cut;
  }
  std::set<std::pair<std::string, std::string>> live_asks;
  for (const auto& [seq, s] : live) {
    if (!live_asks.insert({s->app, s->ask}).second) return std::nullopt;
  }
  std::map<AskKey, int64_t> pending;
  for (const PendingExplanation& p : partial->kernel->ExplainPending()) {
    pending[{p.partition, p.app, p.ask}] = p.pending_count;
    // 1.5+: a key with a live pod is that pod; re-adding its pending repeats under the same key
    // would resize the pod, not add them (a manager there has a key per pod).
    if (scenario.semantics == Semantics::kYunikorn19 && live_asks.contains({p.app, p.ask})) {
      return std::nullopt;
    }
  }

  KernelOptions options;
  options.semantics = scenario.semantics;
  auto kernel = Kernel::Create(scenario.config, options);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok()) return std::vector<Seen>{};
  std::vector<Decision> out;
  for (const AddNodeStep& node : scenario.nodes)
    EXPECT_TRUE((*kernel)->AddNode(node.node, &out).ok());
  for (const ScenarioStep* step : node_steps) {
    if (const auto* add = std::get_if<AddNodeStep>(&step->action)) {
      (void)(*kernel)->AddNode(add->node, &out);
    } else if (const auto* update = std::get_if<NodeUpdate>(&step->action)) {
      (void)(*kernel)->UpdateNode(*update, &out);
    } else if (const auto* remove = std::get_if<RemoveNodeStep>(&step->action)) {
      (void)(*kernel)->RemoveNode(remove->partition, remove->id, &out);
    }
  }
  EXPECT_TRUE((*kernel)->Advance(now, &out).ok());
  for (const AppSpec& app : apps) {
    absl::StatusOr<AppInfo> info = partial->kernel->GetApplication(app.partition, app.id);
    if (!info.ok() || info->state == AppState::kRejected || info->state == AppState::kCompleted) {
      continue;
    }
    EXPECT_TRUE((*kernel)->AddApplication(app, &out).ok()) << app.id;
  }
  for (const auto& [seq, s] : live) {
    AskSpec pod = asks.at({std::string(kDefaultPartition), s->app, s->ask});
    pod.count = 1;
    absl::Status recovered = (*kernel)->RecoverAllocation({.ask = pod, .node = s->node}, &out);
    EXPECT_TRUE(recovered.ok()) << recovered;
  }
  for (const AskKey& key : ask_order) {
    auto it = pending.find(key);
    if (it == pending.end()) continue;
    AskSpec ask = asks.at(key);
    ask.count = it->second;
    absl::Status added = (*kernel)->AddAsk(ask, &out);
    EXPECT_TRUE(added.ok()) << added;
  }
  EXPECT_TRUE((*kernel)->CheckConsistency().ok()) << (*kernel)->CheckConsistency();

  // The rest of the run, step by step as the runner applies them.
  std::vector<Seen> after;
  for (size_t i = static_cast<size_t>(cut); i < scenario.steps.size(); ++i) {
    const ScenarioStep& step = scenario.steps[i];
    out.clear();
    EXPECT_TRUE((*kernel)->Advance(1, &out).ok());
    if (std::optional<Event> event = testing_util::EventOf(step)) {
      (void)ApplyEvent(**kernel, *event, &out);
    }
    for (const Decision& d : out) after.push_back(Seen::Of(static_cast<int64_t>(i) + 1, d));
  }
  EXPECT_TRUE((*kernel)->CheckConsistency().ok()) << (*kernel)->CheckConsistency();
  return after;
}

// Every cut of the scenario: the placements after it equal the uninterrupted run's. Returns
// the number of cuts compared.
int ExpectRestartsAnywhere(const Scenario& scenario, std::string_view label) {
  Recorder whole;
  EXPECT_TRUE(RunScenario(scenario, {}, &whole).ok());
  int compared = 0;
  for (int64_t cut = 1; cut < static_cast<int64_t>(scenario.steps.size()); ++cut) {
    std::optional<std::vector<Seen>> after = RestartAt(scenario, cut);
    if (!after) continue;
    ++compared;
    EXPECT_EQ(Placements(*after, cut + 1), Placements(whole.seen, cut + 1))
        << label << ": restarted after step " << cut;
    if (::testing::Test::HasFailure()) break;
  }
  return compared;
}

// A workload a restart can cut anywhere: three leaves (fair with a guarantee and a max, a max
// and a priority offset, fifo), nodes of two sizes, asks of counts 1-3 and mixed priorities,
// partial schedules, releases, ask and app removals, nodes that come and go; no clock advance.
std::string RestartableWorkload(uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&](int64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<int64_t>(state % static_cast<uint64_t>(n));
  };
  std::string text = test_support::OpenRootConfig(R"(
- name: a
  resources: {guaranteed: {memory: 200}, max: {memory: 400}}
- name: b
  resources: {max: {memory: 300}}
  properties: {priority.offset: "2"}
- name: c
  properties: {application.sort.policy: fifo}
)") + R"(nodes:
  - {id: node-1, resources: {memory: 200, vcore: 20}}
  - {id: node-2, resources: {memory: 200, vcore: 20}}
  - {id: node-3, resources: {memory: 120, vcore: 10}}
steps:
)";
  int apps = 0;
  std::vector<int64_t> ask_app;  // the app each ask id was added to
  int nodes = 3;
  for (int step = 0; step < 36; ++step) {
    const int64_t roll = apps == 0 ? 0 : next(100);
    if (roll < 12 && apps < 7) {
      absl::StrAppend(&text, "  - add_app: {id: app-", apps, ", queue: root.",
                      std::string(1, "abc"[next(3)]), ", user: u}\n");
      ++apps;
    } else if (roll < 50) {
      ask_app.push_back(next(apps));
      absl::StrAppend(&text, "  - add_ask: {app: app-", ask_app.back(), ", id: k-",
                      ask_app.size() - 1, ", resources: {memory: ", 10 + 10 * next(8),
                      ", vcore: ", 1 + next(3), "}, priority: ", next(4) - 1,
                      ", count: ", 1 + next(3), "}\n");
    } else if (roll < 70) {
      absl::StrAppend(&text, "  - schedule: {max: ", next(4), "}\n");
    } else if (roll < 84 && !ask_app.empty()) {
      const auto ask = static_cast<size_t>(next(static_cast<int64_t>(ask_app.size())));
      absl::StrAppend(&text, "  - release: {app: app-", ask_app[ask], ", ask: k-", ask, "}\n");
    } else if (roll < 90 && !ask_app.empty()) {
      const auto ask = static_cast<size_t>(next(static_cast<int64_t>(ask_app.size())));
      absl::StrAppend(&text, "  - remove_ask: {app: app-", ask_app[ask], ", id: k-", ask, "}\n");
    } else if (roll < 93) {
      absl::StrAppend(&text, "  - remove_app: {id: app-", next(apps), "}\n");
    } else if (roll < 97) {
      absl::StrAppend(&text, "  - add_node: {id: node-", ++nodes,
                      ", resources: {memory: 150, vcore: 15}}\n");
    } else {
      absl::StrAppend(&text, "  - remove_node: {id: node-", 1 + next(nodes), "}\n");
    }
  }
  absl::StrAppend(&text, "  - schedule: {}\n");
  return text;
}

class RestartTest : public ::testing::TestWithParam<Semantics> {};

INSTANTIATE_TEST_SUITE_P(Profiles, RestartTest, test_support::EachProfile(),
                         test_support::ProfileName);

TEST_P(RestartTest, OwnScenariosContinueAlikeAfterARestartAtEveryStep) {
  int compared = 0;
  for (const char* name :
       {"priority-tree", "priority-offset-siblings", "acl-and-limits", "probe"}) {
    std::string path = absl::StrCat(ALLOCORE_SOURCE_DIR, "/tests/scenarios/", name, ".yaml");
    absl::StatusOr<Scenario> scenario = LoadScenarioFile(path, {.semantics = GetParam()});
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    if (std::string why = RestartableReason(*scenario); !why.empty()) {
      ADD_FAILURE() << name << " is listed but cannot be cut: " << why;
      continue;
    }
    compared += ExpectRestartsAnywhere(*scenario, name);
  }
  EXPECT_GT(compared, 20);
  // Where the decisions must differ, the scenario is not cut (see the top of this file).
  for (const auto& [name, why] : std::vector<std::pair<std::string, std::string>>{
           {"reservation", "a run long enough for reservations and timers"},
           {"gang-admission-and-waiting", "a gang application"},
           {"stateaware-timers", "a run long enough for reservations and timers"}}) {
    absl::StatusOr<Scenario> scenario =
        LoadScenarioFile(absl::StrCat(ALLOCORE_SOURCE_DIR, "/tests/scenarios/", name, ".yaml"));
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    EXPECT_EQ(RestartableReason(*scenario), why) << name;
  }
}

TEST_P(RestartTest, GeneratedWorkloadsContinueAlikeAfterARestartAtEveryStep) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 30 && !HasFailure(); ++seed) {
    const std::string text = RestartableWorkload(seed);
    absl::StatusOr<Scenario> scenario =
        LoadScenarioText(text, absl::StrCat("restartable-", seed), {.semantics = GetParam()});
    ASSERT_TRUE(scenario.ok()) << scenario.status() << "\n" << text;
    ASSERT_EQ(RestartableReason(*scenario), "");
    compared += ExpectRestartsAnywhere(*scenario, absl::StrCat("seed ", seed, "\n", text));
  }
  EXPECT_GT(compared, 300) << "too few cuts without several live pods under one ask id";
}

}  // namespace
}  // namespace allocore::adapters

// allocore report: each figure on small scenarios whose answers are worked out by hand, the
// percentiles at their edges, and the collector's queue usage against the kernel's.
//
// The scenario clock ticks 1 ms before every step, so step k runs at k ms; a run's time ends
// at its last step. Resources are counted in a plain type, `slots`.
#include "allocore/adapters/report.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "allocore/adapters/report_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/workload_gen.h"
#include "allocore/semantics.h"
#include "gtest/gtest.h"
#include "support/scenarios.h"

namespace allocore::adapters {
namespace {

struct Replayed {
  Report report;
  RunResult run;
};

Replayed Replay(const std::string& text, ReportOptions options = {}) {
  absl::StatusOr<Scenario> scenario = LoadScenarioText(text, "report_test.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  ReportCollector collector(options);
  RunOptions run_options;
  run_options.keep_allocations = false;
  absl::StatusOr<RunResult> run = RunScenario(*scenario, run_options, &collector);
  EXPECT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(collector.CheckUsage(*run->kernel).ok()) << collector.CheckUsage(*run->kernel);
  Report report = collector.Finish(*scenario, *run);
  return {std::move(report), *std::move(run)};
}

const QueueReport& Queue(const Report& report, const std::string& path, size_t partition = 0) {
  for (const QueueReport& q : report.partitions.at(partition).queues) {
    if (q.path == path) return q;
  }
  ADD_FAILURE() << "no queue " << path;
  static const QueueReport kNone;
  return kNone;
}

const ResourceUsage& Usage(const QueueReport& q, const std::string& type) {
  for (const ResourceUsage& u : q.usage) {
    if (u.type == type) return u;
  }
  ADD_FAILURE() << "no type " << type << " in " << q.path;
  static const ResourceUsage kNone;
  return kNone;
}

// root.a (guarantee 4 slots, max 8) gets 3 asks of 4 slots on a 10-slot node:
//   t=2 the asks arrive; t=3 two run (8 slots), t=5 one is released, t=6 the third runs.
std::string OneQueue() {
  return test_support::OneNodeScenario(
      "[{name: a, resources: {guaranteed: {slots: 4}, max: {slots: 8}}}, {name: b}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: k, resources: {slots: 4}, count: 3}
  - schedule: {}
  - add_app: {id: y, queue: root.b, user: u}
  - release: {app: x, ask: k}
  - schedule: {}
)");
}

TEST(ReportTest, PendingTimesFromSubmissionToEachAllocation) {
  Replayed r = Replay(OneQueue());
  ASSERT_EQ(r.report.end_millis, 6);
  const QueueReport& a = Queue(r.report, "root.a");
  // Waits 1, 1 (step 3) and 4 (step 6, submitted at step 2). Nearest rank: p50 is the 2nd of
  // three, p90 and p99 the 3rd.
  EXPECT_EQ(a.waits.count, 3);
  EXPECT_EQ(a.waits.p50, 1);
  EXPECT_EQ(a.waits.p90, 4);
  EXPECT_EQ(a.waits.p99, 4);
  EXPECT_EQ(a.waits.max, 4);
  EXPECT_EQ(a.waits.still_pending, 0);
  EXPECT_EQ(a.allocations, 3);
  ASSERT_EQ(a.wait_cdf.size(), 2u);
  EXPECT_EQ(a.wait_cdf[0].first, 1);
  EXPECT_NEAR(a.wait_cdf[0].second, 2.0 / 3.0, 1e-12);
  EXPECT_EQ(a.wait_cdf[1].first, 4);
  EXPECT_DOUBLE_EQ(a.wait_cdf[1].second, 1.0);
  // One row per ask among the longest waits: the ask's longest.
  ASSERT_EQ(r.report.partitions[0].longest_waiters.size(), 1u);
  EXPECT_EQ(r.report.partitions[0].longest_waiters[0].wait_millis, 4);
  // The partition holds the same samples; b never asked.
  EXPECT_EQ(r.report.partitions[0].waits.count, 3);
  EXPECT_EQ(Queue(r.report, "root.b").waits.count, 0);
  EXPECT_EQ(Queue(r.report, "root.b").waits.p99, 0);
}

TEST(ReportTest, TimeWeightedUsageAgainstGuaranteeAndMax) {
  Replayed r = Replay(OneQueue());
  const ResourceUsage& a = Usage(Queue(r.report, "root.a"), "slots");
  // 8 slots over [3,5), 4 over [5,6), 8 from 6 (the end): integral 20 over 6 ms.
  EXPECT_NEAR(a.mean, 20.0 / 6.0, 1e-12);
  EXPECT_EQ(a.peak, 8);
  ASSERT_TRUE(a.guaranteed && a.max);
  EXPECT_EQ(*a.guaranteed, 4);
  EXPECT_EQ(*a.max, 8);
  EXPECT_NEAR(a.above_guarantee, 2.0 / 6.0, 1e-12);  // above 4 during [3,5)
  EXPECT_NEAR(a.at_max, 2.0 / 6.0, 1e-12);           // at 8 during [3,5)
  // Parents hold the sum of their children.
  const ResourceUsage& root = Usage(Queue(r.report, "root"), "slots");
  EXPECT_NEAR(root.mean, 20.0 / 6.0, 1e-12);
  EXPECT_EQ(root.peak, 8);
  // The series covers the run: one bucket per ms here, and its mean is the overall mean.
  EXPECT_EQ(r.report.bucket_millis, 1);
  ASSERT_EQ(a.series.size(), 6u);
  EXPECT_EQ(a.series, (std::vector<double>{0, 0, 0, 8, 8, 4}));
  // Shares of the 10-slot cluster.
  const QueueReport& qa = Queue(r.report, "root.a");
  EXPECT_NEAR(qa.cluster_share, 20.0 / 6.0 / 10.0, 1e-12);
  ASSERT_TRUE(qa.guarantee_share);
  EXPECT_NEAR(*qa.guarantee_share, 0.4, 1e-12);
  EXPECT_FALSE(Queue(r.report, "root.b").guarantee_share);
}

TEST(ReportTest, NodeUtilisationByNodeTime) {
  Replayed r = Replay(OneQueue());
  const NodeUtilisation& nodes = r.report.partitions[0].nodes;
  EXPECT_EQ(nodes.nodes, 1);
  // Idle over [0,3), 80% over [3,5), 40% over [5,6).
  EXPECT_NEAR(nodes.time_share[0], 3.0 / 6.0, 1e-12);
  EXPECT_NEAR(nodes.time_share[8], 2.0 / 6.0, 1e-12);
  EXPECT_NEAR(nodes.time_share[4], 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(nodes.mean, (0.8 * 2 + 0.4 * 1) / 6.0, 1e-12);
}

// Two children with guarantees 2 and 4 each get 2 slots at t=5: ratios 1 and 0.5, Jain's
// index (1.5)^2 / (2 * 1.25) = 0.9. From t=4 both wait (ratios 0, 0: even, index 1).
TEST(ReportTest, FairnessIndexOverTheCountedChildren) {
  Replayed r =
      Replay(test_support::OneNodeScenario("[{name: a, resources: {guaranteed: {slots: 2}}},"
                                           " {name: b, resources: {guaranteed: {slots: 4}}}]",
                                           R"(
  - add_app: {id: xa, queue: root.a, user: u}
  - add_app: {id: xb, queue: root.b, user: u}
  - add_ask: {app: xa, id: k, resources: {slots: 2}}
  - add_ask: {app: xb, id: k, resources: {slots: 2}}
  - schedule: {}
  - schedule: {}
  - schedule: {}
)"));
  ASSERT_EQ(r.report.end_millis, 7);
  const PartitionReport& p = r.report.partitions[0];
  ASSERT_EQ(p.fairness.size(), 1u);
  const FairnessIndex& root = p.fairness[0];
  EXPECT_EQ(p.queues[static_cast<size_t>(root.parent)].path, "root");
  ASSERT_TRUE(root.mean);
  EXPECT_NEAR(*root.mean, (1.0 * 1 + 0.9 * 2) / 3.0, 1e-12);
  EXPECT_NEAR(root.counted_share, 3.0 / 7.0, 1e-12);
  // Before t=4 fewer than two children counted: no index in those buckets.
  ASSERT_EQ(root.series.size(), 7u);
  EXPECT_TRUE(std::isnan(root.series[0]));
  EXPECT_TRUE(std::isnan(root.series[3]));
  EXPECT_NEAR(root.series[4], 1.0, 1e-12);
  EXPECT_NEAR(root.series[5], 0.9, 1e-12);
}

TEST(ReportTest, StillPendingAsksAreCountedWithTheReasonExplainGives) {
  Replayed r = Replay(test_support::OneNodeScenario("[{name: a}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: big, resources: {slots: 20}, count: 2}
  - add_ask: {app: x, id: small, resources: {slots: 1}}
  - schedule: {}
)"));
  const QueueReport& a = Queue(r.report, "root.a");
  EXPECT_EQ(a.waits.count, 1);
  EXPECT_EQ(a.waits.still_pending, 2);
  const PartitionReport& p = r.report.partitions[0];
  EXPECT_EQ(p.waits.still_pending, 2);
  ASSERT_FALSE(p.longest_waiters.empty());
  const Waiter& first = p.longest_waiters[0];
  EXPECT_EQ(first.ask, "big");
  EXPECT_EQ(first.app, "x");
  EXPECT_EQ(first.queue, "root.a");
  EXPECT_TRUE(first.still_pending);
  EXPECT_EQ(first.wait_millis, 4 - 2);
  std::vector<PendingExplanation> explained = r.run.kernel->ExplainPending();
  ASSERT_EQ(explained.size(), 1u);
  EXPECT_FALSE(first.reason.empty());
  EXPECT_EQ(first.reason, explained[0].reason);
}

// An ask that waited 10 s for room, then ran: listed first, with the reason ExplainPending gave
// while it waited (the collector asks once an ask has waited longer than the listed ones).
TEST(ReportTest, ALongWaiterKeepsTheReasonItWaitedFor) {
  Replayed r = Replay(test_support::OneNodeScenario("[{name: a}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: first, resources: {slots: 10}}
  - schedule: {}
  - add_ask: {app: x, id: second, resources: {slots: 10}}
  - schedule: {}
  - advance: {seconds: 10}
  - schedule: {}
  - release: {app: x, ask: first}
  - schedule: {}
)"));
  const PartitionReport& p = r.report.partitions[0];
  ASSERT_EQ(p.longest_waiters.size(), 2u);
  const Waiter& second = p.longest_waiters[0];
  EXPECT_EQ(second.ask, "second");
  EXPECT_FALSE(second.still_pending);
  EXPECT_EQ(second.wait_millis, r.report.end_millis - 4);
  EXPECT_GT(second.wait_millis, 10000);
  EXPECT_FALSE(second.reason.empty()) << "the reason it waited was not kept";
  EXPECT_EQ(p.longest_waiters[1].ask, "first");
  EXPECT_EQ(p.longest_waiters[1].wait_millis, 1);
  // 10 s spans many buckets: the grid widened and still covers the run with at most 120.
  const ResourceUsage& a = Usage(Queue(r.report, "root.a"), "slots");
  EXPECT_LE(a.series.size(), 120u);
  EXPECT_GE(static_cast<int64_t>(a.series.size()) * r.report.bucket_millis, r.report.end_millis);
  double integral = 0;
  for (double v : a.series) integral += v * static_cast<double>(r.report.bucket_millis);
  // The last bucket is partial: the series' integral is within one bucket of the mean's.
  EXPECT_NEAR(integral, a.mean * static_cast<double>(r.report.end_millis),
              10.0 * static_cast<double>(r.report.bucket_millis));
}

// A run of 100 days of logical time in which every ask waits about two hours for the one
// before it to finish: every listed waiter carries the walk's verdict from its wait. (Asking
// the whole kernel every now/32 of logical time, as the collector once did, left 9 or 10 of
// the 10 listed waits without a reason: near the end it asked only every 3 days.)
TEST(ReportTest, EveryListedWaiterOfALongRunCarriesTheVerdictOfItsWait) {
  std::string text = test_support::OneNodeScenario("[{name: a}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: k0, resources: {slots: 10}}
  - schedule: {}
)");
  constexpr int kJobs = 1200;
  for (int i = 1; i <= kJobs; ++i) {
    // Job i arrives while job i-1 runs, and starts when i-1 is released 2 h (+ i s) later.
    text += "  - add_ask: {app: x, id: k" + std::to_string(i) + ", resources: {slots: 10}}\n";
    text += "  - schedule: {}\n";
    text += "  - advance: {seconds: " + std::to_string(7200 + i) + "}\n";
    text += "  - release: {app: x, ask: k" + std::to_string(i - 1) + "}\n";
    text += "  - schedule: {}\n";
  }
  Replayed r = Replay(text);
  EXPECT_GT(r.report.end_millis, int64_t{100} * 24 * 3600 * 1000);
  const PartitionReport& p = r.report.partitions[0];
  ASSERT_EQ(p.longest_waiters.size(), 10u);
  for (const Waiter& w : p.longest_waiters) {
    SCOPED_TRACE(w.ask);
    EXPECT_GT(w.wait_millis, 7200 * 1000);
    EXPECT_FALSE(w.still_pending);
    ASSERT_FALSE(w.reason.empty()) << "a listed waiter without the reason it waited";
    EXPECT_NE(w.reason, kAllocatedByFirstSchedule);
    // Taken while it waited, by the walk: the one node's room is the root's headroom, in use.
    EXPECT_GE(w.reason_at_millis, w.submitted_millis);
    EXPECT_LT(w.reason_at_millis, w.submitted_millis + w.wait_millis);
    EXPECT_NE(w.reason.find("headroom too small"), std::string::npos) << w.reason;
  }
  // The longest wait is the last job's; its verdict is in the text and JSON outputs.
  EXPECT_EQ(p.longest_waiters[0].ask, "k" + std::to_string(kJobs));
  std::string json;
  AppendReportJson(r.report, &json);
  const size_t at = json.find("\"reason_at_ms\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(json.find(std::to_string(p.longest_waiters[0].reason_at_millis), at),
            std::string::npos);
  std::string text_report;
  AppendReportText(r.report, &text_report);
  EXPECT_NE(text_report.find("of waiting)"), std::string::npos);
}

// An ask the first schedule after its submission allocates says so, with that moment.
TEST(ReportTest, AWaiterNoScheduleLeftPendingSaysSo) {
  Replayed r = Replay(OneQueue());
  const PartitionReport& p = r.report.partitions[0];
  ASSERT_FALSE(p.longest_waiters.empty());
  for (const Waiter& w : p.longest_waiters) {
    SCOPED_TRACE(w.ask);
    EXPECT_FALSE(w.reason.empty());
  }
  // k's third repeat waited for the release (a verdict); y has no ask, x's first two ran at
  // once. One row per ask: k's longest wait, with the verdict taken after step 3.
  const Waiter& k = p.longest_waiters[0];
  EXPECT_EQ(k.ask, "k");
  EXPECT_NE(k.reason, kAllocatedByFirstSchedule);
  EXPECT_EQ(k.reason_at_millis, 3);

  // An ask that fits at once: the schedule right after it allocates it.
  Replayed at_once = Replay(test_support::OneNodeScenario("[{name: a}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: quick, resources: {slots: 1}}
  - advance: {seconds: 5}
  - schedule: {}
)"));
  const PartitionReport& q = at_once.report.partitions[0];
  ASSERT_EQ(q.longest_waiters.size(), 1u);
  EXPECT_EQ(q.longest_waiters[0].ask, "quick");
  EXPECT_GT(q.longest_waiters[0].wait_millis, 5000);
  EXPECT_EQ(q.longest_waiters[0].reason, kAllocatedByFirstSchedule);
  EXPECT_EQ(q.longest_waiters[0].reason_at_millis, at_once.report.end_millis);
}

TEST(ReportTest, AnEmptyPartitionHasZeroFigures) {
  Replayed r = Replay(R"(
name: empty partition
config:
  partitions:
    - name: default
      queues: [{name: root, submitacl: "*", queues: [{name: a}]}]
    - name: idle
      queues: [{name: root, queues: [{name: b}]}]
nodes:
  - {id: n1, resources: {slots: 4}}
steps:
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: k, resources: {slots: 1}}
  - schedule: {}
)");
  ASSERT_EQ(r.report.partitions.size(), 2u);
  const PartitionReport& idle = r.report.partitions[1];
  EXPECT_EQ(idle.name, "idle");
  EXPECT_EQ(idle.waits.count, 0);
  EXPECT_EQ(idle.waits.p99, 0);
  EXPECT_TRUE(idle.wait_cdf.empty());
  EXPECT_TRUE(idle.longest_waiters.empty());
  EXPECT_EQ(idle.nodes.nodes, 0);
  EXPECT_EQ(idle.nodes.mean, 0);
  for (const QueueReport& q : idle.queues) {
    EXPECT_EQ(q.cluster_share, 0) << q.path;
    for (const ResourceUsage& u : q.usage) EXPECT_EQ(u.mean, 0) << q.path;
  }
  // Every format takes it.
  std::string text, json, html;
  AppendReportText(r.report, &text);
  AppendReportJson(r.report, &json);
  AppendReportHtml(r.report, &html);
  EXPECT_NE(text.find("partition idle"), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"idle\""), std::string::npos);
  EXPECT_NE(html.find("Partition idle"), std::string::npos);
}

TEST(ReportTest, RejectionsAndPreemptionsPerQueue) {
  Replayed r = Replay(R"(
name: preempt
config:
  partitions:
    - name: default
      placementrules: [{name: provided}]
      preemption: {enabled: true}
      queues:
        - name: root
          submitacl: "*"
          queues:
            - name: a
              resources: {guaranteed: {slots: 5}}
            - name: b
              resources: {guaranteed: {slots: 5}}
nodes:
  - {id: n1, resources: {slots: 10}}
steps:
  - add_app: {id: hog, queue: root.a, user: u}
  - add_ask: {app: hog, id: k, resources: {slots: 1}, count: 10}
  - schedule: {}
  - add_app: {id: late, queue: root.b, user: u}
  - add_ask: {app: late, id: k, resources: {slots: 1}, count: 2}
  - add_app: {id: lost, queue: root.nowhere, user: u}
  - schedule: {}
  - advance: {seconds: 60}
  - schedule: {}
  - schedule: {}
)");
  const PartitionReport& p = r.report.partitions[0];
  EXPECT_EQ(p.rejected_apps, 1);
  ASSERT_EQ(p.rejections.size(), 1u);
  EXPECT_EQ(p.rejections[0].count, 1);
  EXPECT_FALSE(p.rejections[0].reason.empty());
  const QueueReport& a = Queue(r.report, "root.a");
  const QueueReport& b = Queue(r.report, "root.b");
  EXPECT_GT(a.preempted, 0);
  EXPECT_GT(b.preemptions, 0);
  EXPECT_EQ(b.preempted, 0);
}

TEST(WaitHistogramTest, PercentilesAtTheEdges) {
  WaitHistogram empty;
  EXPECT_EQ(empty.Percentile(50), 0);
  EXPECT_TRUE(empty.Cdf().empty());

  WaitHistogram one;
  one.Add(123456);
  // A single sample is every percentile, exactly (clamped to the recorded min and max).
  EXPECT_EQ(one.Percentile(0), 123456);
  EXPECT_EQ(one.Percentile(50), 123456);
  EXPECT_EQ(one.Percentile(100), 123456);

  WaitHistogram hundred;
  for (int64_t v = 1; v <= 100; ++v) hundred.Add(v);
  EXPECT_EQ(hundred.Percentile(0), 1);
  EXPECT_EQ(hundred.Percentile(50), 50);
  EXPECT_EQ(hundred.Percentile(90), 90);
  EXPECT_EQ(hundred.Percentile(99), 99);
  EXPECT_EQ(hundred.Percentile(100), 100);
  EXPECT_EQ(hundred.Percentile(99.5), 100);

  // Above 256 ms a bucket spans at most 1/128 of its values.
  WaitHistogram wide;
  for (int64_t v = 1; v <= 1000000; v += 37) wide.Add(v);
  for (double percent : {10.0, 50.0, 90.0, 99.0}) {
    const auto exact = static_cast<double>(
        1 +
        37 * (static_cast<int64_t>(std::ceil(percent / 100.0 * static_cast<double>(wide.count()))) -
              1));
    EXPECT_NEAR(static_cast<double>(wide.Percentile(percent)), exact, exact / 128.0 + 37)
        << percent;
  }
  // Negative waits cannot happen; they count as 0.
  WaitHistogram negative;
  negative.Add(-5);
  EXPECT_EQ(negative.max(), 0);

  WaitHistogram merged = hundred;
  merged.Merge(one);
  EXPECT_EQ(merged.count(), 101);
  EXPECT_EQ(merged.max(), 123456);
}

// The usage the collector keeps up to date step by step equals the kernel's queue usage and
// pending after random churn (reloads, node changes, releases) under both profiles.
TEST(ReportTest, TrackedUsageEqualsTheKernelsOnRandomChurn) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RandomScenarioOptions options;
    options.seed = seed;
    options.steps = 300;
    absl::StatusOr<std::string> generated = GenerateRandomScenario(options);
    ASSERT_TRUE(generated.ok()) << generated.status();
    const std::string& text = *generated;
    for (const char* semantics : {"yunikorn-1.2", "yunikorn-1.9"}) {
      absl::StatusOr<Scenario> scenario =
          LoadScenarioText(text, "random.yaml", {.semantics = ParseSemantics(semantics)});
      ASSERT_TRUE(scenario.ok()) << scenario.status();
      ReportCollector collector;
      absl::StatusOr<RunResult> run = RunScenario(*scenario, {}, &collector);
      ASSERT_TRUE(run.ok()) << run.status();
      ASSERT_TRUE(collector.CheckUsage(*run->kernel).ok())
          << "seed " << seed << " " << semantics << ": " << collector.CheckUsage(*run->kernel);
      Report report = collector.Finish(*scenario, *run);
      int64_t allocations = 0;
      for (const QueueReport& q : report.partitions.at(0).queues) allocations += q.allocations;
      EXPECT_EQ(allocations, run->allocation_count) << "seed " << seed;
    }
  }
}

TEST(ReportCompareTest, TheLargestWaitChangesComeFirst) {
  Report a, b;
  for (Report* r : {&a, &b}) {
    PartitionReport& p = r->partitions.emplace_back();
    p.name = "default";
    for (const char* path : {"root", "root.x", "root.y"}) p.queues.push_back({.path = path});
  }
  a.partitions[0].queues[1].waits.p90 = 100;  // root.x: 100 ms -> 110 ms
  b.partitions[0].queues[1].waits.p90 = 110;
  a.partitions[0].queues[2].waits.p90 = 1000;  // root.y: 1 s -> 10 s, the larger change
  b.partitions[0].queues[2].waits.p90 = 10000;
  a.partitions[0].queues[1].cluster_share = 0.5;
  b.partitions[0].queues[1].cluster_share = 0.5004;  // below a tenth of a point: unchanged
  ReportComparison c = CompareReports("A", a, "B", b);
  ASSERT_EQ(c.differences.size(), 2u);
  EXPECT_EQ(c.differences[0].queue, "root.y");
  EXPECT_EQ(c.differences[0].figure, "wait_p90_ms");
  EXPECT_EQ(c.differences[1].queue, "root.x");
  std::string text;
  AppendComparisonText(c, &text);
  EXPECT_NE(text.find("root.y"), std::string::npos);
  ReportComparison same = CompareReports("A", a, "A again", a);
  EXPECT_TRUE(same.differences.empty());
}

}  // namespace
}  // namespace allocore::adapters

namespace allocore::adapters {
namespace {

// Placeholder timeouts and quota preemptions per queue equal the release records of that kind
// in the decision stream of the same run.
TEST(ReportTest, TimeoutsAndQuotaPreemptionsMatchTheReleaseRecords) {
  for (const char* name : {"gang-started-timeout.yaml", "v19-quota-parent-shares.yaml",
                           "v19-quota-recovery-over-max.yaml"}) {
    absl::StatusOr<Scenario> scenario =
        LoadScenarioFile(std::string(ALLOCORE_SOURCE_DIR) + "/tests/scenarios/" + name);
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    ReportCollector collector;
    absl::StatusOr<RunResult> run = RunScenario(*scenario, {}, &collector);
    ASSERT_TRUE(run.ok()) << run.status();
    Report report = collector.Finish(*scenario, *run);
    std::map<std::string, int64_t> timeouts, quota;
    for (const ActualAllocation& release : run->releases) {
      if (release.reason == "timeout") ++timeouts[std::string(release.queue)];
      if (release.reason == "quota") ++quota[std::string(release.queue)];
    }
    ASSERT_FALSE(timeouts.empty() && quota.empty()) << name << ": nothing to count";
    for (const QueueReport& q : report.partitions.at(0).queues) {
      EXPECT_EQ(q.placeholder_timeouts, timeouts[q.path]) << name << " " << q.path;
      EXPECT_EQ(q.quota_preempted, quota[q.path]) << name << " " << q.path;
    }
  }
}

}  // namespace
}  // namespace allocore::adapters

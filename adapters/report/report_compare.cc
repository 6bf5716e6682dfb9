// Two reports of one workload: which queues fare differently, the largest changes first.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "allocore/adapters/report_format.h"

namespace allocore::adapters {
namespace {

// The order in which kinds of change are shown: waits first (the planner's question), then
// shares, then preemptions and rejections.
int FigureRank(const std::string& figure) {
  static const char* const kOrder[] = {"wait_p90_ms",    "wait_p99_ms",          "wait_p50_ms",
                                       "wait_max_ms",    "still_pending",        "cluster_share",
                                       "preempted",      "placeholder_timeouts", "rejected_apps",
                                       "node_time_idle", "node_time_90_100"};
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i) {
    if (figure == kOrder[i]) return i;
  }
  return static_cast<int>(std::size(kOrder));
}

const QueueReport* FindQueue(const PartitionReport* p, const std::string& path) {
  if (p == nullptr) return nullptr;
  for (const QueueReport& q : p->queues) {
    if (q.path == path) return &q;
  }
  return nullptr;
}

const PartitionReport* FindPartition(const Report& r, const std::string& name) {
  for (const PartitionReport& p : r.partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

void AddQueueDifferences(const std::string& partition, const std::string& path,
                         const QueueReport* a, const QueueReport* b,
                         std::vector<ReportDifference>* out) {
  static const QueueReport kEmpty;
  const QueueReport& qa = a != nullptr ? *a : kEmpty;
  const QueueReport& qb = b != nullptr ? *b : kEmpty;
  auto add = [&](const char* figure, double va, double vb) {
    // Shares are compared to a tenth of a percent point: float noise is not a change.
    const double tolerance = std::string_view(figure) == "cluster_share" ? 1e-3 : 0.0;
    if (std::fabs(va - vb) <= tolerance) return;
    out->push_back({.partition = partition, .queue = path, .figure = figure, .a = va, .b = vb});
  };
  auto d = [](int64_t v) { return static_cast<double>(v); };
  add("wait_p90_ms", d(qa.waits.p90), d(qb.waits.p90));
  add("wait_p99_ms", d(qa.waits.p99), d(qb.waits.p99));
  add("wait_p50_ms", d(qa.waits.p50), d(qb.waits.p50));
  add("wait_max_ms", d(qa.waits.max), d(qb.waits.max));
  add("still_pending", d(qa.waits.still_pending), d(qb.waits.still_pending));
  add("cluster_share", qa.cluster_share, qb.cluster_share);
  add("preempted", d(qa.preempted), d(qb.preempted));
  add("placeholder_timeouts", d(qa.placeholder_timeouts), d(qb.placeholder_timeouts));
}

}  // namespace

ReportComparison CompareReports(std::string label_a, Report a, std::string label_b, Report b) {
  ReportComparison c{.label_a = std::move(label_a),
                     .label_b = std::move(label_b),
                     .a = std::move(a),
                     .b = std::move(b),
                     .differences = {}};
  std::vector<std::string> partitions;
  for (const PartitionReport& p : c.a.partitions) partitions.push_back(p.name);
  for (const PartitionReport& p : c.b.partitions) {
    if (std::find(partitions.begin(), partitions.end(), p.name) == partitions.end()) {
      partitions.push_back(p.name);
    }
  }
  for (const std::string& name : partitions) {
    const PartitionReport* pa = FindPartition(c.a, name);
    const PartitionReport* pb = FindPartition(c.b, name);
    std::vector<std::string> paths;
    for (const PartitionReport* p : {pa, pb}) {
      if (p == nullptr) continue;
      for (const QueueReport& q : p->queues) {
        if (std::find(paths.begin(), paths.end(), q.path) == paths.end()) paths.push_back(q.path);
      }
    }
    for (const std::string& path : paths) {
      AddQueueDifferences(name, path, FindQueue(pa, path), FindQueue(pb, path), &c.differences);
    }
    const double ra = pa != nullptr ? static_cast<double>(pa->rejected_apps) : 0;
    const double rb = pb != nullptr ? static_cast<double>(pb->rejected_apps) : 0;
    if (ra != rb) {
      c.differences.push_back(
          {.partition = name, .queue = "", .figure = "rejected_apps", .a = ra, .b = rb});
    }
    // How packed the nodes were: the node policy's effect shows at the two ends.
    auto node_share = [](const PartitionReport* p, size_t bin) {
      return p != nullptr ? p->nodes.time_share[bin] : 0.0;
    };
    for (auto [bin, figure] : {std::pair<size_t, const char*>{0, "node_time_idle"},
                               std::pair<size_t, const char*>{10, "node_time_90_100"}}) {
      const double na = node_share(pa, bin), nb = node_share(pb, bin);
      if (std::fabs(na - nb) > 1e-3) {
        c.differences.push_back(
            {.partition = name, .queue = "", .figure = figure, .a = na, .b = nb});
      }
    }
  }
  // Within a kind of figure, the largest change first: for waits relative to the larger side
  // with a floor of one second, so that 1 s -> 10 s outranks 100 s -> 110 s and a few
  // milliseconds either way rank last.
  auto weight = [](const ReportDifference& d) {
    if (!d.figure.ends_with("_ms")) return std::fabs(d.b - d.a);
    return std::fabs(d.b - d.a) / std::max({std::fabs(d.a), std::fabs(d.b), 1000.0});
  };
  std::stable_sort(c.differences.begin(), c.differences.end(),
                   [&](const ReportDifference& x, const ReportDifference& y) {
                     const int rx = FigureRank(x.figure), ry = FigureRank(y.figure);
                     if (rx != ry) return rx < ry;
                     return weight(x) > weight(y);
                   });
  return c;
}

}  // namespace allocore::adapters

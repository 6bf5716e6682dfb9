// The report as one self-contained HTML page: tables, and the pictures as inline SVG
// (svg_chart.h). No script runs and nothing is fetched: the Content-Security-Policy allows
// inline styles only, so the page reads the same offline, attached to a ticket, or archived.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocore/adapters/report_format.h"
#include "allocore/resource.h"
#include "svg_chart.h"

namespace allocore::adapters {
namespace {

using internal::AppendEscaped;
using internal::AppendSvgLineChart;
using internal::ChartColor;
using internal::ChartLine;
using internal::ChartSpec;

constexpr int kMaxUsageCharts = 36;

constexpr char kHead[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";

constexpr char kStyle[] =
    "<style>\n"
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}\n"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}h3{font-size:15px;margin-top:24px}\n"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px}th{background:#f4f4f4}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}\n"
    ".chart{border:1px solid #eee}\n"
    ".bar{background:#8a9bb0;height:12px}\n"
    ".worse{color:#b00020}.better{color:#00796b}\n"
    ".note{color:#555;font-size:13px}\n"
    "</style>\n";

std::string Percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f%%", share * 100.0);
  return buffer;
}

std::string Millis(int64_t millis) { return FormatMillis(static_cast<double>(millis)); }

void Cell(std::string_view text, std::string* out, bool number = false) {
  out->append(number ? "<td class=\"n\">" : "<td>");
  AppendEscaped(text, out);
  out->append("</td>");
}

void HeaderRow(std::initializer_list<std::string_view> headers, std::string* out) {
  out->append("<table><tr>");
  for (std::string_view h : headers) {
    out->append("<th>");
    AppendEscaped(h, out);
    out->append("</th>");
  }
  out->append("</tr>");
}

// The time axis: the unit that suits the run's length.
struct TimeAxis {
  double unit = 1000;
  std::string label = "logical time (s)";

  explicit TimeAxis(int64_t end) {
    if (end > 2 * 86400000LL) {
      unit = 86400000;
      label = "logical time (days)";
    } else if (end > 2 * 3600000LL) {
      unit = 3600000;
      label = "logical time (h)";
    } else if (end > 2 * 60000LL) {
      unit = 60000;
      label = "logical time (min)";
    } else if (end <= 2000) {
      unit = 1;
      label = "logical time (ms)";
    }
  }
};

std::vector<std::pair<double, double>> SeriesPoints(const std::vector<double>& series,
                                                    int64_t bucket, const TimeAxis& axis) {
  std::vector<std::pair<double, double>> points;
  points.reserve(series.size());
  for (size_t b = 0; b < series.size(); ++b) {
    points.emplace_back((static_cast<double>(b) + 0.5) * static_cast<double>(bucket) / axis.unit,
                        series[b]);
  }
  return points;
}

std::vector<std::pair<double, double>> Level(double value, const std::vector<double>& series,
                                             int64_t bucket, const TimeAxis& axis) {
  const double end = static_cast<double>(series.size()) * static_cast<double>(bucket) / axis.unit;
  return {{0.5 * static_cast<double>(bucket) / axis.unit, value},
          {end - 0.5 * static_cast<double>(bucket) / axis.unit, value}};
}

std::vector<std::pair<double, double>> CdfPoints(
    const std::vector<std::pair<int64_t, double>>& cdf) {
  std::vector<std::pair<double, double>> points;
  if (cdf.empty()) return points;
  points.emplace_back(std::max<double>(static_cast<double>(cdf.front().first), 1.0), 0.0);
  for (const auto& [millis, share] : cdf) {
    points.emplace_back(std::max<double>(static_cast<double>(millis), 1.0), share);
  }
  return points;
}

// The pending-time CDF chart: log-scale time, shares of allocations.
ChartSpec WaitCdfSpec(std::string title, int width, int height) {
  return {.title = std::move(title),
          .x_label = "pending time (ms, log scale; 0 drawn at 1)",
          .y_label = "share of allocations",
          .log_x = true,
          .y_min = 0.0,
          .y_max = 1.0,
          .percent_y = true,
          .width = width,
          .height = height};
}

void WaitTable(const PartitionReport& p, std::string* out) {
  HeaderRow({"queue", "allocated", "p50", "p90", "p99", "max", "still pending"}, out);
  auto row = [&](std::string_view name, const WaitSummary& w) {
    out->append("<tr>");
    Cell(name, out);
    Cell(std::to_string(w.count), out, true);
    Cell(Millis(w.p50), out, true);
    Cell(Millis(w.p90), out, true);
    Cell(Millis(w.p99), out, true);
    Cell(Millis(w.max), out, true);
    Cell(std::to_string(w.still_pending), out, true);
    out->append("</tr>");
  };
  for (const QueueReport& q : p.queues) {
    if (q.leaf || q.waits.count > 0) row(q.path, q.waits);
  }
  row("(partition)", p.waits);
  out->append("</table>");
}

void WaitCdfChart(const PartitionReport& p, std::string* out) {
  std::vector<ChartLine> lines;
  for (const QueueReport& q : p.queues) {
    if (!q.leaf || q.wait_cdf.empty()) continue;
    lines.push_back({.label = q.path,
                     .points = CdfPoints(q.wait_cdf),
                     .color = std::string(ChartColor(lines.size())),
                     .dashed = false,
                     .steps = true});
  }
  if (lines.empty()) return;
  AppendSvgLineChart(WaitCdfSpec("pending time, cumulative share of allocations", 640, 300), lines,
                     out);
}

void Waiters(const PartitionReport& p, std::string* out) {
  if (p.longest_waiters.empty()) return;
  out->append("<h3>Longest waits</h3>");
  HeaderRow({"wait", "queue", "application", "ask", "submitted at", "why it waited"}, out);
  for (const Waiter& w : p.longest_waiters) {
    out->append("<tr>");
    Cell(Millis(w.wait_millis) + (w.still_pending ? " (still pending)" : ""), out, true);
    Cell(w.queue, out);
    Cell(w.app, out);
    Cell(w.ask, out);
    Cell(Millis(w.submitted_millis), out, true);
    std::string why = w.reason.empty() ? "-" : w.reason;
    if (w.reason_at_millis >= 0 && !w.reason.empty() && w.reason != kAllocatedByFirstSchedule) {
      why += " (after " + Millis(w.reason_at_millis - w.submitted_millis) + " of waiting)";
    }
    Cell(why, out);
    out->append("</tr>");
  }
  out->append("</table>");
}

// The unit a resource type's chart reads best in.
struct Unit {
  double divisor = 1;
  std::string label;
};
Unit UnitOf(const std::string& type) {
  if (type == "vcore") return {1000.0, "vcore (cores)"};
  if (type == "memory") return {1024.0 * 1024.0 * 1024.0, "memory (GiB)"};
  return {1.0, type};
}

std::vector<double> Scaled(const std::vector<double>& series, double divisor) {
  std::vector<double> out;
  out.reserve(series.size());
  for (double v : series) out.push_back(v / divisor);
  return out;
}

void UsageCharts(const Report& report, const PartitionReport& p, std::string* out) {
  const TimeAxis axis(report.end_millis);
  int charts = 0;
  out->append("<div class=\"charts\">");
  for (const QueueReport& q : p.queues) {
    if (!q.in_series) continue;
    for (size_t k = 0; k < q.usage.size(); ++k) {
      const ResourceUsage& u = q.usage[k];
      if (u.peak == 0 && !u.guaranteed && !u.max) continue;
      if (charts++ >= kMaxUsageCharts) break;
      const Unit unit = UnitOf(u.type);
      const std::vector<double> series = Scaled(u.series, unit.divisor);
      std::vector<ChartLine> lines;
      lines.push_back({.label = "usage",
                       .points = SeriesPoints(series, report.bucket_millis, axis),
                       .color = std::string(ChartColor(0)),
                       .dashed = false,
                       .steps = false});
      if (u.guaranteed) {
        lines.push_back({.label = "guaranteed " +
                                  FormatApproxQuantity(u.type, static_cast<double>(*u.guaranteed)),
                         .points = Level(static_cast<double>(*u.guaranteed) / unit.divisor, series,
                                         report.bucket_millis, axis),
                         .color = std::string(ChartColor(2)),
                         .dashed = true,
                         .steps = false});
      }
      if (u.max) {
        lines.push_back(
            {.label = "max " + FormatApproxQuantity(u.type, static_cast<double>(*u.max)),
             .points = Level(static_cast<double>(*u.max) / unit.divisor, series,
                             report.bucket_millis, axis),
             .color = std::string(ChartColor(3)),
             .dashed = true,
             .steps = false});
      }
      AppendSvgLineChart({.title = q.path + ": " + u.type,
                          .x_label = axis.label,
                          .y_label = unit.label,
                          .log_x = false,
                          .y_min = 0.0,
                          .y_max = std::nullopt,
                          .percent_y = false,
                          .width = 380,
                          .height = 220},
                         lines, out);
    }
  }
  out->append("</div>");
  if (charts > kMaxUsageCharts) {
    out->append("<p class=\"note\">" + std::to_string(charts - kMaxUsageCharts) +
                " more usage charts left out; the JSON report has every series.</p>");
  }
}

void UsageTable(const PartitionReport& p, std::string* out) {
  HeaderRow(
      {"queue", "type", "mean", "peak", "guaranteed", "max", "time above guarantee", "time at max"},
      out);
  for (const QueueReport& q : p.queues) {
    for (const ResourceUsage& u : q.usage) {
      if (u.peak == 0 && !u.guaranteed && !u.max) continue;
      out->append("<tr>");
      Cell(q.path, out);
      Cell(u.type, out);
      Cell(FormatApproxQuantity(u.type, u.mean), out, true);
      Cell(FormatApproxQuantity(u.type, static_cast<double>(u.peak)), out, true);
      Cell(u.guaranteed ? FormatApproxQuantity(u.type, static_cast<double>(*u.guaranteed)) : "-",
           out, true);
      Cell(u.max ? FormatApproxQuantity(u.type, static_cast<double>(*u.max)) : "-", out, true);
      Cell(u.guaranteed ? Percent(u.above_guarantee) : "-", out, true);
      Cell(u.max ? Percent(u.at_max) : "-", out, true);
      out->append("</tr>");
    }
  }
  out->append("</table>");
}

void FairnessSection(const Report& report, const PartitionReport& p, std::string* out) {
  const TimeAxis axis(report.end_millis);
  out->append(
      "<h3>Fairness</h3><p class=\"note\">Each child's share of the cluster (its "
      "dominant resource: the largest of usage / capacity over the resource types), "
      "dashed: its guarantee's share. The index is Jain's index over the children's "
      "usage-to-guarantee ratios, counting the children with a guarantee that run or "
      "wait: 1 when every child holds the same fraction of its guarantee, which is what "
      "YuniKorn's fair queue sort steers to.</p>");
  out->append("<div class=\"charts\">");
  for (const FairnessIndex& f : p.fairness) {
    const QueueReport& parent = p.queues[static_cast<size_t>(f.parent)];
    std::vector<ChartLine> lines;
    for (size_t c = 0; c < p.queues.size(); ++c) {
      const QueueReport& child = p.queues[c];
      if (child.parent != f.parent || !child.in_series) continue;
      const std::string color(ChartColor(lines.size()));
      const std::vector<double>& series = child.share_series;
      lines.push_back({.label = child.path,
                       .points = SeriesPoints(series, report.bucket_millis, axis),
                       .color = color,
                       .dashed = false,
                       .steps = false});
      if (child.guarantee_share) {
        lines.push_back(
            {.label = "",
             .points = Level(*child.guarantee_share, series, report.bucket_millis, axis),
             .color = color,
             .dashed = true,
             .steps = false});
      }
    }
    AppendSvgLineChart({.title = "children of " + parent.path + ": share of the cluster",
                        .x_label = axis.label,
                        .y_label = "dominant share",
                        .log_x = false,
                        .y_min = 0.0,
                        .y_max = std::nullopt,
                        .percent_y = true,
                        .width = 520,
                        .height = 260},
                       lines, out);
    if (!f.series.empty() && f.mean) {
      AppendSvgLineChart({.title = "fairness index of " + parent.path,
                          .x_label = axis.label,
                          .y_label = "Jain's index",
                          .log_x = false,
                          .y_min = 0.0,
                          .y_max = 1.0,
                          .percent_y = false,
                          .width = 520,
                          .height = 260},
                         {{.label = "index (gaps: fewer than two children counted)",
                           .points = SeriesPoints(f.series, report.bucket_millis, axis),
                           .color = std::string(ChartColor(4)),
                           .dashed = false,
                           .steps = false}},
                         out);
    }
  }
  out->append("</div>");
  HeaderRow({"queue", "cluster share", "guarantee share", "allocations", "preempted",
             "preemption rounds started", "placeholder timeouts", "taken under a lowered max"},
            out);
  for (const QueueReport& q : p.queues) {
    out->append("<tr>");
    Cell(q.path, out);
    Cell(Percent(q.cluster_share), out, true);
    Cell(q.guarantee_share ? Percent(*q.guarantee_share) : "-", out, true);
    Cell(std::to_string(q.allocations), out, true);
    Cell(std::to_string(q.preempted), out, true);
    Cell(std::to_string(q.preemptions), out, true);
    Cell(std::to_string(q.placeholder_timeouts), out, true);
    Cell(std::to_string(q.quota_preempted), out, true);
    out->append("</tr>");
  }
  out->append("</table>");
  if (!p.fairness.empty()) {
    HeaderRow({"parent", "Jain's index (time-weighted)", "time with two or more counted"}, out);
    for (const FairnessIndex& f : p.fairness) {
      out->append("<tr>");
      Cell(p.queues[static_cast<size_t>(f.parent)].path, out);
      char value[32] = "-";
      if (f.mean) std::snprintf(value, sizeof(value), "%.3f", *f.mean);
      Cell(value, out, true);
      Cell(Percent(f.counted_share), out, true);
      out->append("</tr>");
    }
    out->append("</table>");
  }
}

void NodesSection(const PartitionReport& p, std::string* out) {
  static constexpr std::string_view kBins[] = {"idle",   "0-10%",  "10-20%", "20-30%",
                                               "30-40%", "40-50%", "50-60%", "60-70%",
                                               "70-80%", "80-90%", "90-100%"};
  out->append("<h3>Nodes</h3><p>" + std::to_string(p.nodes.nodes) + " nodes, node policy <b>" +
              p.node_policy + "</b>, mean utilisation " + Percent(p.nodes.mean) +
              " (node-time-weighted; a node's utilisation is its dominant share: the largest of "
              "(allocated + occupied) / capacity over the resource types).</p>");
  HeaderRow({"utilisation", "share of node time", ""}, out);
  for (size_t b = 0; b < p.nodes.time_share.size(); ++b) {
    out->append("<tr>");
    Cell(kBins[b], out);
    Cell(Percent(p.nodes.time_share[b]), out, true);
    char width[32];
    std::snprintf(width, sizeof(width), "%.1f", p.nodes.time_share[b] * 300.0);
    out->append("<td style=\"width:300px\"><div class=\"bar\" style=\"width:" + std::string(width) +
                "px\"></div></td></tr>");
  }
  out->append("</table>");
}

void PartitionSection(const Report& report, const PartitionReport& p, std::string* out) {
  out->append("<h2>Partition ");
  AppendEscaped(p.name, out);
  out->append(
      "</h2><h3>Pending time</h3><p class=\"note\">From an ask's submission to each of "
      "its allocations, in logical time; placeholders are not counted.</p>");
  WaitTable(p, out);
  WaitCdfChart(p, out);
  Waiters(p, out);
  out->append("<h3>Usage over time</h3><p class=\"note\">Time-weighted mean per time bucket of " +
              Millis(report.bucket_millis) + "; dashed: guarantee and max.</p>");
  UsageCharts(report, p, out);
  UsageTable(p, out);
  FairnessSection(report, p, out);
  if (p.rejected_apps > 0) {
    out->append("<h3>Rejected applications: " + std::to_string(p.rejected_apps) + "</h3>");
    HeaderRow({"count", "reason"}, out);
    for (const RejectionCount& r : p.rejections) {
      out->append("<tr>");
      Cell(std::to_string(r.count), out, true);
      Cell(r.reason, out);
      out->append("</tr>");
    }
    out->append("</table>");
  }
  NodesSection(p, out);
}

void Summary(const Report& report, std::string* out) {
  out->append("<p>");
  AppendEscaped(report.source, out);
  out->append(" under <b>" + report.semantics + "</b>: " + std::to_string(report.steps) +
              " steps, " + std::to_string(report.records) + " records, " +
              Millis(report.end_millis) + " of logical time.</p>");
}

}  // namespace

void AppendReportHtml(const Report& report, std::string* out) {
  out->append(kHead);
  out->append("<title>allocore report: ");
  AppendEscaped(report.source, out);
  out->append("</title>\n");
  out->append(kStyle);
  out->append("</head><body><h1>What the queue configuration did to the workload</h1>");
  Summary(report, out);
  for (const PartitionReport& p : report.partitions) PartitionSection(report, p, out);
  out->append("</body></html>\n");
}

void AppendComparisonHtml(const ReportComparison& c, std::string* out) {
  out->append(kHead);
  out->append("<title>allocore report: ");
  AppendEscaped(c.label_a, out);
  out->append(" against ");
  AppendEscaped(c.label_b, out);
  out->append("</title>\n");
  out->append(kStyle);
  out->append("</head><body><h1>The same workload under two configurations</h1><p>A: <b>");
  AppendEscaped(c.label_a, out);
  out->append("</b><br>B: <b>");
  AppendEscaped(c.label_b, out);
  out->append("</b></p><h2>What changes from A to B</h2>");
  if (c.differences.empty()) {
    out->append("<p>No figure differs.</p>");
  } else {
    HeaderRow({"partition", "queue", "figure", "A", "B", "change"}, out);
    for (const ReportDifference& d : c.differences) {
      const bool time = d.figure.ends_with("_ms");
      const bool share = (d.figure == "cluster_share" || d.figure.starts_with("node_time"));
      auto show = [&](double v) {
        if (time) return FormatMillis(v);
        if (share) return Percent(v);
        char buffer[32];
        std::snprintf(buffer, sizeof(buffer), "%.6g", v);
        return std::string(buffer);
      };
      // More waiting, more preemption, more rejection is worse; a share is neither.
      const bool worse = !share && d.b > d.a;
      out->append(share ? "<tr>" : (worse ? "<tr class=\"worse\">" : "<tr class=\"better\">"));
      Cell(d.partition, out);
      Cell(d.queue.empty() ? "(partition)" : d.queue, out);
      Cell(d.figure, out);
      Cell(show(d.a), out, true);
      Cell(show(d.b), out, true);
      Cell((d.b >= d.a ? "+" : "-") + show(std::fabs(d.b - d.a)), out, true);
      out->append("</tr>");
    }
    out->append("</table>");
  }
  // Pending-time distributions side by side: A solid, B dashed, a colour per queue.
  for (const PartitionReport& pa : c.a.partitions) {
    const PartitionReport* pb = nullptr;
    for (const PartitionReport& p : c.b.partitions) {
      if (p.name == pa.name) pb = &p;
    }
    std::vector<ChartLine> lines;
    for (const QueueReport& qa : pa.queues) {
      if (!qa.leaf) continue;
      const std::string color(ChartColor(lines.size() / 2));
      lines.push_back({.label = qa.path + " (A)",
                       .points = CdfPoints(qa.wait_cdf),
                       .color = color,
                       .dashed = false,
                       .steps = true});
      const QueueReport* qb = nullptr;
      if (pb != nullptr) {
        for (const QueueReport& q : pb->queues) {
          if (q.path == qa.path) qb = &q;
        }
      }
      lines.push_back({.label = qa.path + " (B)",
                       .points = qb != nullptr ? CdfPoints(qb->wait_cdf)
                                               : std::vector<std::pair<double, double>>{},
                       .color = color,
                       .dashed = true,
                       .steps = true});
    }
    out->append("<h2>Pending time, A against B: partition ");
    AppendEscaped(pa.name, out);
    out->append("</h2>");
    AppendSvgLineChart(
        WaitCdfSpec("pending time, cumulative share of allocations (A solid, B dashed)", 760, 340),
        lines, out);
  }
  out->append("<h1>A: ");
  AppendEscaped(c.label_a, out);
  out->append("</h1>");
  Summary(c.a, out);
  for (const PartitionReport& p : c.a.partitions) PartitionSection(c.a, p, out);
  out->append("<h1>B: ");
  AppendEscaped(c.label_b, out);
  out->append("</h1>");
  Summary(c.b, out);
  for (const PartitionReport& p : c.b.partitions) PartitionSection(c.b, p, out);
  out->append("</body></html>\n");
}

}  // namespace allocore::adapters

// The report as aligned text tables, and the comparison of two reports.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/report_format.h"
#include "allocore/resource.h"
#include "text_table.h"

namespace allocore::adapters {
namespace {

using internal::TextTable;
using Align = TextTable::Align;

std::string Percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f%%", share * 100.0);
  return buffer;
}

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

std::string Quantity(std::string_view type, double value) {
  return FormatApproxQuantity(type, value);
}

void Waits(const PartitionReport& p, std::string* out) {
  TextTable table({{"queue"},
                   {"allocated", Align::kRight},
                   {"p50", Align::kRight},
                   {"p90", Align::kRight},
                   {"p99", Align::kRight},
                   {"max", Align::kRight},
                   {"still pending", Align::kRight}});
  for (const QueueReport& q : p.queues) {
    const WaitSummary& w = q.waits;
    if (w.count == 0 && w.still_pending == 0 && !q.leaf) continue;
    table.AddRow({q.path, std::to_string(w.count), FormatMillis(static_cast<double>(w.p50)),
                  FormatMillis(static_cast<double>(w.p90)),
                  FormatMillis(static_cast<double>(w.p99)),
                  FormatMillis(static_cast<double>(w.max)), std::to_string(w.still_pending)});
  }
  const WaitSummary& w = p.waits;
  table.AddRow({"(partition)", std::to_string(w.count), FormatMillis(static_cast<double>(w.p50)),
                FormatMillis(static_cast<double>(w.p90)), FormatMillis(static_cast<double>(w.p99)),
                FormatMillis(static_cast<double>(w.max)), std::to_string(w.still_pending)});
  *out += "pending time, submission to allocation (logical time)\n";
  table.Render(out, "  ");
}

void Usage(const PartitionReport& p, std::string* out) {
  TextTable table({{"queue"},
                   {"type"},
                   {"mean", Align::kRight},
                   {"peak", Align::kRight},
                   {"guaranteed", Align::kRight},
                   {"max", Align::kRight},
                   {"> guarantee", Align::kRight},
                   {"at max", Align::kRight}});
  for (const QueueReport& q : p.queues) {
    for (const ResourceUsage& u : q.usage) {
      if (u.peak == 0 && !u.guaranteed && !u.max) continue;
      table.AddRow(
          {q.path, u.type, Quantity(u.type, u.mean), Quantity(u.type, static_cast<double>(u.peak)),
           u.guaranteed ? Quantity(u.type, static_cast<double>(*u.guaranteed)) : "-",
           u.max ? Quantity(u.type, static_cast<double>(*u.max)) : "-",
           u.guaranteed ? Percent(u.above_guarantee) : "-", u.max ? Percent(u.at_max) : "-"});
    }
  }
  *out += "usage over time (time-weighted mean; shares of the run's time)\n";
  if (table.rows() == 0) {
    *out += "  nothing was allocated\n";
    return;
  }
  table.Render(out, "  ");
}

void Fairness(const PartitionReport& p, std::string* out) {
  TextTable shares({{"queue"},
                    {"cluster share", Align::kRight},
                    {"guarantee share", Align::kRight},
                    {"allocations", Align::kRight},
                    {"preempted", Align::kRight},
                    {"preempting", Align::kRight},
                    {"ph timeouts", Align::kRight},
                    {"quota taken", Align::kRight}});
  for (const QueueReport& q : p.queues) {
    shares.AddRow(
        {q.path, Percent(q.cluster_share), q.guarantee_share ? Percent(*q.guarantee_share) : "-",
         std::to_string(q.allocations), std::to_string(q.preempted), std::to_string(q.preemptions),
         std::to_string(q.placeholder_timeouts), std::to_string(q.quota_preempted)});
  }
  *out += "shares of the cluster (dominant resource, time-weighted) and preemptions\n";
  shares.Render(out, "  ");
  if (p.fairness.empty()) return;
  *out += "fairness: Jain's index over the children's usage/guarantee (1 = even)\n";
  TextTable index({{"parent"}, {"index", Align::kRight}, {"time counted", Align::kRight}});
  for (const FairnessIndex& f : p.fairness) {
    char value[32] = "-";
    if (f.mean) std::snprintf(value, sizeof(value), "%.3f", *f.mean);
    index.AddRow({p.queues[static_cast<size_t>(f.parent)].path, value, Percent(f.counted_share)});
  }
  index.Render(out, "  ");
}

void Waiters(const PartitionReport& p, std::string* out) {
  if (p.longest_waiters.empty()) return;
  *out += "longest waits\n";
  for (const Waiter& w : p.longest_waiters) {
    *out += "  " + FormatMillis(static_cast<double>(w.wait_millis)) +
            (w.still_pending ? " (still pending)" : "") + "  " + w.queue + "  " + w.app + "/" +
            w.ask + "  submitted at " + FormatMillis(static_cast<double>(w.submitted_millis)) +
            "\n";
    if (w.reason.empty()) continue;
    *out += "      " + w.reason;
    if (w.reason_at_millis >= 0 && w.reason != kAllocatedByFirstSchedule) {
      *out += "  (the walk's verdict after " +
              FormatMillis(static_cast<double>(w.reason_at_millis - w.submitted_millis)) +
              " of waiting)";
    }
    *out += "\n";
  }
}

void Nodes(const PartitionReport& p, std::string* out) {
  *out += "nodes: " + std::to_string(p.nodes.nodes) + ", node policy " + p.node_policy +
          ", mean utilisation " + Percent(p.nodes.mean) + "\n";
  static constexpr std::string_view kBins[] = {"idle",   "0-10%",  "10-20%", "20-30%",
                                               "30-40%", "40-50%", "50-60%", "60-70%",
                                               "70-80%", "80-90%", "90-100%"};
  *out += "  share of node time by utilisation:";
  for (size_t b = 0; b < p.nodes.time_share.size(); ++b) {
    *out += std::string(b == 0 ? " " : ", ") + std::string(kBins[b]) + " " +
            Percent(p.nodes.time_share[b]);
  }
  *out += "\n";
}

}  // namespace

std::string FormatMillis(double millis) {
  char buffer[32];
  const double abs = std::fabs(millis);
  if (abs < 1000) {
    std::snprintf(buffer, sizeof(buffer), "%.0f ms", millis);
  } else if (abs < 60e3) {
    std::snprintf(buffer, sizeof(buffer), "%.3g s", millis / 1e3);
  } else if (abs < 3600e3) {
    std::snprintf(buffer, sizeof(buffer), "%.3g min", millis / 60e3);
  } else if (abs < 86400e3) {
    std::snprintf(buffer, sizeof(buffer), "%.3g h", millis / 3600e3);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.3g d", millis / 86400e3);
  }
  return buffer;
}

std::string FormatApproxQuantity(std::string_view type, double value) {
  char buffer[48];
  if (type == "vcore") value /= 1000.0;  // milli-cores
  const double abs = std::fabs(value);
  if (type == "memory") {
    static constexpr const char* kSuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    size_t unit = 0;
    while (std::fabs(value) >= 1024.0 && unit + 1 < std::size(kSuffix)) {
      value /= 1024.0;
      ++unit;
    }
    std::snprintf(buffer, sizeof(buffer), "%.3g%s", value, kSuffix[unit]);
    return buffer;
  }
  if (abs >= 1e6) {
    std::snprintf(buffer, sizeof(buffer), "%.3gM", value / 1e6);
  } else if (abs >= 1e4) {
    std::snprintf(buffer, sizeof(buffer), "%.3gk", value / 1e3);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  }
  return buffer;
}

void AppendReportText(const Report& report, std::string* out) {
  *out += "report of " + report.source + " (" + report.semantics +
          "): " + std::to_string(report.steps) + " steps, " + std::to_string(report.records) +
          " records, " + FormatMillis(static_cast<double>(report.end_millis)) +
          " of logical time\n";
  for (const PartitionReport& p : report.partitions) {
    *out += "\npartition " + p.name + "\n";
    Waits(p, out);
    Usage(p, out);
    Fairness(p, out);
    Waiters(p, out);
    if (p.rejected_apps > 0) {
      *out += "rejected applications: " + std::to_string(p.rejected_apps) + "\n";
      for (const RejectionCount& r : p.rejections) {
        *out += "  " + std::to_string(r.count) + "  " + r.reason + "\n";
      }
    }
    Nodes(p, out);
  }
}

void AppendComparisonText(const ReportComparison& c, std::string* out) {
  *out += "A: " + c.label_a + "\nB: " + c.label_b + "\n";
  if (c.differences.empty()) {
    *out += "\nno figure differs: both runs gave the same waits, shares and preemptions\n";
  } else {
    *out += "\nwhat changes from A to B, what matters most first\n";
    TextTable table({{"partition"},
                     {"queue"},
                     {"figure"},
                     {"A", Align::kRight},
                     {"B", Align::kRight},
                     {"change", Align::kRight}});
    for (const ReportDifference& d : c.differences) {
      std::string a, b, delta;
      if (d.figure.ends_with("_ms")) {
        a = FormatMillis(d.a);
        b = FormatMillis(d.b);
        delta = (d.b >= d.a ? "+" : "-") + FormatMillis(std::fabs(d.b - d.a));
      } else if ((d.figure == "cluster_share" || d.figure.starts_with("node_time"))) {
        a = Percent(d.a);
        b = Percent(d.b);
        char buffer[32];
        std::snprintf(buffer, sizeof(buffer), "%+.1f pt", (d.b - d.a) * 100.0);
        delta = buffer;
      } else {
        a = Number(d.a);
        b = Number(d.b);
        delta = (d.b >= d.a ? "+" : "") + Number(d.b - d.a);
      }
      table.AddRow({d.partition, d.queue, d.figure, a, b, delta});
    }
    table.Render(out, "  ");
  }
  *out += "\n--- A: " + c.label_a + "\n";
  AppendReportText(c.a, out);
  *out += "\n--- B: " + c.label_b + "\n";
  AppendReportText(c.b, out);
}

}  // namespace allocore::adapters

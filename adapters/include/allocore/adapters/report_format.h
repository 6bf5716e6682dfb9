// allocore/adapters/report_format.h — a Report (allocore/adapters/report.h) for people and
// programs, and two reports of the same workload side by side.
//
//   text   aligned tables, the longest waiters with their reasons
//   json   one document, schema share/doc/allocore/docs/report.schema.json
//   html   one self-contained page: the tables and the pictures as inline SVG; a
//          Content-Security-Policy forbids every fetch, so it opens the same offline
#ifndef ALLOCORE_ADAPTERS_REPORT_FORMAT_H_
#define ALLOCORE_ADAPTERS_REPORT_FORMAT_H_

#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/report.h"
#include "allocore/export.h"

namespace allocore::adapters {

ALLOCORE_EXPORT void AppendReportText(const Report& report, std::string* out);
ALLOCORE_EXPORT void AppendReportJson(const Report& report, std::string* out);
ALLOCORE_EXPORT void AppendReportHtml(const Report& report, std::string* out);

// One figure of one queue that differs between two runs, B against A.
struct ReportDifference {
  std::string partition;
  std::string queue;
  std::string figure;  // wait_p50_ms | wait_p90_ms | wait_p99_ms | wait_max_ms | still_pending |
                       // cluster_share | preempted | placeholder_timeouts | rejected_apps |
                       // node_time_idle | node_time_90_100 (shares of node time; no queue)
  double a = 0;
  double b = 0;
};

// Two runs of the same workload (two configs, profiles or node policies), labelled.
struct ReportComparison {
  std::string label_a;
  std::string label_b;
  Report a;
  Report b;
  // The differences that matter first: waits (by how much the p90 moved, then p99, then the
  // rest), then usage shares, then preemptions and rejections; unchanged figures left out.
  std::vector<ReportDifference> differences;
};

// Pairs the queues by partition and path (a queue one side lacks compares with zeros).
ALLOCORE_EXPORT ReportComparison CompareReports(std::string label_a, Report a, std::string label_b,
                                                Report b);
ALLOCORE_EXPORT void AppendComparisonText(const ReportComparison& comparison, std::string* out);
ALLOCORE_EXPORT void AppendComparisonJson(const ReportComparison& comparison, std::string* out);
ALLOCORE_EXPORT void AppendComparisonHtml(const ReportComparison& comparison, std::string* out);

// A quantity rounded for reading: vcore in cores, memory with a binary suffix, three significant
// digits ("1.5", "483Gi", "2.25k"); unlike FormatQuantity, not exact.
ALLOCORE_EXPORT std::string FormatApproxQuantity(std::string_view type, double value);

// "0 ms", "850 ms", "12.3 s", "4.5 min", "2.25 h", "3.1 d": a logical duration for people.
ALLOCORE_EXPORT std::string FormatMillis(double millis);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_REPORT_FORMAT_H_

// The report as one JSON document (share/doc/allocore/docs/report-format.md; the schema is
// docs/report.schema.json). Numbers that are not finite are written as null.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "allocore/adapters/json.h"
#include "allocore/adapters/report_format.h"

namespace allocore::adapters {
namespace {

constexpr std::string_view kUtilisationBins[] = {"idle",   "0-10%",  "10-20%", "20-30%",
                                                 "30-40%", "40-50%", "50-60%", "60-70%",
                                                 "70-80%", "80-90%", "90-100%"};

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void Open(char bracket) {
    Separate();
    out_->push_back(bracket);
    first_ = true;
  }
  void Close(char bracket) {
    out_->push_back(bracket);
    first_ = false;
  }
  void Key(std::string_view key) {
    Separate();
    AppendJsonString(out_, key);
    out_->push_back(':');
    first_ = true;  // the value follows without a comma
  }
  void String(std::string_view value) {
    Separate();
    AppendJsonString(out_, value);
  }
  void Int(int64_t value) {
    Separate();
    out_->append(std::to_string(value));
  }
  void Double(double value) {
    Separate();
    if (!std::isfinite(value)) {
      out_->append("null");
      return;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
    out_->append(buffer);
  }
  void Bool(bool value) {
    Separate();
    out_->append(value ? "true" : "false");
  }
  void Null() {
    Separate();
    out_->append("null");
  }

  void Field(std::string_view key, std::string_view value) {
    Key(key);
    String(value);
  }
  void Field(std::string_view key, int64_t value) {
    Key(key);
    Int(value);
  }
  void FieldDouble(std::string_view key, double value) {
    Key(key);
    Double(value);
  }
  void FieldBool(std::string_view key, bool value) {
    Key(key);
    Bool(value);
  }
  // `null` when absent.
  template <typename T>
  void Optional(std::string_view key, const std::optional<T>& value) {
    Key(key);
    if (!value) {
      Null();
    } else if constexpr (std::is_floating_point_v<T>) {
      Double(*value);
    } else {
      Int(*value);
    }
  }
  void Doubles(std::string_view key, const std::vector<double>& values) {
    Key(key);
    Open('[');
    for (double v : values) Double(v);
    Close(']');
  }

 private:
  void Separate() {
    if (!first_) out_->push_back(',');
    first_ = false;
  }
  std::string* out_;
  bool first_ = true;
};

void Waits(JsonWriter& w, const WaitSummary& waits) {
  w.Key("waits");
  w.Open('{');
  w.Field("count", waits.count);
  w.Field("p50_ms", waits.p50);
  w.Field("p90_ms", waits.p90);
  w.Field("p99_ms", waits.p99);
  w.Field("max_ms", waits.max);
  w.Field("still_pending", waits.still_pending);
  w.Close('}');
}

void Cdf(JsonWriter& w, const std::vector<std::pair<int64_t, double>>& cdf) {
  w.Key("wait_cdf");
  w.Open('[');
  for (const auto& [millis, share] : cdf) {
    w.Open('[');
    w.Int(millis);
    w.Double(share);
    w.Close(']');
  }
  w.Close(']');
}

void Queue(JsonWriter& w, const PartitionReport& p, const QueueReport& q) {
  w.Open('{');
  w.Field("path", q.path);
  w.Key("parent");
  if (q.parent >= 0) {
    w.String(p.queues[static_cast<size_t>(q.parent)].path);
  } else {
    w.Null();
  }
  w.FieldBool("leaf", q.leaf);
  w.Field("allocations", q.allocations);
  w.Field("preempted", q.preempted);
  w.Field("preemptions", q.preemptions);
  w.Field("placeholder_timeouts", q.placeholder_timeouts);
  w.Field("quota_preempted", q.quota_preempted);
  w.FieldDouble("cluster_share", q.cluster_share);
  w.Optional("guarantee_share", q.guarantee_share);
  Waits(w, q.waits);
  Cdf(w, q.wait_cdf);
  w.Key("usage");
  w.Open('[');
  for (const ResourceUsage& u : q.usage) {
    w.Open('{');
    w.Field("type", u.type);
    w.FieldDouble("mean", u.mean);
    w.Field("peak", u.peak);
    w.Optional("guaranteed", u.guaranteed);
    w.Optional("max", u.max);
    w.FieldDouble("above_guarantee", u.above_guarantee);
    w.FieldDouble("at_max", u.at_max);
    w.Doubles("series", u.series);
    w.Close('}');
  }
  w.Close(']');
  w.Doubles("share_series", q.share_series);
  w.Close('}');
}

void Partition(JsonWriter& w, const PartitionReport& p) {
  w.Open('{');
  w.Field("name", p.name);
  w.Field("node_policy", p.node_policy);
  w.Key("types");
  w.Open('[');
  for (const std::string& type : p.types) w.String(type);
  w.Close(']');
  w.Key("capacity");
  w.Open('{');
  for (size_t k = 0; k < p.types.size(); ++k) w.Field(p.types[k], p.capacity[k]);
  w.Close('}');
  w.Key("capacity_mean");
  w.Open('{');
  for (size_t k = 0; k < p.types.size(); ++k) w.FieldDouble(p.types[k], p.capacity_mean[k]);
  w.Close('}');
  Waits(w, p.waits);
  Cdf(w, p.wait_cdf);
  w.Key("longest_waiters");
  w.Open('[');
  for (const Waiter& waiter : p.longest_waiters) {
    w.Open('{');
    w.Field("queue", waiter.queue);
    w.Field("app", waiter.app);
    w.Field("ask", waiter.ask);
    w.Field("submitted_ms", waiter.submitted_millis);
    w.Field("wait_ms", waiter.wait_millis);
    w.FieldBool("still_pending", waiter.still_pending);
    w.Field("reason", waiter.reason);
    w.Field("reason_at_ms", waiter.reason_at_millis);
    w.Close('}');
  }
  w.Close(']');
  w.Field("rejected_apps", p.rejected_apps);
  w.Key("rejections");
  w.Open('[');
  for (const RejectionCount& r : p.rejections) {
    w.Open('{');
    w.Field("reason", r.reason);
    w.Field("count", r.count);
    w.Close('}');
  }
  w.Close(']');
  w.Key("nodes");
  w.Open('{');
  w.Field("count", p.nodes.nodes);
  w.FieldDouble("mean_utilisation", p.nodes.mean);
  w.Key("utilisation_time_share");
  w.Open('[');
  for (size_t b = 0; b < p.nodes.time_share.size(); ++b) {
    w.Open('{');
    w.Field("bin", kUtilisationBins[b]);
    w.FieldDouble("share", p.nodes.time_share[b]);
    w.Close('}');
  }
  w.Close(']');
  w.Close('}');
  w.Key("queues");
  w.Open('[');
  for (const QueueReport& q : p.queues) Queue(w, p, q);
  w.Close(']');
  w.Key("fairness");
  w.Open('[');
  for (const FairnessIndex& f : p.fairness) {
    w.Open('{');
    w.Field("parent", p.queues[static_cast<size_t>(f.parent)].path);
    w.Field("index", "jain");
    w.Optional("mean", f.mean);
    w.FieldDouble("counted_share", f.counted_share);
    w.Doubles("series", f.series);
    w.Close('}');
  }
  w.Close(']');
  w.Close('}');
}

void ReportBody(JsonWriter& w, const Report& report) {
  w.Open('{');
  w.Field("report_version", int64_t{1});
  w.Field("source", report.source);
  w.Field("semantics", report.semantics);
  w.Field("steps", report.steps);
  w.Field("records", report.records);
  w.Field("end_ms", report.end_millis);
  w.Field("bucket_ms", report.bucket_millis);
  w.Key("partitions");
  w.Open('[');
  for (const PartitionReport& p : report.partitions) Partition(w, p);
  w.Close(']');
  w.Close('}');
}

}  // namespace

void AppendReportJson(const Report& report, std::string* out) {
  JsonWriter w(out);
  ReportBody(w, report);
  out->push_back('\n');
}

void AppendComparisonJson(const ReportComparison& comparison, std::string* out) {
  JsonWriter w(out);
  w.Open('{');
  w.Field("comparison_version", int64_t{1});
  w.Field("label_a", comparison.label_a);
  w.Field("label_b", comparison.label_b);
  w.Key("differences");
  w.Open('[');
  for (const ReportDifference& d : comparison.differences) {
    w.Open('{');
    w.Field("partition", d.partition);
    w.Field("queue", d.queue);
    w.Field("figure", d.figure);
    w.FieldDouble("a", d.a);
    w.FieldDouble("b", d.b);
    w.FieldDouble("delta", d.b - d.a);
    w.Close('}');
  }
  w.Close(']');
  w.Key("a");
  ReportBody(w, comparison.a);
  w.Key("b");
  ReportBody(w, comparison.b);
  w.Close('}');
  out->push_back('\n');
}

}  // namespace allocore::adapters

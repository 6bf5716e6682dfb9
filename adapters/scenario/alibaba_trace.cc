#include "allocore/adapters/alibaba_trace.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

struct TraceNode {
  std::string id;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;
};

struct TracePod {
  std::string id;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpu_milli = 0;  // num_gpu x gpu_milli
  std::string queue;
  int64_t created = 0;  // seconds
  int64_t deleted = -1;
};

std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ',') {
      fields.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return fields;
}

// The rows of a CSV file after its header, checked for `columns` fields.
class CsvReader {
 public:
  static absl::StatusOr<CsvReader> Open(const std::string& path, size_t columns) {
    CsvReader reader(path, columns);
    if (!reader.in_) return absl::NotFoundError(internal::Cat(path, ": cannot read"));
    std::string header;
    std::getline(reader.in_, header);
    reader.line_number_ = 1;
    return reader;
  }

  // The next row into `fields`; false at the end.
  absl::StatusOr<bool> Next(std::vector<std::string_view>* fields) {
    while (std::getline(in_, line_)) {
      ++line_number_;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (line_.empty()) continue;
      *fields = SplitCsv(line_);
      if (fields->size() != columns_) {
        return Error(internal::Cat(fields->size(), " fields, expected ", columns_));
      }
      return true;
    }
    return false;
  }

  absl::StatusOr<int64_t> Integer(std::string_view field, std::string_view what) const {
    int64_t value = 0;
    auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (error != std::errc() || end != field.data() + field.size() || value < 0) {
      return Error(internal::Cat(what, " '", field, "' is not a whole number >= 0"));
    }
    return value;
  }

  absl::Status Error(std::string_view message) const {
    return absl::InvalidArgumentError(internal::Cat(path_, ":", line_number_, ": ", message));
  }

 private:
  CsvReader(std::string path, size_t columns)
      : path_(std::move(path)), columns_(columns), in_(path_) {}

  std::string path_;
  size_t columns_;
  std::ifstream in_;
  std::string line_;
  int64_t line_number_ = 0;
};

absl::StatusOr<std::vector<TraceNode>> ReadNodes(const std::string& path) {
  absl::StatusOr<CsvReader> csv = CsvReader::Open(path, 5);  // sn,cpu_milli,memory_mib,gpu,model
  if (!csv.ok()) return csv.status();
  std::vector<TraceNode> nodes;
  std::vector<std::string_view> f;
  for (;;) {
    absl::StatusOr<bool> more = csv->Next(&f);
    if (!more.ok()) return more.status();
    if (!*more) break;
    TraceNode node{.id = std::string(f[0])};
    absl::StatusOr<int64_t> cpu = csv->Integer(f[1], "cpu_milli");
    absl::StatusOr<int64_t> memory = csv->Integer(f[2], "memory_mib");
    absl::StatusOr<int64_t> gpus = csv->Integer(f[3], "gpu");
    for (const auto* v : {&cpu, &memory, &gpus}) {
      if (!v->ok()) return v->status();
    }
    node.cpu_milli = *cpu;
    node.memory_mib = *memory;
    node.gpus = *gpus;
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
// deletion_time,scheduled_time
absl::StatusOr<std::vector<TracePod>> ReadPods(const std::string& path) {
  absl::StatusOr<CsvReader> csv = CsvReader::Open(path, 11);
  if (!csv.ok()) return csv.status();
  std::vector<TracePod> pods;
  std::vector<std::string_view> f;
  for (;;) {
    absl::StatusOr<bool> more = csv->Next(&f);
    if (!more.ok()) return more.status();
    if (!*more) break;
    TracePod pod{.id = std::string(f[0])};
    absl::StatusOr<int64_t> cpu = csv->Integer(f[1], "cpu_milli");
    absl::StatusOr<int64_t> memory = csv->Integer(f[2], "memory_mib");
    absl::StatusOr<int64_t> num_gpu = csv->Integer(f[3], "num_gpu");
    absl::StatusOr<int64_t> gpu_milli = csv->Integer(f[4], "gpu_milli");
    absl::StatusOr<int64_t> created = csv->Integer(f[8], "creation_time");
    for (const auto* v : {&cpu, &memory, &num_gpu, &gpu_milli, &created}) {
      if (!v->ok()) return v->status();
    }
    if (!f[9].empty()) {
      absl::StatusOr<int64_t> deleted = csv->Integer(f[9], "deletion_time");
      if (!deleted.ok()) return deleted.status();
      if (*deleted < *created) return csv->Error("deleted before it was created");
      pod.deleted = *deleted;
    }
    std::string qos = absl::AsciiStrToLower(absl::string_view(f[6].data(), f[6].size()));
    if (qos != "ls" && qos != "guaranteed" && qos != "burstable" && qos != "be") {
      return csv->Error(internal::Cat("unknown qos '", f[6], "'"));
    }
    pod.cpu_milli = *cpu;
    pod.memory_mib = *memory;
    pod.gpu_milli = *num_gpu * *gpu_milli;
    pod.queue = "root." + qos;
    pod.created = *created;
    pods.push_back(std::move(pod));
  }
  return pods;
}

class Writer {
 public:
  explicit Writer(std::FILE* out) : out_(out) {}
  void Line(const std::string& text) {
    ok_ = ok_ && std::fwrite(text.data(), 1, text.size(), out_) == text.size() &&
          std::fputc('\n', out_) != EOF;
  }
  bool ok() const { return ok_ && std::fflush(out_) == 0; }

 private:
  std::FILE* out_;
  bool ok_ = true;
};

std::string Copy(const std::string& id, int64_t copy, int64_t scale) {
  return scale == 1 ? id : internal::Cat(id, "-r", copy);
}

}  // namespace

absl::StatusOr<AlibabaTraceSummary> WriteAlibabaScenario(const AlibabaTraceOptions& options,
                                                         std::FILE* out) {
  if (options.scale < 1 || options.scale > 1000) {
    return absl::InvalidArgumentError(
        internal::Cat("scale must be 1 to 1000, got ", options.scale));
  }
  if (options.node_policy != "fair" && options.node_policy != "binpacking") {
    return absl::InvalidArgumentError(
        internal::Cat("node policy must be fair or binpacking, got '", options.node_policy, "'"));
  }
  const std::string dir = options.data_dir.empty() ? "." : options.data_dir;
  absl::StatusOr<std::vector<TraceNode>> nodes = ReadNodes(dir + "/openb_node_list_all_node.csv");
  if (!nodes.ok()) return nodes.status();
  absl::StatusOr<std::vector<TracePod>> pods = ReadPods(dir + "/openb_pod_list_default.csv");
  if (!pods.ok()) return pods.status();
  const int64_t scale = options.scale;

  // Per second: pods deleted (created earlier), pods created, pods deleted in their own second.
  struct Second {
    std::vector<size_t> deleted;
    std::vector<size_t> created;
    std::vector<size_t> deleted_at_once;
  };
  std::map<int64_t, Second> timeline;
  for (size_t i = 0; i < pods->size(); ++i) {
    const TracePod& pod = (*pods)[i];
    timeline[pod.created].created.push_back(i);
    if (pod.deleted < 0) continue;
    Second& at = timeline[pod.deleted];
    (pod.deleted == pod.created ? at.deleted_at_once : at.deleted).push_back(i);
  }

  Writer w(out);
  AlibabaTraceSummary summary;
  w.Line(internal::Cat("name: alibaba-gpu-v2023 scale ", scale, " ", options.node_policy));
  w.Line("config:");
  w.Line("  partitions:");
  w.Line("    - name: default");
  w.Line(internal::Cat("      nodesortpolicy: {type: ", options.node_policy, "}"));
  w.Line("      queues:");
  w.Line("        - name: root");
  w.Line("          submitacl: \"*\"");
  w.Line("          queues: [{name: ls}, {name: guaranteed}, {name: burstable}, {name: be}]");
  w.Line("nodes:");
  for (const TraceNode& node : *nodes) {
    for (int64_t copy = 1; copy <= scale; ++copy) {
      std::string gpu = node.gpus > 0 ? internal::Cat(", gpu: ", node.gpus * 1000) : "";
      w.Line(internal::Cat("  - {id: ", Copy(node.id, copy, scale), ", resources: {vcore: ",
                           node.cpu_milli, ", memory: ", node.memory_mib * kMiB, gpu, "}}"));
      ++summary.nodes;
    }
  }
  w.Line("steps:");
  auto remove = [&](const std::vector<size_t>& list) {
    for (size_t i : list) {
      for (int64_t copy = 1; copy <= scale; ++copy) {
        w.Line(internal::Cat("  - remove_app: {id: ", Copy((*pods)[i].id, copy, scale), "}"));
        ++summary.steps;
      }
    }
  };
  int64_t now = 0;
  for (const auto& [second, events] : timeline) {
    if (second > now) {
      w.Line(internal::Cat("  - advance: {seconds: ", second - now, "}"));
      ++summary.steps;
      now = second;
    }
    remove(events.deleted);
    for (size_t i : events.created) {
      const TracePod& pod = (*pods)[i];
      std::string gpu = pod.gpu_milli > 0 ? internal::Cat(", gpu: ", pod.gpu_milli) : "";
      for (int64_t copy = 1; copy <= scale; ++copy) {
        const std::string id = Copy(pod.id, copy, scale);
        w.Line(internal::Cat("  - add_app: {id: ", id, ", queue: ", pod.queue, ", user: u}"));
        w.Line(internal::Cat("  - add_ask: {app: ", id, ", id: ", id, ", resources: {vcore: ",
                             pod.cpu_milli, ", memory: ", pod.memory_mib * kMiB, gpu, "}}"));
        summary.steps += 2;
        ++summary.pods;
      }
    }
    if (!events.created.empty()) {
      w.Line("  - schedule: {}");
      ++summary.steps;
    }
    remove(events.deleted_at_once);
  }
  if (!w.ok()) return absl::DataLossError("cannot write the scenario");
  return summary;
}

}  // namespace allocore::adapters

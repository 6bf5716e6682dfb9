// Records -> JSON lines and tables (see decision_format.h).
#include "allocore/adapters/decision_format.h"

#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "allocore/adapters/json.h"
#include "str_util.h"
#include "text_table.h"

namespace allocore::adapters {
namespace {

void AppendInt(std::string* out, int64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, static_cast<size_t>(end - buffer));
}

// ,"key":"value"
void AppendStringField(std::string* out, std::string_view key, std::string_view value) {
  out->append(",\"");
  out->append(key);
  out->append("\":");
  AppendJsonString(out, value);
}

// A remaining guarantee as {"type": quantity, ...} in the kernel's units (null: none applies).
void AppendRemaining(const std::optional<Resource>& remaining, const ResourceTypes* types,
                     std::string* out) {
  if (!remaining || types == nullptr) {
    out->append("null");
    return;
  }
  out->append("{");
  bool first = true;
  for (int t = 0; t < kMaxResourceTypes && t < types->size(); ++t) {
    if (!remaining->Has(t)) continue;
    if (!first) out->append(",");
    first = false;
    AppendJsonString(out, types->Name(t));
    out->append(":");
    AppendInt(out, remaining->Get(t));
  }
  out->append("}");
}

void AppendIntField(std::string* out, std::string_view key, int64_t value) {
  out->append(",\"");
  out->append(key);
  out->append("\":");
  AppendInt(out, value);
}

// Where an ask goes (allocation) or is to go (preemption): the fields both records share.
void AppendPlacement(const Decision& d, std::string* out) {
  AppendStringField(out, "partition", d.partition);
  AppendStringField(out, "queue", d.queue);
  AppendStringField(out, "app", d.app);
  AppendStringField(out, "ask", d.ask);
  AppendStringField(out, "node", d.node);
  AppendIntField(out, "priority", d.priority);
}

std::string_view LastElement(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

}  // namespace

void AppendJsonLine(const Record& record, std::string* out) {
  out->append("{\"type\":\"");
  out->append(RecordTypeName(record.type));
  out->append("\"");
  AppendIntField(out, "step", record.step);
  if (record.type == RecordType::kError) {
    AppendStringField(out, "message", record.message);
    out->append("}\n");
    return;
  }
  if (record.type == RecordType::kProbe) {
    const ProbeResult& answer = *record.probe;
    AppendStringField(out, "partition", answer.partition);
    AppendStringField(out, "queue", answer.queue);
    AppendStringField(out, "app", record.probed->app);
    if (!record.probed->id.empty()) AppendStringField(out, "ask", record.probed->id);
    if (!answer.node.empty()) AppendStringField(out, "node", answer.node);
    if (!answer.reason.empty()) AppendStringField(out, "reason", answer.reason);
    if (answer.preemption_victims > 0) AppendIntField(out, "victims", answer.preemption_victims);
    out->append("}\n");
    return;
  }
  const Decision& d = *record.decision;
  switch (record.type) {
    case RecordType::kAllocation:
      AppendIntField(out, "seq", d.seq);
      AppendPlacement(d, out);
      if (d.placeholder) out->append(",\"placeholder\":true");
      if (!d.replaces.empty()) AppendStringField(out, "replaces", d.replaces);
      break;
    case RecordType::kRecovered:
      // Not a scheduling decision: no seq (contract version 3).
      AppendPlacement(d, out);
      if (d.placeholder) out->append(",\"placeholder\":true");
      break;
    case RecordType::kAppRejected:
      AppendStringField(out, "app", d.app);
      AppendStringField(out, "reason", d.reason);
      break;
    case RecordType::kAppState:
      AppendStringField(out, "app", d.app);
      AppendStringField(out, "from", AppStateName(d.from));
      AppendStringField(out, "to", AppStateName(d.to));
      break;
    case RecordType::kRelease:
      // The released allocation's seq (contract version 3): two allocations of one ask on one
      // node are told apart by it.
      if (d.seq > 0) AppendIntField(out, "seq", d.seq);
      AppendStringField(out, "app", d.app);
      AppendStringField(out, "ask", d.ask);
      AppendStringField(out, "node", d.node);
      AppendStringField(out, "reason", ReleaseReasonName(d.release_reason));
      if (!d.by_app.empty()) AppendStringField(out, "by", internal::Cat(d.by_app, "/", d.by_ask));
      if (d.quota != nullptr) AppendStringField(out, "by", d.quota->queue);
      break;
    case RecordType::kQuotaPreemption:
      AppendStringField(out, "partition", d.partition);
      AppendStringField(out, "queue", d.queue);
      out->append(",\"max\":");
      AppendRemaining(d.quota ? d.quota->max : std::nullopt, record.types, out);
      out->append(",\"preemptable\":");
      AppendRemaining(d.quota ? std::optional<Resource>(d.quota->preemptable) : std::nullopt,
                      record.types, out);
      AppendIntField(out, "victims", d.count);
      break;
    case RecordType::kAskRemoved:
      AppendStringField(out, "app", d.app);
      AppendStringField(out, "ask", d.ask);
      AppendIntField(out, "count", d.count);
      AppendStringField(out, "reason", ReleaseReasonName(d.release_reason));
      break;
    case RecordType::kPreemption: {
      AppendPlacement(d, out);  // the node the preemptor reserved
      AppendIntField(out, "victims", d.count);
      if (d.preemption == nullptr) break;
      const PreemptionDetail& detail = *d.preemption;
      AppendStringField(out, "fence", detail.fence);
      out->append(",\"guarantee\":");
      AppendRemaining(detail.remaining_guarantee, record.types, out);
      out->append(",\"victim_queues\":[");
      for (size_t i = 0; i < detail.victim_queues.size(); ++i) {
        const PreemptionDetail::VictimQueue& q = detail.victim_queues[i];
        out->append(i == 0 ? "{" : ",{");
        out->append("\"queue\":");
        AppendJsonString(out, q.queue);
        AppendIntField(out, "victims", q.victims);
        out->append(",\"guarantee\":");
        AppendRemaining(q.remaining_guarantee, record.types, out);
        out->append("}");
      }
      out->append("]");
      break;
    }
    case RecordType::kError:
    case RecordType::kProbe:
      break;
  }
  out->append("}\n");
}

void AppendPendingJsonLine(const PendingExplanation& pending, std::string* out) {
  out->append("{\"type\":\"pending\"");
  AppendStringField(out, "partition", pending.partition);
  AppendStringField(out, "queue", pending.queue);
  AppendStringField(out, "app", pending.app);
  AppendStringField(out, "ask", pending.ask);
  AppendIntField(out, "count", pending.pending_count);
  AppendStringField(out, "reason", pending.reason);
  out->append("}\n");
}

void AppendPendingTable(const std::vector<PendingExplanation>& pending, std::string* out) {
  if (pending.empty()) return;
  using internal::TextTable;
  TextTable table({{"PARTITION"},
                   {"QUEUE"},
                   {"APP"},
                   {"ASK"},
                   {"PENDING", TextTable::Align::kRight},
                   {"REASON"}});
  std::set<std::string_view> partitions;
  for (const PendingExplanation& p : pending) partitions.insert(p.partition);
  const bool show_partition = partitions.size() > 1;
  for (const PendingExplanation& p : pending) {
    table.AddRow({show_partition ? p.partition : "", p.queue, p.app, p.ask,
                  internal::Cat(p.pending_count), p.reason});
  }
  table.DropEmptyColumns();
  table.Render(out);
}

std::string EffectivePriorityText(const QueueInfo& queue) {
  return queue.has_pending_priority ? internal::Cat(queue.priority) : "n/a";
}

std::vector<std::string> DescribePriorityChanges(const std::vector<QueueInfo>& before,
                                                 const std::vector<QueueInfo>& after) {
  absl::flat_hash_map<std::string_view, const QueueInfo*> old_by_path;
  for (const QueueInfo& queue : before) old_by_path[queue.path] = &queue;
  absl::flat_hash_map<std::string_view, int> name_count;
  for (const QueueInfo& queue : after) ++name_count[LastElement(queue.path)];

  std::vector<std::string> changes;
  // ListQueues is depth-first, so walking it backwards names a leaf before its ancestors.
  for (auto it = after.rbegin(); it != after.rend(); ++it) {
    const QueueInfo& now = *it;
    if (now.depth == 0) continue;
    auto old = old_by_path.find(now.path);
    std::string was = old == old_by_path.end() ? "n/a" : EffectivePriorityText(*old->second);
    std::string is = EffectivePriorityText(now);
    if (was == is) continue;
    std::string_view name = LastElement(now.path);
    if (name_count[name] > 1) name = now.path;
    changes.push_back(internal::Cat(name, ": ", was, " -> ", is));
  }
  return changes;
}

void RecordTable::BeforeSchedule(const Kernel& kernel) {
  if (!options_.priority_changes) return;
  for (const std::string& partition : kernel.PartitionNames()) {
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel.ListQueues(partition);
    if (!queues.ok()) continue;
    if (!initial_queues_.contains(partition)) initial_queues_[partition] = *queues;
    before_[partition] = *std::move(queues);
  }
}

void RecordTable::OnRecord(const Record& record, const Kernel& kernel) {
  if (options_.allocations_only && record.type != RecordType::kAllocation) {
    ++hidden_records_;
    return;
  }
  Row row;
  row.step = record.step;
  row.type = RecordTypeName(record.type);
  if (record.type == RecordType::kError) {
    row.detail = record.message;
    rows_.push_back(std::move(row));
    return;
  }
  if (record.type == RecordType::kProbe) {
    row.partition = record.probe->partition;
    row.queue = record.probe->queue;
    row.app = record.probed->app;
    row.ask = record.probed->id;
    row.node = record.probe->node;
    row.detail = record.probe->node.empty() ? record.probe->reason : "would be placed";
    rows_.push_back(std::move(row));
    return;
  }
  const Decision& d = *record.decision;
  row.partition = d.partition;
  row.app = d.app;
  switch (record.type) {
    case RecordType::kAllocation: {
      row.seq = d.seq;
      row.queue = d.queue;
      row.ask = d.ask;
      row.node = d.node;
      row.priority = internal::Cat(d.priority);
      if (d.placeholder) row.detail = "placeholder";
      if (!d.replaces.empty()) row.detail = internal::Cat("replaces ", d.replaces);
      if (!options_.priority_changes) break;
      absl::StatusOr<std::vector<QueueInfo>> after = kernel.ListQueues(d.partition);
      if (!after.ok()) break;
      auto before = before_.find(d.partition);
      static const std::vector<QueueInfo> kNone;
      std::vector<std::string> changes =
          DescribePriorityChanges(before == before_.end() ? kNone : before->second, *after);
      for (const std::string& change : changes) {
        if (!row.detail.empty()) row.detail += "\n";
        row.detail += change;
      }
      before_[std::string(d.partition)] = *std::move(after);
      break;
    }
    case RecordType::kRecovered:
      row.queue = d.queue;
      row.ask = d.ask;
      row.node = d.node;
      row.priority = internal::Cat(d.priority);
      row.detail = d.placeholder ? "running before (placeholder)" : "running before";
      break;
    case RecordType::kAppRejected:
      row.detail = d.reason;
      break;
    case RecordType::kAppState:
      row.detail = internal::Cat(AppStateName(d.from), " -> ", AppStateName(d.to));
      break;
    case RecordType::kRelease:
      row.ask = d.ask;
      row.node = d.node;
      if (d.release_reason != ReleaseReason::kReleased) {
        row.detail = std::string(ReleaseReasonName(d.release_reason));
        if (!d.by_app.empty()) row.detail += internal::Cat(" by ", d.by_app, "/", d.by_ask);
        if (d.quota != nullptr) row.detail += internal::Cat(" by ", d.quota->queue);
      }
      break;
    case RecordType::kAskRemoved:
      row.ask = d.ask;
      row.detail =
          internal::Cat(d.count, " pending dropped (", ReleaseReasonName(d.release_reason), ")");
      break;
    case RecordType::kPreemption:
      row.queue = d.queue;
      row.ask = d.ask;
      row.node = d.node;
      row.priority = internal::Cat(d.priority);
      row.detail = internal::Cat(d.count, d.count == 1 ? " victim" : " victims");
      if (d.preemption != nullptr) row.detail += internal::Cat(", fence ", d.preemption->fence);
      break;
    case RecordType::kQuotaPreemption:
      row.queue = d.queue;
      row.detail = internal::Cat(d.count, d.count == 1 ? " victim" : " victims");
      if (d.quota != nullptr && record.types != nullptr) {
        row.detail += internal::Cat(
            " of ", ToString(d.quota->preemptable, *record.types), " above max ",
            d.quota->max ? LimitToString(*d.quota->max, *record.types) : std::string("none"));
      }
      break;
    case RecordType::kError:
    case RecordType::kProbe:
      break;
  }
  rows_.push_back(std::move(row));
}

void RecordTable::Render(std::string* out, std::string_view indent) const {
  if (rows_.empty()) return;
  using internal::TextTable;
  std::set<std::string_view> partitions;
  for (const Row& row : rows_) {
    if (!row.partition.empty()) partitions.insert(row.partition);
  }
  const bool show_partition = partitions.size() > 1;
  const bool walkthrough = options_.allocations_only;
  std::string detail_header = options_.priority_changes ? "EFFECTIVE PRIORITY CHANGES" : "";
  if (!walkthrough)
    detail_header = options_.priority_changes ? "DETAIL / PRIORITY CHANGES" : "DETAIL";
  TextTable table({{"STEP", TextTable::Align::kRight},
                   {"SEQ", TextTable::Align::kRight},
                   {"EVENT"},
                   {"PARTITION"},
                   {"QUEUE"},
                   {"APP"},
                   {"ASK"},
                   {"PRIO", TextTable::Align::kRight},
                   {"NODE"},
                   {detail_header}});
  for (const Row& row : rows_) {
    table.AddRow({walkthrough ? "" : internal::Cat(row.step),
                  row.seq > 0 ? internal::Cat(row.seq) : "", walkthrough ? "" : row.type,
                  show_partition ? row.partition : "", row.queue, row.app, row.ask, row.priority,
                  row.node, row.detail});
  }
  table.DropEmptyColumns();
  table.Render(out, indent);
}

}  // namespace allocore::adapters

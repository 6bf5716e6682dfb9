// A replay up to a step, then the kernel's inventory written as YuniKorn's state dump. What the
// kernel does not keep (a user's name, an ask's priority and required node, when an allocation
// was made) comes from the steps and records seen on the way.
#include "allocore/adapters/cluster_export.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "allocore/adapters/json.h"
#include "allocore/kernel.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

using internal::Append;
using internal::Cat;

using AppKey = std::pair<std::string, std::string>;                // partition, app
using AskKey = std::tuple<std::string, std::string, std::string>;  // partition, app, ask
constexpr char kNamespaceTag[] = "kubernetes.io/meta/namespace";

struct AppRecord {
  AppSpec spec;
  int64_t submitted_millis = 0;
};
struct AskRecord {
  AskSpec spec;
  int64_t created_millis = 0;
};

// Follows the replay: the specs behind what the kernel holds, and when things happened.
class Tracker : public RunObserver {
 public:
  explicit Tracker(Semantics semantics) : v19_(semantics == Semantics::kYunikorn19) {}

  void BeforeStep(const ScenarioStep& step, const Kernel& kernel) override {
    now_ = kernel.now_millis();
    step_refused_ = false;
    // Under 1.9 an id the application still holds (pending or live) changes only its resources.
    resent_ = false;
    if (const auto* ask = std::get_if<AskSpec>(&step.action); ask && v19_) {
      resent_ = kernel.ExplainAsk(ask->partition, ask->app, ask->id).ok();
      absl::StatusOr<std::vector<AllocationInfo>> live =
          kernel.ListAllocations(ask->partition, ask->app, "");
      if (live.ok()) {
        for (const AllocationInfo& allocation : *live) resent_ |= allocation.ask == ask->id;
      }
    }
  }

  // A step's specs count once the kernel took it: a refused step changed nothing.
  void AfterStep(const ScenarioStep& step, const Kernel&) override {
    if (step_refused_) return;
    if (const auto* app = std::get_if<AppSpec>(&step.action)) {
      apps_[{app->partition, app->id}] = AppRecord{*app, now_};
    } else if (const auto* ask = std::get_if<AskSpec>(&step.action)) {
      auto known = asks_.find({ask->partition, ask->app, ask->id});
      if (resent_ && known != asks_.end()) {
        known->second.spec.resources = ask->resources;
      } else {
        Ask(*ask);
      }
    } else if (const auto* recover = std::get_if<RecoverAllocationStep>(&step.action)) {
      Ask(recover->ask);
    } else if (const auto* update = std::get_if<UpdateAskStep>(&step.action)) {
      auto it = asks_.find({update->partition, update->app, update->id});
      if (it != asks_.end()) it->second.spec.resources = update->resources;
    } else if (const auto* foreign = std::get_if<AddForeignStep>(&step.action)) {
      foreign_[{foreign->partition, foreign->id}] = *foreign;
    } else if (const auto* resize = std::get_if<UpdateForeignStep>(&step.action)) {
      auto it = foreign_.find({resize->partition, resize->id});
      if (it != foreign_.end()) it->second.resources = resize->resources;
    } else if (const auto* gone = std::get_if<RemoveForeignStep>(&step.action)) {
      foreign_.erase({gone->partition, gone->id});
    } else if (const auto* node = std::get_if<RemoveNodeStep>(&step.action)) {
      std::erase_if(foreign_, [node](const auto& entry) {
        return entry.first.first == node->partition && entry.second.node == node->id;
      });
    }
  }

  void OnRecord(const Record& record, const Kernel&) override {
    if (record.type == RecordType::kError) step_refused_ = true;
    if (record.decision == nullptr) return;
    const Decision& d = *record.decision;
    if (d.type == DecisionType::kAllocation) allocated_at_[d.seq] = now_;
    if (d.type == DecisionType::kRecovered) {
      recovered_at_[{std::string(d.partition), std::string(d.app), std::string(d.ask)}] = now_;
    }
  }

  // Other schedulers' pods on `node`, in id order.
  std::vector<const ForeignAllocationSpec*> ForeignOn(const std::string& partition,
                                                      const std::string& node) const {
    std::vector<const ForeignAllocationSpec*> out;
    for (const auto& [key, spec] : foreign_) {
      if (key.first == partition && spec.node == node) out.push_back(&spec);
    }
    return out;
  }

  const AppRecord* App(const std::string& partition, const std::string& id) const {
    auto it = apps_.find({partition, id});
    return it == apps_.end() ? nullptr : &it->second;
  }
  const AskRecord* AskOf(const std::string& partition, const std::string& app,
                         const std::string& id) const {
    auto it = asks_.find({partition, app, id});
    return it == asks_.end() ? nullptr : &it->second;
  }
  int64_t AllocatedAt(const AllocationInfo& allocation, const std::string& partition) const {
    if (allocation.seq != 0) {
      auto it = allocated_at_.find(allocation.seq);
      if (it != allocated_at_.end()) return it->second;
    }
    auto it = recovered_at_.find({partition, allocation.app, allocation.ask});
    return it == recovered_at_.end() ? 0 : it->second;
  }

 private:
  void Ask(const AskSpec& ask) {
    // Under 1.9 the pod's creation time counts, and an earlier one moves the application's
    // submission time back (YuniKorn 1.9 does the same).
    int64_t created = v19_ && ask.creation_time_millis ? *ask.creation_time_millis : now_;
    asks_[{ask.partition, ask.app, ask.id}] = AskRecord{ask, created};
    auto app = apps_.find({ask.partition, ask.app});
    if (v19_ && app != apps_.end()) {
      app->second.submitted_millis = std::min(app->second.submitted_millis, created);
    }
  }

  const bool v19_;
  int64_t now_ = 0;
  std::map<AppKey, AppRecord> apps_;
  std::map<AskKey, AskRecord> asks_;
  std::map<int64_t, int64_t> allocated_at_;  // allocation seq -> logical ms
  std::map<AskKey, int64_t> recovered_at_;
  std::map<std::pair<std::string, std::string>, ForeignAllocationSpec> foreign_;
  bool step_refused_ = false;
  bool resent_ = false;  // the step re-sends an ask id the kernel holds
};

// JSON of one release's format: 1.2 writes Go's field names at the top and every field; 1.9
// camelCase at the top and leaves out false, zero and empty values.
class DumpWriter {
 public:
  DumpWriter(bool v19, int64_t epoch_seconds, const ResourceTypes& types)
      : v19_(v19), epoch_nanos_(epoch_seconds * 1'000'000'000), types_(types) {}

  std::string Top(std::string_view pascal) const {
    std::string key(pascal);
    if (v19_) key[0] = static_cast<char>(key[0] - 'A' + 'a');
    return key;
  }
  int64_t Nanos(int64_t millis) const { return epoch_nanos_ + millis * 1'000'000; }

  void Key(std::string* out, std::string_view key) const {
    AppendJsonString(out, key);
    *out += ": ";
  }
  void Text(std::string* out, std::string_view key, std::string_view value) const {
    if (v19_ && value.empty()) return;
    Key(out, key);
    AppendJsonString(out, value);
    *out += ", ";
  }
  void Number(std::string* out, std::string_view key, int64_t value) const {
    if (v19_ && value == 0) return;
    Key(out, key);
    Append(out, value, ", ");
  }
  void Flag(std::string* out, std::string_view key, bool value) const {
    if (v19_ && !value) return;
    Key(out, key);
    Append(out, value ? "true" : "false", ", ");
  }
  void Resources(std::string* out, std::string_view key, const Resource& r) const {
    Key(out, key);
    *out += '{';
    bool first = true;
    for (int type = 0; type < types_.size(); ++type) {
      if (!r.Has(type)) continue;
      if (!first) *out += ", ";
      first = false;
      AppendJsonString(out, types_.Name(type));
      Append(out, ": ", r.Get(type));
    }
    *out += "}, ";
  }
  void Amounts(std::string* out, std::string_view key, const Quantities& amounts) const {
    Key(out, key);
    *out += '{';
    bool first = true;
    for (const auto& [name, value] : amounts) {
      if (!first) *out += ", ";
      first = false;
      AppendJsonString(out, name);
      Append(out, ": ", value);
    }
    *out += "}, ";
  }
  // Drops the ", " after an object's last member.
  static void Close(std::string* out, char bracket) {
    if (out->size() >= 2 && out->compare(out->size() - 2, 2, ", ") == 0) {
      out->resize(out->size() - 2);
    }
    *out += bracket;
  }
  bool v19() const { return v19_; }

 private:
  const bool v19_;
  const int64_t epoch_nanos_;
  const ResourceTypes& types_;
};

bool IsFinished(AppState state) {
  return state == AppState::kCompleted || state == AppState::kFailed ||
         state == AppState::kRejected || state == AppState::kExpired;
}

void NamespaceTag(const DumpWriter& w, std::string* out, const AppRecord* app) {
  std::string_view ns;
  if (app != nullptr) {
    for (const auto& [key, value] : app->spec.tags) {
      if (key == "namespace") ns = value;
    }
  }
  if (ns.empty()) {
    if (!w.v19()) {  // 1.2 writes every field, an empty map too
      w.Key(out, "allocationTags");
      *out += "{}, ";
    }
    return;
  }
  w.Key(out, "allocationTags");
  *out += '{';
  AppendJsonString(out, kNamespaceTag);
  *out += ": ";
  AppendJsonString(out, ns);
  *out += "}, ";
}

void WriteApplication(const DumpWriter& w, const Kernel& kernel, const Tracker& tracker,
                      const std::string& partition, const AppInfo& info,
                      const std::map<AskKey, int64_t>& pending, std::string* out) {
  const AppRecord* app = tracker.App(partition, info.id);
  *out += "\n    {";
  w.Text(out, "applicationID", info.id);
  w.Text(out, "partition", partition);
  w.Text(out, "queueName", info.queue);
  w.Number(out, "submissionTime", w.Nanos(app != nullptr ? app->submitted_millis : 0));
  w.Text(out, "applicationState", AppStateName(info.state));
  w.Text(out, "user", app != nullptr ? app->spec.user : "");
  // Groups (1.3+) and the application's tags (no release writes them) are written whenever
  // the application has them: the importer reads both, and placement rules and limits need them.
  if (app != nullptr && !app->spec.tags.empty()) {
    w.Key(out, "tags");
    *out += '{';
    for (size_t i = 0; i < app->spec.tags.size(); ++i) {
      if (i > 0) *out += ", ";
      AppendJsonString(out, app->spec.tags[i].first);
      *out += ": ";
      AppendJsonString(out, app->spec.tags[i].second);
    }
    *out += "}, ";
  }
  if (app != nullptr && !app->spec.groups.empty()) {
    w.Key(out, "groups");
    *out += '[';
    for (size_t i = 0; i < app->spec.groups.size(); ++i) {
      if (i > 0) *out += ", ";
      AppendJsonString(out, app->spec.groups[i]);
    }
    *out += "], ";
  }
  // Pending requests: one per ask with pending repeats.
  w.Key(out, "requests");
  *out += '[';
  std::string group_of_placeholders;
  for (auto it = pending.lower_bound({partition, info.id, ""});
       it != pending.end() && std::get<0>(it->first) == partition &&
       std::get<1>(it->first) == info.id;
       ++it) {
    const AskRecord* ask = tracker.AskOf(partition, info.id, std::get<2>(it->first));
    if (ask == nullptr) continue;
    const AskSpec& spec = ask->spec;
    if (spec.placeholder) group_of_placeholders = spec.task_group;
    *out += "\n      {";
    w.Text(out, "allocationKey", spec.id);
    NamespaceTag(w, out, app);
    w.Number(out, "requestTime", w.Nanos(ask->created_millis));
    w.Amounts(out, "resource", spec.resources);
    if (!w.v19() || it->second > 1) w.Number(out, "pendingCount", it->second);
    w.Text(out, "priority", std::to_string(spec.priority));
    w.Text(out, "requiredNodeId", spec.required_node);
    w.Text(out, "applicationId", info.id);
    if (!w.v19()) w.Text(out, "partition", partition);
    w.Flag(out, "placeholder", spec.placeholder);
    w.Text(out, "taskGroupName", spec.task_group);
    if (w.v19()) w.Flag(out, "originator", spec.originator);
    DumpWriter::Close(out, '}');
    *out += ", ";
  }
  DumpWriter::Close(out, ']');
  *out += ", ";
  // Running allocations, oldest first.
  w.Key(out, "allocations");
  *out += '[';
  absl::StatusOr<std::vector<AllocationInfo>> allocations =
      kernel.ListAllocations(partition, info.id, "");
  if (allocations.ok()) {
    int64_t n = 0;
    for (const AllocationInfo& allocation : *allocations) {
      const AskRecord* ask = tracker.AskOf(partition, info.id, allocation.ask);
      int64_t at = tracker.AllocatedAt(allocation, partition);
      if (allocation.placeholder) group_of_placeholders = allocation.task_group;
      *out += "\n      {";
      w.Text(out, "allocationKey", allocation.ask);
      NamespaceTag(w, out, app);
      w.Number(out, "requestTime", w.Nanos(ask != nullptr ? ask->created_millis : at));
      w.Number(out, "allocationTime", w.Nanos(at));
      if (!w.v19()) w.Text(out, "uuid", Cat(info.id, "/", allocation.ask, "/", ++n));
      w.Resources(out, "resource", allocation.resources);
      w.Text(out, "priority", std::to_string(allocation.priority));
      w.Text(out, "nodeId", allocation.node);
      w.Text(out, "applicationId", info.id);
      if (!w.v19()) w.Text(out, "partition", partition);
      w.Flag(out, "placeholder", allocation.placeholder);
      w.Text(out, "taskGroupName", allocation.task_group);
      if (w.v19()) w.Flag(out, "originator", ask != nullptr && ask->spec.originator);
      DumpWriter::Close(out, '}');
      *out += ", ";
    }
  }
  DumpWriter::Close(out, ']');
  *out += ", ";
  // The gang's total, as one group (the dump's per-group split is not kept by the kernel).
  w.Key(out, "placeholderData");
  *out += '[';
  if (app != nullptr && !app->spec.placeholder_ask.empty()) {
    *out += '{';
    w.Text(out, "taskGroupName",
           group_of_placeholders.empty() ? std::string("placeholders") : group_of_placeholders);
    w.Number(out, "count", 1);
    w.Amounts(out, "minResource", app->spec.placeholder_ask);
    DumpWriter::Close(out, '}');
  }
  *out += "], ";
  if (!w.v19()) w.Number(out, "minAllocationPriority", 0);  // a field 1.2 alone writes
  DumpWriter::Close(out, '}');
}

}  // namespace

absl::StatusOr<std::string> ExportYunikornStateDump(const Scenario& scenario,
                                                    const ExportOptions& options) {
  const int64_t steps = static_cast<int64_t>(scenario.steps.size());
  if (options.at_step < -1 || options.at_step > steps) {
    return absl::InvalidArgumentError(
        Cat("export: step ", options.at_step, " is outside the scenario's 0..", steps));
  }
  const bool v19 = scenario.semantics == Semantics::kYunikorn19;
  Tracker tracker(scenario.semantics);
  RunOptions run_options;
  run_options.last_step = options.at_step;
  run_options.keep_allocations = false;
  absl::StatusOr<RunResult> run = RunScenario(scenario, run_options, &tracker);
  if (!run.ok()) return run.status();
  const Kernel& kernel = *run->kernel;
  DumpWriter w(v19, options.epoch_seconds, kernel.resource_types());

  std::map<AskKey, int64_t> pending;
  for (const PendingExplanation& p : kernel.ExplainPending()) {
    pending[{p.partition, p.app, p.ask}] = p.pending_count;
  }
  std::string out = "{";
  w.Number(&out, w.Top("Timestamp"), w.Nanos(kernel.now_millis()));
  w.Key(&out, w.Top("Partitions"));
  out += '[';
  for (const std::string& partition : kernel.PartitionNames()) {
    out += "\n  {";
    w.Text(&out, "clusterId", "allocore");
    w.Text(&out, "name", partition);
    w.Text(&out, "state", "Active");
    if (v19) {  // no omitempty on it: every 1.8+ dump has it
      bool on = false;
      for (const PartitionConfig& config : scenario.config.partitions) {
        if (config.name == partition) on = config.quota_preemption_enabled.value_or(false);
      }
      w.Key(&out, "quotaPreemptionEnabled");
      out += on ? "true, " : "false, ";
    }
    DumpWriter::Close(&out, '}');
    out += ", ";
  }
  DumpWriter::Close(&out, ']');
  out += ", ";
  w.Key(&out, w.Top("Applications"));
  out += '[';
  for (const std::string& partition : kernel.PartitionNames()) {
    absl::StatusOr<std::vector<AppInfo>> apps = kernel.ListApplications(partition);
    if (!apps.ok()) return apps.status();
    for (const AppInfo& app : *apps) {
      if (IsFinished(app.state)) continue;
      WriteApplication(w, kernel, tracker, partition, app, pending, &out);
      out += ", ";
    }
  }
  DumpWriter::Close(&out, ']');
  out += ", ";
  w.Key(&out, w.Top("Nodes"));
  out += '[';
  for (const std::string& partition : kernel.PartitionNames()) {
    absl::StatusOr<std::vector<NodeInfo>> nodes = kernel.ListNodes(partition);
    if (!nodes.ok()) return nodes.status();
    out += "\n  {";
    w.Text(&out, "partitionName", partition);
    w.Key(&out, "nodesInfo");
    out += '[';
    for (const NodeInfo& node : *nodes) {
      out += "\n    {";
      w.Text(&out, "nodeID", node.id);
      w.Resources(&out, "capacity", node.capacity);
      w.Resources(&out, "allocated", node.allocated);
      w.Resources(&out, "occupied", node.occupied);
      w.Key(&out, "schedulable");  // no omitempty in either release
      out += node.schedulable ? "true, " : "false, ";
      // Each pod another scheduler placed, as 1.7+ lists them (a 1.2 dump has only the sum in
      // `occupied`): kept under either format, so that later steps can name them.
      std::vector<const ForeignAllocationSpec*> foreign = tracker.ForeignOn(partition, node.id);
      if (!foreign.empty()) {
        w.Key(&out, "foreignAllocations");
        out += '[';
        for (const ForeignAllocationSpec* pod : foreign) {
          out += '{';
          w.Text(&out, "allocationKey", pod->id);
          out += "\"allocationTags\": {\"foreign\": ";
          out += pod->kind == ForeignKind::kStatic ? "\"static\"}, " : "\"default\"}, ";
          w.Amounts(&out, "resource", pod->resources);
          w.Text(&out, "nodeId", pod->node);
          DumpWriter::Close(&out, '}');
          out += ", ";
        }
        DumpWriter::Close(&out, ']');
        out += ", ";
      }
      DumpWriter::Close(&out, '}');
      out += ", ";
    }
    DumpWriter::Close(&out, ']');
    DumpWriter::Close(&out, '}');
    out += ", ";
  }
  DumpWriter::Close(&out, ']');
  out += ", ";
  w.Key(&out, w.Top("ClusterInfo"));
  out += "[{";
  w.Text(&out, "clusterName", "allocore");
  w.Key(&out, "rmBuildInformation");
  out += "[{\"buildVersion\": \"allocore export\", \"rmId\": \"allocore\"}]";
  out += "}]}\n";
  return out;
}

}  // namespace allocore::adapters

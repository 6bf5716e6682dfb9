// Scenario -> the contract's YAML (allocore unpack): one flow mapping per node, step and
// expected record, strings double-quoted (JSON escapes are YAML escapes), quantities raw as the
// steps take them, the config as JSON (valid YAML, in the config's own units).
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/json.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

// Builds one flow mapping: {key: value, ...}.
class Flow {
 public:
  Flow& Text(std::string_view key, std::string_view value) {
    Key(key);
    AppendJsonString(&out_, value);
    return *this;
  }
  // Only when it is not the default ("" for strings, the partition "default").
  Flow& TextIf(std::string_view key, std::string_view value, std::string_view fallback = "") {
    return value == fallback ? *this : Text(key, value);
  }
  Flow& Number(std::string_view key, int64_t value) {
    Key(key);
    out_ += std::to_string(value);
    return *this;
  }
  Flow& Flag(std::string_view key, bool value) {
    Key(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  // Milliseconds as seconds with up to 3 decimals, as the loader reads them.
  Flow& Seconds(std::string_view key, int64_t millis) {
    Key(key);
    out_ += std::to_string(millis / 1000);
    if (millis % 1000 != 0) {
      std::string fraction = std::to_string(1000 + millis % 1000).substr(1);
      while (fraction.back() == '0') fraction.pop_back();
      out_ += "." + fraction;
    }
    return *this;
  }
  Flow& Quantities(std::string_view key, const allocore::Quantities& quantities) {
    Key(key);
    out_ += "{";
    for (size_t i = 0; i < quantities.size(); ++i) {
      if (i > 0) out_ += ", ";
      AppendJsonString(&out_, quantities[i].first);
      out_ += ": " + std::to_string(quantities[i].second);
    }
    out_ += "}";
    return *this;
  }
  Flow& Map(std::string_view key, const Tags& entries) {
    Key(key);
    out_ += "{";
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) out_ += ", ";
      AppendJsonString(&out_, entries[i].first);
      out_ += ": ";
      AppendJsonString(&out_, entries[i].second);
    }
    out_ += "}";
    return *this;
  }
  Flow& List(std::string_view key, const std::vector<std::string>& items) {
    Key(key);
    out_ += "[";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += ", ";
      AppendJsonString(&out_, items[i]);
    }
    out_ += "]";
    return *this;
  }
  Flow& Raw(std::string_view key, std::string_view yaml) {
    Key(key);
    out_ += yaml;
    return *this;
  }
  std::string Done() { return out_ + "}"; }

 private:
  void Key(std::string_view key) {
    out_ += out_.size() == 1 ? "" : ", ";
    out_ += key;
    out_ += ": ";
  }
  std::string out_ = "{";
};

Flow& AskFields(Flow& f, const AskSpec& ask, bool with_count) {
  f.TextIf("partition", ask.partition, kDefaultPartition).Text("app", ask.app).TextIf("id", ask.id);
  f.Quantities("resources", ask.resources);
  if (ask.priority != 0) f.Number("priority", ask.priority);
  if (with_count && ask.count != 1) f.Number("count", ask.count);
  f.TextIf("task_group", ask.task_group);
  if (ask.placeholder) f.Flag("placeholder", true);
  f.TextIf("required_node", ask.required_node);
  if (!ask.allow_preemption) f.Flag("allow_preemption", false);
  if (ask.originator) f.Flag("originator", true);
  // The contract gives a creation time in whole seconds.
  if (ask.creation_time_millis) f.Number("creation_time", *ask.creation_time_millis / 1000);
  return f;
}

std::string NodeYaml(const AddNodeStep& step) {
  Flow f;
  f.TextIf("partition", step.node.partition, kDefaultPartition).Text("id", step.node.id);
  f.Quantities("resources", step.node.capacity);
  if (!step.node.occupied.empty()) f.Quantities("occupied", step.node.occupied);
  if (!step.node.schedulable) f.Flag("schedulable", false);
  if (!step.attributes.empty()) f.Map("attributes", step.attributes);
  return f.Done();
}

struct StepYaml {
  std::string operator()(const AppSpec& app) const {
    Flow f;
    f.TextIf("partition", app.partition, kDefaultPartition).Text("id", app.id);
    f.TextIf("queue", app.queue).TextIf("user", app.user);
    if (!app.groups.empty()) f.List("groups", app.groups);
    if (!app.tags.empty()) f.Map("tags", app.tags);
    if (app.gang_style != GangStyle::kSoft) f.Text("gang_style", "hard");
    if (app.placeholder_timeout_millis != 0) {
      f.Seconds("placeholder_timeout", app.placeholder_timeout_millis);
    }
    if (!app.placeholder_ask.empty()) f.Quantities("placeholder_ask", app.placeholder_ask);
    return "add_app: " + f.Done();
  }
  std::string operator()(const AskSpec& ask) const {
    Flow f;
    return "add_ask: " + AskFields(f, ask, true).Done();
  }
  std::string operator()(const ScheduleStep& s) const {
    Flow f;
    if (s.max != 0) f.Number("max", s.max);
    f.TextIf("partition", s.partition);
    return "schedule: " + f.Done();
  }
  std::string operator()(const ReleaseStep& r) const {
    Flow f;
    f.TextIf("partition", r.partition, kDefaultPartition).Text("app", r.app).Text("ask", r.ask);
    f.TextIf("node", r.node);
    if (r.seq != 0) f.Number("seq", r.seq);
    return "release: " + f.Done();
  }
  std::string operator()(const RemoveAskStep& r) const {
    Flow f;
    f.TextIf("partition", r.partition, kDefaultPartition).Text("app", r.app).Text("id", r.ask);
    return "remove_ask: " + f.Done();
  }
  std::string operator()(const RemoveAppStep& r) const {
    Flow f;
    return "remove_app: " +
           f.TextIf("partition", r.partition, kDefaultPartition).Text("id", r.id).Done();
  }
  std::string operator()(const AddNodeStep& n) const { return "add_node: " + NodeYaml(n); }
  std::string operator()(const NodeUpdate& u) const {
    Flow f;
    f.TextIf("partition", u.partition, kDefaultPartition).Text("id", u.id);
    if (u.capacity) f.Quantities("resources", *u.capacity);
    if (u.occupied) f.Quantities("occupied", *u.occupied);
    if (u.schedulable) f.Flag("schedulable", *u.schedulable);
    return "update_node: " + f.Done();
  }
  std::string operator()(const RemoveNodeStep& r) const {
    Flow f;
    return "remove_node: " +
           f.TextIf("partition", r.partition, kDefaultPartition).Text("id", r.id).Done();
  }
  std::string operator()(const UpdateConfigStep& u) const {
    Flow f;
    return "update_config: " + f.Raw("config", ConfigToJson(u.config)).Done();
  }
  std::string operator()(const AdvanceStep& a) const {
    Flow f;
    return "advance: " + f.Seconds("seconds", a.millis).Done();
  }
  std::string operator()(const ProbeStep& p) const {
    Flow f;
    return "probe: " + AskFields(f, p.ask, true).Done();
  }
  std::string operator()(const RecoverAllocationStep& r) const {
    Flow f;
    AskFields(f, r.ask, false).Text("node", r.node);
    return "recover_allocation: " + f.Done();
  }
  std::string operator()(const UpdateAllocationStep& u) const {
    Flow f;
    f.TextIf("partition", u.partition, kDefaultPartition).Text("app", u.app).Text("ask", u.ask);
    f.TextIf("node", u.node).Quantities("resources", u.resources);
    return "update_allocation: " + f.Done();
  }
  std::string operator()(const UpdateAskStep& u) const {
    Flow f;
    f.TextIf("partition", u.partition, kDefaultPartition).Text("app", u.app).Text("id", u.id);
    return "update_ask: " + f.Quantities("resources", u.resources).Done();
  }
  std::string operator()(const AddForeignStep& a) const {
    Flow f;
    f.TextIf("partition", a.partition, kDefaultPartition).Text("id", a.id).Text("node", a.node);
    f.Quantities("resources", a.resources);
    if (a.kind == ForeignKind::kStatic) f.Text("kind", "static");
    return "add_foreign: " + f.Done();
  }
  std::string operator()(const UpdateForeignStep& u) const {
    Flow f;
    f.TextIf("partition", u.partition, kDefaultPartition).Text("id", u.id).TextIf("node", u.node);
    return "update_foreign: " + f.Quantities("resources", u.resources).Done();
  }
  std::string operator()(const RemoveForeignStep& r) const {
    Flow f;
    return "remove_foreign: " +
           f.TextIf("partition", r.partition, kDefaultPartition).Text("id", r.id).Done();
  }
};

std::string ExpectedYaml(const ExpectedAllocation& e) {
  Flow f;
  auto text = [&](std::string_view key, const std::optional<std::string>& v) {
    if (v) f.Text(key, *v);
  };
  auto number = [&](std::string_view key, const std::optional<int64_t>& v) {
    if (v) f.Number(key, *v);
  };
  text("partition", e.partition);
  text("queue", e.queue);
  text("app", e.app);
  text("ask", e.ask);
  text("node", e.node);
  text("reason", e.reason);
  text("from", e.from);
  text("to", e.to);
  number("step", e.step);
  number("seq", e.seq);
  number("victims", e.victims);
  return f.Done();
}

void AppendExpectedList(std::string* out, std::string_view key,
                        const std::optional<std::vector<ExpectedAllocation>>& list) {
  if (!list) return;
  internal::Append(out, "  ", key, ":", list->empty() ? " []" : "", "\n");
  for (const ExpectedAllocation& e : *list) internal::Append(out, "    - ", ExpectedYaml(e), "\n");
}

}  // namespace

std::string ScenarioToYaml(const Scenario& scenario) {
  std::string out;
  // The contract has no key for these: say so where a person reads the file.
  if (scenario.clock == StepClock::kAdvanceStepsOnly) {
    out += kRecordedClockNote;
  }
  if (scenario.budgets.max_applications != 0 || scenario.budgets.max_asks != 0 ||
      scenario.budgets.max_live_allocations != 0) {
    internal::Append(&out, "# recorded under kernel budgets max_applications=",
                     scenario.budgets.max_applications, " max_asks=", scenario.budgets.max_asks,
                     " max_live_allocations=", scenario.budgets.max_live_allocations,
                     ", which this file does not carry\n");
  }
  if (!scenario.name.empty()) {
    out += "name: ";
    AppendJsonString(&out, scenario.name);
    out += "\n";
  }
  internal::Append(&out, "semantics: ", SemanticsName(scenario.semantics), "\n");
  internal::Append(&out, "config: ", ConfigToJson(scenario.config), "\n");
  out += scenario.nodes.empty() ? "nodes: []\n" : "nodes:\n";
  for (const AddNodeStep& node : scenario.nodes)
    internal::Append(&out, "  - ", NodeYaml(node), "\n");
  out += scenario.steps.empty() ? "steps: []\n" : "steps:\n";
  for (const ScenarioStep& step : scenario.steps) {
    internal::Append(&out, "  - ", std::visit(StepYaml{}, step.action), "\n");
  }
  if (scenario.expect) {
    const ScenarioExpect& expect = *scenario.expect;
    out += "expect:\n";
    AppendExpectedList(&out, "allocations", expect.allocations);
    AppendExpectedList(&out, "releases", expect.releases);
    AppendExpectedList(&out, "app_states", expect.app_states);
    AppendExpectedList(&out, "recovered", expect.recovered);
    AppendExpectedList(&out, "quota_preemptions", expect.quota_preemptions);
    if (expect.rejected_apps) {
      Flow list;
      out += "  " + list.List("rejected_apps", *expect.rejected_apps).Done().substr(1);
      out.pop_back();  // the closing brace of the helper's mapping
      out += "\n";
    }
    if (expect.errors) internal::Append(&out, "  errors: ", *expect.errors, "\n");
  }
  return out;
}

}  // namespace allocore::adapters

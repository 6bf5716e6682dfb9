// `allocore check FILE... [--format text|json]` — validates YuniKorn queues.yaml files.
//
// Exit codes: 0 every file is valid; 2 a file is invalid or unreadable, or bad usage.
// Findings (errors, warnings, summaries) go to stdout; usage errors to stderr.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/json.h"
#include "allocore/adapters/text_input.h"
#include "allocore/config.h"
#include "allocore/resource.h"
#include "cli_util.h"
#include "commands.h"

namespace allocore::cli {
namespace {

constexpr char kUsage[] =
    "usage: allocore check FILE...|- [--format text|json] [--strict] [--quiet]\n"
    "                      [--semantics yunikorn-1.2|yunikorn-1.9]\n"
    "\n"
    "Validates YuniKorn queues.yaml files (YAML or JSON) exactly as allocore loads them:\n"
    "strict keys, quantity syntax, every YuniKorn validation rule and allocore's apply-time\n"
    "rules. `-` reads a file from stdin. Every problem is reported, one per line:\n"
    "  FILE:LINE:COLUMN: partition P, queue Q: message\n"
    "\n"
    "options:\n"
    "  --format text   (default) a summary of each valid file: partitions and the queue\n"
    "                  tree with leaf/parent type and effective properties\n"
    "  --format json   one object per file, whatever the verdict: {\"file\", \"valid\",\n"
    "                  \"errors\": [...], \"warnings\": [...], \"semantics\",\n"
    "                  \"profile_differences\": [...], \"config\"} with the differences and\n"
    "                  \"config\" (the loaded config, loadable again) only for a valid file;\n"
    "                  several files give a JSON array of them\n"
    "  --strict        warnings count as errors (exit 2): unknown property keys, values\n"
    "                  that fall back to a default, settings that have no effect\n"
    "  --quiet         text format: errors and warnings only, no summary\n"
    "  --semantics P   validate and show the config as profile P reads it: yunikorn-1.2\n"
    "                  (YuniKorn v1.2.0, the default) or yunikorn-1.9; the summary then\n"
    "                  lists where the two profiles would decide differently\n"
    "  --help          this text\n"
    "\n"
    "Warnings (`FILE:LINE:COLUMN: warning: ...`) report what YuniKorn accepts and silently\n"
    "ignores or reads as a default, such as a misspelt property key.\n"
    "\n"
    "exit status: 0 all files valid, 2 a file is invalid or unreadable, or has warnings\n"
    "under --strict (or bad usage)\n";

std::string FormatQuantities(const std::optional<QuantityMap>& q) {
  if (!q) return "none";
  std::string out = "{";
  for (size_t i = 0; i < q->size(); ++i) {
    const auto& [name, value] = (*q)[i];
    absl::StrAppend(&out, i > 0 ? ", " : "", name, ": ", FormatQuantity(name, value));
  }
  return out + "}";
}

// One line per queue, with the properties as the kernel reads them (EffectiveQueues lists the
// queues in the same depth-first order as the configuration holds them).
void PrintQueue(const QueueConfig& queue, const std::vector<EffectiveQueue>& effective,
                size_t* next, std::string* out) {
  const EffectiveQueue& e = effective[(*next)++];
  out->append(static_cast<size_t>(e.depth + 1) * 2, ' ');
  absl::StrAppend(
      out, queue.name, e.leaf ? " (leaf)" : " (parent)",
      " sort=", e.leaf ? e.app_sort_policy : std::string("fair"),
      " priority.sort=", e.priority_sort_enabled ? "enabled" : "disabled",
      " priority.policy=", e.priority_fenced ? "fence" : "default",
      " priority.offset=", e.priority_offset, " preemption.policy=", e.preemption_policy,
      e.leaf ? absl::StrCat(" preemption.delay=", e.preemption_delay_millis, "ms") : "",
      e.leaf && e.unsched_ask_backoff > 0
          ? absl::StrCat(" unschedasks.backoff=", e.unsched_ask_backoff,
                         " unschedasks.backoff.delay=", e.unsched_ask_backoff_delay_millis, "ms")
          : "",
      e.quota_preemption_delay_millis > 0
          ? absl::StrCat(" quota.preemption.delay=", e.quota_preemption_delay_millis, "ms")
          : "",
      " guaranteed=", FormatQuantities(queue.resources.guaranteed),
      " max=", FormatQuantities(queue.resources.max), " maxapplications=",
      queue.max_applications == 0 ? std::string("unlimited") : absl::StrCat(queue.max_applications),
      "\n");
  for (const QueueConfig& child : queue.queues) PrintQueue(child, effective, next, out);
}

std::string RuleSummary(const PlacementRuleConfig& rule) {
  std::string out = rule.name;
  if (!rule.value.empty()) absl::StrAppend(&out, " value=", rule.value);
  if (rule.create) out += " create";
  if (!rule.filter.type.empty() || !rule.filter.users.empty() || !rule.filter.groups.empty()) {
    out += " filtered";
  }
  if (!rule.parent.empty()) absl::StrAppend(&out, " parent=(", RuleSummary(rule.parent[0]), ")");
  return out;
}

size_t CountQueues(const std::vector<QueueConfig>& queues) {
  size_t n = queues.size();
  for (const QueueConfig& q : queues) n += CountQueues(q.queues);
  return n;
}

std::string Summary(const std::string& path, const SchedulerConfig& config, Semantics semantics) {
  std::string out = absl::StrCat(path, ": valid, ", config.partitions.size(),
                                 config.partitions.size() == 1 ? " partition\n" : " partitions\n");
  for (const PartitionConfig& p : config.partitions) {
    size_t queues = CountQueues(p.queues);
    absl::StrAppend(
        &out, "partition ", p.name, ": ", queues, queues == 1 ? " queue" : " queues",
        ", node sort ", p.node_sort_policy.type.empty() ? "fair" : p.node_sort_policy.type,
        ", preemption ",
        !p.preemption_enabled ? (semantics == Semantics::kYunikorn12 ? "unset (off)" : "unset (on)")
        : *p.preemption_enabled ? "enabled"
                                : "disabled",
        ", placement rules: ");
    if (p.placement_rules.empty()) out += "none";
    for (size_t i = 0; i < p.placement_rules.size(); ++i) {
      absl::StrAppend(&out, i > 0 ? ", " : "", RuleSummary(p.placement_rules[i]));
    }
    out += "\n";
    const std::vector<EffectiveQueue> effective = EffectiveQueues(p, semantics);
    size_t next = 0;
    for (const QueueConfig& root : p.queues) PrintQueue(root, effective, &next, &out);
  }
  absl::StrAppend(&out, "semantics ", std::string(SemanticsName(semantics)), "\n");
  std::vector<ConfigError> differences = ProfileDifferences(config);
  if (!differences.empty()) {
    out += "where yunikorn-1.2 and yunikorn-1.9 decide differently:\n";
    for (ConfigError& d : differences) {
      d.warning = false;  // a note, not a warning of this config
      absl::StrAppend(&out, "  ", d.ToString(path), "\n");
    }
  }
  return out;
}

// ---- JSON ------------------------------------------------------------------------------------
// One shape whatever the verdict:
//   {"file": ..., "valid": ..., "errors": [...], "warnings": [...], "config": {...}}
// with "config" (the loaded config, loadable again) only when the file is valid.
std::string FindingsJson(const std::vector<ConfigError>& findings, bool warnings,
                         const std::string& pad) {
  std::string out = "[";
  bool first = true;
  for (const ConfigError& e : findings) {
    if (e.warning != warnings) continue;
    absl::StrAppend(&out, first ? "" : ",", "\n", pad, "  {\"line\": ", e.location.line,
                    ", \"column\": ", e.location.column, ", \"partition\": ");
    first = false;
    adapters::AppendJsonString(&out, e.partition);
    out += ", \"queue\": ";
    adapters::AppendJsonString(&out, e.queue_path);
    out += ", \"field\": ";
    adapters::AppendJsonString(&out, e.field);
    out += ", \"message\": ";
    adapters::AppendJsonString(&out, e.message);
    out += "}";
  }
  if (!first) absl::StrAppend(&out, "\n", pad);
  return out + "]";
}

std::string FileJson(const std::string& path, const adapters::ConfigLoadResult& loaded,
                     Semantics semantics, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  std::string out = pad + "{\"file\": ";
  adapters::AppendJsonString(&out, path);
  absl::StrAppend(&out, ", \"valid\": ", loaded.config ? "true" : "false",
                  ", \"errors\": ", FindingsJson(loaded.errors, false, pad),
                  ", \"warnings\": ", FindingsJson(loaded.errors, true, pad), ", \"semantics\": \"",
                  std::string(SemanticsName(semantics)), "\"");
  if (loaded.config) {
    absl::StrAppend(&out, ", \"profile_differences\": ",
                    FindingsJson(ProfileDifferences(*loaded.config), true, pad));
  }
  if (loaded.config) {
    std::string config = adapters::ConfigToJson(*loaded.config);
    while (!config.empty() && config.back() == '\n') config.pop_back();
    // Indented with the object, so that several files read well.
    std::string indented;
    for (char c : config) {
      indented += c;
      if (c == '\n') indented += pad;
    }
    out += ", \"config\": " + indented;
  }
  return out + "}";
}

void Write(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

}  // namespace

int CheckCommand(int argc, char** argv) {
  std::vector<std::string> files;
  std::string format = "text";
  bool strict = false;
  bool quiet = false;
  std::string semantics_name;
  CLI::App app;
  app.add_option("--semantics", semantics_name);
  app.add_option("--format", format);
  app.add_flag("--strict", strict);
  app.add_flag("-q,--quiet", quiet);
  app.add_option("files", files);
  if (std::optional<int> exit_code = ParseOptions(&app, argc, argv, "check", kUsage)) {
    return *exit_code;
  }
  if (format != "text" && format != "json") {
    std::fprintf(stderr, "allocore check: unknown format '%s' (use text or json)\n",
                 format.c_str());
    return 2;
  }
  std::optional<Semantics> semantics = Semantics::kYunikorn12;
  if (!ParseSemanticsOption("check", semantics_name, &semantics)) return 2;
  if (files.empty()) {
    std::fprintf(stderr, "allocore check: no FILE given\n\n%s", kUsage);
    return 2;
  }

  bool all_valid = true;
  bool json = format == "json";
  bool many = files.size() > 1;
  if (json && many) Write("[\n");
  for (size_t f = 0; f < files.size(); ++f) {
    adapters::ConfigLoadResult loaded = adapters::LoadConfigFile(files[f], *semantics);
    const std::string path = adapters::TextInputName(files[f]);  // as messages name it
    bool valid = loaded.config.has_value();
    all_valid = all_valid && valid;
    if (strict) {
      for (const ConfigError& e : loaded.errors) all_valid = all_valid && !e.warning;
    }
    if (!json) {
      std::string out;
      for (const ConfigError& e : loaded.errors) absl::StrAppend(&out, e.ToString(path), "\n");
      if (valid && !quiet) out += Summary(path, *loaded.config, *semantics);
      Write(out);
      continue;
    }
    std::string out = FileJson(path, loaded, *semantics, many ? 2 : 0);
    out += many && f + 1 < files.size() ? ",\n" : "\n";
    Write(out);
  }
  if (json && many) Write("]\n");
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "allocore check: error writing the output\n");
    return 2;
  }
  return all_valid ? 0 : 2;
}

}  // namespace allocore::cli

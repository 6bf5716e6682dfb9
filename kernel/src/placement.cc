#include "placement.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "acl.h"
#include "go_regexp.h"
#include "message.h"
#include "name_rules.h"

namespace allocore::internal {
namespace {

std::string Lower(std::string_view s) {
  return absl::AsciiStrToLower(absl::string_view(s.data(), s.size()));
}

std::string ReplaceDots(std::string_view s) {
  return absl::StrReplaceAll(absl::string_view(s.data(), s.size()), {{".", "_dot_"}});
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool IsRegexpFilterEntry(std::string_view entry) {
  return entry.find_first_of("^$*+?()[{}|") != std::string_view::npos;
}

bool PlacementFilter::Matcher::Matches(std::string_view name) const {
  if (broken_pattern) return false;
  if (pattern) return pattern->MatchesAnywhere(name);
  for (const std::string& e : exact) {
    if (e == name) return true;
  }
  return false;
}

PlacementFilter PlacementFilter::Build(const FilterConfig& config, NameCharset charset) {
  PlacementFilter filter;
  // The v1.2.0 bug where "Deny"/"DENY" acted as allow is not reproduced.
  filter.allow_ = Lower(config.type) != "deny";
  auto build = [charset](const std::vector<std::string>& names,
                         bool (*valid_in)(std::string_view, NameCharset)) {
    auto valid = [&](std::string_view name) { return valid_in(name, charset); };
    Matcher m;
    if (names.size() == 1 && IsRegexpFilterEntry(names[0]) &&
        !(valid(names[0]) && names[0].back() != '$')) {
      absl::StatusOr<GoRegexp> pattern = GoRegexp::Compile(names[0]);
      if (pattern.ok()) {
        m.pattern = *std::move(pattern);
      } else {
        m.broken_pattern = true;
      }
      return m;
    }
    for (const std::string& n : names) {
      if (valid(n)) m.exact.push_back(n);
    }
    return m;
  };
  filter.users_ = build(config.users, &IsValidUserName);
  filter.groups_ = build(config.groups, &IsValidGroupName);
  return filter;
}

bool PlacementFilter::Allows(std::string_view user,
                             const std::vector<std::string_view>& groups) const {
  if (users_.empty() && groups_.empty()) return allow_;
  if (users_.Matches(user)) return allow_;
  for (std::string_view g : groups) {
    if (groups_.Matches(g)) return allow_;
  }
  return !allow_;
}

absl::StatusOr<PlacementRules> PlacementRules::Build(
    const std::vector<PlacementRuleConfig>& configs, NameCharset charset) {
  PlacementRules rules;
  std::function<absl::StatusOr<std::shared_ptr<PlacementRule>>(const PlacementRuleConfig&)> build =
      [&](const PlacementRuleConfig& c) -> absl::StatusOr<std::shared_ptr<PlacementRule>> {
    auto rule = std::make_shared<PlacementRule>();
    rule->name = c.name;
    rule->create = c.create;
    rule->value = c.value;
    rule->filter = PlacementFilter::Build(c.filter, charset);
    std::string kind = Lower(c.name);
    if (kind == "provided") {
      rule->kind = PlacementRuleKind::kProvided;
    } else if (kind == "user") {
      rule->kind = PlacementRuleKind::kUser;
    } else if (kind == "tag") {
      rule->kind = PlacementRuleKind::kTag;
    } else if (kind == "fixed") {
      rule->kind = PlacementRuleKind::kFixed;
      rule->value = Lower(c.value);
    } else if (kind == "recovery") {
      rule->kind = PlacementRuleKind::kRecovery;
    } else {
      return absl::InvalidArgumentError(Cat("unknown placement rule '", c.name, "'"));
    }
    if ((rule->kind == PlacementRuleKind::kTag || rule->kind == PlacementRuleKind::kFixed) &&
        c.value.empty()) {
      return absl::InvalidArgumentError(Cat("placement rule '", c.name, "' needs a value"));
    }
    if (!c.parent.empty()) {
      if (rule->kind == PlacementRuleKind::kFixed && StartsWith(rule->value, "root")) {
        return absl::InvalidArgumentError(
            Cat("fixed rule with qualified value '", c.value, "' cannot have a parent rule"));
      }
      auto parent = build(c.parent[0]);
      if (!parent.ok()) return parent.status();
      rule->parent = *parent;
    }
    return rule;
  };
  for (const PlacementRuleConfig& c : configs) {
    auto rule = build(c);
    if (!rule.ok()) return rule.status();
    rules.rules_.push_back(*rule);
  }
  return rules;
}

absl::StatusOr<RulePlacement> PlacementRules::Place(const PlacementRule& rule,
                                                    const PlacementRequest& request,
                                                    const QueueView& view) {
  RulePlacement none;
  if (!rule.filter.Allows(request.user, *request.groups)) return none;
  std::string name;
  bool qualified = false;
  switch (rule.kind) {
    case PlacementRuleKind::kProvided:
      if (request.queue.empty()) return none;
      if (StartsWith(request.queue, "root.")) {
        name = std::string(request.queue);
        qualified = true;
      } else {
        name = ReplaceDots(request.queue);
      }
      break;
    case PlacementRuleKind::kUser:
      name = ReplaceDots(request.user);
      break;
    case PlacementRuleKind::kTag: {
      std::string wanted = Lower(rule.value);
      std::string tag_value;
      for (const auto& [key, value] : *request.tags) {
        if (Lower(key) == wanted) tag_value = value;
      }
      if (tag_value.empty()) return none;
      if (StartsWith(tag_value, "root.")) {
        name = tag_value;
        qualified = true;
      } else {
        name = ReplaceDots(tag_value);
      }
      break;
    }
    case PlacementRuleKind::kFixed:
      name = rule.value;
      qualified = StartsWith(name, "root");
      break;
    case PlacementRuleKind::kRecovery:
      // Only forced applications use the recovery queue (not supported): never matches.
      return none;
  }
  if (!qualified) {
    std::string parent = "root";
    if (rule.parent) {
      auto parent_place = Place(*rule.parent, request, view);
      if (!parent_place.ok()) return parent_place.status();
      if (parent_place->queue.empty()) return none;
      parent = parent_place->queue;
      if (!StartsWith(parent, "root.") && parent != "root") parent = "root." + parent;
      if (view.exists(parent) && view.is_leaf(parent)) {
        return absl::InvalidArgumentError(
            Cat("parent rule of '", rule.name, "' returned the leaf queue ", parent));
      }
    }
    name = parent + "." + name;
  }
  if (!rule.create && !view.exists(name)) return none;
  return RulePlacement{name};
}

}  // namespace allocore::internal

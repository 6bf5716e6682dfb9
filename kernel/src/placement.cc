#include "placement.h"

#include <algorithm>
#include <optional>

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

namespace {

// ^[_a-zA-Z][a-zA-Z0-9_]*$
bool IsValidRuleName(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.empty() || !alpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) { return alpha(c) || digit(c); });
}

std::optional<PlacementRuleKind> RuleKind(std::string_view lower_name) {
  if (lower_name == "provided") return PlacementRuleKind::kProvided;
  if (lower_name == "user") return PlacementRuleKind::kUser;
  if (lower_name == "tag") return PlacementRuleKind::kTag;
  if (lower_name == "fixed") return PlacementRuleKind::kFixed;
  if (lower_name == "recovery") return PlacementRuleKind::kRecovery;
  return std::nullopt;
}

// A single filter entry must be a name of the release's charset or a valid regular expression.
bool ValidFilterEntry(std::string_view entry, bool (*valid_name)(std::string_view, NameCharset),
                      NameCharset charset) {
  return valid_name(entry, charset) ||
         (IsRegexpFilterEntry(entry) && GoRegexp::Compile(entry).ok());
}

class RuleReader {
 public:
  RuleReader(NameCharset charset, std::vector<RuleProblem>* problems)
      : charset_(charset), problems_(problems) {}

  // The rule and its parent chain, or nullptr when a problem was found in them.
  std::shared_ptr<PlacementRule> Read(const PlacementRuleConfig& c, int depth) {
    const std::string prefix = depth == 0 ? "placement rule" : "parent placement rule";
    if (depth > 64) {
      Problem(c, "parent", /*at_rule=*/true,
              "placement rule parents are nested more than 64 deep; use fewer parent rules");
      return nullptr;
    }
    const size_t before = problems_->size();
    if (c.parent.size() > 1) {
      Problem(c, "parent", false,
              Cat(prefix, " ", Quote(c.name), " has ", c.parent.size(),
                  " parent rules; at most one is allowed"));
    }
    std::shared_ptr<PlacementRule> parent;
    for (const PlacementRuleConfig& p : c.parent) {
      std::shared_ptr<PlacementRule> read = Read(p, depth + 1);
      if (parent == nullptr) parent = std::move(read);
    }
    auto rule = std::make_shared<PlacementRule>();
    rule->name = c.name;
    rule->create = c.create;
    rule->value = c.value;
    rule->parent = std::move(parent);
    const std::string name = Lower(c.name);
    const std::optional<PlacementRuleKind> kind = RuleKind(name);
    if (!IsValidRuleName(c.name)) {
      Problem(c, "name", false,
              Cat("invalid ", prefix, " name ", Quote(c.name),
                  ": a rule name starts with a letter or '_' followed by letters, digits "
                  "or '_' (known rules: provided, user, tag, fixed, recovery)"));
    } else if (!kind) {
      Problem(c, "name", false,
              Cat("unknown ", prefix, " ", Quote(c.name),
                  ": known rules are provided, user, tag, fixed and recovery "
                  "(case-insensitive)"));
    }
    if (kind) rule->kind = *kind;
    if ((kind == PlacementRuleKind::kTag || kind == PlacementRuleKind::kFixed) && c.value.empty()) {
      Problem(c, "value", /*at_rule=*/true,
              Cat(prefix, " ", Quote(c.name), " requires a `value` (",
                  *kind == PlacementRuleKind::kTag ? "the application tag that names the queue"
                                                   : "the queue name",
                  ")"));
    }
    if (kind == PlacementRuleKind::kFixed) {
      rule->value = Lower(c.value);
      if (StartsWith(rule->value, "root") && !c.parent.empty()) {
        Problem(c, "parent", false,
                Cat(prefix, " 'fixed' with the fully qualified value ", Quote(c.value),
                    " cannot have a parent rule: remove the parent rule or use an "
                    "unqualified value (values starting with 'root' are qualified)"));
      }
    }
    ReadFilter(c, prefix);
    rule->filter = PlacementFilter::Build(c.filter, charset_);
    return problems_->size() == before ? rule : nullptr;
  }

 private:
  void ReadFilter(const PlacementRuleConfig& c, const std::string& prefix) {
    const FilterConfig& filter = c.filter;
    const std::string type = Lower(filter.type);
    if (!type.empty() && type != "allow" && type != "deny") {
      Problem(c, "filter.type", false,
              Cat("invalid filter type ", Quote(filter.type), " in ", prefix, " ", Quote(c.name),
                  ": use allow or deny (empty means allow)"));
    }
    if (filter.users.size() == 1 &&
        !ValidFilterEntry(filter.users.front(), &IsValidUserName, charset_)) {
      Problem(c, "filter.users", false,
              Cat("invalid filter user ", Quote(filter.users.front()), " in ", prefix, " ",
                  Quote(c.name), ": a single entry must be a user name (", UserNameRule(charset_),
                  ") or a valid regular expression"));
    }
    if (filter.groups.size() == 1 &&
        !ValidFilterEntry(filter.groups.front(), &IsValidGroupName, charset_)) {
      Problem(c, "filter.groups", false,
              Cat("invalid filter group ", Quote(filter.groups.front()), " in ", prefix, " ",
                  Quote(c.name), ": a single entry must be a group name (", GroupNameRule(charset_),
                  ") or a valid regular expression"));
    }
  }

  void Problem(const PlacementRuleConfig& c, std::string_view field, bool at_rule,
               std::string message) {
    problems_->push_back(
        {.rule = &c, .field = field, .at_rule = at_rule, .message = std::move(message)});
  }

  NameCharset charset_;
  std::vector<RuleProblem>* problems_;
};

}  // namespace

absl::StatusOr<PlacementRules> PlacementRules::Build(
    const std::vector<PlacementRuleConfig>& configs, NameCharset charset,
    std::vector<RuleProblem>* problems) {
  std::vector<RuleProblem> own;
  std::vector<RuleProblem>* found = problems != nullptr ? problems : &own;
  const size_t before = found->size();
  RuleReader reader(charset, found);
  PlacementRules rules;
  for (const PlacementRuleConfig& c : configs) {
    std::shared_ptr<PlacementRule> rule = reader.Read(c, 0);
    if (rule != nullptr) rules.rules_.push_back(std::move(rule));
  }
  if (found->size() > before) return absl::InvalidArgumentError((*found)[before].message);
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

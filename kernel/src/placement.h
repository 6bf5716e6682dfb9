// kernel/src/placement.h — placement rules: which queue an application lands in (§8.2, §8.3).
//
// Rules are evaluated in configured order. A rule first applies its filter, then derives a
// queue name (provided / user / tag / fixed), qualified under the result of its parent rule or
// under `root`. The partition then checks the candidate (existing leaf with submit access, or
// creatable below an existing non-leaf ancestor with submit access) and moves on to the next
// rule when the candidate does not qualify.
#ifndef ALLOCORE_KERNEL_SRC_PLACEMENT_H_
#define ALLOCORE_KERNEL_SRC_PLACEMENT_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/config.h"
#include "allocore/kernel.h"
#include "go_regexp.h"
#include "name_rules.h"

namespace allocore::internal {

// A single filter entry is a regular expression when it holds one of YuniKorn's SpecialRegExp
// characters ^ $ * + ? ( ) [ { } | (not '.': "a.b" is an exact user name).
bool IsRegexpFilterEntry(std::string_view entry);

class PlacementFilter {
 public:
  // Filter entries are user and group names of `charset` (or one regular expression).
  static PlacementFilter Build(const FilterConfig& config, NameCharset charset);
  bool Allows(std::string_view user, const std::vector<std::string_view>& groups) const;

  // What a snapshot keeps of it (snapshot_fields.h).
  template <typename A, typename Self>
  static void SnapshotFields(A& a, Self& self) {
    a(self.allow_, self.users_, self.groups_);
  }

 private:
  struct Matcher {
    std::vector<std::string> exact;
    std::optional<GoRegexp> pattern;
    bool broken_pattern = false;  // a pattern that does not compile matches nobody
    bool Matches(std::string_view name) const;
    bool empty() const { return exact.empty() && !pattern && !broken_pattern; }

    // A pattern is kept as its text and compiled again on restore.
    template <typename A, typename Self>
    static void SnapshotFields(A& a, Self& self) {
      bool has_pattern = self.pattern.has_value();
      a(self.exact, self.broken_pattern, has_pattern);
      if constexpr (A::kReading) {
        self.pattern.reset();
        if (!has_pattern || !a.ok()) return;
        std::string source;
        a(source);
        absl::StatusOr<GoRegexp> compiled = GoRegexp::Compile(source);
        if (compiled.ok()) {
          self.pattern = *std::move(compiled);
        } else {
          a.Fail("a placement filter whose pattern does not compile");
        }
      } else if (has_pattern) {
        a(self.pattern->source());
      }
    }
  };
  bool allow_ = true;
  Matcher users_;
  Matcher groups_;
};

enum class PlacementRuleKind { kProvided, kUser, kTag, kFixed, kRecovery };

struct PlacementRule {
  PlacementRuleKind kind = PlacementRuleKind::kProvided;
  std::string name;  // as configured, for messages
  bool create = false;
  std::string value;
  PlacementFilter filter;
  std::shared_ptr<PlacementRule> parent;
};

// What a rule needs to know about the queue tree.
struct QueueView {
  std::function<bool(std::string_view path)> exists;
  std::function<bool(std::string_view path)> is_leaf;
};

struct PlacementRequest {
  std::string_view queue;  // as submitted, may be empty
  std::string_view user;
  const std::vector<std::string_view>* groups;
  const Tags* tags;
};

// The queue a rule produced: empty `queue` = the rule did not match.
struct RulePlacement {
  std::string queue;
};

// What makes a placement rule's config no rule YuniKorn accepts.
struct RuleProblem {
  const PlacementRuleConfig* rule = nullptr;
  std::string_view field;  // "name", "value", "parent", "filter.type", ...
  bool at_rule = false;    // about the rule as a whole: reported where the rule starts
  std::string message;
};

class PlacementRules {
 public:
  // The one reader of placement rules, for the validator and the kernel alike: every problem
  // goes to `problems` (the validator reports each at its field); the rules are built only when
  // there is none (else the first problem is the error).
  static absl::StatusOr<PlacementRules> Build(const std::vector<PlacementRuleConfig>& configs,
                                              NameCharset charset,
                                              std::vector<RuleProblem>* problems = nullptr);

  bool empty() const { return rules_.empty(); }
  const std::vector<std::shared_ptr<PlacementRule>>& rules() const { return rules_; }

  // What a snapshot keeps of them (snapshot_fields.h).
  template <typename A, typename Self>
  static void SnapshotFields(A& a, Self& self) {
    a(self.rules_);
  }

  // Runs one rule (and its parent chain). Errors stop the whole placement.
  static absl::StatusOr<RulePlacement> Place(const PlacementRule& rule,
                                             const PlacementRequest& request,
                                             const QueueView& view);

 private:
  std::vector<std::shared_ptr<PlacementRule>> rules_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_PLACEMENT_H_

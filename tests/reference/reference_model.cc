// reference_model.cc — see reference_model.h. Naive on purpose: nothing derived is cached.

#include "reference/reference_model.h"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <functional>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "re2/re2.h"

namespace allocore::reference {
namespace {

constexpr int32_t kMinPriority = std::numeric_limits<int32_t>::min();
constexpr int32_t kMaxPriority = std::numeric_limits<int32_t>::max();
constexpr int64_t kReservationDelayMs = 2000;
constexpr int64_t kUserGroupCacheMs = 300 * 1000;  // YUNIKORN-3250: entries expire after 300 s
constexpr int64_t kStartingTimeoutMs = int64_t{5} * 60 * 1000;
constexpr int64_t kCompletingTimeoutMs = int64_t{30} * 1000;
constexpr int64_t kTerminatedTimeoutMs = int64_t{3} * 24 * 3600 * 1000;
// General preemption (kernel/preemption-semantics.md §10).
constexpr int64_t kDefaultPreemptionDelayMs = 30 * 1000;
constexpr int64_t kPreemptAttemptFrequencyMs = 15 * 1000;
constexpr int kPreemptionAttemptsPerLeaf = 10;
// A reservation may be cancelled for a preemptor once its ask is older than the reservation
// wait timeout twice over plus the reservation delay (decision 34.12).
constexpr int64_t kCancellableReservationAgeMs = 2 * 60 * 60 * 1000 + 2000;

// ---- Small helpers ------------------------------------------------------------------------

void AppendPiece(std::string& out, std::string_view s) { out.append(s); }
template <std::integral T>
void AppendPiece(std::string& out, T v) {
  out += std::to_string(v);
}

// Concatenates strings and integers (absl::string_view is not std::string_view here).
template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (AppendPiece(out, args), ...);
  return out;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(std::string(s)); }

bool IsUserName(std::string_view s) {
  // ^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$
  if (s.empty()) return false;
  auto first_ok = [](char c) {
    return c == '_' || absl::ascii_isalpha(static_cast<unsigned char>(c));
  };
  auto rest_ok = [](char c) {
    return c == '_' || c == '.' || c == '@' || c == '-' ||
           absl::ascii_isalnum(static_cast<unsigned char>(c));
  };
  if (!first_ok(s[0])) return false;
  size_t end = s.size();
  if (end > 1 && s[end - 1] == '$') --end;
  for (size_t i = 1; i < end; ++i) {
    if (!rest_ok(s[i])) return false;
  }
  return true;
}

bool IsGroupName(std::string_view s) {
  // ^[_a-zA-Z][a-zA-Z0-9_-]*$
  if (s.empty()) return false;
  if (!(s[0] == '_' || absl::ascii_isalpha(static_cast<unsigned char>(s[0])))) return false;
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (!(c == '_' || c == '-' || absl::ascii_isalnum(static_cast<unsigned char>(c)))) {
      return false;
    }
  }
  return true;
}

// A parsed ACL (§8.5).
struct Acl {
  bool all = false;
  std::vector<std::string> users;
  std::vector<std::string> groups;

  bool Allows(const std::string& user, const std::vector<std::string>& user_groups) const {
    if (all) return true;
    if (std::find(users.begin(), users.end(), user) != users.end()) return true;
    for (const std::string& g : user_groups) {
      if (std::find(groups.begin(), groups.end(), g) != groups.end()) return true;
    }
    return false;
  }
};

Acl ParseAcl(const std::string& raw) {
  Acl acl;
  std::string trimmed(absl::StripAsciiWhitespace(raw));
  if (trimmed == "*") {
    acl.all = true;
    return acl;
  }
  if (raw.empty()) return acl;
  std::vector<std::string> fields = Split(raw, ' ');
  // The config is valid: at most two fields.
  if (!fields.empty()) {
    if (fields[0] == "*") {
      acl.all = true;
    } else {
      for (const std::string& u : Split(fields[0], ',')) {
        if (IsUserName(u)) acl.users.emplace_back(u);
      }
    }
  }
  if (fields.size() >= 2) {
    if (fields[1] == "*") {
      acl.all = true;
    } else {
      for (const std::string& g : Split(fields[1], ',')) {
        if (IsGroupName(g)) acl.groups.emplace_back(g);
      }
    }
  }
  return acl;
}

// Go strconv.ParseInt(v, 10, 32); any failure gives 0 (§2.5).
int32_t ParseOffset(const std::string& v) {
  size_t i = 0;
  bool negative = false;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) {
    negative = v[i] == '-';
    ++i;
  }
  if (i == v.size()) return 0;
  int64_t value = 0;
  for (; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return 0;
    value = value * 10 + (v[i] - '0');
    if (value > int64_t{1} << 32) return 0;  // far out of range already
  }
  if (negative) value = -value;
  if (value < kMinPriority || value > kMaxPriority) return 0;
  return static_cast<int32_t>(value);
}

const std::string* FindProperty(const PropertyMap& props, const std::string& key) {
  const std::string* found = nullptr;
  for (const auto& [k, v] : props) {
    if (k == key) found = &v;  // last one wins
  }
  return found;
}

void SetProperty(PropertyMap& props, const std::string& key, const std::string& value) {
  for (auto& [k, v] : props) {
    if (k == key) {
      v = value;
      return;
    }
  }
  props.emplace_back(key, value);
}

// The parent's (merged) properties as passed to a configured child (§2.5 last column).
PropertyMap FilterParentProperties(const PropertyMap& parent) {
  PropertyMap out;
  for (const auto& [k, v] : parent) {
    if (k == "priority.policy") {
      SetProperty(out, k, "default");
    } else if (k == "priority.offset") {
      SetProperty(out, k, "0");
    } else if (k == "preemption.policy") {
      SetProperty(out, k, Lower(v) == "disabled" ? "disabled" : "default");
    } else {
      SetProperty(out, k, v);
    }
  }
  return out;
}

// Shares of `r` against `total` (§1.5), sorted ascending.
std::vector<double> Shares(const Resource& r, const std::optional<Resource>& total) {
  std::vector<double> out;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!r.Has(k)) continue;
    int64_t v = r.Get(k);
    if (v == 0) {
      out.push_back(0.0);
    } else if (!total.has_value() || total->Get(k) == 0) {
      out.push_back(static_cast<double>(v));
    } else {
      out.push_back(static_cast<double>(v) / static_cast<double>(total->Get(k)));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// compareShares (§1.5): 1 left larger, -1 right larger, 0 equal.
int CompareShares(const std::vector<double>& l, const std::vector<double>& r) {
  ptrdiff_t li = static_cast<ptrdiff_t>(l.size()) - 1;
  ptrdiff_t ri = static_cast<ptrdiff_t>(r.size()) - 1;
  while (li >= 0 && ri >= 0) {
    double lv = l[static_cast<size_t>(li)];
    double rv = r[static_cast<size_t>(ri)];
    if (lv > rv) return 1;
    if (lv < rv) return -1;
    --li;
    --ri;
  }
  for (; li >= 0; --li) {
    double lv = l[static_cast<size_t>(li)];
    if (lv > 0) return 1;
    if (lv < 0) return -1;
  }
  for (; ri >= 0; --ri) {
    double rv = r[static_cast<size_t>(ri)];
    if (rv > 0) return -1;
    if (rv < 0) return 1;
  }
  return 0;
}

// ask.FitInScore(available) (§1.6).
double FitInScore(const Resource& ask, const Resource& available) {
  double score = 0;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!available.Has(k)) continue;
    int64_t fit = available.Get(k);
    if (fit <= 0) continue;
    int64_t want = ask.Get(k);
    if (want <= 0) {
      score += 1;
      continue;
    }
    if (fit > want) score += static_cast<double>(fit - want) / static_cast<double>(fit);
  }
  return score;
}

// Go's time.ParseDuration in nanoseconds; nullopt when Go refuses the text.
std::optional<int64_t> ParseGoDurationNs(std::string_view s) {
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return std::nullopt;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || digit(s[0]))) return std::nullopt;
    uint64_t whole = 0;
    size_t i = 0;
    for (; i < s.size() && digit(s[i]); ++i) {
      if (whole > kLimit / 10) return std::nullopt;
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
      if (whole > kLimit) return std::nullopt;
    }
    bool before = i > 0;
    s.remove_prefix(i);
    uint64_t fraction = 0;
    double scale = 1;
    bool after = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t j = 0;
      for (; j < s.size() && digit(s[j]); ++j) {
        // Digits past int64 precision are read and ignored, as Go does.
        if (overflow) continue;
        if (fraction > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        uint64_t next = fraction * 10 + static_cast<uint64_t>(s[j] - '0');
        if (next > kLimit) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      after = j > 0;
      s.remove_prefix(j);
    }
    if (!before && !after) return std::nullopt;
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !digit(s[u])) ++u;
    if (u == 0) return std::nullopt;
    std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t unit = 0;
    if (unit_name == "ns") {
      unit = 1;
    } else if (unit_name == "us" || unit_name == "\xC2\xB5s" || unit_name == "\xCE\xBCs") {
      unit = 1000;
    } else if (unit_name == "ms") {
      unit = 1000 * 1000;
    } else if (unit_name == "s") {
      unit = 1000 * 1000 * 1000;
    } else if (unit_name == "m") {
      unit = uint64_t{60} * 1000 * 1000 * 1000;
    } else if (unit_name == "h") {
      unit = uint64_t{3600} * 1000 * 1000 * 1000;
    } else {
      return std::nullopt;
    }
    if (whole > kLimit / unit) return std::nullopt;
    whole *= unit;
    if (fraction > 0) {
      // Go scales the fraction in floating point; so does the model, to truncate alike.
      whole += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(unit) / scale));
      if (whole > kLimit) return std::nullopt;
    }
    total += whole;
    if (total > kLimit) return std::nullopt;
  }
  // Only the sign of a negative duration matters to the callers (it selects the default).
  if (negative) return total == 0 ? 0 : -1;
  if (total > kLimit - 1) return std::nullopt;
  return static_cast<int64_t>(total);
}

// The leaf's effective preemption.delay in ms; unparsable or not positive gives the default.
int64_t PreemptionDelayMs(const PropertyMap& props) {
  const std::string* v = FindProperty(props, "preemption.delay");
  if (v == nullptr) return kDefaultPreemptionDelayMs;
  std::optional<int64_t> ns = ParseGoDurationNs(*v);
  if (!ns.has_value() || *ns <= 0) return kDefaultPreemptionDelayMs;
  return *ns / 1000000;
}

// "fence", "disabled" or "default" (anything else, case-insensitively).
std::string PreemptionPolicy(const PropertyMap& props) {
  const std::string* v = FindProperty(props, "preemption.policy");
  if (v == nullptr) return "default";
  std::string lower = Lower(*v);
  return lower == "fence" || lower == "disabled" ? lower : "default";
}

// Resource.FitInActual: every type of `x` that `r` has holds x.
bool FitsActual(const Resource& r, const Resource& x) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (x.Has(k) && r.Has(k) && x.Get(k) > r.Get(k)) return false;
  }
  return true;
}

// A remaining guarantee negative in some type the ask uses.
bool NegativeInAskTypes(const Resource& ask, const Resource& remaining) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (ask.Has(k) && remaining.Has(k) && remaining.Get(k) < 0) return true;
  }
  return false;
}

// ask.StrictlyGreaterThanOnlyExisting(total): true while the victims' total does not cover the
// ask. Presence matters: an empty total differs from a total of zeros.
bool AskExceeds(const Resource& ask, const Resource& total) {
  const bool total_empty = total.present == 0;
  bool all_positive = true;
  bool common = false;
  bool not_equal = false;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!ask.Has(k)) continue;
    if (total_empty && ask.Get(k) <= 0) all_positive = false;
    if (total.Has(k)) {
      common = true;
      if (total.Get(k) > ask.Get(k)) return false;
      if (total.Get(k) != ask.Get(k)) not_equal = true;
    }
  }
  if (total_empty && ask.present != 0) return all_positive;
  if (common) return not_equal;
  return ask.present != 0 && !total_empty;
}

// Equality by value, a missing type counting as 0.
bool SameValues(const Resource& a, const Resource& b) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (a.Get(k) != b.Get(k)) return false;
  }
  return true;
}

// Whether adding `v` to `available` lowers max(0, ask - available) in some type.
bool LowersShortfall(const Resource& ask, const Resource& available, const Resource& v) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    int64_t before = std::max<int64_t>(0, SaturatingSub(ask.Get(k), available.Get(k)));
    int64_t after =
        std::max<int64_t>(0, SaturatingSub(ask.Get(k), SaturatingAdd(available.Get(k), v.Get(k))));
    if (before != after) return true;
  }
  return false;
}

bool IsLiveInQueue(AppState s) {
  return s == AppState::kNew || s == AppState::kAccepted || s == AppState::kStarting ||
         s == AppState::kRunning || s == AppState::kCompleting || s == AppState::kResuming ||
         s == AppState::kFailing;
}

// ---- State --------------------------------------------------------------------------------

// A child template (§3.4): what a dynamic leaf created below gets.
struct TemplateR {
  PropertyMap properties;
  std::optional<Resource> guaranteed;
  std::optional<Resource> max;
  uint64_t max_apps = 0;
};

// One user or group limit entry of a queue (Appendix A.2).
struct LimitR {
  uint64_t max_apps = 0;            // 0 = unlimited
  std::optional<Resource> max_res;  // nil = unlimited
};

struct QueueLimitsR {
  std::vector<std::pair<std::string, LimitR>> users;   // named, config order
  std::vector<std::pair<std::string, LimitR>> groups;  // named, config order
  std::optional<LimitR> any_user;
  std::optional<LimitR> any_group;
};

struct QueueR {
  std::string name;
  std::string path;
  int parent = -1;
  std::vector<int> children;
  bool leaf = false;
  std::string sort_policy = "fifo";
  bool priority_sort = true;
  bool fence = false;
  int32_t offset = 0;
  uint64_t unsched_backoff = 0;           // 1.9: application.unschedasks.backoff
  int64_t unsched_backoff_delay = 30000;  // 1.9: application.unschedasks.backoff.delay (ms)
  std::optional<Resource> guaranteed;
  std::optional<Resource> max;
  uint64_t max_apps = 0;
  Acl submit_acl;
  Acl admin_acl;
  uint64_t running = 0;
  std::vector<std::string> allocating_accepted;  // app ids (a set)
  PropertyMap props;                             // merged properties (own + inherited)
  std::optional<TemplateR> own_template;         // configured queues only
  QueueLimitsR limits;                           // configured queues only
  bool dynamic = false;
  bool removed = false;  // a dynamic queue deleted once empty (indices stay stable)
  // 1.9 quota-change preemption: quota.preemption.delay (ms, 0 = off) and the start time.
  int64_t quota_delay = 0;
  std::optional<int64_t> quota_start;
  // Every type an allocation below the queue ever had: YuniKorn's usage keeps a type at 0 once
  // its allocations are gone, and the quota comparisons tell 0 from absent.
  ResourceMask allocated_types = 0;
};

struct AskR {
  std::string id;
  Resource res;
  int32_t priority = 0;
  int64_t pending = 0;
  int64_t create_seq = 0;
  int64_t create_time = 0;
  std::string task_group;
  bool placeholder = false;
  std::string required_node;
  bool allow_preemption = true;
  bool originator = false;
  bool preemption_triggered = false;
  std::optional<int64_t> preempt_check;  // last time the general preconditions passed
};

// Per task group: placeholder asks added (one per AddAsk call), replaced, timed out.
struct TaskGroupR {
  std::string name;
  int64_t count = 0;
  int64_t replaced = 0;
  int64_t timed_out = 0;
};

struct AppR {
  std::string id;
  int queue = -1;          // -1 for rejected applications
  std::string queue_path;  // the requested queue for rejected applications
  std::string user;
  std::vector<std::string> groups;
  std::string limit_group;  // the group whose limits apply (A.2), empty = none
  bool stateaware_disable = false;
  AppState state = AppState::kNew;
  int64_t submit_seq = 0;
  int64_t submit_time = 0;       // lowered by asks' creation times under 1.9
  int64_t backoff_deadline = 0;  // 1.9: the regular walk skips the app while now < it
  std::vector<AskR> asks;
  bool removed = false;  // RemoveApplication: forgotten
  bool has_timer = false;
  int64_t timer_due = 0;
  int64_t timer_seq = 0;
  // Gang scheduling.
  bool gang_hard = false;
  int64_t placeholder_timeout = 15 * 60 * 1000;
  Resource placeholder_ask;
  std::vector<TaskGroupR> task_groups;
  bool has_ph_timer = false;
  int64_t ph_timer_due = 0;
  int64_t ph_timer_seq = 0;
};

struct NodeR {
  std::string id;
  Resource capacity;
  Resource occupied;
  bool schedulable = true;
  // After a change the node order was not told of (1.9: other schedulers' pods, resizes): the
  // free space at the node's last notified change (an allocation or release on it, a
  // reservation, an update), which the order scores it by until the next one.
  std::optional<Resource> scored_available;
};

// A pod of another scheduler.
struct ForeignR {
  std::string id;
  std::string node;
  Resource res;
};

struct AllocR {
  int app = -1;
  std::string ask;
  std::string node;
  Resource res;
  int32_t priority = 0;
  // Allocation order over the model's life, recovered allocations included: "oldest" and the
  // identity of victims. `record_seq` is what decisions carry (0: recovered, no seq).
  int64_t seq = 0;
  int64_t record_seq = 0;
  // Copied from the ask when allocated.
  bool placeholder = false;
  std::string task_group;
  bool required_node = false;
  bool allow_preemption = true;
  bool originator = false;
  int64_t ask_create_time = 0;
  int64_t ask_create_seq = 0;
};

// A required-node preemption victim, released when the cycle ends.
struct VictimR {
  int64_t alloc_seq = 0;
  std::string by_app;
  std::string by_ask;
};

struct ReservationR {
  int app = -1;
  std::string ask;
  std::string node;
  int64_t seq = 0;
  int64_t created = 0;  // YUNIKORN-3219 counts the wait from here
};

struct PartitionR {
  std::string name;
  std::vector<PlacementRuleConfig> rules;
  std::vector<QueueR> queues;  // index 0 is the root
  std::vector<AppR> apps;      // every record, in submission order
  std::vector<NodeR> nodes;
  std::vector<AllocR> allocs;  // live allocations
  std::vector<ForeignR> foreign;
  std::vector<ReservationR> reservations;
  bool binpacking = false;
  std::vector<std::pair<std::string, double>> weights;
  std::vector<VictimR> victims;     // chosen in the current cycle
  bool preemption = false;          // general preemption enabled
  bool quota_preemption = false;    // 1.9: preemption.quotapreemptionenabled
  bool had_node = false;            // a node was registered at some point
  ResourceMask capacity_types = 0;  // every type a node capacity ever had (kept at 0 after)
};

enum class Kind { kNone, kAllocated, kAllocatedReserved, kReserved, kUnreserved, kPreempted };

struct Result {
  Kind kind = Kind::kNone;
  int app = -1;
  std::string ask;
  std::string node;
  int64_t reservation = -1;      // seq of the reservation to remove (AllocatedReserved, Unreserved)
  std::vector<int64_t> victims;  // kPreempted: allocation seqs
};

// 1.6+ users: ^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$
bool IsUserNameWide(const std::string& s) {
  if (s.empty() || !(s[0] == '_' || absl::ascii_isalpha(static_cast<unsigned char>(s[0])))) {
    return false;
  }
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == '$' && i + 1 == s.size()) return true;
    bool ok = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '#' ||
              c == '/' || c == '_' || c == '.' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

// ---- Public helpers ---------------------------------------------------------------------

NamedQuantities ToNamed(const Resource& r, const ResourceTypes& types, bool keep_zeros) {
  NamedQuantities out;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!r.Has(k)) continue;
    if (r.Get(k) == 0 && !keep_zeros) continue;
    std::string name = k < types.size() ? types.Name(k) : Cat("#", k);
    out[name] = r.Get(k);
  }
  return out;
}

std::string ToString(const NamedQuantities& q) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : q) {
    out += Cat(first ? "" : ",", k, ":", v);
    first = false;
  }
  return out + "}";
}

std::string_view StateName(AppState state) { return AppStateName(state); }

RefDecision RefDecision::Normalized() const {
  RefDecision d;
  d.type = type;
  d.partition = partition;
  d.app = app;
  switch (type) {
    case DecisionType::kAllocation:
      d.queue = queue;
      d.ask = ask;
      d.node = node;
      d.priority = priority;
      d.seq = seq;
      d.placeholder = placeholder;
      d.replaces = replaces;
      break;
    case DecisionType::kRecovered:
      d.queue = queue;
      d.ask = ask;
      d.node = node;
      d.priority = priority;
      d.placeholder = placeholder;
      break;
    case DecisionType::kRelease:
      d.queue = queue;
      d.ask = ask;
      d.node = node;
      d.seq = seq;
      d.release_reason = release_reason;
      d.placeholder = placeholder;
      d.by_app = by_app;
      d.by_ask = by_ask;
      d.by_queue = by_queue;
      break;
    case DecisionType::kQuotaPreemption:
      d.queue = queue;
      d.count = count;
      d.quota_max = quota_max;
      d.quota_preemptable = quota_preemptable;
      break;
    case DecisionType::kAskRemoved:
      d.ask = ask;
      d.count = count;
      d.release_reason = release_reason;
      break;
    case DecisionType::kAppState:
      d.from = from;
      d.to = to;
      break;
    case DecisionType::kAppRejected:
      break;
    case DecisionType::kPreemption:
      d.queue = queue;
      d.ask = ask;
      d.node = node;
      d.count = count;
      break;
  }
  return d;
}

std::string RefDecision::ToString() const {
  switch (type) {
    case DecisionType::kAllocation:
      return Cat("allocation #", seq, " [", partition, "] ", queue, " ", app, "/", ask, " -> ",
                 node, " prio ", priority, placeholder ? " placeholder" : "",
                 replaces.empty() ? "" : " replaces ", replaces);
    case DecisionType::kRecovered:
      return Cat("recovered [", partition, "] ", queue, " ", app, "/", ask, " on ", node, " prio ",
                 priority, placeholder ? " placeholder" : "");
    case DecisionType::kRelease:
      return Cat("release [", partition, "] ", queue, " ", app, "/", ask, " on ", node, " (",
                 ReleaseReasonName(release_reason), by_app.empty() ? "" : " by ", by_app,
                 by_app.empty() ? "" : "/", by_ask, by_queue.empty() ? "" : " by ", by_queue, ")");
    case DecisionType::kQuotaPreemption:
      return Cat("quota_preemption [", partition, "] ", queue, " max ",
                 quota_max ? allocore::reference::ToString(*quota_max) : "none", " preemptable ",
                 allocore::reference::ToString(quota_preemptable), " victims ", count);
    case DecisionType::kAskRemoved:
      return Cat("ask_removed [", partition, "] ", app, "/", ask, " x", count, " (",
                 ReleaseReasonName(release_reason), ")");
    case DecisionType::kAppState:
      return Cat("app_state [", partition, "] ", app, " ", StateName(from), " -> ", StateName(to));
    case DecisionType::kAppRejected:
      return Cat("app_rejected [", partition, "] ", app, ": ", reason);
    case DecisionType::kPreemption:
      return Cat("preemption [", partition, "] ", queue, " ", app, "/", ask, " -> ", node, " x",
                 count, " victims");
  }
  return "?";
}

bool operator==(const RefDecision& a, const RefDecision& b) {
  RefDecision x = a.Normalized();
  RefDecision y = b.Normalized();
  return x.type == y.type && x.partition == y.partition && x.queue == y.queue && x.app == y.app &&
         x.ask == y.ask && x.node == y.node && x.priority == y.priority && x.seq == y.seq &&
         x.from == y.from && x.to == y.to && x.release_reason == y.release_reason &&
         x.count == y.count && x.placeholder == y.placeholder && x.replaces == y.replaces &&
         x.by_app == y.by_app && x.by_ask == y.by_ask && x.by_queue == y.by_queue &&
         x.quota_max == y.quota_max && x.quota_preemptable == y.quota_preemptable;
}

RefDecision FromKernelDecision(const Decision& d, const ResourceTypes* types) {
  RefDecision r;
  r.type = d.type;
  r.partition = std::string(d.partition);
  r.queue = std::string(d.queue);
  r.app = std::string(d.app);
  r.ask = std::string(d.ask);
  r.node = std::string(d.node);
  r.priority = d.priority;
  r.seq = d.seq;
  r.from = d.from;
  r.to = d.to;
  r.reason = d.reason;
  r.release_reason = d.release_reason;
  r.count = d.count;
  r.placeholder = d.placeholder;
  r.replaces = std::string(d.replaces);
  r.by_app = std::string(d.by_app);
  r.by_ask = std::string(d.by_ask);
  if (d.type == DecisionType::kRelease && d.quota != nullptr) {
    r.by_queue = std::string(d.quota->queue);
  }
  if (d.quota != nullptr && types != nullptr) {
    if (d.quota->max) r.quota_max = ToNamed(*d.quota->max, *types, /*keep_zeros=*/true);
    r.quota_preemptable = ToNamed(d.quota->preemptable, *types, /*keep_zeros=*/true);
  }
  return r;
}

// ---- The model --------------------------------------------------------------------------

class ReferenceModel::Impl {
 public:
  absl::Status Init(const SchedulerConfig& config);
  // The YuniKorn release decided like; set before Init.
  Semantics semantics_ = Semantics::kYunikorn12;
  bool v19() const { return semantics_ == Semantics::kYunikorn19; }

  absl::Status AddNode(const NodeSpec& spec, std::vector<RefDecision>* out);
  absl::Status UpdateNode(const NodeUpdate& update, std::vector<RefDecision>* out);
  absl::Status RemoveNode(std::string_view partition, std::string_view id,
                          std::vector<RefDecision>* out);
  absl::Status AddApplication(const AppSpec& spec, std::vector<RefDecision>* out);
  absl::Status RemoveApplication(std::string_view partition, std::string_view id,
                                 std::vector<RefDecision>* out);
  absl::Status AddAsk(const AskSpec& spec, std::vector<RefDecision>* out);
  absl::Status RemoveAsk(std::string_view partition, std::string_view app, std::string_view ask,
                         std::vector<RefDecision>* out);
  absl::Status ReleaseAllocation(std::string_view partition, std::string_view app,
                                 std::string_view ask, std::string_view node, int64_t seq,
                                 std::vector<RefDecision>* out);
  absl::Status Advance(int64_t millis, std::vector<RefDecision>* out);
  absl::StatusOr<int64_t> Schedule(int64_t max, std::string_view partition,
                                   std::vector<RefDecision>* out);
  absl::Status RecoverAllocation(const RecoverSpec& spec, std::vector<RefDecision>* out);
  absl::Status UpdateAllocation(const AllocationUpdate& update, std::vector<RefDecision>* out);
  absl::Status UpdateAsk(const AskUpdate& update, std::vector<RefDecision>* out);
  absl::Status AddForeign(const ForeignAllocationSpec& spec, std::vector<RefDecision>* out);
  absl::Status UpdateForeign(const ForeignAllocationUpdate& update, std::vector<RefDecision>* out);
  absl::Status RemoveForeign(std::string_view partition, std::string_view id,
                             std::vector<RefDecision>* out);

  int64_t now() const { return now_; }
  std::vector<std::string> PartitionNames() const;
  std::vector<std::string> QueuePaths(std::string_view partition) const;
  absl::StatusOr<RefQueueInfo> GetQueue(std::string_view partition, std::string_view path) const;
  absl::StatusOr<RefAppInfo> GetApplication(std::string_view partition, std::string_view id) const;
  std::vector<std::string> ApplicationIds(std::string_view partition) const;
  int64_t ReservationCount(std::string_view partition) const;
  const ResourceTypes& types() const { return types_; }

 private:
  // Config.
  absl::Status AddQueue(PartitionR& p, const QueueConfig& qc, int parent,
                        const PropertyMap& inherited);
  absl::StatusOr<Resource> ToResource(const std::vector<std::pair<std::string, int64_t>>& q);
  // The node order hears of a change of the node: its score is computed afresh.
  void Notified(PartitionR& p, const std::string& node);
  // Removes the reservations `drop` selects; their nodes hear of it.
  template <typename Pred>
  void EraseReservations(PartitionR& p, Pred drop) {
    for (const ReservationR& r : p.reservations) {
      if (drop(r)) Notified(p, r.node);
    }
    p.reservations.erase(std::remove_if(p.reservations.begin(), p.reservations.end(), drop),
                         p.reservations.end());
  }
  // The node's free space changed by a call the node order may not hear of (1.9).
  void FreeSpaceChanged(PartitionR& p, NodeR& node, const Resource& before);
  // A pod that runs: a live allocation of `ask` without a seq, and the app's state follows.
  void PlaceRunning(PartitionR& p, int a, const AskR& ask, const std::string& node,
                    const Resource& res, std::vector<RefDecision>* out);
  bool HasLive(const PartitionR& p, int a, const std::string& ask_id) const;
  absl::Status ResizeLive(PartitionR& p, int a, const std::string& ask_id, const std::string& node,
                          const Resource& res);
  absl::StatusOr<QueueLimitsR> ToLimits(const std::vector<LimitConfig>& list);
  void ApplyProperties(QueueR& q) const;

  // Admission: placement rules (§8.2, §8.3), dynamic queues (§3.3, §3.4).
  enum class PlaceKind { kNoMatch, kError, kPlaced };
  struct Placed {
    PlaceKind kind = PlaceKind::kNoMatch;
    std::string path;  // lower-cased full path
  };
  Placed PlaceRule(const PartitionR& p, const PlacementRuleConfig& rule, const AppSpec& spec,
                   const std::vector<std::string>& groups) const;
  int DeepestExisting(const PartitionR& p, const std::string& path) const;
  int CreateDynamicQueues(PartitionR& p, const std::string& path, const std::string& user,
                          const std::vector<std::string>& groups);
  int NearestTemplate(const PartitionR& p, int q) const;
  int CreateRecoveryQueue(PartitionR& p);
  void RemoveEmptyDynamicQueues(PartitionR& p);
  void QueuePathsFrom(const PartitionR& p, int q, std::vector<std::string>* out) const;

  // User/group limits (A.2).
  std::string ChooseLimitGroup(const PartitionR& p, int leaf, const AppR& app) const;
  static const LimitR* UserLimit(const QueueR& q, const std::string& user);
  static const LimitR* GroupLimit(const QueueR& q, const std::string& group);
  bool LimitsAllowRun(const PartitionR& p, int app) const;
  bool LimitsFit(const PartitionR& p, int app, const Resource& ask) const;

  // Lookups.
  PartitionR* FindPartition(std::string_view name);
  const PartitionR* FindPartition(std::string_view name) const;
  int FindQueue(const PartitionR& p, std::string_view path) const;
  int FindActiveApp(const PartitionR& p, std::string_view id) const;
  int FindNode(const PartitionR& p, std::string_view id) const;
  static AskR* FindAsk(AppR& app, std::string_view id);

  // Derived values, recomputed from scratch on every use.
  bool InSubtree(const PartitionR& p, int q, int ancestor) const;
  Resource AppPending(const AppR& app) const;
  Resource AppAllocated(const PartitionR& p, int app) const;
  int32_t AppPriority(const AppR& app) const;
  Resource QueuePending(const PartitionR& p, int q) const;
  // Whether the partition's total capacity / pending stays within int64 with `capacity` in
  // place of node `replaced` (-1: a new node) / with the ask (app, ask_id) set to res x count.
  bool CapacitySumFits(const PartitionR& p, int replaced, const Resource& capacity) const;
  bool PendingSumFits(const PartitionR& p, int app, std::string_view ask_id, const Resource& res,
                      int64_t count) const;
  Resource QueueAllocated(const PartitionR& p, int q) const;
  int32_t QueueEffectivePriority(const PartitionR& p, int q) const;
  Resource RootMax(const PartitionR& p) const;
  Resource PrunedRootMax(const PartitionR& p) const;
  std::optional<Resource> QueueMax(const PartitionR& p, int q) const;
  Resource Headroom(const PartitionR& p, int q) const;
  bool CanIncAllocated(const PartitionR& p, int leaf, const Resource& delta) const;
  bool CanRunApp(const PartitionR& p, int app) const;
  Resource NodeAvailable(const PartitionR& p, const NodeR& node) const;
  double NodeScore(const PartitionR& p, const NodeR& node) const;
  bool NodeReserved(const PartitionR& p, const std::string& node) const;
  std::vector<int> NodeIterator(const PartitionR& p) const;
  std::vector<int> SortedChildren(const PartitionR& p, int q) const;

  // ---- 1.9 quota-change preemption (objects/queue.go, objects/quota_preemptor.go) ----------
  // The queue's max as YuniKorn's queue holds it (the root: the cluster, when above zero).
  std::optional<Resource> QuotaMaxOf(const PartitionR& p, int q) const;
  // Usage with the types allocations below the queue ever had (0 where nothing is left).
  Resource QuotaUsed(const PartitionR& p, int q) const;
  void NoteAllocatedTypes(PartitionR& p, int app, const Resource& res);
  // IncAllocatedResource's check, on every queue of the app's path.
  void QuotaIncAllocated(PartitionR& p, int app);
  bool AnyQuotaStart() const;
  void QuotaCheck(PartitionR& p, std::vector<RefDecision>* out);
  void TryQuotaPreemption(PartitionR& p, int q, std::vector<RefDecision>* out);
  void RunQuotaPreemption(PartitionR& p, int q, std::vector<RefDecision>* out);
  Resource PreemptableOnPath(const PartitionR& p, int q) const;
  void ChildrenPreemptable(const PartitionR& p, int q, const Resource& amount,
                           std::vector<std::pair<int, Resource>>* leaves) const;
  double DominantShare(const PartitionR& p, int q) const;
  std::vector<int> SortedApps(const PartitionR& p, int q) const;
  std::vector<const AskR*> SortedAsks(const AppR& app) const;
  bool SubmitAllowed(const PartitionR& p, int q, const std::string& user,
                     const std::vector<std::string>& groups) const;

  // Scheduling.
  bool TryNode(const PartitionR& p, int app, const AskR& ask, const NodeR& node) const;
  Result TryNodes(const PartitionR& p, int app, const AskR& ask,
                  const std::vector<int>& iterator) const;
  Result AppTryAllocate(PartitionR& p, int app, const Resource& headroom, int* budget);
  Result QueueTryAllocate(PartitionR& p, int q);
  Result AppTryReservedAllocate(PartitionR& p, int app, const Resource& headroom);
  Result QueueTryReservedAllocate(PartitionR& p, int q);
  void MarkAllocatingAccepted(PartitionR& p, int app);
  // One cycle step for a partition; returns true when anything changed.
  bool ScheduleStep(PartitionR& p, int64_t* allocations, std::vector<RefDecision>* out);
  void Commit(PartitionR& p, const Result& r, std::vector<RefDecision>* out);
  void RemoveReservation(PartitionR& p, int64_t seq);
  void RemoveNodeReservations(PartitionR& p, const std::string& node);

  // App state machine.
  void SetState(PartitionR& p, int app, AppState to, std::vector<RefDecision>* out);
  void ForgetAllocatingAccepted(PartitionR& p, int app);
  void IncRunning(PartitionR& p, int leaf);
  void DecRunning(PartitionR& p, int leaf);
  void SetTimer(AppR& app, int64_t delay);
  // After an ask removal (`ask_removal`: nothing allocated at all) or a release (no real
  // allocation left).
  void CompletionCheck(PartitionR& p, int app, std::vector<RefDecision>* out, bool ask_removal);
  // `follow_up`: the completion check of a real allocation, or the placeholder follow-ups.
  void ReleaseAlloc(PartitionR& p, size_t index, std::vector<RefDecision>* out,
                    ReleaseReason reason, bool follow_up, const std::string& by_app = "",
                    const std::string& by_ask = "", const std::string& by_queue = "");

  // Gang scheduling, naively: every value recomputed from the allocations.
  TaskGroupR* FindTaskGroup(AppR& app, const std::string& name);
  bool WaitsForReplacement(const AppR& app, const AskR& ask) const;
  int64_t LivePlaceholders(const PartitionR& p, int app) const;
  Resource PlaceholderTotal(const PartitionR& p, int app) const;
  bool HasRealAllocation(const PartitionR& p, int app) const;
  void SetPlaceholderTimer(AppR& app, bool on);
  void PlaceholderGone(PartitionR& p, int app, std::vector<RefDecision>* out);
  void PlaceholderTimeout(PartitionR& p, int app, std::vector<RefDecision>* out);
  bool QueueTryPlaceholderAllocate(PartitionR& p, int q, bool* released,
                                   std::vector<RefDecision>* out);
  bool AppTryPlaceholderAllocate(PartitionR& p, int app, bool* released,
                                 std::vector<RefDecision>* out);
  void Replace(PartitionR& p, int app, const std::string& ask_id, int64_t placeholder_seq,
               std::vector<RefDecision>* out);
  void Run(PartitionR& p, int app, std::vector<RefDecision>* out);
  size_t AllocIndex(const PartitionR& p, int64_t seq) const;
  // Required nodes.
  void TryPreemption(PartitionR& p, int app, AskR& ask, const NodeR& node);
  // General preemption (kernel/preemption-semantics.md, §10 binding): true with `result` set
  // to a kPreempted result when the attempt succeeds.
  bool TryGeneralPreemption(PartitionR& p, int app, const std::string& ask_id, bool nodes_tried,
                            int* budget, Result* result);
  // R(Q) of §2.2 for the ask leaf `ask_leaf`, with queue usage `used` (by queue index).
  std::optional<Resource> Remaining(const PartitionR& p, int q, int ask_leaf,
                                    const std::vector<Resource>& used) const;
  void CommitPreemption(PartitionR& p, const Result& r, std::vector<RefDecision>* out);
  void ReleaseVictims(PartitionR& p, std::vector<RefDecision>* out);

  std::vector<PartitionR> partitions_;
  ResourceTypes types_;
  int64_t now_ = 0;
  // user -> (groups, logical time stored): one cache for every partition (§8.1).
  std::map<std::string, std::pair<std::vector<std::string>, int64_t>> user_groups_;
  std::vector<std::string> ResolveGroups(const std::string& user,
                                         const std::vector<std::string>& given) {
    if (user.empty()) return given;
    if (given.empty()) {
      auto it = user_groups_.find(user);
      if (it != user_groups_.end() && now_ - it->second.second < kUserGroupCacheMs) {
        return it->second.first;
      }
    }
    std::vector<std::string> groups = given.empty() ? std::vector<std::string>{user} : given;
    user_groups_[user] = {groups, now_};
    return groups;
  }
  bool cancelled_reservation_ = false;  // in the current schedule step
  int64_t alloc_seq_ = 0;
  int64_t record_seq_ = 0;
  int64_t ask_seq_ = 0;
  int64_t app_seq_ = 0;
  int64_t reservation_seq_ = 0;
  int64_t timer_seq_ = 0;
};

// ---- Config -------------------------------------------------------------------------------

absl::StatusOr<Resource> ReferenceModel::Impl::ToResource(
    const std::vector<std::pair<std::string, int64_t>>& q) {
  Resource r;
  for (const auto& [name, value] : q) {
    if (value < 0) {
      return absl::InvalidArgumentError(Cat("negative quantity for resource ", name));
    }
    absl::StatusOr<int> type = types_.Intern(name);
    if (!type.ok()) return type.status();
    r.Set(*type, value);
  }
  return r;
}

namespace {

// A refused call registers no resource type: the registry is put back unless committed.
class TypesRollback {
 public:
  explicit TypesRollback(ResourceTypes* types) : types_(types), saved_(*types) {}
  ~TypesRollback() {
    if (!committed_) *types_ = saved_;
  }
  void Commit() { committed_ = true; }

 private:
  ResourceTypes* types_;
  ResourceTypes saved_;
  bool committed_ = false;
};

// Exact sums: quantities are never negative, so a sum above int64 is the only way to lose
// exactness, and the kernel refuses the call that would do it (kernel/README decision 22).
__extension__ typedef __int128 Wide;
bool FitsInt64(Wide v) { return v <= std::numeric_limits<int64_t>::max(); }

}  // namespace

absl::Status ReferenceModel::Impl::Init(const SchedulerConfig& config) {
  for (const PartitionConfig& pc : config.partitions) {
    PartitionR& p = partitions_.emplace_back();
    p.name = pc.name;
    p.binpacking = pc.node_sort_policy.type == "binpacking";
    p.weights = pc.node_sort_policy.resource_weights;
    p.rules = pc.placement_rules;
    // decision 34.1: absent = off in v1.2.0, on in 1.4+.
    p.preemption = pc.preemption_enabled.value_or(v19());
    p.quota_preemption = v19() && pc.quota_preemption_enabled.value_or(false);
    if (pc.queues.size() != 1) return absl::InvalidArgumentError("expected a single root queue");
    absl::Status s = AddQueue(p, pc.queues[0], -1, {});
    if (!s.ok()) return s;
    // Partition limits apply to the root when the root has none of its own (A.2).
    if (pc.queues[0].limits.empty()) {
      absl::StatusOr<QueueLimitsR> limits = ToLimits(pc.limits);
      if (!limits.ok()) return limits.status();
      p.queues[0].limits = *limits;
    }
  }
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::AddQueue(PartitionR& p, const QueueConfig& qc, int parent,
                                            const PropertyMap& inherited) {
  int index = static_cast<int>(p.queues.size());
  p.queues.emplace_back();
  {
    QueueR& q = p.queues.back();
    q.name = Lower(qc.name);
    q.parent = parent;
    q.path = parent < 0 ? q.name : Cat(p.queues[static_cast<size_t>(parent)].path, ".", q.name);
    q.leaf = parent >= 0 && !qc.parent && qc.queues.empty();
    q.max_apps = qc.max_applications;
    q.submit_acl = ParseAcl(qc.submit_acl);
    q.admin_acl = ParseAcl(qc.admin_acl);
  }
  // Resources (nil when unset or not strictly positive, §3.5).
  std::optional<Resource> guaranteed;
  std::optional<Resource> max;
  if (qc.resources.guaranteed.has_value()) {
    absl::StatusOr<Resource> r = ToResource(*qc.resources.guaranteed);
    if (!r.ok()) return r.status();
    if (StrictlyGreaterThanZero(*r)) guaranteed = *r;
  }
  if (qc.resources.max.has_value()) {
    absl::StatusOr<Resource> r = ToResource(*qc.resources.max);
    if (!r.ok()) return r.status();
    if (StrictlyGreaterThanZero(*r)) max = *r;
  }
  // Properties: the parent's merged properties filtered, overlaid by the queue's own.
  PropertyMap merged = inherited;
  for (const auto& [k, v] : qc.properties) SetProperty(merged, k, v);
  absl::StatusOr<QueueLimitsR> limits = ToLimits(qc.limits);
  if (!limits.ok()) return limits.status();
  std::optional<TemplateR> own_template;
  if (qc.child_template.has_value()) {
    const ChildTemplateConfig& tc = *qc.child_template;
    TemplateR t;
    bool exists = tc.max_applications > 0;
    for (const auto& [k, v] : tc.properties) {
      if (!k.empty() && !v.empty()) {
        SetProperty(t.properties, k, v);
        exists = true;
      }
    }
    if (tc.resources.guaranteed.has_value()) {
      absl::StatusOr<Resource> r = ToResource(*tc.resources.guaranteed);
      if (!r.ok()) return r.status();
      if (!tc.resources.guaranteed->empty()) exists = true;
      if (StrictlyGreaterThanZero(*r)) t.guaranteed = *r;
    }
    if (tc.resources.max.has_value()) {
      absl::StatusOr<Resource> r = ToResource(*tc.resources.max);
      if (!r.ok()) return r.status();
      if (!tc.resources.max->empty()) exists = true;
      if (StrictlyGreaterThanZero(*r)) t.max = *r;
    }
    t.max_apps = tc.max_applications;
    if (exists) own_template = t;
  }
  QueueR& q = p.queues[static_cast<size_t>(index)];
  q.guaranteed = guaranteed;
  q.max = max;
  q.props = merged;
  q.limits = *limits;
  q.own_template = own_template;
  ApplyProperties(q);
  PropertyMap for_children = FilterParentProperties(merged);
  for (const QueueConfig& child : qc.queues) {
    int child_index = static_cast<int>(p.queues.size());
    absl::Status s = AddQueue(p, child, index, for_children);
    if (!s.ok()) return s;
    p.queues[static_cast<size_t>(index)].children.push_back(child_index);
  }
  return absl::OkStatus();
}

absl::StatusOr<QueueLimitsR> ReferenceModel::Impl::ToLimits(const std::vector<LimitConfig>& list) {
  QueueLimitsR out;
  for (const LimitConfig& lc : list) {
    LimitR limit;
    limit.max_apps = lc.max_applications;
    if (lc.max_resources.has_value()) {
      absl::StatusOr<Resource> r = ToResource(*lc.max_resources);
      if (!r.ok()) return r.status();
      limit.max_res = *r;
    }
    // The config is valid: every name appears once per queue.
    for (const std::string& u : lc.users) {
      if (u == "*") {
        out.any_user = limit;
      } else {
        out.users.emplace_back(u, limit);
      }
    }
    for (const std::string& g : lc.groups) {
      if (g == "*") {
        out.any_group = limit;
      } else {
        out.groups.emplace_back(g, limit);
      }
    }
  }
  return out;
}

// Derived settings of a queue from its merged properties (§2.5, item 27).
void ReferenceModel::Impl::ApplyProperties(QueueR& q) const {
  const PropertyMap& merged = q.props;
  q.sort_policy = "fifo";
  q.priority_sort = true;
  q.fence = false;
  q.offset = 0;
  if (const std::string* v = FindProperty(merged, "application.sort.policy")) {
    q.sort_policy = (*v == "fifo" || *v == "fair" || *v == "stateaware") ? *v : "fifo";
    if (v19() && q.sort_policy == "stateaware") q.sort_policy = "fifo";  // YUNIKORN-2483
  }
  if (!q.leaf) q.sort_policy = "fair";
  if (const std::string* v = FindProperty(merged, "application.sort.priority")) {
    q.priority_sort = Lower(*v) != "disabled";
  }
  if (const std::string* v = FindProperty(merged, "priority.policy")) {
    q.fence = Lower(*v) == "fence";
  }
  if (const std::string* v = FindProperty(merged, "priority.offset")) q.offset = ParseOffset(*v);
  q.unsched_backoff = 0;
  q.unsched_backoff_delay = 30000;
  if (!v19()) return;  // YUNIKORN-3115 is 1.8+
  if (const std::string* v = FindProperty(merged, "application.unschedasks.backoff")) {
    // strconv.ParseUint(v, 10, 64): digits only, no sign, no overflow; otherwise 0.
    uint64_t n = 0;
    bool ok = !v->empty();
    for (char c : *v) {
      if (c < '0' || c > '9' || n > (UINT64_MAX - static_cast<uint64_t>(c - '0')) / 10) {
        ok = false;
        break;
      }
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    q.unsched_backoff = ok ? n : 0;
  }
  if (const std::string* v = FindProperty(merged, "application.unschedasks.backoff.delay")) {
    std::optional<int64_t> nanos = ParseGoDurationNs(*v);
    if (nanos && *nanos > 0) q.unsched_backoff_delay = (*nanos - 1) / 1'000'000 + 1;
  }
  q.quota_delay = 0;
  if (const std::string* v = FindProperty(merged, "quota.preemption.delay")) {
    std::optional<int64_t> nanos = ParseGoDurationNs(*v);
    if (nanos && *nanos > 0) q.quota_delay = (*nanos - 1) / 1'000'000 + 1;
  }
}

// ---- Lookups ------------------------------------------------------------------------------

PartitionR* ReferenceModel::Impl::FindPartition(std::string_view name) {
  for (PartitionR& p : partitions_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const PartitionR* ReferenceModel::Impl::FindPartition(std::string_view name) const {
  for (const PartitionR& p : partitions_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

int ReferenceModel::Impl::FindQueue(const PartitionR& p, std::string_view path) const {
  std::string lower = Lower(path);
  for (size_t i = 0; i < p.queues.size(); ++i) {
    if (!p.queues[i].removed && p.queues[i].path == lower) return static_cast<int>(i);
  }
  return -1;
}

int ReferenceModel::Impl::FindActiveApp(const PartitionR& p, std::string_view id) const {
  for (size_t i = 0; i < p.apps.size(); ++i) {
    const AppR& a = p.apps[i];
    if (a.id == id && !a.removed && a.queue >= 0 && IsLiveInQueue(a.state)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int ReferenceModel::Impl::FindNode(const PartitionR& p, std::string_view id) const {
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (p.nodes[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

AskR* ReferenceModel::Impl::FindAsk(AppR& app, std::string_view id) {
  for (AskR& a : app.asks) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

// ---- Derived values -----------------------------------------------------------------------

bool ReferenceModel::Impl::InSubtree(const PartitionR& p, int q, int ancestor) const {
  for (; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    if (q == ancestor) return true;
  }
  return false;
}

Resource ReferenceModel::Impl::AppPending(const AppR& app) const {
  Resource r;
  for (const AskR& ask : app.asks) {
    if (ask.pending > 0) r = Add(r, Multiply(ask.res, ask.pending));
  }
  return r;
}

Resource ReferenceModel::Impl::AppAllocated(const PartitionR& p, int app) const {
  Resource r;
  for (const AllocR& a : p.allocs) {
    if (a.app == app) r = Add(r, a.res);
  }
  return r;
}

int32_t ReferenceModel::Impl::AppPriority(const AppR& app) const {
  int32_t best = kMinPriority;
  for (const AskR& ask : app.asks) {
    if (ask.pending > 0 && ask.priority > best) best = ask.priority;
  }
  return best;
}

Resource ReferenceModel::Impl::QueuePending(const PartitionR& p, int q) const {
  Resource r;
  for (const AppR& a : p.apps) {
    if (a.removed || a.queue < 0 || !IsLiveInQueue(a.state)) continue;
    if (InSubtree(p, a.queue, q)) r = Add(r, AppPending(a));
  }
  return r;
}

bool ReferenceModel::Impl::CapacitySumFits(const PartitionR& p, int replaced,
                                           const Resource& capacity) const {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    Wide sum = capacity.Get(k);
    for (size_t n = 0; n < p.nodes.size(); ++n) {
      if (static_cast<int>(n) != replaced) sum += p.nodes[n].capacity.Get(k);
    }
    if (!FitsInt64(sum)) return false;
  }
  return true;
}

bool ReferenceModel::Impl::PendingSumFits(const PartitionR& p, int app, std::string_view ask_id,
                                          const Resource& res, int64_t count) const {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    Wide sum = static_cast<Wide>(res.Get(k)) * count;
    for (size_t i = 0; i < p.apps.size(); ++i) {
      const AppR& a = p.apps[i];
      if (a.removed || a.queue < 0 || !IsLiveInQueue(a.state)) continue;
      for (const AskR& ask : a.asks) {
        if (static_cast<int>(i) == app && ask.id == ask_id) continue;  // replaced
        if (ask.pending > 0) sum += static_cast<Wide>(ask.res.Get(k)) * ask.pending;
      }
    }
    if (!FitsInt64(sum)) return false;
  }
  return true;
}

Resource ReferenceModel::Impl::QueueAllocated(const PartitionR& p, int q) const {
  Resource r;
  for (const AllocR& alloc : p.allocs) {
    if (InSubtree(p, p.apps[static_cast<size_t>(alloc.app)].queue, q)) r = Add(r, alloc.res);
  }
  return r;
}

int32_t ReferenceModel::Impl::QueueEffectivePriority(const PartitionR& p, int q) const {
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  int32_t raw = kMinPriority;
  if (queue.leaf) {
    for (const AppR& a : p.apps) {
      if (a.removed || a.queue != q || !IsLiveInQueue(a.state)) continue;
      raw = std::max(raw, AppPriority(a));
    }
  } else {
    for (int c : queue.children) raw = std::max(raw, QueueEffectivePriority(p, c));
  }
  if (raw == kMinPriority) return kMinPriority;
  if (queue.fence) return queue.offset;
  int64_t v = int64_t{raw} + int64_t{queue.offset};
  v = std::clamp<int64_t>(v, kMinPriority, kMaxPriority);
  return static_cast<int32_t>(v);
}

// The partition total (§3.5): YuniKorn v1.2.0 keeps it with Add/Sub, which keep zero entries,
// so every type a node capacity ever had stays present (at 0 when no node has it any more).
Resource ReferenceModel::Impl::RootMax(const PartitionR& p) const {
  Resource r;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if ((p.capacity_types >> k) & 1u) r.Set(k, 0);
  }
  for (const NodeR& n : p.nodes) r = Add(r, n.capacity);
  return r;
}

// YuniKorn 1.6+ prunes zero quantities from the partition total (YUNIKORN-2796, -2802, -2826):
// the root's max lacks a type no node has any of, and is nil when nothing positive is left.
Resource ReferenceModel::Impl::PrunedRootMax(const PartitionR& p) const {
  Resource cluster = RootMax(p);
  Resource pruned;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (cluster.Has(k) && cluster.Get(k) != 0) pruned.Set(k, cluster.Get(k));
  }
  return pruned;
}

std::optional<Resource> ReferenceModel::Impl::QueueMax(const PartitionR& p, int q) const {
  if (q == 0) {
    if (!p.had_node) return std::nullopt;
    return RootMax(p);
  }
  return p.queues[static_cast<size_t>(q)].max;
}

// kernel/README decision 4: PermissiveMin(max − allocated over the types of max, parent).
// The empty resource means "unlimited".
Resource ReferenceModel::Impl::Headroom(const PartitionR& p, int q) const {
  int parent = p.queues[static_cast<size_t>(q)].parent;
  Resource parent_headroom = parent < 0 ? Resource{} : Headroom(p, parent);
  std::optional<Resource> max = QueueMax(p, q);
  if (!max.has_value()) return parent_headroom;
  if (q == 0 && v19()) max = PrunedRootMax(p);
  Resource allocated = QueueAllocated(p, q);
  Resource own;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (max->Has(k)) own.Set(k, SaturatingSub(max->Get(k), allocated.Get(k)));
  }
  return PermissiveMin(own, parent_headroom);
}

// §3.7 IncAllocatedResource: every level's max must hold allocated + delta.
bool ReferenceModel::Impl::CanIncAllocated(const PartitionR& p, int leaf,
                                           const Resource& delta) const {
  for (int q = leaf; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    std::optional<Resource> max = QueueMax(p, q);
    if (!max.has_value()) continue;
    if (!v19()) {
      if (!FitInMaxUndef(*max, Add(QueueAllocated(p, q), delta))) return false;
      continue;
    }
    // 1.6+: only the requested types, delta + allocated; the root (the cluster) strictly.
    Resource allocated = QueueAllocated(p, q);
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (!delta.Has(t)) continue;
      if (!max->Has(t) && q != 0) continue;
      int64_t limit = max->Has(t) ? std::max<int64_t>(0, max->Get(t)) : 0;
      if (SaturatingAdd(delta.Get(t), allocated.Get(t)) > limit) return false;
    }
  }
  return true;
}

bool ReferenceModel::Impl::CanRunApp(const PartitionR& p, int app) const {
  const AppR& a = p.apps[static_cast<size_t>(app)];
  for (int q = a.queue; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    const QueueR& queue = p.queues[static_cast<size_t>(q)];
    if (queue.max_apps == 0) continue;
    const auto& set = queue.allocating_accepted;
    if (std::find(set.begin(), set.end(), a.id) != set.end()) continue;
    if (queue.running + set.size() + 1 <= queue.max_apps) continue;
    return false;
  }
  return true;
}

Resource ReferenceModel::Impl::NodeAvailable(const PartitionR& p, const NodeR& node) const {
  Resource allocated;
  for (const AllocR& a : p.allocs) {
    if (a.node == node.id) allocated = Add(allocated, a.res);
  }
  return Sub(Sub(node.capacity, allocated), node.occupied);
}

double ReferenceModel::Impl::NodeScore(const PartitionR& p, const NodeR& node) const {
  Resource available = node.scored_available.value_or(NodeAvailable(p, node));
  double usage = 0;
  double total_weight = 0;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!node.capacity.Has(k)) continue;
    const std::string& name = types_.Name(k);
    double weight = 0;
    bool found = false;
    if (p.weights.empty()) {
      if (name == "vcore" || name == "memory") {
        weight = 1.0;
        found = true;
      }
    } else {
      for (const auto& [n, w] : p.weights) {
        if (n == name) {
          weight = w;
          found = true;
        }
      }
    }
    if (!found || weight == 0.0) continue;
    double share =
        1.0 - static_cast<double>(available.Get(k)) / static_cast<double>(node.capacity.Get(k));
    if (!std::isfinite(share)) continue;  // kernel/README decision 18
    usage += share * weight;
    total_weight += weight;
  }
  double weighted = total_weight == 0.0 ? 0.0 : usage / total_weight;
  return p.binpacking ? 1.0 - weighted : weighted;
}

bool ReferenceModel::Impl::NodeReserved(const PartitionR& p, const std::string& node) const {
  for (const ReservationR& r : p.reservations) {
    if (r.node == node) return true;
  }
  return false;
}

// §5.4: every node without a reservation, by (score, node id byte-wise).
std::vector<int> ReferenceModel::Impl::NodeIterator(const PartitionR& p) const {
  struct Entry {
    int index;
    double score;
  };
  std::vector<Entry> entries;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (NodeReserved(p, p.nodes[i].id)) continue;
    entries.push_back({static_cast<int>(i), NodeScore(p, p.nodes[i])});
  }
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    bool an = std::isnan(a.score);
    bool bn = std::isnan(b.score);
    if (an != bn) return bn;  // NaN scores last (never expected)
    if (!an && a.score != b.score) return a.score < b.score;
    return p.nodes[static_cast<size_t>(a.index)].id < p.nodes[static_cast<size_t>(b.index)].id;
  });
  std::vector<int> out;
  for (const Entry& e : entries) out.push_back(e.index);
  return out;
}

// §5.1 with kernel/README decision 2.
// 1.6+ (YUNIKORN-2678): the largest share of one allocated type, against the queue's own
// guarantee where it defines the type, else against the fair max: the cluster without its zero
// quantities, each max from the root down overriding the types it names.
double ReferenceModel::Impl::DominantShare(const PartitionR& p, int q) const {
  std::optional<Resource> fair;
  if (p.had_node) {
    Resource cluster = RootMax(p);
    Resource pruned;
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (cluster.Has(t) && cluster.Get(t) != 0) pruned.Set(t, cluster.Get(t));
    }
    if (pruned.present != 0) fair = pruned;
  }
  std::vector<int> path;
  for (int x = q; x > 0; x = p.queues[static_cast<size_t>(x)].parent) path.push_back(x);
  for (auto it = path.rbegin(); it != path.rend() && fair; ++it) {
    const std::optional<Resource>& max = p.queues[static_cast<size_t>(*it)].max;
    if (!max || max->present == 0) continue;
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (max->Has(t)) fair->Set(t, max->Get(t));
    }
  }
  const std::optional<Resource>& guaranteed = p.queues[static_cast<size_t>(q)].guaranteed;
  Resource allocated = QueueAllocated(p, q);
  double best = 0;
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (!allocated.Has(t) || allocated.Get(t) < 0) continue;
    const Resource* d = guaranteed && guaranteed->Has(t) ? &*guaranteed
                        : fair && fair->Has(t)           ? &*fair
                                                         : nullptr;
    if (d == nullptr) continue;
    double share = d->Get(t) <= 0
                       ? (allocated.Get(t) <= 0 ? 0.0 : 1.0)
                       : static_cast<double>(allocated.Get(t)) / static_cast<double>(d->Get(t));
    best = std::max(best, share);
  }
  return best;
}

std::vector<int> ReferenceModel::Impl::SortedChildren(const PartitionR& p, int q) const {
  const QueueR& parent = p.queues[static_cast<size_t>(q)];
  struct Cand {
    int queue;
    int32_t priority;
    std::vector<double> shares;
    Resource pending;
  };
  std::vector<Cand> cands;
  for (int c : parent.children) {
    Resource pending = QueuePending(p, c);
    if (!StrictlyGreaterThanZero(pending)) continue;
    const QueueR& child = p.queues[static_cast<size_t>(c)];
    std::vector<double> shares = v19() ? std::vector<double>{DominantShare(p, c)}
                                       : Shares(QueueAllocated(p, c), child.guaranteed);
    cands.push_back({c, QueueEffectivePriority(p, c), std::move(shares), pending});
  }
  auto key_less = [&](const Cand& l, const Cand& r) {
    if (parent.priority_sort) {
      if (l.priority != r.priority) return l.priority > r.priority;
      return CompareShares(l.shares, r.shares) < 0;
    }
    int fair = CompareShares(l.shares, r.shares);
    if (fair != 0) return fair < 0;
    return l.priority > r.priority;
  };
  std::stable_sort(cands.begin(), cands.end(), key_less);
  std::vector<int> out;
  size_t i = 0;
  while (i < cands.size()) {
    size_t j = i + 1;
    while (j < cands.size() && !key_less(cands[i], cands[j]) && !key_less(cands[j], cands[i])) {
      ++j;
    }
    // Tie group [i, j), in configuration order: larger total pending first (kernel/README,
    // decision 2), configuration order among equal totals.
    std::vector<const Cand*> group;
    for (size_t k = i; k < j; ++k) group.push_back(&cands[k]);
    auto total = [](const Resource& r) {
      __extension__ Wide sum = 0;
      for (int t = 0; t < kMaxResourceTypes; ++t) sum += r.Get(t);
      return sum;
    };
    std::stable_sort(group.begin(), group.end(), [&](const Cand* l, const Cand* r) {
      return total(l->pending) > total(r->pending);
    });
    for (const Cand* c : group) out.push_back(c->queue);
    i = j;
  }
  return out;
}

// §5.2 with kernel/README decisions 1 and 3.
std::vector<int> ReferenceModel::Impl::SortedApps(const PartitionR& p, int q) const {
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  std::vector<int> cands;
  auto in_leaf = [&](const AppR& a) {
    return !a.removed && a.queue == q && IsLiveInQueue(a.state);
  };
  if (queue.sort_policy == "stateaware") {
    bool starting = false;
    for (const AppR& a : p.apps) {
      if (in_leaf(a) && a.state == AppState::kStarting) starting = true;
    }
    int oldest_accepted = -1;
    for (size_t i = 0; i < p.apps.size(); ++i) {
      const AppR& a = p.apps[i];
      if (!in_leaf(a) || !StrictlyGreaterThanZero(AppPending(a))) continue;
      if (a.state == AppState::kAccepted) {
        if (!starting && (oldest_accepted < 0 ||
                          a.submit_seq < p.apps[static_cast<size_t>(oldest_accepted)].submit_seq)) {
          oldest_accepted = static_cast<int>(i);
        }
        continue;
      }
      cands.push_back(static_cast<int>(i));
    }
    if (oldest_accepted >= 0) cands.push_back(oldest_accepted);
  } else {
    for (size_t i = 0; i < p.apps.size(); ++i) {
      const AppR& a = p.apps[i];
      if (in_leaf(a) && StrictlyGreaterThanZero(AppPending(a)))
        cands.push_back(static_cast<int>(i));
    }
  }
  auto app = [&](int i) -> const AppR& { return p.apps[static_cast<size_t>(i)]; };
  if (queue.sort_policy == "fair") {
    auto fair = [&](int l, int r) {
      // Placeholders do not count for the fair order of applications.
      auto real = [&](int a) {
        Resource sum;
        for (const AllocR& x : p.allocs) {
          if (x.app == a && !x.placeholder) sum = Add(sum, x.res);
        }
        return sum;
      };
      return CompareShares(Shares(real(l), queue.guaranteed), Shares(real(r), queue.guaranteed));
    };
    std::stable_sort(cands.begin(), cands.end(), [&](int l, int r) {
      int32_t lp = AppPriority(app(l));
      int32_t rp = AppPriority(app(r));
      if (queue.priority_sort) {
        if (lp != rp) return lp > rp;
        int f = fair(l, r);
        if (f != 0) return f < 0;
      } else {
        int f = fair(l, r);
        if (f != 0) return f < 0;
        if (lp != rp) return lp > rp;
      }
      return app(l).submit_seq < app(r).submit_seq;
    });
  } else {
    std::stable_sort(cands.begin(), cands.end(), [&](int l, int r) {
      if (queue.priority_sort) {
        int32_t lp = AppPriority(app(l));
        int32_t rp = AppPriority(app(r));
        if (lp != rp) return lp > rp;
      }
      if (v19() && app(l).submit_time != app(r).submit_time) {
        return app(l).submit_time < app(r).submit_time;
      }
      return app(l).submit_seq < app(r).submit_seq;
    });
  }
  return cands;
}

// §5.3: pending asks by priority (descending), then creation.
std::vector<const AskR*> ReferenceModel::Impl::SortedAsks(const AppR& app) const {
  std::vector<const AskR*> asks;
  for (const AskR& a : app.asks) {
    if (a.pending > 0) asks.push_back(&a);
  }
  std::stable_sort(asks.begin(), asks.end(), [](const AskR* l, const AskR* r) {
    if (l->priority != r->priority) return l->priority > r->priority;
    // Creation time (under 1.9 the pod's, which may lie before its add), then add order.
    if (l->create_time != r->create_time) return l->create_time < r->create_time;
    return l->create_seq < r->create_seq;
  });
  return asks;
}

bool ReferenceModel::Impl::SubmitAllowed(const PartitionR& p, int q, const std::string& user,
                                         const std::vector<std::string>& groups) const {
  for (; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    const QueueR& queue = p.queues[static_cast<size_t>(q)];
    if (queue.submit_acl.Allows(user, groups) || queue.admin_acl.Allows(user, groups)) {
      return true;
    }
  }
  return false;
}

// ---- Scheduling ---------------------------------------------------------------------------

// §6.3 tryNode, as a pure check (the caller commits).
bool ReferenceModel::Impl::TryNode(const PartitionR& p, int app, const AskR& ask,
                                   const NodeR& node) const {
  if (!StrictlyGreaterThanZero(ask.res)) return false;
  bool reserved = false;
  bool reserved_for_this = false;
  for (const ReservationR& r : p.reservations) {
    if (r.node != node.id) continue;
    reserved = true;
    if (r.app == app && r.ask == ask.id) reserved_for_this = true;
  }
  if (reserved && !reserved_for_this) return false;
  if (!FitIn(NodeAvailable(p, node), ask.res)) return false;
  return CanIncAllocated(p, p.apps[static_cast<size_t>(app)].queue, ask.res);
}

// §6.3 tryNodes with exact (app, ask) reservation tracking.
Result ReferenceModel::Impl::TryNodes(const PartitionR& p, int app, const AskR& ask,
                                      const std::vector<int>& iterator) const {
  std::vector<const ReservationR*> reserved;
  for (const ReservationR& r : p.reservations) {
    if (r.app == app && r.ask == ask.id) reserved.push_back(&r);
  }
  std::sort(reserved.begin(), reserved.end(),
            [](const ReservationR* a, const ReservationR* b) { return a->seq < b->seq; });
  bool allow_reserve = static_cast<int64_t>(reserved.size()) < ask.pending;
  int best = -1;
  double best_score = std::numeric_limits<double>::infinity();
  for (int n : iterator) {
    const NodeR& node = p.nodes[static_cast<size_t>(n)];
    if (!node.schedulable) continue;
    if (!FitIn(node.capacity, ask.res)) continue;
    if (TryNode(p, app, ask, node)) {
      Result r{Kind::kAllocated, app, ask.id, node.id, -1};
      for (const ReservationR* res : reserved) {
        if (res->node == node.id) {
          r.kind = Kind::kAllocatedReserved;
          r.reservation = res->seq;
        }
      }
      if (r.kind == Kind::kAllocated && !reserved.empty()) {
        r.kind = Kind::kAllocatedReserved;
        r.reservation = reserved.front()->seq;
      }
      return r;
    }
    if (allow_reserve && now_ - ask.create_time > kReservationDelayMs) {
      double score = FitInScore(ask.res, NodeAvailable(p, node));
      if (score < best_score) {
        best = n;
        best_score = score;
      }
    }
  }
  if (best >= 0 && !NodeReserved(p, p.nodes[static_cast<size_t>(best)].id)) {
    return Result{Kind::kReserved, app, ask.id, p.nodes[static_cast<size_t>(best)].id, -1};
  }
  return Result{};
}

Result ReferenceModel::Impl::AppTryAllocate(PartitionR& p, int app, const Resource& headroom,
                                            int* budget) {
  const AppR& a = p.apps[static_cast<size_t>(app)];
  // YuniKorn 1.9 walks every request of the app, one per pod, allocated ones included: after
  // N unschedulable ones, the next request backs the app off (YUNIKORN-3115). Repeats of one
  // ask are tried once; the others share its outcome.
  struct Pod {
    const AskR* ask;
    bool allocated;
    int64_t repeats;  // pending: how many pods of the ask (one entry for all)
  };
  std::vector<Pod> pods;
  for (const AskR& ask : a.asks) {
    for (const AllocR& alloc : p.allocs) {
      if (alloc.app == app && alloc.ask == ask.id && alloc.ask_create_seq == ask.create_seq) {
        pods.push_back({&ask, true, 1});
      }
    }
    if (ask.pending > 0) pods.push_back({&ask, false, ask.pending});
  }
  std::stable_sort(pods.begin(), pods.end(), [](const Pod& l, const Pod& r) {
    if (l.ask->priority != r.ask->priority) return l.ask->priority > r.ask->priority;
    if (l.ask->create_time != r.ask->create_time) return l.ask->create_time < r.ask->create_time;
    if (l.ask->create_seq != r.ask->create_seq) return l.ask->create_seq < r.ask->create_seq;
    return l.allocated && !r.allocated;
  });
  const QueueR& leaf = p.queues[static_cast<size_t>(a.queue)];
  const uint64_t backoff = leaf.unsched_backoff;
  uint64_t unschedulable = 0;
  auto back_off = [&] {
    p.apps[static_cast<size_t>(app)].backoff_deadline = now_ + leaf.unsched_backoff_delay;
    return Result{};
  };
  for (const Pod& pod : pods) {
    if (backoff > 0 && unschedulable >= backoff) return back_off();
    if (pod.allocated) continue;
    const AskR* ask = pod.ask;
    if (WaitsForReplacement(a, *ask)) continue;
    // The user's limit first: preemption in other queues would hardly free the user's quota.
    if (!LimitsFit(p, app, ask->res)) continue;
    if (!FitInMaxUndef(headroom, ask->res)) {
      Result preempted;
      if (p.preemption &&
          TryGeneralPreemption(p, app, ask->id, /*nodes_tried=*/false, budget, &preempted)) {
        return preempted;
      }
      continue;
    }
    if (!ask->required_node.empty()) {
      int n = FindNode(p, ask->required_node);
      if (n < 0) continue;
      const NodeR& node = p.nodes[static_cast<size_t>(n)];
      bool held_by_required = false;
      for (const ReservationR& r : p.reservations) {
        if (r.node != node.id) continue;
        for (const AskR& other : p.apps[static_cast<size_t>(r.app)].asks) {
          if (other.id == r.ask && !other.required_node.empty()) held_by_required = true;
        }
      }
      if (held_by_required) continue;
      bool fits = FitIn(NodeAvailable(p, node), ask->res) && CanIncAllocated(p, a.queue, ask->res);
      int64_t held = 0;  // this ask's reservations (on other nodes: this one is not its own)
      for (const ReservationR& r : p.reservations) held += r.app == app && r.ask == ask->id;
      bool reservable = held < ask->pending && FitIn(node.capacity, ask->res);
      // YuniKorn answers a reservation whether or not the node can then be reserved, and the
      // walk ends; an unreservable ask leaves another ask's reservation alone.
      if (fits || reservable) RemoveNodeReservations(p, node.id);
      if (fits) return Result{Kind::kAllocated, app, ask->id, node.id, -1};
      return Result{Kind::kReserved, app, ask->id, node.id, -1};
    }
    // YuniKorn's node iterator exists even when every node is reserved: an empty one finds
    // nothing and the preemptor still runs.
    std::vector<int> iterator = NodeIterator(p);
    Result r = iterator.empty() ? Result{} : TryNodes(p, app, *ask, iterator);
    if (r.kind != Kind::kNone) return r;
    Result preempted;
    if (p.preemption &&
        TryGeneralPreemption(p, app, ask->id, /*nodes_tried=*/true, budget, &preempted)) {
      return preempted;
    }
    // Every repeat fails alike; the second, third, ... one each meet the check at their top,
    // the last of them with the count before this ask plus repeats - 1.
    const uint64_t repeats = static_cast<uint64_t>(pod.repeats);
    if (backoff > 0 && repeats > 1 && unschedulable + repeats - 1 >= backoff) return back_off();
    unschedulable += repeats;
  }
  return Result{};
}

void ReferenceModel::Impl::MarkAllocatingAccepted(PartitionR& p, int app) {
  const AppR& a = p.apps[static_cast<size_t>(app)];
  for (int q = a.queue; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    auto& set = p.queues[static_cast<size_t>(q)].allocating_accepted;
    if (std::find(set.begin(), set.end(), a.id) == set.end()) set.push_back(a.id);
  }
}

Result ReferenceModel::Impl::QueueTryAllocate(PartitionR& p, int q) {
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  if (queue.leaf) {
    Resource headroom = Headroom(p, q);
    int budget = kPreemptionAttemptsPerLeaf;  // shared by the leaf's apps in this visit
    for (int app : SortedApps(p, q)) {
      bool accepted = p.apps[static_cast<size_t>(app)].state == AppState::kAccepted;
      if (accepted && (!CanRunApp(p, app) || !LimitsAllowRun(p, app))) continue;
      if (now_ < p.apps[static_cast<size_t>(app)].backoff_deadline) continue;
      Result r = AppTryAllocate(p, app, headroom, &budget);
      if (r.kind == Kind::kNone) continue;
      // A real allocation moves an Accepted app to Starting first: only reservations (a
      // preemption ends in one) mark.
      if (accepted && (r.kind == Kind::kReserved || r.kind == Kind::kUnreserved ||
                       r.kind == Kind::kPreempted)) {
        MarkAllocatingAccepted(p, app);
      }
      return r;
    }
    return Result{};
  }
  for (int child : SortedChildren(p, q)) {
    Result r = QueueTryAllocate(p, child);
    if (r.kind != Kind::kNone) return r;
  }
  return Result{};
}

// §6.4 app.tryReservedAllocate.
Result ReferenceModel::Impl::AppTryReservedAllocate(PartitionR& p, int app,
                                                    const Resource& headroom) {
  AppR& a = p.apps[static_cast<size_t>(app)];
  std::vector<ReservationR> mine;  // copies: the wait-timeout erases from p.reservations
  for (const ReservationR& r : p.reservations) {
    if (r.app == app) mine.push_back(r);
  }
  std::sort(mine.begin(), mine.end(),
            [](const ReservationR& x, const ReservationR& y) { return x.seq < y.seq; });
  std::vector<int64_t> cancelled;
  auto find_ask = [&](const std::string& id) -> AskR* {
    for (AskR& ask : a.asks) {
      if (ask.id == id) return &ask;
    }
    return nullptr;
  };
  for (const ReservationR& reservation : mine) {
    const ReservationR* res = &reservation;
    AskR* ask = find_ask(res->ask);
    if (ask == nullptr || ask->pending == 0) {
      return Result{Kind::kUnreserved, app, res->ask, res->node, res->seq};
    }
    if (!FitInMaxUndef(headroom, ask->res) || !LimitsFit(p, app, ask->res)) {
      // YUNIKORN-3219 (1.9): time.Since(created + 60 min) > 60 min cancels it; the pass goes on.
      if (v19() && now_ - res->created > 2 * 60 * 60 * 1000) {
        const int64_t seq = res->seq;
        cancelled.push_back(seq);
        EraseReservations(p, [&](const ReservationR& r) { return r.seq == seq; });
      }
      continue;
    }
    int n = FindNode(p, res->node);
    if (n >= 0 && !ask->required_node.empty() && !ask->preemption_triggered &&
        !FitIn(NodeAvailable(p, p.nodes[static_cast<size_t>(n)]), ask->res)) {
      TryPreemption(p, app, *ask, p.nodes[static_cast<size_t>(n)]);
      continue;
    }
    if (n >= 0 && TryNode(p, app, *ask, p.nodes[static_cast<size_t>(n)])) {
      return Result{Kind::kAllocatedReserved, app, ask->id, res->node, res->seq};
    }
  }
  // Second pass: any other node (kernel/README decision 16: with the headroom check).
  for (const ReservationR& reservation : mine) {
    const ReservationR* res = &reservation;
    if (std::find(cancelled.begin(), cancelled.end(), res->seq) != cancelled.end()) continue;
    const AskR* ask = find_ask(res->ask);
    if (ask == nullptr || ask->pending == 0) continue;
    if (!ask->required_node.empty()) continue;
    if (!FitInMaxUndef(headroom, ask->res)) continue;
    if (!LimitsFit(p, app, ask->res)) continue;
    for (int n : NodeIterator(p)) {
      const NodeR& node = p.nodes[static_cast<size_t>(n)];
      if (!node.schedulable) continue;
      if (!FitIn(node.capacity, ask->res)) continue;
      if (node.id == res->node) continue;
      if (TryNode(p, app, *ask, node)) {
        return Result{Kind::kAllocatedReserved, app, ask->id, node.id, res->seq};
      }
    }
  }
  return Result{};
}

Result ReferenceModel::Impl::QueueTryReservedAllocate(PartitionR& p, int q) {
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  if (queue.leaf) {
    std::vector<int> apps;
    for (const ReservationR& r : p.reservations) {
      if (p.apps[static_cast<size_t>(r.app)].queue != q) continue;
      if (std::find(apps.begin(), apps.end(), r.app) == apps.end()) apps.push_back(r.app);
    }
    if (apps.empty()) return Result{};
    std::sort(apps.begin(), apps.end(), [&](int x, int y) {
      return p.apps[static_cast<size_t>(x)].submit_seq < p.apps[static_cast<size_t>(y)].submit_seq;
    });
    Resource headroom = Headroom(p, q);
    for (int app : apps) {
      bool accepted = p.apps[static_cast<size_t>(app)].state == AppState::kAccepted;
      if (accepted && (!CanRunApp(p, app) || !LimitsAllowRun(p, app))) continue;
      Result r = AppTryReservedAllocate(p, app, headroom);
      if (r.kind == Kind::kNone) continue;
      if (accepted && (r.kind == Kind::kReserved || r.kind == Kind::kUnreserved)) {
        MarkAllocatingAccepted(p, app);
      }
      return r;
    }
    return Result{};
  }
  for (int child : SortedChildren(p, q)) {
    Result r = QueueTryReservedAllocate(p, child);
    if (r.kind != Kind::kNone) return r;
  }
  return Result{};
}

void ReferenceModel::Impl::RemoveReservation(PartitionR& p, int64_t seq) {
  EraseReservations(p, [&](const ReservationR& r) { return r.seq == seq; });
}

void ReferenceModel::Impl::Commit(PartitionR& p, const Result& r, std::vector<RefDecision>* out) {
  switch (r.kind) {
    case Kind::kNone:
    case Kind::kPreempted:  // CommitPreemption
      return;
    case Kind::kUnreserved:
      RemoveReservation(p, r.reservation);
      return;
    case Kind::kReserved: {
      // PartitionContext.reserve: skipped when the app already reserved the node or the node
      // is reserved; the ask must exist with fewer reservations than pending repeats.
      for (const ReservationR& x : p.reservations) {
        if (x.node == r.node) return;
      }
      AppR& app = p.apps[static_cast<size_t>(r.app)];
      AskR* ask = FindAsk(app, r.ask);
      if (ask == nullptr) return;
      int64_t count = 0;
      for (const ReservationR& x : p.reservations) {
        if (x.app == r.app && x.ask == r.ask) ++count;
      }
      if (count >= ask->pending) return;
      const NodeR& node = p.nodes[static_cast<size_t>(FindNode(p, r.node))];
      if (!FitIn(node.capacity, ask->res)) return;
      p.reservations.push_back({r.app, r.ask, r.node, ++reservation_seq_, now_});
      Notified(p, r.node);
      return;
    }
    case Kind::kAllocated:
    case Kind::kAllocatedReserved:
      break;
  }
  if (r.kind == Kind::kAllocatedReserved) RemoveReservation(p, r.reservation);
  AppR& app = p.apps[static_cast<size_t>(r.app)];
  AskR* ask = FindAsk(app, r.ask);
  ask->pending -= 1;
  AllocR alloc;
  alloc.app = r.app;
  alloc.ask = ask->id;
  alloc.node = r.node;
  alloc.res = ask->res;
  alloc.priority = ask->priority;
  alloc.seq = ++alloc_seq_;
  alloc.record_seq = ++record_seq_;
  alloc.placeholder = ask->placeholder;
  alloc.task_group = ask->task_group;
  alloc.required_node = !ask->required_node.empty();
  alloc.allow_preemption = ask->allow_preemption;
  alloc.originator = ask->originator;
  alloc.ask_create_time = ask->create_time;
  alloc.ask_create_seq = ask->create_seq;
  const bool first_placeholder = alloc.placeholder && LivePlaceholders(p, r.app) == 0;
  p.allocs.push_back(alloc);
  NoteAllocatedTypes(p, alloc.app, alloc.res);
  Notified(p, alloc.node);
  RefDecision d;
  d.type = DecisionType::kAllocation;
  d.partition = p.name;
  d.queue = p.queues[static_cast<size_t>(app.queue)].path;
  d.app = app.id;
  d.ask = alloc.ask;
  d.node = alloc.node;
  d.priority = alloc.priority;
  d.seq = alloc.record_seq;
  d.placeholder = alloc.placeholder;
  out->push_back(d);
  if (alloc.placeholder) {
    // The first placeholder starts the timer (Accepted only); the gang starts once its
    // placeholders add up to the placeholder_ask exactly.
    if (first_placeholder && !app.has_ph_timer && app.state == AppState::kAccepted) {
      SetPlaceholderTimer(app, true);
    }
    Resource total = PlaceholderTotal(p, r.app);
    bool equal = true;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      equal = equal && total.Get(k) == app.placeholder_ask.Get(k);
    }
    if (equal) Run(p, r.app, out);
    return;
  }
  Run(p, r.app, out);  // runApplication on every real allocation
}

bool ReferenceModel::Impl::ScheduleStep(PartitionR& p, int64_t* allocations,
                                        std::vector<RefDecision>* out) {
  // YuniKorn skips a partition whose root has no max: no node yet, or (1.9) nothing positive.
  if (!p.had_node || (v19() && !StrictlyGreaterThanZero(PrunedRootMax(p)))) return false;
  if (!StrictlyGreaterThanZero(QueuePending(p, 0))) return false;
  // Reservations, placeholder replacements, the regular walk; preemption victims go when the
  // cycle ends.
  // A preemptor that cancelled another ask's reservation removed a reservation: a change, even
  // when the attempt then failed.
  cancelled_reservation_ = false;
  auto finish = [&](bool changed) {
    changed = changed || cancelled_reservation_;
    if (!p.victims.empty()) {
      ReleaseVictims(p, out);
      changed = true;
    }
    return changed;
  };
  bool changed = false;
  // An app still Accepted after an allocation (it placed a placeholder) counts as running for
  // maxapplications (YuniKorn's setAllocatingAccepted).
  auto mark_if_accepted = [&](int app) {
    if (p.apps[static_cast<size_t>(app)].state == AppState::kAccepted)
      MarkAllocatingAccepted(p, app);
  };
  Result r = QueueTryReservedAllocate(p, 0);
  if (r.kind == Kind::kAllocatedReserved) {
    Commit(p, r, out);
    mark_if_accepted(r.app);
    ++*allocations;
    return finish(true);
  }
  if (r.kind == Kind::kUnreserved) {
    Commit(p, r, out);
    changed = true;
  }
  bool any_placeholder = false;
  for (const AllocR& a : p.allocs) any_placeholder = any_placeholder || a.placeholder;
  if (any_placeholder && StrictlyGreaterThanZero(QueuePending(p, 0))) {
    bool released = false;
    bool replaced = QueueTryPlaceholderAllocate(p, 0, &released, out);
    changed = changed || released;
    if (replaced) {
      ++*allocations;
      return finish(true);
    }
  }
  if (!StrictlyGreaterThanZero(QueuePending(p, 0))) return finish(changed);
  r = QueueTryAllocate(p, 0);
  switch (r.kind) {
    case Kind::kNone:
      return finish(changed);
    case Kind::kPreempted:
      CommitPreemption(p, r, out);
      return finish(true);
    case Kind::kAllocated:
    case Kind::kAllocatedReserved:
      Commit(p, r, out);
      mark_if_accepted(r.app);
      ++*allocations;
      return finish(true);
    case Kind::kReserved:
    case Kind::kUnreserved: {
      size_t before = p.reservations.size();
      Commit(p, r, out);
      return finish(changed || p.reservations.size() != before);
    }
  }
  return finish(changed);
}

// ---- App state machine --------------------------------------------------------------------

void ReferenceModel::Impl::ForgetAllocatingAccepted(PartitionR& p, int app_index) {
  const AppR& app = p.apps[static_cast<size_t>(app_index)];
  for (int q = app.queue; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    auto& set = p.queues[static_cast<size_t>(q)].allocating_accepted;
    set.erase(std::remove(set.begin(), set.end(), app.id), set.end());
  }
}

void ReferenceModel::Impl::IncRunning(PartitionR& p, int leaf) {
  for (int q = leaf; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    QueueR& queue = p.queues[static_cast<size_t>(q)];
    if (queue.max_apps == 0 || queue.running < queue.max_apps) ++queue.running;
  }
}

void ReferenceModel::Impl::DecRunning(PartitionR& p, int leaf) {
  for (int q = leaf; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    QueueR& queue = p.queues[static_cast<size_t>(q)];
    if (queue.running > 0) --queue.running;
  }
}

void ReferenceModel::Impl::SetTimer(AppR& app, int64_t delay) {
  app.has_timer = true;
  app.timer_due = SaturatingAdd(now_, delay);
  app.timer_seq = ++timer_seq_;
}

void ReferenceModel::Impl::SetState(PartitionR& p, int app_index, AppState to,
                                    std::vector<RefDecision>* out) {
  AppR& app = p.apps[static_cast<size_t>(app_index)];
  AppState from = app.state;
  if (from == to) return;
  app.state = to;
  app.has_timer = false;  // leaving any state clears the state timer
  bool was_running = from == AppState::kStarting || from == AppState::kRunning;
  bool is_running = to == AppState::kStarting || to == AppState::kRunning;
  if (was_running && !is_running) DecRunning(p, app.queue);
  if (!was_running && is_running) {
    // YuniKorn's incRunningApps: +1 and forget the allocating-accepted mark, every level.
    IncRunning(p, app.queue);
    ForgetAllocatingAccepted(p, app_index);
  }
  switch (to) {
    case AppState::kStarting:
      SetTimer(app, kStartingTimeoutMs);
      break;
    case AppState::kCompleting:
      SetTimer(app, kCompletingTimeoutMs);
      break;
    case AppState::kCompleted:
    case AppState::kFailed:
      // Removed from its queue: every level forgets it (kernel/README decision 17).
      ForgetAllocatingAccepted(p, app_index);
      SetTimer(app, kTerminatedTimeoutMs);
      RemoveEmptyDynamicQueues(p);
      break;
    default:
      break;
  }
  RefDecision d;
  d.type = DecisionType::kAppState;
  d.partition = p.name;
  d.queue = app.queue_path;
  d.app = app.id;
  d.from = from;
  d.to = to;
  out->push_back(d);
}

// §7.2 completeApplication after an ask removal or a release (kernel/README decision 12).
void ReferenceModel::Impl::CompletionCheck(PartitionR& p, int app_index,
                                           std::vector<RefDecision>* out, bool ask_removal) {
  const AppR& app = p.apps[static_cast<size_t>(app_index)];
  if (app.state != AppState::kAccepted && app.state != AppState::kStarting &&
      app.state != AppState::kRunning) {
    return;
  }
  if (!IsZero(AppPending(app))) return;
  if (ask_removal ? !IsZero(AppAllocated(p, app_index)) : HasRealAllocation(p, app_index)) return;
  SetState(p, app_index, AppState::kCompleting, out);
}

void ReferenceModel::Impl::ReleaseAlloc(PartitionR& p, size_t index, std::vector<RefDecision>* out,
                                        ReleaseReason reason, bool follow_up,
                                        const std::string& by_app, const std::string& by_ask,
                                        const std::string& by_queue) {
  AllocR alloc = p.allocs[index];
  p.allocs.erase(p.allocs.begin() + static_cast<ptrdiff_t>(index));
  Notified(p, alloc.node);
  AppR& app = p.apps[static_cast<size_t>(alloc.app)];
  if (alloc.placeholder && reason != ReleaseReason::kReplaced) {
    if (TaskGroupR* group = FindTaskGroup(app, alloc.task_group)) ++group->timed_out;
  }
  RefDecision d;
  d.type = DecisionType::kRelease;
  d.partition = p.name;
  d.queue = app.queue_path;
  d.app = app.id;
  d.ask = alloc.ask;
  d.node = alloc.node;
  d.release_reason = reason;
  d.seq = alloc.record_seq;
  d.placeholder = alloc.placeholder;
  d.by_app = by_app;
  d.by_ask = by_ask;
  d.by_queue = by_queue;
  out->push_back(d);
  if (!follow_up) return;
  if (alloc.placeholder) {
    PlaceholderGone(p, alloc.app, out);
  } else {
    CompletionCheck(p, alloc.app, out, /*ask_removal=*/false);
  }
}

// ---- 1.9 quota-change preemption ----------------------------------------------------------
// Written from YuniKorn v1.9.0's objects/queue.go and objects/quota_preemptor.go, one Go
// function at a time; nil resources are nullopt.

namespace {

// Resource.StrictlyGreaterThanOrEqualsOnlyExisting (doEqualsCheck = true).
bool GoGreaterOrEqualsOnlyExisting(const std::optional<Resource>& larger_in,
                                   const Resource& smaller) {
  const Resource larger = larger_in.value_or(Resource{});
  bool equal = false;
  bool common = false;
  bool all_positive = true;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!larger.Has(k)) continue;
    if (smaller.present == 0 && larger.Get(k) <= 0) all_positive = false;
    if (smaller.Has(k)) {
      common = true;
      if (smaller.Get(k) > larger.Get(k)) return false;
      equal = true;
    }
  }
  if (smaller.present == 0 && larger.present != 0) return all_positive;
  if (common) return equal;
  return larger.present != 0 && smaller.present != 0;
}

Resource GoSubOnlyExisting(const Resource& base, const Resource& delta) {
  Resource out;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (base.Has(k)) out.Set(k, SaturatingSub(base.Get(k), delta.Get(k)));
  }
  return out;
}

int64_t GoAbs(int64_t v) { return v >= 0 ? v : SaturatingSub(0, v); }

// CompUsageRatioSpecificTypes: shares of `total` (raw where total lacks the type or is 0),
// zero quantities skipped, on the types of `types`, compared largest first.
int GoCompUsageRatioSpecificTypes(const Resource& l, const Resource& r,
                                  const std::optional<Resource>& total, const Resource& types) {
  auto shares = [&](const Resource& x) {
    std::vector<double> out;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (!types.Has(k) || !x.Has(k) || x.Get(k) == 0) continue;
      const int64_t t = total && total->Has(k) ? total->Get(k) : 0;
      out.push_back(t == 0 ? static_cast<double>(x.Get(k))
                           : static_cast<double>(x.Get(k)) / static_cast<double>(t));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  std::vector<double> ls = shares(l);
  std::vector<double> rs = shares(r);
  if (ls.empty() && rs.empty()) return 0;
  int li = static_cast<int>(ls.size()) - 1;
  int ri = static_cast<int>(rs.size()) - 1;
  for (; li >= 0 && ri >= 0; --li, --ri) {
    if (ls[static_cast<size_t>(li)] > rs[static_cast<size_t>(ri)]) return 1;
    if (ls[static_cast<size_t>(li)] < rs[static_cast<size_t>(ri)]) return -1;
  }
  for (; li >= 0; --li) {
    if (ls[static_cast<size_t>(li)] > 0) return 1;
    if (ls[static_cast<size_t>(li)] < 0) return -1;
  }
  for (; ri >= 0; --ri) {
    if (rs[static_cast<size_t>(ri)] > 0) return -1;
    if (rs[static_cast<size_t>(ri)] < 0) return 1;
  }
  return 0;
}

}  // namespace

std::optional<Resource> ReferenceModel::Impl::QuotaMaxOf(const PartitionR& p, int q) const {
  if (q == 0) {
    Resource cluster = RootMax(p);
    if (!StrictlyGreaterThanZero(cluster)) return std::nullopt;
    return cluster;
  }
  return p.queues[static_cast<size_t>(q)].max;
}

Resource ReferenceModel::Impl::QuotaUsed(const PartitionR& p, int q) const {
  Resource used = QueueAllocated(p, q);
  const ResourceMask types = p.queues[static_cast<size_t>(q)].allocated_types;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (((types >> k) & 1u) && !used.Has(k)) used.Set(k, 0);
  }
  return used;
}

void ReferenceModel::Impl::NoteAllocatedTypes(PartitionR& p, int app, const Resource& res) {
  for (int q = p.apps[static_cast<size_t>(app)].queue; q >= 0;
       q = p.queues[static_cast<size_t>(q)].parent) {
    p.queues[static_cast<size_t>(q)].allocated_types |= res.present;
  }
}

void ReferenceModel::Impl::QuotaIncAllocated(PartitionR& p, int app) {
  for (int q = p.apps[static_cast<size_t>(app)].queue; q >= 0;
       q = p.queues[static_cast<size_t>(q)].parent) {
    QueueR& queue = p.queues[static_cast<size_t>(q)];
    if (!p.quota_preemption || queue.quota_start || queue.dynamic || queue.quota_delay == 0) {
      continue;
    }
    std::optional<Resource> max = QuotaMaxOf(p, q);
    if (!max || IsZero(*max) || GoGreaterOrEqualsOnlyExisting(max, QuotaUsed(p, q))) continue;
    queue.quota_start = now_ + queue.quota_delay;
  }
}

bool ReferenceModel::Impl::AnyQuotaStart() const {
  for (const PartitionR& p : partitions_) {
    if (!p.quota_preemption) continue;
    for (const QueueR& q : p.queues) {
      if (!q.removed && q.quota_start) return true;
    }
  }
  return false;
}

void ReferenceModel::Impl::QuotaCheck(PartitionR& p, std::vector<RefDecision>* out) {
  if (p.quota_preemption) TryQuotaPreemption(p, 0, out);
}

// Queue.TryQuotaPreemption with tryAcquirePreemption; the preemption completes at once.
void ReferenceModel::Impl::TryQuotaPreemption(PartitionR& p, int q, std::vector<RefDecision>* out) {
  QueueR& queue = p.queues[static_cast<size_t>(q)];
  if (queue.removed) return;
  if (!queue.dynamic) {
    if (GoGreaterOrEqualsOnlyExisting(QuotaMaxOf(p, q), QuotaUsed(p, q))) {
      queue.quota_start.reset();
    } else if (queue.quota_start && now_ >= *queue.quota_start) {
      RunQuotaPreemption(p, q, out);
      p.queues[static_cast<size_t>(q)].quota_start.reset();
      return;
    }
  }
  if (p.queues[static_cast<size_t>(q)].leaf) return;
  std::vector<int> children = p.queues[static_cast<size_t>(q)].children;  // config order
  for (int child : children) TryQuotaPreemption(p, child, out);
}

// Queue.GetPreemptableResource.
Resource ReferenceModel::Impl::PreemptableOnPath(const PartitionR& p, int q) const {
  Resource parent;  // the root's parent: an empty resource
  if (q != 0) parent = PreemptableOnPath(p, p.queues[static_cast<size_t>(q)].parent);
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  const Resource used = QuotaUsed(p, q);
  const Resource own = queue.guaranteed ? GoSubOnlyExisting(*queue.guaranteed, used) : used;
  return PermissiveMin(own, parent);
}

// getChildQueuesPreemptableResource, children in configuration order.
void ReferenceModel::Impl::ChildrenPreemptable(
    const PartitionR& p, int q, const Resource& amount,
    std::vector<std::pair<int, Resource>>* leaves) const {
  std::vector<std::pair<int, Resource>> weights;
  Resource total;
  for (int c : p.queues[static_cast<size_t>(q)].children) {
    const QueueR& child = p.queues[static_cast<size_t>(c)];
    if (child.removed) continue;
    const Resource allocated = QuotaUsed(p, c);
    if (allocated.present == 0 || GoGreaterOrEqualsOnlyExisting(child.guaranteed, allocated)) {
      continue;
    }
    const Resource used = child.guaranteed && child.guaranteed->present != 0
                              ? GoSubOnlyExisting(*child.guaranteed, allocated)
                              : allocated;
    Resource weight;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (used.Has(k)) weight.Set(k, GoAbs(used.Get(k)));
    }
    weights.emplace_back(c, weight);
    total = Add(total, weight);
  }
  for (const auto& [c, weight] : weights) {
    Resource share;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (!weight.Has(k) || !amount.Has(k)) continue;
      double per = 0;
      if (weight.Get(k) != 0) {
        per = total.Get(k) == 0
                  ? static_cast<double>(weight.Get(k))
                  : static_cast<double>(weight.Get(k)) / static_cast<double>(total.Get(k));
      }
      const double v = std::floor(per * static_cast<double>(amount.Get(k)));
      share.Set(k, v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(v));
    }
    if (p.queues[static_cast<size_t>(c)].leaf) {
      leaves->emplace_back(c, share);
    } else {
      ChildrenPreemptable(p, c, share, leaves);
    }
  }
}

void ReferenceModel::Impl::RunQuotaPreemption(PartitionR& p, int q, std::vector<RefDecision>* out) {
  // setPreemptableResources.
  const std::optional<Resource> max = QuotaMaxOf(p, q);
  const Resource used = QuotaUsed(p, q);
  std::optional<Resource> preemptable;
  if (max && max->present != 0 && used.present != 0) {
    const Resource actual = GoSubOnlyExisting(*max, used);
    Resource net;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (actual.Has(k) && actual.Get(k) < 0) net.Set(k, GoAbs(actual.Get(k)));
    }
    const Resource path = PreemptableOnPath(p, q);
    Resource net_path;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (path.Has(k) && path.Get(k) < 0) net_path.Set(k, GoAbs(path.Get(k)));
    }
    Resource amount;  // ComponentWiseMinOnlyExisting(net, net_path)
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (!net.Has(k)) continue;
      amount.Set(k, net_path.Has(k) ? std::min(net.Get(k), net_path.Get(k)) : net.Get(k));
    }
    if (amount.present != 0) preemptable = amount;
  }
  std::vector<std::pair<int, Resource>> leaves;
  if (p.queues[static_cast<size_t>(q)].leaf) {
    leaves.emplace_back(q, preemptable.value_or(Resource{}));
  } else if (preemptable) {
    ChildrenPreemptable(p, q, *preemptable, &leaves);
  }
  std::vector<int64_t> chosen;  // AllocR::seq, in release order
  for (const auto& entry : leaves) {
    const int leaf = entry.first;
    const Resource& amount = entry.second;
    if (IsZero(amount)) continue;
    // filterAllocations
    std::vector<AllocR> candidates;
    for (const AllocR& a : p.allocs) {
      if (p.apps[static_cast<size_t>(a.app)].queue != leaf) continue;
      if ((amount.present & a.res.present) == 0 || a.required_node) continue;
      candidates.push_back(a);
    }
    // SortAllocationsBasedOnAsk(total = the leaf's max, ask = amount); ties: newer first.
    const std::optional<Resource> leaf_max = QuotaMaxOf(p, leaf);
    auto score = [&](const AllocR& a) {
      uint64_t s = 0;
      if (a.originator) s |= uint64_t{1} << 33;
      if (!a.allow_preemption) s |= uint64_t{1} << 34;
      int types = 0;
      int matching = 0;
      for (int k = 0; k < kMaxResourceTypes; ++k) {
        if (!a.res.Has(k)) continue;
        ++types;
        if (amount.Has(k)) ++matching;
      }
      return s + (types == 0 ? 0 : static_cast<uint64_t>(matching * 100 / types));
    };
    auto hour = [](const AllocR& a) {
      const int64_t h = 3'600'000;
      return a.ask_create_time >= 0 ? a.ask_create_time / h : -((-a.ask_create_time + h - 1) / h);
    };
    std::stable_sort(candidates.begin(), candidates.end(), [&](const AllocR& l, const AllocR& r) {
      if (score(l) != score(r)) return score(l) > score(r);
      if (l.priority != r.priority) return l.priority < r.priority;
      if (hour(l) != hour(r)) return hour(l) > hour(r);
      int c = GoCompUsageRatioSpecificTypes(l.res, r.res, leaf_max, amount);
      if (c != 0) return c < 0;
      return l.seq > r.seq;
    });
    // preemptVictims
    Resource total;
    for (const AllocR& v : candidates) {
      if (!FitInMaxUndef(amount, v.res)) continue;
      Resource with = Add(total, v.res);
      if (!GoGreaterOrEqualsOnlyExisting(amount, with)) continue;
      total = with;
      chosen.push_back(v.seq);
    }
  }
  RefDecision d;
  d.type = DecisionType::kQuotaPreemption;
  d.partition = p.name;
  d.queue = p.queues[static_cast<size_t>(q)].path;
  d.count = static_cast<int64_t>(chosen.size());
  if (max) d.quota_max = ToNamed(*max, types_, /*keep_zeros=*/true);
  d.quota_preemptable = ToNamed(preemptable.value_or(Resource{}), types_, /*keep_zeros=*/true);
  out->push_back(d);
  const std::string by = p.queues[static_cast<size_t>(q)].path;
  for (int64_t seq : chosen) {
    size_t index = p.allocs.size();
    for (size_t i = 0; i < p.allocs.size(); ++i) {
      if (p.allocs[i].seq == seq) index = i;
    }
    if (index == p.allocs.size()) continue;
    // As a general preemption's victim, the ask stays known (kernel/README, asks as pods).
    ReleaseAlloc(p, index, out, ReleaseReason::kQuota, /*follow_up=*/true, "", "", by);
  }
}

// ---- Calls --------------------------------------------------------------------------------

absl::Status ReferenceModel::Impl::AddNode(const NodeSpec& spec, std::vector<RefDecision>*) {
  PartitionR* p = FindPartition(spec.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", spec.partition));
  if (spec.id.empty()) return absl::InvalidArgumentError("empty node id");
  if (FindNode(*p, spec.id) >= 0) {
    return absl::AlreadyExistsError(Cat("node ", spec.id, " already exists"));
  }
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> capacity = ToResource(spec.capacity);
  if (!capacity.ok()) return capacity.status();
  absl::StatusOr<Resource> occupied = ToResource(spec.occupied);
  if (!occupied.ok()) return occupied.status();
  if (!CapacitySumFits(*p, -1, *capacity)) {
    return absl::OutOfRangeError("partition capacity would overflow");
  }
  rollback.Commit();
  NodeR node;
  node.id = spec.id;
  node.capacity = *capacity;
  node.occupied = *occupied;
  node.schedulable = spec.schedulable;
  p->nodes.push_back(node);
  p->had_node = true;
  p->capacity_types |= node.capacity.present;
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::UpdateNode(const NodeUpdate& update, std::vector<RefDecision>*) {
  PartitionR* p = FindPartition(update.partition);
  if (p == nullptr) {
    return absl::NotFoundError(Cat("unknown partition ", update.partition));
  }
  int n = FindNode(*p, update.id);
  if (n < 0) return absl::NotFoundError(Cat("unknown node ", update.id));
  TypesRollback rollback(&types_);
  std::optional<Resource> capacity;
  std::optional<Resource> occupied;
  if (update.capacity.has_value()) {
    absl::StatusOr<Resource> r = ToResource(*update.capacity);
    if (!r.ok()) return r.status();
    capacity = *r;
    if (!CapacitySumFits(*p, n, *capacity)) {
      return absl::OutOfRangeError("partition capacity would overflow");
    }
  }
  if (update.occupied.has_value()) {
    absl::StatusOr<Resource> r = ToResource(*update.occupied);
    if (!r.ok()) return r.status();
    occupied = *r;
  }
  rollback.Commit();
  NodeR& node = p->nodes[static_cast<size_t>(n)];
  if (capacity.has_value()) {
    node.capacity = *capacity;
    p->capacity_types |= capacity->present;
  }
  if (occupied.has_value()) node.occupied = *occupied;
  if (update.schedulable.has_value()) node.schedulable = *update.schedulable;
  node.scored_available.reset();
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::RemoveNode(std::string_view partition, std::string_view id,
                                              std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  int n = FindNode(*p, id);
  if (n < 0) return absl::NotFoundError(Cat("unknown node ", id));
  std::string node_id = p->nodes[static_cast<size_t>(n)].id;
  p->nodes.erase(p->nodes.begin() + n);
  std::erase_if(p->foreign, [&](const ForeignR& f) { return f.node == node_id; });
  p->reservations.erase(std::remove_if(p->reservations.begin(), p->reservations.end(),
                                       [&](const ReservationR& r) { return r.node == node_id; }),
                        p->reservations.end());
  // Every allocation on the node, oldest first; then the completion check of each app
  // touched, in the order of its first released allocation.
  std::vector<std::pair<int, bool>> touched;  // per release: (app, a placeholder)
  while (true) {
    size_t best = p->allocs.size();
    for (size_t i = 0; i < p->allocs.size(); ++i) {
      if (p->allocs[i].node != node_id) continue;
      if (best == p->allocs.size() || p->allocs[i].seq < p->allocs[best].seq) best = i;
    }
    if (best == p->allocs.size()) break;
    touched.push_back({p->allocs[best].app, p->allocs[best].placeholder});
    ReleaseAlloc(*p, best, out, ReleaseReason::kRemoved, /*follow_up=*/false);
  }
  for (auto [app, placeholder] : touched) {
    if (!IsLiveInQueue(p->apps[static_cast<size_t>(app)].state)) continue;
    if (placeholder) {
      PlaceholderGone(*p, app, out);
    } else {
      CompletionCheck(*p, app, out, /*ask_removal=*/false);
    }
  }
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::AddApplication(const AppSpec& spec,
                                                  std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(spec.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", spec.partition));
  if (spec.id.empty()) return absl::InvalidArgumentError("empty application id");
  if (spec.placeholder_timeout_millis < 0) {
    return absl::InvalidArgumentError("negative placeholder timeout");
  }
  TypesRollback rollback(&types_);
  Resource placeholder_ask;
  if (!spec.placeholder_ask.empty()) {
    absl::StatusOr<Resource> res = ToResource(spec.placeholder_ask);
    if (!res.ok()) return res.status();
    placeholder_ask = *res;
  }
  std::string reason;
  int q = -1;
  std::vector<std::string> groups = ResolveGroups(spec.user, spec.groups);
  // 1.6+: forced applications (tag application.create.force) end in the recovery queue when no
  // rule places them, and run as the anonymous user when they have none.
  bool forced = false;
  if (v19()) {
    for (const auto& [k, v] : spec.tags) {
      if (Lower(k) != "application.create.force") continue;
      forced = v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
      break;
    }
  }
  std::string user = spec.user;
  if (user.empty() && forced) {
    user = "nobody";
    groups = {"nogroup"};
  }
  bool recovery = false;
  if (user.empty()) {
    reason = "empty user cannot resolve";
  } else if (v19() && !spec.groups.empty() && !IsUserNameWide(user)) {
    reason = Cat("invalid username ", spec.user);
  } else if (FindActiveApp(*p, spec.id) >= 0) {
    reason = Cat("adding application ", spec.id, " to partition ", p->name,
                 ", but application already existed");
  } else if (p->rules.empty() && !v19()) {
    q = FindQueue(*p, spec.queue);
    if (q < 0) {
      reason = Cat("application '", spec.id, "' rejected, cannot create queue '", spec.queue,
                   "' without placement rules");
    } else if (!p->queues[static_cast<size_t>(q)].leaf || !SubmitAllowed(*p, q, user, groups)) {
      reason = Cat("failed to find queue ", spec.queue, " for application ", spec.id);
      q = -1;
    }
  } else {
    // §8.2: the rules in order; an error stops the chain. 1.6+: no rules means the provided
    // rule without create.
    std::vector<PlacementRuleConfig> rules = p->rules;
    if (rules.empty()) rules.push_back({.name = "provided"});
    std::string placed;
    bool error = false;
    AppSpec placed_spec = spec;  // the rules see the user the app runs as (maybe anonymous)
    placed_spec.user = user;
    for (const PlacementRuleConfig& rule : rules) {
      Placed r = PlaceRule(*p, rule, placed_spec, groups);
      if (r.kind == PlaceKind::kError) {
        error = true;
        break;
      }
      if (r.kind == PlaceKind::kNoMatch) continue;
      int existing = FindQueue(*p, r.path);
      if (existing < 0) {
        int ancestor = DeepestExisting(*p, r.path);
        if (ancestor < 0 || !SubmitAllowed(*p, ancestor, user, groups)) continue;
      } else {
        if (!p->queues[static_cast<size_t>(existing)].leaf) continue;
        if (!SubmitAllowed(*p, existing, user, groups)) continue;
      }
      placed = r.path;
      break;
    }
    if (!error && placed.empty() && v19()) {
      // The implicit last rule: forced apps to the recovery queue, the others to root.default
      // when it takes them.
      int fallback = FindQueue(*p, "root.default");
      if (forced) {
        placed = "root.@recovery@";
        recovery = true;
      } else if (fallback >= 0 && p->queues[static_cast<size_t>(fallback)].leaf &&
                 SubmitAllowed(*p, fallback, user, groups)) {
        placed = "root.default";
      }
    }
    if (error || placed.empty()) {
      reason = Cat("failed to place application ", spec.id);
    } else {
      q = FindQueue(*p, placed);
      if (q < 0) {
        q = recovery ? CreateRecoveryQueue(*p) : CreateDynamicQueues(*p, placed, user, groups);
        if (q < 0) reason = Cat("failed to create rule based queue ", placed);
      } else if (!p->queues[static_cast<size_t>(q)].leaf ||
                 (!recovery && !SubmitAllowed(*p, q, user, groups))) {
        reason = Cat("failed to find queue ", placed, " for application ", spec.id);
        q = -1;
      }
    }
  }
  bool refused_in_dynamic = false;  // a queue created for a refused gang goes with it
  if (q >= 0 && !IsZero(placeholder_ask)) {
    // Task groups: fifo or stateaware leaves only, within every max on the path.
    const bool dynamic = p->queues[static_cast<size_t>(q)].dynamic;
    if (p->queues[static_cast<size_t>(q)].sort_policy == "fair") {
      reason = "unsupported sort type for a task group request";
      q = -1;
    }
    for (int l = q; l > 0; l = p->queues[static_cast<size_t>(l)].parent) {
      const std::optional<Resource>& max = p->queues[static_cast<size_t>(l)].max;
      if (max && !FitInMaxUndef(*max, placeholder_ask)) {
        reason = "task group request larger than a max on the queue path";
        q = -1;
        break;
      }
    }
    refused_in_dynamic = q < 0 && dynamic;
  }
  if (q >= 0) {
    rollback.Commit();
  } else if (refused_in_dynamic) {
    RemoveEmptyDynamicQueues(*p);
  }
  AppR app;
  app.id = spec.id;
  app.user = user;
  app.groups = groups;
  app.gang_hard = spec.gang_style == GangStyle::kHard;
  app.placeholder_ask = placeholder_ask;
  if (spec.placeholder_timeout_millis > 0)
    app.placeholder_timeout = spec.placeholder_timeout_millis;
  for (const auto& [k, v] : spec.tags) {
    if (Lower(k) == "application.stateaware.disable" && !v.empty()) app.stateaware_disable = true;
  }
  app.submit_seq = ++app_seq_;
  app.submit_time = now_;
  if (q < 0) {
    app.state = AppState::kRejected;
    app.queue_path = spec.queue;
    SetTimer(app, kTerminatedTimeoutMs);
    p->apps.push_back(app);
    RefDecision d;
    d.type = DecisionType::kAppRejected;
    d.partition = p->name;
    d.queue = spec.queue;
    d.app = spec.id;
    d.reason = reason;
    out->push_back(d);
    return absl::OkStatus();
  }
  app.queue = q;
  app.queue_path = p->queues[static_cast<size_t>(q)].path;
  app.limit_group = ChooseLimitGroup(*p, q, app);
  app.state = AppState::kNew;
  p->apps.push_back(app);
  return absl::OkStatus();
}

// ---- Placement ----------------------------------------------------------------------------

namespace {

// YuniKorn's SpecialRegExp `[\^$*+?()\[{}|]`: no '.', so "a.b" is an exact user name.
bool HasRegexChar(const std::string& s) {
  return s.find_first_of("^$*+?()[{}|") != std::string::npos;
}

// One side (users or groups) of a filter: true when `name` matches (§8.3).
bool FilterListMatches(const std::vector<std::string>& list, bool users, const std::string& name) {
  if (list.size() == 1) {
    const std::string& entry = list[0];
    if (HasRegexChar(entry)) {
      // Go's regexp syntax is RE2's; a pattern that does not compile matches nobody.
      RE2::Options options;
      options.set_log_errors(false);
      RE2 re(entry, options);
      return re.ok() && RE2::PartialMatch(name, re);
    }
    return (users ? IsUserName(entry) : IsGroupName(entry)) && entry == name;
  }
  for (const std::string& entry : list) {
    if ((users ? IsUserName(entry) : IsGroupName(entry)) && entry == name) return true;
  }
  return false;
}

bool FilterAllows(const FilterConfig& f, const std::string& user,
                  const std::vector<std::string>& groups) {
  bool allow = Lower(f.type) != "deny";  // kernel/README: DENY denies as well
  if (f.users.empty() && f.groups.empty()) return allow;
  if (!f.users.empty() && FilterListMatches(f.users, true, user)) return allow;
  if (!f.groups.empty()) {
    for (const std::string& g : groups) {
      if (FilterListMatches(f.groups, false, g)) return allow;
    }
  }
  return !allow;
}

std::string ReplaceDots(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '.') {
      out += "_dot_";
    } else {
      out += c;
    }
  }
  return out;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// 1.6+: ^[a-zA-Z0-9_:#/@-]{1,64}$
bool IsDynamicNameWide(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    bool extra = c == ':' || c == '#' || c == '/' || c == '@';
    if (!(c == '_' || c == '-' || extra || absl::ascii_isalnum(static_cast<unsigned char>(c)))) {
      return false;
    }
  }
  return true;
}

bool IsDynamicName(const std::string& s) {
  // ^[a-zA-Z0-9_-]{1,64}$
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!(c == '_' || c == '-' || absl::ascii_isalnum(static_cast<unsigned char>(c)))) {
      return false;
    }
  }
  return true;
}

}  // namespace

ReferenceModel::Impl::Placed ReferenceModel::Impl::PlaceRule(
    const PartitionR& p, const PlacementRuleConfig& rule, const AppSpec& spec,
    const std::vector<std::string>& groups) const {
  Placed none;
  if (!FilterAllows(rule.filter, spec.user, groups)) return none;
  std::string kind = Lower(rule.name);
  std::string name;
  bool qualified = false;
  if (kind == "provided") {
    if (spec.queue.empty()) return none;
    if (StartsWith(spec.queue, "root.")) {
      name = spec.queue;
      qualified = true;
    } else {
      name = ReplaceDots(spec.queue);
    }
  } else if (kind == "user") {
    name = ReplaceDots(spec.user);
  } else if (kind == "tag") {
    std::string value;
    for (const auto& [k, v] : spec.tags) {
      if (Lower(k) == Lower(rule.value)) value = v;  // the last one of repeated keys
    }
    if (value.empty()) return none;
    if (StartsWith(value, "root.")) {
      name = value;
      qualified = true;
    } else {
      name = ReplaceDots(value);
    }
  } else if (kind == "fixed") {
    name = Lower(rule.value);
    qualified = StartsWith(name, "root");
  } else {
    return none;  // recovery: only forced applications, never matches here
  }
  if (!qualified) {
    std::string parent = "root";
    if (!rule.parent.empty()) {
      Placed pr = PlaceRule(p, rule.parent[0], spec, groups);
      if (pr.kind != PlaceKind::kPlaced) return pr;
      parent = pr.path;
      if (!StartsWith(parent, "root.")) parent = "root." + parent;
      int existing = FindQueue(p, parent);
      if (existing >= 0 && p.queues[static_cast<size_t>(existing)].leaf) {
        return Placed{PlaceKind::kError, ""};
      }
    }
    name = parent + "." + name;
  }
  name = Lower(name);
  if (!rule.create && FindQueue(p, name) < 0) return none;
  return Placed{PlaceKind::kPlaced, name};
}

// The deepest existing queue on `path` (the path itself excluded when it exists? no: callers
// use this only for a missing path). -1 when the path does not start with root.
int ReferenceModel::Impl::DeepestExisting(const PartitionR& p, const std::string& path) const {
  std::vector<std::string> parts = Split(path, '.');
  if (parts.empty() || parts[0] != "root") return -1;
  int deepest = 0;
  std::string prefix = "root";
  for (size_t i = 1; i < parts.size(); ++i) {
    prefix += "." + parts[i];
    int q = FindQueue(p, prefix);
    if (q < 0) break;
    deepest = q;
  }
  return deepest;
}

int ReferenceModel::Impl::NearestTemplate(const PartitionR& p, int q) const {
  for (; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    if (p.queues[static_cast<size_t>(q)].own_template.has_value()) return q;
  }
  return -1;
}

// §3.3: create the missing queues of `path` below the deepest existing one. -1 on failure
// (nothing is created then).
// root.@recovery@: a fifo leaf of the root, the root's template resources without its
// properties, no submit ACL (placement does not check it).
int ReferenceModel::Impl::CreateRecoveryQueue(PartitionR& p) {
  QueueR q;
  q.name = "@recovery@";
  q.parent = 0;
  q.path = "root.@recovery@";
  q.leaf = true;
  q.dynamic = true;
  if (const std::optional<TemplateR>& t = p.queues[0].own_template) {
    q.guaranteed = t->guaranteed;
    q.max = t->max;
    q.max_apps = t->max_apps;
  }
  ApplyProperties(q);
  int index = static_cast<int>(p.queues.size());
  p.queues.push_back(q);
  p.queues[0].children.push_back(index);
  return index;
}

int ReferenceModel::Impl::CreateDynamicQueues(PartitionR& p, const std::string& path,
                                              const std::string& user,
                                              const std::vector<std::string>& groups) {
  int ancestor = DeepestExisting(p, path);
  if (ancestor < 0) return -1;
  if (!SubmitAllowed(p, ancestor, user, groups)) return -1;
  if (p.queues[static_cast<size_t>(ancestor)].leaf) return -1;
  std::vector<std::string> parts = Split(path, '.');
  if (parts.size() > static_cast<size_t>(kMaxQueueDepth)) return -1;  // config.h's bound
  size_t depth = 1;
  for (int q = ancestor; p.queues[static_cast<size_t>(q)].parent >= 0;
       q = p.queues[static_cast<size_t>(q)].parent) {
    ++depth;
  }
  if (depth >= parts.size()) return -1;
  for (size_t i = depth; i < parts.size(); ++i) {
    if (!(v19() ? IsDynamicNameWide(parts[i]) : IsDynamicName(parts[i]))) return -1;
    if (v19() && depth == 1 && i == 1 && Lower(parts[i]) == "@recovery@") return -1;
  }
  int parent = ancestor;
  for (size_t i = depth; i < parts.size(); ++i) {
    bool leaf = i + 1 == parts.size();
    int index = static_cast<int>(p.queues.size());
    QueueR q;
    q.name = parts[i];
    q.parent = parent;
    q.path = Cat(p.queues[static_cast<size_t>(parent)].path, ".", q.name);
    q.leaf = leaf;
    q.dynamic = true;
    int tmpl = NearestTemplate(p, parent);
    if (leaf && tmpl >= 0) {
      const TemplateR& t = *p.queues[static_cast<size_t>(tmpl)].own_template;
      q.props = t.properties;
      q.guaranteed = t.guaranteed;
      q.max = t.max;
      q.max_apps = t.max_apps;
    } else if (leaf && !v19()) {
      // Only the parent's application.sort.policy value is inherited (a dynamic parent has
      // no properties at all: YuniKorn's addChildQueue gives properties to leaves only).
      const std::string* v =
          FindProperty(p.queues[static_cast<size_t>(parent)].props, "application.sort.policy");
      if (v != nullptr) SetProperty(q.props, "application.sort.policy", *v);
    }
    ApplyProperties(q);
    p.queues.push_back(q);
    p.queues[static_cast<size_t>(parent)].children.push_back(index);
    parent = index;
  }
  return parent;
}

// Deletes every dynamic queue without applications and without children (repeatedly).
void ReferenceModel::Impl::RemoveEmptyDynamicQueues(PartitionR& p) {
  bool again = true;
  while (again) {
    again = false;
    for (size_t i = 0; i < p.queues.size(); ++i) {
      QueueR& q = p.queues[i];
      if (!q.dynamic || q.removed || !q.children.empty()) continue;
      bool has_app = false;
      for (const AppR& a : p.apps) {
        if (!a.removed && a.queue == static_cast<int>(i) && IsLiveInQueue(a.state)) has_app = true;
      }
      if (has_app) continue;
      q.removed = true;
      auto& siblings = p.queues[static_cast<size_t>(q.parent)].children;
      siblings.erase(std::remove(siblings.begin(), siblings.end(), static_cast<int>(i)),
                     siblings.end());
      again = true;
    }
  }
}

// ---- User and group limits (A.2) ----------------------------------------------------------

const LimitR* ReferenceModel::Impl::UserLimit(const QueueR& q, const std::string& user) {
  for (const auto& [name, limit] : q.limits.users) {
    if (name == user) return &limit;
  }
  return q.limits.any_user.has_value() ? &*q.limits.any_user : nullptr;
}

const LimitR* ReferenceModel::Impl::GroupLimit(const QueueR& q, const std::string& group) {
  if (group.empty()) return nullptr;
  for (const auto& [name, limit] : q.limits.groups) {
    if (name == group) return &limit;
  }
  return q.limits.any_group.has_value() ? &*q.limits.any_group : nullptr;
}

std::string ReferenceModel::Impl::ChooseLimitGroup(const PartitionR& p, int leaf,
                                                   const AppR& app) const {
  for (int q = leaf; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    const QueueLimitsR& limits = p.queues[static_cast<size_t>(q)].limits;
    for (const auto& [name, limit] : limits.groups) {
      if (std::find(app.groups.begin(), app.groups.end(), name) != app.groups.end()) return name;
    }
    if (limits.any_group.has_value() && !app.groups.empty()) return app.groups[0];
  }
  return "";
}

// An Accepted app may start only when no user/group running-app limit on its path is full.
bool ReferenceModel::Impl::LimitsAllowRun(const PartitionR& p, int app) const {
  const AppR& a = p.apps[static_cast<size_t>(app)];
  for (int q = a.queue; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    const QueueR& queue = p.queues[static_cast<size_t>(q)];
    const LimitR* user = UserLimit(queue, a.user);
    const LimitR* group = GroupLimit(queue, a.limit_group);
    uint64_t user_running = 0;
    uint64_t group_running = 0;
    for (const AppR& other : p.apps) {
      if (other.removed || other.queue < 0) continue;
      if (other.state != AppState::kStarting && other.state != AppState::kRunning) continue;
      if (!InSubtree(p, other.queue, q)) continue;
      if (other.user == a.user) ++user_running;
      if (!a.limit_group.empty() && other.limit_group == a.limit_group) ++group_running;
    }
    if (user != nullptr && user->max_apps != 0 && user_running >= user->max_apps) return false;
    if (group != nullptr && group->max_apps != 0 && group_running >= group->max_apps) return false;
  }
  return true;
}

// The ask fits (limit − used) of the user and of the app's group at every level.
bool ReferenceModel::Impl::LimitsFit(const PartitionR& p, int app, const Resource& ask) const {
  const AppR& a = p.apps[static_cast<size_t>(app)];
  for (int q = a.queue; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
    const QueueR& queue = p.queues[static_cast<size_t>(q)];
    const LimitR* user = UserLimit(queue, a.user);
    const LimitR* group = GroupLimit(queue, a.limit_group);
    Resource user_used;
    Resource group_used;
    for (const AllocR& alloc : p.allocs) {
      const AppR& other = p.apps[static_cast<size_t>(alloc.app)];
      if (!InSubtree(p, other.queue, q)) continue;
      if (other.user == a.user) user_used = Add(user_used, alloc.res);
      if (!a.limit_group.empty() && other.limit_group == a.limit_group) {
        group_used = Add(group_used, alloc.res);
      }
    }
    // Only the ask's types count (FitInMaxUndef); a usage already past the limit (a recovered
    // or resized pod) leaves no room on that type, not less than none.
    auto fits = [&](const LimitR* limit, const Resource& used) {
      if (limit == nullptr || !limit->max_res.has_value()) return true;
      for (int k = 0; k < kMaxResourceTypes; ++k) {
        if (!limit->max_res->Has(k) || !ask.Has(k)) continue;
        const int64_t room =
            std::max<int64_t>(0, SaturatingSub(limit->max_res->Get(k), used.Get(k)));
        if (ask.Get(k) > room) return false;
      }
      return true;
    };
    if (!fits(user, user_used) || !fits(group, group_used)) return false;
  }
  return true;
}

absl::Status ReferenceModel::Impl::RemoveApplication(std::string_view partition,
                                                     std::string_view id,
                                                     std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  int a = FindActiveApp(*p, id);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", id));
  // YuniKorn's removeApplication: the asks go first (completing an app with nothing
  // allocated), then every allocation (completing it again). Records in causal order: an app
  // that holds allocations completes because they go, so its releases come first.
  bool holds = false;
  for (const AllocR& alloc : p->allocs) holds = holds || alloc.app == a;
  auto report_states = [&] {
    AppR& app = p->apps[static_cast<size_t>(a)];
    auto working = [&] {
      return app.state == AppState::kAccepted || app.state == AppState::kStarting ||
             app.state == AppState::kRunning;
    };
    if (!app.asks.empty() && !holds && working()) SetState(*p, a, AppState::kCompleting, out);
    if (working()) {
      SetState(*p, a, AppState::kCompleting, out);
    } else if (app.state == AppState::kCompleting) {
      SetState(*p, a, AppState::kCompleted, out);
    }
  };
  if (!holds) report_states();
  EraseReservations(*p, [&](const ReservationR& r) { return r.app == a; });
  while (true) {
    size_t best = p->allocs.size();
    for (size_t i = 0; i < p->allocs.size(); ++i) {
      if (p->allocs[i].app != a) continue;
      if (best == p->allocs.size() || p->allocs[i].seq < p->allocs[best].seq) best = i;
    }
    if (best == p->allocs.size()) break;
    ReleaseAlloc(*p, best, out, ReleaseReason::kRemoved, /*follow_up=*/false);
  }
  if (holds) report_states();
  AppR& app = p->apps[static_cast<size_t>(a)];
  if (app.state == AppState::kStarting || app.state == AppState::kRunning) {
    DecRunning(*p, app.queue);
  }
  ForgetAllocatingAccepted(*p, a);
  app.asks.clear();
  app.has_timer = false;
  app.has_ph_timer = false;
  app.removed = true;
  RemoveEmptyDynamicQueues(*p);
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::AddAsk(const AskSpec& spec, std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(spec.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", spec.partition));
  int a = FindActiveApp(*p, spec.app);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", spec.app));
  if (spec.id.empty()) return absl::InvalidArgumentError("empty ask id");
  if (spec.count <= 0) return absl::InvalidArgumentError("ask count must be positive");
  if (spec.placeholder && spec.task_group.empty()) {
    return absl::InvalidArgumentError("a placeholder needs a task group");
  }
  if (spec.creation_time_millis && *spec.creation_time_millis < 0) {
    return absl::InvalidArgumentError("negative creation time");
  }
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> res = ToResource(spec.resources);
  if (!res.ok()) return res.status();
  if (IsZero(*res)) return absl::InvalidArgumentError("ask resources are zero");
  AppR& app = p->apps[static_cast<size_t>(a)];
  if (AskR* known = FindAsk(app, spec.id); known != nullptr && v19()) {
    // YUNIKORN-2204: a key the app knows is the same pod; only its resources change (the
    // pending part, else the oldest live allocation). Nothing of it left: a new ask.
    if (known->pending > 0) {
      if (!PendingSumFits(*p, a, spec.id, *res, known->pending)) {
        return absl::OutOfRangeError("partition pending would overflow");
      }
      rollback.Commit();
      known->res = *res;
      return absl::OkStatus();
    }
    if (HasLive(*p, a, spec.id)) {
      absl::Status resized = ResizeLive(*p, a, spec.id, "", *res);
      if (resized.ok()) rollback.Commit();
      return resized;
    }
  }
  if (!PendingSumFits(*p, a, spec.id, *res, spec.count)) {
    return absl::OutOfRangeError("partition pending would overflow");
  }
  rollback.Commit();
  AskR* ask = FindAsk(app, spec.id);
  if (ask == nullptr) ask = &app.asks.emplace_back();
  ask->id = spec.id;
  ask->res = *res;
  ask->priority = spec.priority;
  ask->pending = spec.count;
  ask->create_seq = ++ask_seq_;
  ask->create_time = now_;
  if (v19() && spec.creation_time_millis) {
    ask->create_time = *spec.creation_time_millis;  // YUNIKORN-2772
    app.submit_time = std::min(app.submit_time, ask->create_time);
  }
  ask->task_group = spec.task_group;
  ask->placeholder = spec.placeholder;
  ask->required_node = spec.required_node;
  ask->allow_preemption = spec.allow_preemption;
  ask->originator = spec.originator;
  ask->preemption_triggered = false;
  ask->preempt_check.reset();  // a replaced ask is a new ask (new create time too)
  if (ask->placeholder) {
    TaskGroupR* group = FindTaskGroup(app, spec.task_group);
    if (group == nullptr) {
      app.task_groups.push_back({.name = spec.task_group});
      group = &app.task_groups.back();
    }
    ++group->count;
  }
  if (app.state == AppState::kNew) {
    SetState(*p, a, AppState::kAccepted, out);
  } else if (app.state == AppState::kCompleting) {
    SetState(*p, a, AppState::kRunning, out);
  }
  return absl::OkStatus();
}

// ---- A manager's lifecycle: recovered pods, resize, other schedulers' pods ------------------

void ReferenceModel::Impl::Notified(PartitionR& p, const std::string& node) {
  int n = FindNode(p, node);
  if (n >= 0) p.nodes[static_cast<size_t>(n)].scored_available.reset();
}

void ReferenceModel::Impl::FreeSpaceChanged(PartitionR& p, NodeR& node, const Resource& before) {
  (void)p;
  if (!v19()) {
    node.scored_available.reset();  // v1.2.0 re-sorts the node on every change
    return;
  }
  if (!node.scored_available) node.scored_available = before;
}

namespace {

// Whether a + b fits int64 on every type.
bool SumFits(const Resource& a, const Resource& b) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    int64_t sum;
    if (__builtin_add_overflow(a.Get(k), b.Get(k), &sum)) return false;
  }
  return true;
}

}  // namespace

void ReferenceModel::Impl::PlaceRunning(PartitionR& p, int a, const AskR& ask,
                                        const std::string& node, const Resource& res,
                                        std::vector<RefDecision>* out) {
  AppR& app = p.apps[static_cast<size_t>(a)];
  AllocR alloc;
  alloc.app = a;
  alloc.ask = ask.id;
  alloc.node = node;
  alloc.res = res;
  alloc.priority = ask.priority;
  alloc.seq = ++alloc_seq_;
  alloc.record_seq = 0;  // not a scheduling decision
  alloc.placeholder = ask.placeholder;
  alloc.task_group = ask.task_group;
  alloc.required_node = !ask.required_node.empty();
  alloc.allow_preemption = ask.allow_preemption;
  alloc.originator = ask.originator;
  alloc.ask_create_time = ask.create_time;
  alloc.ask_create_seq = ask.create_seq;
  const bool first_placeholder = alloc.placeholder && LivePlaceholders(p, a) == 0;
  p.allocs.push_back(alloc);
  NoteAllocatedTypes(p, alloc.app, alloc.res);
  QuotaIncAllocated(p, a);  // taken as reported, over a max too (YUNIKORN-3228)
  Notified(p, node);
  RefDecision d;
  d.type = DecisionType::kRecovered;
  d.partition = p.name;
  d.queue = p.queues[static_cast<size_t>(app.queue)].path;
  d.app = app.id;
  d.ask = alloc.ask;
  d.node = node;
  d.priority = alloc.priority;
  d.placeholder = alloc.placeholder;
  out->push_back(d);
  if (alloc.placeholder) {
    if (first_placeholder && !app.has_ph_timer && app.state == AppState::kAccepted) {
      SetPlaceholderTimer(app, true);
    }
    Resource total = PlaceholderTotal(p, a);
    bool equal = true;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      equal = equal && total.Get(k) == app.placeholder_ask.Get(k);
    }
    if (equal) Run(p, a, out);
    return;
  }
  Run(p, a, out);
}

bool ReferenceModel::Impl::HasLive(const PartitionR& p, int a, const std::string& ask_id) const {
  for (const AllocR& alloc : p.allocs) {
    if (alloc.app == a && alloc.ask == ask_id) return true;
  }
  return false;
}

absl::Status ReferenceModel::Impl::ResizeLive(PartitionR& p, int a, const std::string& ask_id,
                                              const std::string& node, const Resource& res) {
  size_t best = p.allocs.size();
  for (size_t i = 0; i < p.allocs.size(); ++i) {
    const AllocR& alloc = p.allocs[i];
    if (alloc.app != a || alloc.ask != ask_id) continue;
    if (!node.empty() && alloc.node != node) continue;
    if (best == p.allocs.size() || alloc.seq < p.allocs[best].seq) best = i;
  }
  if (best == p.allocs.size()) return absl::NotFoundError("no live allocation to resize");
  AllocR& alloc = p.allocs[best];
  NodeR& n = p.nodes[static_cast<size_t>(FindNode(p, alloc.node))];
  Resource node_allocated;
  Resource root_allocated;
  for (const AllocR& x : p.allocs) {
    if (&x == &alloc) continue;
    root_allocated = Add(root_allocated, x.res);
    if (x.node == n.id) node_allocated = Add(node_allocated, x.res);
  }
  if (!SumFits(node_allocated, res) || !SumFits(root_allocated, res)) {
    return absl::OutOfRangeError("allocated would overflow");
  }
  if (alloc.res == res) return absl::OkStatus();
  const Resource before = NodeAvailable(p, n);
  const Resource old = alloc.res;
  alloc.res = res;
  FreeSpaceChanged(p, n, before);
  NoteAllocatedTypes(p, a, res);
  if (!IsZero(Sub(res, old))) QuotaIncAllocated(p, a);
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::RecoverAllocation(const RecoverSpec& spec,
                                                     std::vector<RefDecision>* out) {
  const AskSpec& pod = spec.ask;
  PartitionR* p = FindPartition(pod.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", pod.partition));
  int a = FindActiveApp(*p, pod.app);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", pod.app));
  if (spec.node.empty()) return absl::InvalidArgumentError("no node");
  int n = FindNode(*p, spec.node);
  if (n < 0) return absl::NotFoundError(Cat("unknown node ", spec.node));
  if (pod.id.empty()) return absl::InvalidArgumentError("empty ask id");
  if (pod.count != 1) return absl::InvalidArgumentError("a running pod has count 1");
  if (pod.placeholder && pod.task_group.empty()) {
    return absl::InvalidArgumentError("a placeholder needs a task group");
  }
  if (pod.creation_time_millis && *pod.creation_time_millis < 0) {
    return absl::InvalidArgumentError("negative creation time");
  }
  AppR& app = p->apps[static_cast<size_t>(a)];
  AskR* known = FindAsk(app, pod.id);
  bool live = false;
  for (const AllocR& x : p->allocs) live = live || (x.app == a && x.ask == pod.id);
  const bool pending = known != nullptr && known->pending > 0;
  if ((pending || live) && !v19()) {
    return absl::FailedPreconditionError("v1.2.0 recovers new ids only");
  }
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> res = ToResource(pod.resources);
  if (!res.ok()) return res.status();
  if (IsZero(*res)) return absl::InvalidArgumentError("zero resources");
  if (live && !pending) {
    absl::Status resized = ResizeLive(*p, a, pod.id, "", *res);
    if (resized.ok()) rollback.Commit();
    return resized;
  }
  NodeR& node = p->nodes[static_cast<size_t>(n)];
  Resource node_allocated;
  Resource root_allocated;
  for (const AllocR& x : p->allocs) {
    root_allocated = Add(root_allocated, x.res);
    if (x.node == node.id) node_allocated = Add(node_allocated, x.res);
  }
  if (!SumFits(node_allocated, *res) || !SumFits(root_allocated, *res)) {
    return absl::OutOfRangeError("allocated would overflow");
  }
  if (pending) {
    if (!PendingSumFits(*p, a, pod.id, *res, known->pending)) {
      return absl::OutOfRangeError("partition pending would overflow");
    }
    rollback.Commit();
    // The manager placed the pending ask itself (1.6+), with the resources it reports.
    known->res = *res;
    int64_t reserved = 0;
    for (const ReservationR& r : p->reservations) {
      if (r.app == a && r.ask == pod.id) ++reserved;
    }
    if (reserved >= known->pending) {
      EraseReservations(*p, [&](const ReservationR& r) { return r.app == a && r.ask == pod.id; });
    }
    known->pending -= 1;
    const AskR placed = *known;
    PlaceRunning(*p, a, placed, spec.node, *res, out);
    return absl::OkStatus();
  }
  rollback.Commit();
  if (known != nullptr) {
    // Known but idle: the pod is a new ask under the old id (the record moves to the end).
    app.asks.erase(app.asks.begin() + (known - app.asks.data()));
  }
  AskR& ask = app.asks.emplace_back();
  ask.id = pod.id;
  ask.res = *res;
  ask.priority = pod.priority;
  ask.pending = 0;
  ask.create_seq = ++ask_seq_;
  ask.create_time = now_;
  if (v19() && pod.creation_time_millis) ask.create_time = *pod.creation_time_millis;
  ask.task_group = pod.task_group;
  ask.placeholder = pod.placeholder;
  ask.required_node = pod.required_node;
  ask.allow_preemption = pod.allow_preemption;
  ask.originator = pod.originator;
  if (ask.placeholder && v19()) {
    TaskGroupR* group = FindTaskGroup(app, pod.task_group);
    if (group == nullptr) {
      app.task_groups.push_back({.name = pod.task_group});
      group = &app.task_groups.back();
    }
    ++group->count;
  }
  if (v19()) app.submit_time = std::min(app.submit_time, ask.create_time);
  if (app.state == AppState::kNew) SetState(*p, a, AppState::kAccepted, out);
  const AskR placed = ask;
  PlaceRunning(*p, a, placed, spec.node, *res, out);
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::UpdateAllocation(const AllocationUpdate& update,
                                                    std::vector<RefDecision>*) {
  if (!v19()) return absl::FailedPreconditionError("v1.2.0 cannot resize");
  PartitionR* p = FindPartition(update.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", update.partition));
  int a = FindActiveApp(*p, update.app);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", update.app));
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> res = ToResource(update.resources);
  if (!res.ok()) return res.status();
  if (IsZero(*res)) return absl::InvalidArgumentError("zero resources");
  absl::Status resized = ResizeLive(*p, a, update.ask, update.node, *res);
  if (resized.ok()) rollback.Commit();
  return resized;
}

absl::Status ReferenceModel::Impl::UpdateAsk(const AskUpdate& update, std::vector<RefDecision>*) {
  if (!v19()) return absl::FailedPreconditionError("v1.2.0 cannot resize");
  PartitionR* p = FindPartition(update.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", update.partition));
  int a = FindActiveApp(*p, update.app);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", update.app));
  AskR* ask = FindAsk(p->apps[static_cast<size_t>(a)], update.id);
  if (ask == nullptr) return absl::NotFoundError(Cat("unknown ask ", update.id));
  if (ask->pending == 0) return absl::FailedPreconditionError("nothing pending");
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> res = ToResource(update.resources);
  if (!res.ok()) return res.status();
  if (IsZero(*res)) return absl::InvalidArgumentError("zero resources");
  if (!PendingSumFits(*p, a, update.id, *res, ask->pending)) {
    return absl::OutOfRangeError("partition pending would overflow");
  }
  rollback.Commit();
  ask->res = *res;
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::AddForeign(const ForeignAllocationSpec& spec,
                                              std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(spec.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", spec.partition));
  if (spec.id.empty()) return absl::InvalidArgumentError("empty id");
  for (const ForeignR& f : p->foreign) {
    if (f.id == spec.id) {
      return UpdateForeign({.partition = spec.partition,
                            .id = spec.id,
                            .node = spec.node,
                            .resources = spec.resources},
                           out);
    }
  }
  if (spec.node.empty()) return absl::InvalidArgumentError("no node");
  int n = FindNode(*p, spec.node);
  if (n < 0) return absl::NotFoundError(Cat("unknown node ", spec.node));
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> res = ToResource(spec.resources);
  if (!res.ok()) return res.status();
  NodeR& node = p->nodes[static_cast<size_t>(n)];
  if (!SumFits(node.occupied, *res)) return absl::OutOfRangeError("occupied would overflow");
  rollback.Commit();
  p->foreign.push_back({.id = spec.id, .node = node.id, .res = *res});
  const Resource before = NodeAvailable(*p, node);
  node.occupied = Add(node.occupied, *res);
  FreeSpaceChanged(*p, node, before);
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::UpdateForeign(const ForeignAllocationUpdate& update,
                                                 std::vector<RefDecision>*) {
  PartitionR* p = FindPartition(update.partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", update.partition));
  ForeignR* foreign = nullptr;
  for (ForeignR& f : p->foreign) {
    if (f.id == update.id) foreign = &f;
  }
  if (foreign == nullptr) return absl::NotFoundError(Cat("unknown foreign pod ", update.id));
  if (!update.node.empty() && update.node != foreign->node) {
    return absl::InvalidArgumentError("another node");
  }
  TypesRollback rollback(&types_);
  absl::StatusOr<Resource> res = ToResource(update.resources);
  if (!res.ok()) return res.status();
  NodeR& node = p->nodes[static_cast<size_t>(FindNode(*p, foreign->node))];
  const Resource others = SubClampNegative(node.occupied, foreign->res);
  if (!SumFits(others, *res)) return absl::OutOfRangeError("occupied would overflow");
  rollback.Commit();
  const Resource before = NodeAvailable(*p, node);
  node.occupied = Add(others, *res);
  foreign->res = *res;
  FreeSpaceChanged(*p, node, before);
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::RemoveForeign(std::string_view partition, std::string_view id,
                                                 std::vector<RefDecision>*) {
  PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  for (size_t i = 0; i < p->foreign.size(); ++i) {
    if (p->foreign[i].id != id) continue;
    NodeR& node = p->nodes[static_cast<size_t>(FindNode(*p, p->foreign[i].node))];
    const Resource before = NodeAvailable(*p, node);
    node.occupied = SubClampNegative(node.occupied, p->foreign[i].res);
    p->foreign.erase(p->foreign.begin() + static_cast<ptrdiff_t>(i));
    FreeSpaceChanged(*p, node, before);
    return absl::OkStatus();
  }
  return absl::NotFoundError(Cat("unknown foreign pod ", id));
}

absl::Status ReferenceModel::Impl::RemoveAsk(std::string_view partition, std::string_view app_id,
                                             std::string_view ask_id,
                                             std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  int a = FindActiveApp(*p, app_id);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", app_id));
  AppR& app = p->apps[static_cast<size_t>(a)];
  auto it =
      std::find_if(app.asks.begin(), app.asks.end(), [&](const AskR& x) { return x.id == ask_id; });
  if (it == app.asks.end()) return absl::NotFoundError(Cat("unknown ask ", ask_id));
  app.asks.erase(it);
  EraseReservations(*p, [&](const ReservationR& r) { return r.app == a && r.ask == ask_id; });
  CompletionCheck(*p, a, out, /*ask_removal=*/true);
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::ReleaseAllocation(std::string_view partition,
                                                     std::string_view app_id,
                                                     std::string_view ask_id, std::string_view node,
                                                     int64_t seq, std::vector<RefDecision>* out) {
  PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  int a = FindActiveApp(*p, app_id);
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", app_id));
  size_t best = p->allocs.size();
  for (size_t i = 0; i < p->allocs.size(); ++i) {
    const AllocR& alloc = p->allocs[i];
    if (alloc.app != a || alloc.ask != ask_id) continue;
    if (!node.empty() && alloc.node != node) continue;
    if (seq > 0 && alloc.record_seq != seq) continue;
    if (best == p->allocs.size() || alloc.seq < p->allocs[best].seq) best = i;
  }
  if (best == p->allocs.size()) {
    return absl::NotFoundError(Cat("no live allocation of ", app_id, "/", ask_id));
  }
  const std::string released_ask = p->allocs[best].ask;
  ReleaseAlloc(*p, best, out, ReleaseReason::kReleased, /*follow_up=*/true);
  if (v19()) {
    // YUNIKORN-2204: the released pod's ask goes with it once nothing of it is left.
    AppR& app = p->apps[static_cast<size_t>(a)];
    auto it = std::find_if(app.asks.begin(), app.asks.end(),
                           [&](const AskR& x) { return x.id == released_ask; });
    if (it != app.asks.end() && it->pending == 0 && !HasLive(*p, a, released_ask)) {
      app.asks.erase(it);
    }
  }
  return absl::OkStatus();
}

absl::Status ReferenceModel::Impl::Advance(int64_t millis, std::vector<RefDecision>* out) {
  if (millis < 0) return absl::InvalidArgumentError("negative clock advance");
  if (!FitsInt64(static_cast<Wide>(now_) + millis)) {
    return absl::OutOfRangeError("the clock would overflow");
  }
  int64_t target = now_ + millis;
  // 1.9 quota-change preemption: a check at every whole second crossed, after the timers due
  // at or before it (checks while no queue has a start time change nothing and are skipped).
  // The first whole second after `t` (saturating at the clock's end, as the kernel's).
  auto check_after = [](int64_t t) { return SaturatingAdd(t / 1000 * 1000, 1000); };
  int64_t next_check = check_after(now_);
  int64_t last_check = now_;  // a check at the clock's very end runs once
  while (true) {
    // The earliest due timer over every partition (ties: the timer set first).
    PartitionR* best_p = nullptr;
    int best_app = -1;
    int64_t best_due = 0;
    int64_t best_seq = 0;
    bool best_placeholder = false;
    for (PartitionR& p : partitions_) {
      for (size_t i = 0; i < p.apps.size(); ++i) {
        const AppR& app = p.apps[i];
        if (app.removed) continue;
        // Each app has a state timer and a placeholder timer.
        for (bool placeholder : {false, true}) {
          bool on = placeholder ? app.has_ph_timer : app.has_timer;
          int64_t due = placeholder ? app.ph_timer_due : app.timer_due;
          int64_t seq = placeholder ? app.ph_timer_seq : app.timer_seq;
          if (!on || due > target) continue;
          if (best_p != nullptr && (best_due < due || (best_due == due && best_seq < seq))) {
            continue;
          }
          best_p = &p;
          best_app = static_cast<int>(i);
          best_due = due;
          best_seq = seq;
          best_placeholder = placeholder;
        }
      }
    }
    if (next_check <= target && next_check > last_check &&
        (best_p == nullptr || best_due > next_check) && AnyQuotaStart()) {
      now_ = next_check;
      for (PartitionR& p : partitions_) QuotaCheck(p, out);
      last_check = next_check;
      next_check = SaturatingAdd(next_check, 1000);
      continue;
    }
    if (best_p == nullptr) break;
    AppR& app = best_p->apps[static_cast<size_t>(best_app)];
    now_ = std::max(now_, best_due);
    if (next_check < now_) next_check = check_after(now_ - 1);  // checks skipped meanwhile
    if (best_placeholder) {
      app.has_ph_timer = false;
      PlaceholderTimeout(*best_p, best_app, out);
      continue;
    }
    app.has_timer = false;
    switch (app.state) {
      case AppState::kStarting:
        SetState(*best_p, best_app, AppState::kRunning, out);
        break;
      case AppState::kCompleting:
        if (LivePlaceholders(*best_p, best_app) > 0) {
          // The placeholders go first; the last one's release completes the app.
          while (true) {
            size_t index = best_p->allocs.size();
            for (size_t i = 0; i < best_p->allocs.size(); ++i) {
              const AllocR& a = best_p->allocs[i];
              if (a.app != best_app || !a.placeholder) continue;
              if (index == best_p->allocs.size() || a.seq < best_p->allocs[index].seq) index = i;
            }
            if (index == best_p->allocs.size()) break;
            ReleaseAlloc(*best_p, index, out, ReleaseReason::kTimeout, /*follow_up=*/false);
          }
          PlaceholderGone(*best_p, best_app, out);
        } else {
          SetState(*best_p, best_app, AppState::kCompleted, out);
        }
        break;
      case AppState::kCompleted:
      case AppState::kFailed:
      case AppState::kRejected:
        SetState(*best_p, best_app, AppState::kExpired, out);
        break;
      default:
        break;
    }
  }
  now_ = target;
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReferenceModel::Impl::Schedule(int64_t max, std::string_view partition,
                                                       std::vector<RefDecision>* out) {
  std::vector<PartitionR*> targets;
  if (partition.empty()) {
    for (PartitionR& p : partitions_) targets.push_back(&p);
  } else {
    PartitionR* p = FindPartition(partition);
    if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
    targets.push_back(p);
  }
  int64_t allocations = 0;
  bool changed = true;
  while (changed && (max <= 0 || allocations < max)) {
    changed = false;
    for (PartitionR* p : targets) {
      if (max > 0 && allocations >= max) break;
      if (ScheduleStep(*p, &allocations, out)) changed = true;
    }
  }
  return allocations;
}

// ---- Gang scheduling and required nodes (kernel/README decisions 23, 24) -----------------

TaskGroupR* ReferenceModel::Impl::FindTaskGroup(AppR& app, const std::string& name) {
  for (TaskGroupR& group : app.task_groups) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

bool ReferenceModel::Impl::WaitsForReplacement(const AppR& app, const AskR& ask) const {
  if (ask.placeholder || ask.task_group.empty()) return false;
  for (const TaskGroupR& group : app.task_groups) {
    if (group.name == ask.task_group) return group.count > group.replaced + group.timed_out;
  }
  return false;
}

int64_t ReferenceModel::Impl::LivePlaceholders(const PartitionR& p, int app) const {
  int64_t n = 0;
  for (const AllocR& a : p.allocs) n += a.app == app && a.placeholder;
  return n;
}

Resource ReferenceModel::Impl::PlaceholderTotal(const PartitionR& p, int app) const {
  Resource total;
  for (const AllocR& a : p.allocs) {
    if (a.app == app && a.placeholder) total = Add(total, a.res);
  }
  return total;
}

bool ReferenceModel::Impl::HasRealAllocation(const PartitionR& p, int app) const {
  for (const AllocR& a : p.allocs) {
    if (a.app == app && !a.placeholder) return true;
  }
  return false;
}

void ReferenceModel::Impl::SetPlaceholderTimer(AppR& app, bool on) {
  app.has_ph_timer = on;
  if (!on) return;
  app.ph_timer_due = SaturatingAdd(now_, app.placeholder_timeout);
  app.ph_timer_seq = ++timer_seq_;
}

size_t ReferenceModel::Impl::AllocIndex(const PartitionR& p, int64_t seq) const {
  for (size_t i = 0; i < p.allocs.size(); ++i) {
    if (p.allocs[i].seq == seq) return i;
  }
  return p.allocs.size();
}

void ReferenceModel::Impl::RemoveNodeReservations(PartitionR& p, const std::string& node) {
  EraseReservations(p, [&](const ReservationR& r) { return r.node == node; });
}

// Once the app holds no placeholder: the timer stops; Failing fails, Resuming is accepted
// again, Completing completes (without its timer, or with nothing left: hasZeroAllocations), a
// working app with nothing left completes.
void ReferenceModel::Impl::PlaceholderGone(PartitionR& p, int app_index,
                                           std::vector<RefDecision>* out) {
  AppR& app = p.apps[static_cast<size_t>(app_index)];
  if (app.removed || !IsLiveInQueue(app.state) || LivePlaceholders(p, app_index) > 0) return;
  app.has_ph_timer = false;
  switch (app.state) {
    case AppState::kFailing:
      SetState(p, app_index, AppState::kFailed, out);
      return;
    case AppState::kResuming:
      SetState(p, app_index, AppState::kAccepted, out);
      return;
    case AppState::kCompleting:
      if (!app.has_timer || (IsZero(AppPending(app)) && IsZero(AppAllocated(p, app_index)))) {
        SetState(p, app_index, AppState::kCompleted, out);
      }
      return;
    case AppState::kAccepted:
    case AppState::kStarting:
    case AppState::kRunning:
      if (IsZero(AppPending(app)) && IsZero(AppAllocated(p, app_index))) {
        SetState(p, app_index, AppState::kCompleting, out);
      }
      return;
    default:
      return;
  }
}

void ReferenceModel::Impl::PlaceholderTimeout(PartitionR& p, int app_index,
                                              std::vector<RefDecision>* out) {
  AppR& app = p.apps[static_cast<size_t>(app_index)];
  if (app.removed || !IsLiveInQueue(app.state)) return;
  auto oldest_placeholder = [&] {
    size_t index = p.allocs.size();
    for (size_t i = 0; i < p.allocs.size(); ++i) {
      const AllocR& a = p.allocs[i];
      if (a.app != app_index || !a.placeholder) continue;
      if (index == p.allocs.size() || a.seq < p.allocs[index].seq) index = i;
    }
    return index;
  };
  bool started = app.state == AppState::kStarting || app.state == AppState::kRunning ||
                 app.state == AppState::kCompleting;
  if (started && LivePlaceholders(p, app_index) > 0) {
    for (size_t i = oldest_placeholder(); i != p.allocs.size(); i = oldest_placeholder()) {
      ReleaseAlloc(p, i, out, ReleaseReason::kTimeout, /*follow_up=*/true);
      if (!IsLiveInQueue(p.apps[static_cast<size_t>(app_index)].state)) return;
    }
    return;
  }
  if (app.gang_hard) {
    if (app.state == AppState::kNew || app.state == AppState::kAccepted ||
        app.state == AppState::kStarting || app.state == AppState::kRunning) {
      SetState(p, app_index, AppState::kFailing, out);
    }
  } else if (app.state == AppState::kNew || app.state == AppState::kAccepted) {
    SetState(p, app_index, AppState::kResuming, out);
  }
  AppR& a = p.apps[static_cast<size_t>(app_index)];
  std::vector<const AskR*> dropped;  // in the order the current asks were added
  for (const AskR& ask : a.asks) {
    if (ask.pending > 0) dropped.push_back(&ask);
  }
  std::sort(dropped.begin(), dropped.end(),
            [](const AskR* l, const AskR* r) { return l->create_seq < r->create_seq; });
  for (const AskR* dropped_ask : dropped) {
    const AskR& ask = *dropped_ask;
    RefDecision d;
    d.type = DecisionType::kAskRemoved;
    d.partition = p.name;
    d.queue = a.queue_path;
    d.app = a.id;
    d.ask = ask.id;
    d.count = ask.pending;
    d.release_reason = ReleaseReason::kTimeout;
    out->push_back(d);
  }
  a.asks.clear();
  EraseReservations(p, [&](const ReservationR& r) { return r.app == app_index; });
  for (size_t i = oldest_placeholder(); i != p.allocs.size(); i = oldest_placeholder()) {
    ReleaseAlloc(p, i, out, ReleaseReason::kTimeout, /*follow_up=*/false);
  }
  if (!IsLiveInQueue(a.state)) return;
  for (TaskGroupR& group : a.task_groups) group.timed_out = group.count;
  PlaceholderGone(p, app_index, out);
}

bool ReferenceModel::Impl::QueueTryPlaceholderAllocate(PartitionR& p, int q, bool* released,
                                                       std::vector<RefDecision>* out) {
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  if (queue.leaf) {
    for (int app : SortedApps(p, q)) {
      if (LivePlaceholders(p, app) == 0) continue;
      if (AppTryPlaceholderAllocate(p, app, released, out)) return true;
      if (*released) return false;
    }
    return false;
  }
  for (int child : SortedChildren(p, q)) {
    if (QueueTryPlaceholderAllocate(p, child, released, out)) return true;
    if (*released) return false;
  }
  return false;
}

bool ReferenceModel::Impl::AppTryPlaceholderAllocate(PartitionR& p, int app_index, bool* released,
                                                     std::vector<RefDecision>* out) {
  std::vector<std::pair<std::string, std::string>> reals;  // (ask, task group)
  std::vector<Resource> sizes;
  for (const AskR* ask : SortedAsks(p.apps[static_cast<size_t>(app_index)])) {
    if (ask->placeholder || ask->task_group.empty()) continue;
    reals.push_back({ask->id, ask->task_group});
    sizes.push_back(ask->res);
  }
  for (size_t r = 0; r < reals.size(); ++r) {
    std::vector<int64_t> placeholders;
    for (const AllocR& a : p.allocs) {
      if (a.app == app_index && a.placeholder && a.task_group == reals[r].second) {
        placeholders.push_back(a.seq);
      }
    }
    std::sort(placeholders.begin(), placeholders.end());
    for (int64_t seq : placeholders) {
      size_t index = AllocIndex(p, seq);
      bool larger = false;
      for (int k = 0; k < kMaxResourceTypes; ++k) {
        larger = larger || sizes[r].Get(k) > p.allocs[index].res.Get(k);
      }
      if (larger) {
        ReleaseAlloc(p, index, out, ReleaseReason::kTimeout, /*follow_up=*/true);
        *released = true;
        if (!IsLiveInQueue(p.apps[static_cast<size_t>(app_index)].state)) return false;
        continue;
      }
      Replace(p, app_index, reals[r].first, seq, out);
      return true;
    }
  }
  return false;
}

void ReferenceModel::Impl::Run(PartitionR& p, int app_index, std::vector<RefDecision>* out) {
  AppState state = p.apps[static_cast<size_t>(app_index)].state;
  if (state == AppState::kAccepted && v19()) {
    SetState(p, app_index, AppState::kRunning, out);  // no Starting state since 1.6
  } else if (state == AppState::kAccepted) {
    SetState(p, app_index, AppState::kStarting, out);
    if (p.apps[static_cast<size_t>(app_index)].stateaware_disable) {
      SetState(p, app_index, AppState::kRunning, out);
    }
  } else if (state == AppState::kStarting || state == AppState::kCompleting) {
    SetState(p, app_index, AppState::kRunning, out);
  }
}

// The real ask takes the placeholder's node; the placeholder's release follows its allocation.
void ReferenceModel::Impl::Replace(PartitionR& p, int app_index, const std::string& ask_id,
                                   int64_t placeholder_seq, std::vector<RefDecision>* out) {
  AppR& app = p.apps[static_cast<size_t>(app_index)];
  AskR* ask = FindAsk(app, ask_id);
  const bool had_real = HasRealAllocation(p, app_index);
  if (TaskGroupR* group = FindTaskGroup(app, ask->task_group)) ++group->replaced;
  size_t index = AllocIndex(p, placeholder_seq);
  const std::string node = p.allocs[index].node;
  const std::string placeholder_ask = p.allocs[index].ask;
  std::vector<RefDecision> release;
  ReleaseAlloc(p, index, &release, ReleaseReason::kReplaced, /*follow_up=*/false);
  if (LivePlaceholders(p, app_index) == 0) app.has_ph_timer = false;
  ask->pending -= 1;
  AllocR alloc;
  alloc.app = app_index;
  alloc.ask = ask->id;
  alloc.node = node;
  alloc.res = ask->res;
  alloc.priority = ask->priority;
  alloc.seq = ++alloc_seq_;
  alloc.record_seq = ++record_seq_;
  alloc.task_group = ask->task_group;
  alloc.required_node = !ask->required_node.empty();
  alloc.allow_preemption = ask->allow_preemption;
  alloc.originator = ask->originator;
  alloc.ask_create_time = ask->create_time;
  alloc.ask_create_seq = ask->create_seq;
  p.allocs.push_back(alloc);
  NoteAllocatedTypes(p, alloc.app, alloc.res);
  Notified(p, alloc.node);
  RefDecision d;
  d.type = DecisionType::kAllocation;
  d.partition = p.name;
  d.queue = app.queue_path;
  d.app = app.id;
  d.ask = alloc.ask;
  d.node = node;
  d.priority = alloc.priority;
  d.seq = alloc.record_seq;
  d.replaces = placeholder_ask;
  out->push_back(d);
  out->insert(out->end(), release.begin(), release.end());
  if (had_real) Run(p, app_index, out);
}

// Naively: every allocation on the node, filtered and sorted as YuniKorn's required-node
// preemptor does, then victims until they alone cover the ask.
void ReferenceModel::Impl::TryPreemption(PartitionR& p, int app, AskR& ask, const NodeR& node) {
  std::vector<const AllocR*> candidates;
  for (const AllocR& a : p.allocs) {
    if (a.node != node.id || a.required_node || a.priority > ask.priority) continue;
    if ((a.res.present & ask.res.present) == 0) continue;
    bool chosen = false;
    for (const VictimR& v : p.victims) chosen = chosen || v.alloc_seq == a.seq;
    if (!chosen) candidates.push_back(&a);
  }
  auto rank = [](const AllocR* a) { return a->originator ? 3 : (a->allow_preemption ? 1 : 2); };
  std::sort(candidates.begin(), candidates.end(), [&](const AllocR* l, const AllocR* r) {
    if (rank(l) != rank(r)) return rank(l) < rank(r);
    if (l->priority != r->priority) return l->priority < r->priority;
    if (l->ask_create_time != r->ask_create_time) return l->ask_create_time > r->ask_create_time;
    if (l->ask_create_seq != r->ask_create_seq) return l->ask_create_seq > r->ask_create_seq;
    return l->seq > r->seq;
  });
  auto covers = [&](const Resource& have) {
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (ask.res.Has(t) && have.Get(t) < ask.res.Get(t)) return false;
    }
    return true;
  };
  Resource freed;
  std::vector<int64_t> victims;
  for (const AllocR* a : candidates) {
    if (covers(freed)) break;
    freed = Add(freed, a->res);
    victims.push_back(a->seq);
  }
  if (victims.empty() || !covers(Add(freed, NodeAvailable(p, node)))) return;
  ask.preemption_triggered = true;
  for (int64_t seq : victims) {
    p.victims.push_back({seq, p.apps[static_cast<size_t>(app)].id, ask.id});
  }
}

void ReferenceModel::Impl::ReleaseVictims(PartitionR& p, std::vector<RefDecision>* out) {
  std::vector<VictimR> victims = std::move(p.victims);
  p.victims.clear();
  std::sort(victims.begin(), victims.end(),
            [](const VictimR& l, const VictimR& r) { return l.alloc_seq < r.alloc_seq; });
  for (const VictimR& v : victims) {
    size_t index = AllocIndex(p, v.alloc_seq);
    if (index == p.allocs.size()) continue;
    ReleaseAlloc(p, index, out, ReleaseReason::kPreempted, /*follow_up=*/true, v.by_app, v.by_ask);
  }
}

// ---- General preemption (kernel/preemption-semantics.md; §10 is binding) -------------------

std::optional<Resource> ReferenceModel::Impl::Remaining(const PartitionR& p, int q, int ask_leaf,
                                                        const std::vector<Resource>& used) const {
  const QueueR& queue = p.queues[static_cast<size_t>(q)];
  std::optional<Resource> up;
  if (queue.parent >= 0) up = Remaining(p, queue.parent, ask_leaf, used);
  const bool has_own = queue.guaranteed.has_value() && queue.guaranteed->present != 0;
  if (!has_own && (!up.has_value() || up->present == 0)) return std::nullopt;
  Resource own;
  if (has_own) {
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (queue.guaranteed->Has(k)) {
        own.Set(k, SaturatingSub(queue.guaranteed->Get(k), used[static_cast<size_t>(q)].Get(k)));
      }
    }
  }
  // The root's snapshot has no ask queue: neither special case below applies to it.
  if (queue.parent >= 0) {
    if (q == ask_leaf && has_own) {
      Resource merged = own;
      if (up.has_value()) {
        for (int k = 0; k < kMaxResourceTypes; ++k) {
          if (up->Has(k) && !merged.Has(k)) merged.Set(k, up->Get(k));
        }
      }
      return merged;
    }
    const std::optional<Resource>& ask_g = p.queues[static_cast<size_t>(ask_leaf)].guaranteed;
    const bool ask_has_own = ask_g.has_value() && ask_g->present != 0;
    // decision 34.9: a real ancestor (or the leaf itself), not a string prefix.
    if (has_own && ask_has_own && InSubtree(p, ask_leaf, q)) return std::nullopt;
  }
  if (!has_own) return up;
  if (!up.has_value()) return own;
  Resource min;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (own.Has(k) && up->Has(k)) {
      min.Set(k, std::min(own.Get(k), up->Get(k)));
    } else if (own.Has(k)) {
      min.Set(k, own.Get(k));
    } else if (up->Has(k)) {
      min.Set(k, up->Get(k));
    }
  }
  return min;
}

bool ReferenceModel::Impl::TryGeneralPreemption(PartitionR& p, int app_index,
                                                const std::string& ask_id, bool nodes_tried,
                                                int* budget, Result* result) {
  if (*budget == 0) return false;
  AppR& app = p.apps[static_cast<size_t>(app_index)];
  AskR& ask = *FindAsk(app, ask_id);
  const int leaf = app.queue;
  const QueueR& leaf_queue = p.queues[static_cast<size_t>(leaf)];
  // Preconditions, in order; passing them stamps the check time, whatever follows.
  if (ask.preemption_triggered) return false;
  if (!ask.required_node.empty()) return false;
  if (now_ < SaturatingAdd(ask.create_time, PreemptionDelayMs(leaf_queue.props))) return false;
  if (ask.preempt_check.has_value() &&
      now_ < SaturatingAdd(*ask.preempt_check, kPreemptAttemptFrequencyMs)) {
    return false;
  }
  ask.preempt_check = now_;
  --*budget;

  const Resource& want = ask.res;
  auto is_victim = [&](int64_t seq) {
    for (const VictimR& v : p.victims) {
      if (v.alloc_seq == seq) return true;
    }
    return false;
  };
  auto queue_of = [&](const AllocR& a) { return p.apps[static_cast<size_t>(a.app)].queue; };
  // Usage by queue: allocated minus what this cycle already chose to release.
  std::vector<Resource> used(p.queues.size());
  for (const AllocR& a : p.allocs) {
    if (is_victim(a.seq)) continue;
    for (int q = queue_of(a); q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
      used[static_cast<size_t>(q)] = Add(used[static_cast<size_t>(q)], a.res);
    }
  }
  auto add = [&](std::vector<Resource>& u, int from, const Resource& r) {
    for (int q = from; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
      u[static_cast<size_t>(q)] = Add(u[static_cast<size_t>(q)], r);
    }
  };
  auto sub = [&](std::vector<Resource>& u, int from, const Resource& r) {
    for (int q = from; q >= 0; q = p.queues[static_cast<size_t>(q)].parent) {
      u[static_cast<size_t>(q)] = Sub(u[static_cast<size_t>(q)], r);
    }
  };
  auto remaining = [&](int q, const std::vector<Resource>& u) { return Remaining(p, q, leaf, u); };

  // Fence root (decision 34.3) and the priority frame of every queue from the leaf up to it.
  std::vector<std::optional<int64_t>> frames(p.queues.size());
  int fence = leaf;
  {
    int64_t frame = ask.priority;
    for (int q = leaf;; q = p.queues[static_cast<size_t>(q)].parent) {
      const QueueR& queue = p.queues[static_cast<size_t>(q)];
      frame = queue.fence ? int64_t{queue.offset} : frame + queue.offset;
      frames[static_cast<size_t>(q)] = frame;
      // The queue's effective max: the per-type minimum of its own and every ancestor's (the
      // root's is the cluster).
      std::optional<Resource> effective;
      for (int a = q; a >= 0; a = p.queues[static_cast<size_t>(a)].parent) {
        if (std::optional<Resource> m = QueueMax(p, a)) {
          effective = effective ? PermissiveMin(*effective, *m) : *m;
        }
      }
      bool over_max = false;
      if (queue.parent >= 0 && effective.has_value()) {
        Resource projected = Add(QueueAllocated(p, q), want);
        for (int k = 0; k < kMaxResourceTypes; ++k) {
          if (effective->Has(k) && projected.Has(k) && projected.Get(k) > effective->Get(k)) {
            over_max = true;
          }
        }
      }
      if (queue.parent < 0 || PreemptionPolicy(queue.props) == "fence" || over_max) {
        fence = q;
        break;
      }
    }
  }

  // Candidates below the fence (§2.5).
  std::vector<const AllocR*> candidates;
  std::function<void(int, int64_t, bool)> walk = [&](int q, int64_t frame, bool fenced) {
    if (q == leaf) return;
    const QueueR& queue = p.queues[static_cast<size_t>(q)];
    if (queue.leaf) {
      if (PreemptionPolicy(queue.props) == "disabled") return;
      std::optional<Resource> r = remaining(q, used);
      if (r.has_value()) {
        bool within = true;
        for (int k = 0; k < kMaxResourceTypes; ++k) {
          if (r->Has(k) && r->Get(k) < 0) within = false;
        }
        if (within) return;
      }
      for (const AllocR& a : p.allocs) {
        if (queue_of(a) != q) continue;
        if ((a.res.present & want.present) == 0) continue;
        if (a.required_node || is_victim(a.seq)) continue;
        if (fenced || int64_t{a.priority} <= frame) candidates.push_back(&a);
      }
      return;
    }
    for (int child : queue.children) {
      const QueueR& c = p.queues[static_cast<size_t>(child)];
      int64_t child_frame = 0;
      bool child_fenced = false;
      if (frames[static_cast<size_t>(child)].has_value()) {
        child_frame = *frames[static_cast<size_t>(child)];
      } else if (c.fence) {
        if (int64_t{c.offset} > frame) continue;
        child_fenced = true;
        child_frame = frame;
      } else {
        child_frame = frame - c.offset;
      }
      walk(child, child_frame, fenced || child_fenced);
    }
  };
  walk(fence, *frames[static_cast<size_t>(fence)], false);

  // The guarantee gate (§2.3).
  {
    std::optional<Resource> r = remaining(leaf, used);
    bool pass = r.has_value() && FitsActual(*r, want);
    if (!pass) {
      std::vector<Resource> work = used;
      add(work, leaf, want);
      for (const AllocR* v : candidates) {
        sub(work, queue_of(*v), v->res);
        std::optional<Resource> now = remaining(leaf, work);
        if (now.has_value() && !NegativeInAskTypes(want, *now)) pass = true;
      }
    }
    if (!pass) return false;
  }

  // decision 34.6: normal, originator, opted out, both; then the newer ask, then the newer
  // allocation.
  auto score = [](const AllocR* a) {
    return (a->originator ? 1 : 0) + (a->allow_preemption ? 0 : 2);
  };
  auto victim_less = [&](const AllocR* l, const AllocR* r) {
    if (score(l) != score(r)) return score(l) < score(r);
    if (l->ask_create_time != r->ask_create_time) return l->ask_create_time > r->ask_create_time;
    return l->seq > r->seq;
  };

  // Usable nodes in id order; reservations of others are cancelled when all may be.
  std::vector<int> order;
  for (size_t i = 0; i < p.nodes.size(); ++i) order.push_back(static_cast<int>(i));
  std::sort(order.begin(), order.end(), [&](int l, int r) {
    return p.nodes[static_cast<size_t>(l)].id < p.nodes[static_cast<size_t>(r)].id;
  });
  struct Usable {
    int node;
    Resource available;
  };
  std::vector<Usable> usable;
  for (int n : order) {
    const NodeR& node = p.nodes[static_cast<size_t>(n)];
    bool others = false;
    bool all_cancellable = true;
    for (const ReservationR& res : p.reservations) {
      if (res.node != node.id || (res.app == app_index && res.ask == ask.id)) continue;
      others = true;
      const AskR* holder = FindAsk(p.apps[static_cast<size_t>(res.app)], res.ask);
      bool cancellable = holder != nullptr && holder->required_node.empty() &&
                         !holder->preemption_triggered && holder->priority < ask.priority &&
                         SaturatingSub(now_, holder->create_time) > kCancellableReservationAgeMs;
      if (!cancellable) all_cancellable = false;
    }
    if (others && all_cancellable) {
      EraseReservations(p, [&](const ReservationR& res) {
        return res.node == node.id && !(res.app == app_index && res.ask == ask.id);
      });
      others = false;
      cancelled_reservation_ = true;
    }
    if (others || !node.schedulable || !FitIn(node.capacity, want)) continue;
    usable.push_back({n, NodeAvailable(p, node)});
  }

  // Per node (§3.3): (index, victims), or nothing when the node cannot be used.
  struct Check {
    int index;
    std::string node;
    Resource available;
    std::vector<const AllocR*> victims;
  };
  std::vector<Check> checks;
  for (const Usable& u : usable) {
    const NodeR& node = p.nodes[static_cast<size_t>(u.node)];
    std::vector<const AllocR*> on_node;
    for (const AllocR* v : candidates) {
      if (v->node == node.id) on_node.push_back(v);
    }
    std::sort(on_node.begin(), on_node.end(), victim_less);
    if (FitIn(u.available, want)) {
      if (!nodes_tried) checks.push_back({-1, node.id, u.available, {}});
      continue;
    }
    std::vector<Resource> work = used;
    Resource available = u.available;
    std::vector<const AllocR*> head;
    std::vector<const AllocR*> tail;
    for (const AllocR* v : on_node) {
      const int vq = queue_of(*v);
      std::optional<Resource> before = remaining(vq, work);
      sub(work, vq, v->res);
      if (before.has_value() && !NegativeInAskTypes(want, *before)) {
        add(work, vq, v->res);
        continue;
      }
      std::optional<Resource> ask_remaining = remaining(leaf, work);
      if (!ask_remaining.has_value() || !FitsActual(*ask_remaining, v->res)) {
        add(work, vq, v->res);
        break;
      }
      add(work, leaf, v->res);
      if (LowersShortfall(want, available, v->res)) {
        available = Add(available, v->res);
        head.push_back(v);
      } else {
        sub(work, leaf, v->res);
        add(work, vq, v->res);
        tail.push_back(v);
      }
    }
    head.insert(head.end(), tail.begin(), tail.end());
    if (head.empty()) continue;
    work = used;
    available = u.available;
    std::vector<const AllocR*> results;
    int index = -1;
    for (const AllocR* v : head) {
      const int vq = queue_of(*v);
      std::optional<Resource> before = remaining(vq, work);
      sub(work, vq, v->res);
      if (before.has_value() && !NegativeInAskTypes(want, *before)) {
        add(work, vq, v->res);
        continue;
      }
      available = Add(available, v->res);
      if (index < 0 && FitIn(available, want)) index = static_cast<int>(results.size());
      results.push_back(v);
    }
    if (index < 0) continue;
    checks.push_back({index, node.id, u.available, results});
  }
  if (checks.empty()) return false;
  // decision 34.5: the fewest victims, then the node id.
  const Check* best = &checks[0];
  for (const Check& c : checks) {
    if (c.index < best->index || (c.index == best->index && c.node < best->node)) best = &c;
  }
  std::vector<const AllocR*> node_victims(best->victims.begin(),
                                          best->victims.begin() + (best->index + 1));

  // Additional victims (§3.5): anything that still raises the ask queue's remaining guarantee.
  std::vector<const AllocR*> extras;
  {
    std::vector<Resource> work = used;
    for (const AllocR* v : node_victims) sub(work, queue_of(*v), v->res);
    std::vector<const AllocR*> others;
    for (const AllocR* v : candidates) {
      if (std::find(node_victims.begin(), node_victims.end(), v) == node_victims.end()) {
        others.push_back(v);
      }
    }
    std::sort(others.begin(), others.end(), victim_less);
    for (const AllocR* v : others) {
      const int vq = queue_of(*v);
      std::optional<Resource> before = remaining(vq, work);
      sub(work, vq, v->res);
      if (before.has_value() && !NegativeInAskTypes(want, *before)) {
        add(work, vq, v->res);
        continue;
      }
      std::optional<Resource> ask_before = remaining(leaf, work);
      if (!ask_before.has_value() || !FitsActual(*ask_before, v->res)) {
        add(work, vq, v->res);
        break;
      }
      add(work, leaf, v->res);
      std::optional<Resource> ask_after = remaining(leaf, work);
      if (!ask_after.has_value() || !SameValues(*ask_before, *ask_after)) {
        extras.push_back(v);
      } else {
        sub(work, leaf, v->res);
        add(work, vq, v->res);
      }
    }
    if (!extras.empty()) {
      std::optional<Resource> final_remaining = remaining(leaf, work);
      if (!final_remaining.has_value() || NegativeInAskTypes(want, *final_remaining)) return false;
    }
  }

  // Final list (§3.6, decision 34.10: the node's free space is not counted).
  std::vector<const AllocR*> victims = node_victims;
  victims.insert(victims.end(), extras.begin(), extras.end());
  if (victims.empty()) return false;
  const bool fits_already = FitIn(best->available, want);
  Resource total;
  std::vector<int64_t> chosen;
  for (const AllocR* v : victims) {
    if (!fits_already && v->node != best->node) continue;
    if (AskExceeds(want, total)) chosen.push_back(v->seq);
    total = Add(total, v->res);
  }
  if (AskExceeds(want, total)) return false;
  *result = Result{Kind::kPreempted, app_index, ask.id, best->node, -1, chosen};
  return true;
}

void ReferenceModel::Impl::CommitPreemption(PartitionR& p, const Result& r,
                                            std::vector<RefDecision>* out) {
  AppR& app = p.apps[static_cast<size_t>(r.app)];
  AskR* ask = FindAsk(app, r.ask);
  ask->preemption_triggered = true;
  RefDecision d;
  d.type = DecisionType::kPreemption;
  d.partition = p.name;
  d.queue = p.queues[static_cast<size_t>(app.queue)].path;
  d.app = app.id;
  d.ask = r.ask;
  d.node = r.node;
  d.count = static_cast<int64_t>(r.victims.size());
  out->push_back(d);
  // decision 34.8: one reservation, on the chosen node.
  bool holds = false;
  for (const ReservationR& res : p.reservations) {
    holds = holds || (res.app == r.app && res.ask == r.ask && res.node == r.node);
  }
  EraseReservations(p, [&](const ReservationR& res) {
    return res.app == r.app && res.ask == r.ask && res.node != r.node;
  });
  if (!holds) {
    p.reservations.push_back({r.app, r.ask, r.node, ++reservation_seq_, now_});
    Notified(p, r.node);
  }
  for (int64_t seq : r.victims) p.victims.push_back({seq, app.id, r.ask});
}

// ---- Queries ------------------------------------------------------------------------------

std::vector<std::string> ReferenceModel::Impl::PartitionNames() const {
  std::vector<std::string> out;
  for (const PartitionR& p : partitions_) out.push_back(p.name);
  return out;
}

std::vector<std::string> ReferenceModel::Impl::QueuePaths(std::string_view partition) const {
  std::vector<std::string> out;
  const PartitionR* p = FindPartition(partition);
  if (p == nullptr) return out;
  QueuePathsFrom(*p, 0, &out);
  return out;
}

// Depth-first, children in configuration order then dynamic ones in creation order.
void ReferenceModel::Impl::QueuePathsFrom(const PartitionR& p, int q,
                                          std::vector<std::string>* out) const {
  out->push_back(p.queues[static_cast<size_t>(q)].path);
  for (int c : p.queues[static_cast<size_t>(q)].children) QueuePathsFrom(p, c, out);
}

absl::StatusOr<RefQueueInfo> ReferenceModel::Impl::GetQueue(std::string_view partition,
                                                            std::string_view path) const {
  const PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  int q = FindQueue(*p, path);
  if (q < 0) return absl::NotFoundError(Cat("unknown queue ", path));
  const QueueR& queue = p->queues[static_cast<size_t>(q)];
  RefQueueInfo info;
  info.path = queue.path;
  info.is_leaf = queue.leaf;
  info.priority = QueueEffectivePriority(*p, q);
  info.has_pending_priority = info.priority != kMinPriority;
  info.offset = queue.offset;
  info.fenced = queue.fence;
  info.priority_sort_enabled = queue.priority_sort;
  info.sort_policy = queue.sort_policy;
  if (queue.guaranteed.has_value()) info.guaranteed = ToNamed(*queue.guaranteed, types_, true);
  std::optional<Resource> max = QueueMax(*p, q);  // the root: the sum of the node capacities
  if (max.has_value()) info.max = ToNamed(*max, types_, true);
  info.allocated = ToNamed(QueueAllocated(*p, q), types_);
  info.pending = ToNamed(QueuePending(*p, q), types_);
  info.max_applications = queue.max_apps;
  info.running_applications = queue.running;
  return info;
}

absl::StatusOr<RefAppInfo> ReferenceModel::Impl::GetApplication(std::string_view partition,
                                                                std::string_view id) const {
  const PartitionR* p = FindPartition(partition);
  if (p == nullptr) return absl::NotFoundError(Cat("unknown partition ", partition));
  int a = FindActiveApp(*p, id);
  if (a < 0) {
    for (size_t i = 0; i < p->apps.size(); ++i) {
      const AppR& app = p->apps[i];
      if (app.id == id && !app.removed && app.queue >= 0 && app.state != AppState::kExpired) {
        a = static_cast<int>(i);
      }
    }
  }
  if (a < 0) return absl::NotFoundError(Cat("unknown application ", id));
  const AppR& app = p->apps[static_cast<size_t>(a)];
  RefAppInfo info;
  info.id = app.id;
  info.queue = app.queue_path;
  info.state = app.state;
  info.priority = AppPriority(app);
  info.allocated = ToNamed(AppAllocated(*p, a), types_);
  info.pending = ToNamed(AppPending(app), types_);
  return info;
}

std::vector<std::string> ReferenceModel::Impl::ApplicationIds(std::string_view partition) const {
  std::vector<std::string> out;
  const PartitionR* p = FindPartition(partition);
  if (p == nullptr) return out;
  for (const AppR& a : p->apps) {
    if (a.removed || a.queue < 0 || a.state == AppState::kExpired) continue;
    if (std::find(out.begin(), out.end(), a.id) == out.end()) out.push_back(a.id);
  }
  return out;
}

int64_t ReferenceModel::Impl::ReservationCount(std::string_view partition) const {
  const PartitionR* p = FindPartition(partition);
  return p == nullptr ? 0 : static_cast<int64_t>(p->reservations.size());
}

// ---- ReferenceModel ---------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<ReferenceModel>> ReferenceModel::Create(
    const SchedulerConfig& config, Semantics semantics) {
  auto impl = std::make_unique<Impl>();
  impl->semantics_ = semantics;
  absl::Status s = impl->Init(config);
  if (!s.ok()) return s;
  return std::unique_ptr<ReferenceModel>(new ReferenceModel(std::move(impl)));
}

namespace {

// kernel.h's ApiLimits, restated plainly: any field over its limit refuses the whole call.
bool LongName(std::string_view s) { return s.size() > ApiLimits::kMaxNameBytes; }
bool BadQuantities(const Quantities& q) {
  if (q.size() > ApiLimits::kMaxQuantityEntries) return true;
  for (const auto& entry : q) {
    if (LongName(entry.first)) return true;
  }
  return false;
}
absl::Status OverLimits() { return absl::InvalidArgumentError("over an API limit"); }

}  // namespace

ReferenceModel::ReferenceModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ReferenceModel::~ReferenceModel() = default;

absl::Status ReferenceModel::AddNode(const NodeSpec& node, std::vector<RefDecision>* out) {
  if (LongName(node.partition) || LongName(node.id) || BadQuantities(node.capacity) ||
      BadQuantities(node.occupied)) {
    return OverLimits();
  }
  return impl_->AddNode(node, out);
}
absl::Status ReferenceModel::UpdateNode(const NodeUpdate& update, std::vector<RefDecision>* out) {
  if (LongName(update.partition) || LongName(update.id) ||
      (update.capacity && BadQuantities(*update.capacity)) ||
      (update.occupied && BadQuantities(*update.occupied))) {
    return OverLimits();
  }
  return impl_->UpdateNode(update, out);
}
absl::Status ReferenceModel::RemoveNode(std::string_view partition, std::string_view id,
                                        std::vector<RefDecision>* out) {
  if (LongName(partition) || LongName(id)) return OverLimits();
  return impl_->RemoveNode(partition, id, out);
}
absl::Status ReferenceModel::AddApplication(const AppSpec& app, std::vector<RefDecision>* out) {
  bool over = LongName(app.partition) || LongName(app.id) || LongName(app.user) ||
              app.queue.size() > ApiLimits::kMaxQueuePathBytes ||
              app.groups.size() > ApiLimits::kMaxGroupsPerApplication ||
              app.tags.size() > ApiLimits::kMaxTagsPerApplication ||
              BadQuantities(app.placeholder_ask);
  for (const std::string& g : app.groups) over = over || LongName(g);
  for (const auto& [key, value] : app.tags) {
    over = over || key.size() > ApiLimits::kMaxTagBytes || value.size() > ApiLimits::kMaxTagBytes;
  }
  if (over) return OverLimits();
  return impl_->AddApplication(app, out);
}
absl::Status ReferenceModel::RemoveApplication(std::string_view partition, std::string_view id,
                                               std::vector<RefDecision>* out) {
  if (LongName(partition) || LongName(id)) return OverLimits();
  return impl_->RemoveApplication(partition, id, out);
}
absl::Status ReferenceModel::AddAsk(const AskSpec& ask, std::vector<RefDecision>* out) {
  if (LongName(ask.partition) || LongName(ask.app) || LongName(ask.id) ||
      LongName(ask.task_group) || LongName(ask.required_node) ||
      ask.count > ApiLimits::kMaxAskCount || BadQuantities(ask.resources)) {
    return OverLimits();
  }
  return impl_->AddAsk(ask, out);
}
absl::Status ReferenceModel::RemoveAsk(std::string_view partition, std::string_view app,
                                       std::string_view ask, std::vector<RefDecision>* out) {
  if (LongName(partition) || LongName(app) || LongName(ask)) return OverLimits();
  return impl_->RemoveAsk(partition, app, ask, out);
}
absl::Status ReferenceModel::ReleaseAllocation(std::string_view partition, std::string_view app,
                                               std::string_view ask, std::string_view node,
                                               int64_t seq, std::vector<RefDecision>* out) {
  if (LongName(partition) || LongName(app) || LongName(ask) || LongName(node)) {
    return OverLimits();
  }
  if (seq < 0) return absl::InvalidArgumentError("negative seq");
  return impl_->ReleaseAllocation(partition, app, ask, node, seq, out);
}
absl::Status ReferenceModel::Advance(int64_t millis, std::vector<RefDecision>* out) {
  return impl_->Advance(millis, out);
}
absl::StatusOr<int64_t> ReferenceModel::Schedule(int64_t max, std::string_view partition,
                                                 std::vector<RefDecision>* out) {
  if (LongName(partition)) return OverLimits();
  return impl_->Schedule(max, partition, out);
}
absl::Status ReferenceModel::RecoverAllocation(const RecoverSpec& spec,
                                               std::vector<RefDecision>* out) {
  const AskSpec& ask = spec.ask;
  if (LongName(ask.partition) || LongName(ask.app) || LongName(ask.id) ||
      LongName(ask.task_group) || LongName(ask.required_node) || LongName(spec.node) ||
      ask.count > ApiLimits::kMaxAskCount || BadQuantities(ask.resources)) {
    return OverLimits();
  }
  return impl_->RecoverAllocation(spec, out);
}
absl::Status ReferenceModel::UpdateAllocation(const AllocationUpdate& update,
                                              std::vector<RefDecision>* out) {
  if (LongName(update.partition) || LongName(update.app) || LongName(update.ask) ||
      LongName(update.node) || BadQuantities(update.resources)) {
    return OverLimits();
  }
  return impl_->UpdateAllocation(update, out);
}
absl::Status ReferenceModel::UpdateAsk(const AskUpdate& update, std::vector<RefDecision>* out) {
  if (LongName(update.partition) || LongName(update.app) || LongName(update.id) ||
      BadQuantities(update.resources)) {
    return OverLimits();
  }
  return impl_->UpdateAsk(update, out);
}
absl::Status ReferenceModel::AddForeignAllocation(const ForeignAllocationSpec& spec,
                                                  std::vector<RefDecision>* out) {
  if (LongName(spec.partition) || LongName(spec.id) || LongName(spec.node) ||
      BadQuantities(spec.resources)) {
    return OverLimits();
  }
  return impl_->AddForeign(spec, out);
}
absl::Status ReferenceModel::UpdateForeignAllocation(const ForeignAllocationUpdate& update,
                                                     std::vector<RefDecision>* out) {
  if (LongName(update.partition) || LongName(update.id) || LongName(update.node) ||
      BadQuantities(update.resources)) {
    return OverLimits();
  }
  return impl_->UpdateForeign(update, out);
}
absl::Status ReferenceModel::RemoveForeignAllocation(std::string_view partition,
                                                     std::string_view id,
                                                     std::vector<RefDecision>* out) {
  if (LongName(partition) || LongName(id)) return OverLimits();
  return impl_->RemoveForeign(partition, id, out);
}
int64_t ReferenceModel::now_millis() const { return impl_->now(); }
std::vector<std::string> ReferenceModel::PartitionNames() const { return impl_->PartitionNames(); }
std::vector<std::string> ReferenceModel::QueuePaths(std::string_view partition) const {
  return impl_->QueuePaths(partition);
}
absl::StatusOr<RefQueueInfo> ReferenceModel::GetQueue(std::string_view partition,
                                                      std::string_view path) const {
  return impl_->GetQueue(partition, path);
}
absl::StatusOr<RefAppInfo> ReferenceModel::GetApplication(std::string_view partition,
                                                          std::string_view id) const {
  return impl_->GetApplication(partition, id);
}
std::vector<std::string> ReferenceModel::ApplicationIds(std::string_view partition) const {
  return impl_->ApplicationIds(partition);
}
int64_t ReferenceModel::ReservationCount(std::string_view partition) const {
  return impl_->ReservationCount(partition);
}
const ResourceTypes& ReferenceModel::resource_types() const { return impl_->types(); }

}  // namespace allocore::reference

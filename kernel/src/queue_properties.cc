#include "queue_properties.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "go_duration.h"

namespace allocore::internal {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(absl::string_view(a.data(), a.size()),
                                absl::string_view(b.data(), b.size()));
}

// Go's strconv.ParseUint(v, 10, 64): decimal digits only, within uint64.
std::optional<uint64_t> ParseUint64Strict(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// Go's strconv.ParseInt(v, 10, 32): optional sign, decimal digits, nothing else.
bool ParseInt32Strict(std::string_view text, int32_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i == text.size()) return false;
  int64_t value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
    if (value > int64_t{std::numeric_limits<int32_t>::max()} + 1) return false;
  }
  if (negative) value = -value;
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *out = static_cast<int32_t>(value);
  return true;
}

// Optimal string alignment distance (edits, and swaps of neighbours), for did-you-mean.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The queue properties YuniKorn defines, with the values each understands and the default
// otherwise. ParseProperties reads each of them once: the value it applies and whether
// YuniKorn understands it come from the same parse.
enum class PropertyKey : uint8_t {
  kSortPolicy,
  kSortPriority,
  kPriorityPolicy,
  kPriorityOffset,
  kPreemptionPolicy,
  kPreemptionDelay,
  kBackoff,
  kBackoffDelay,
  kQuotaPreemptionDelay,
};

struct KnownProperty {
  std::string_view key;
  PropertyKey id;
  std::array<std::string_view, 3> values;  // all empty: the value has a syntax (expected)
  bool case_insensitive;
  std::string_view expected;  // for a value with a syntax: what would be understood
  std::string_view fallback;  // what a value not understood counts as
};

constexpr std::string_view kDurationSyntax = "a positive Go duration such as 30s or 1m30s";

constexpr KnownProperty kKnownProperties[] = {
    {"application.sort.policy",
     PropertyKey::kSortPolicy,
     {"fifo", "fair", "stateaware"},
     false,
     "",
     "fifo"},
    {"application.sort.priority",
     PropertyKey::kSortPriority,
     {"enabled", "disabled", ""},
     true,
     "",
     "enabled"},
    {"priority.policy",
     PropertyKey::kPriorityPolicy,
     {"default", "fence", ""},
     true,
     "",
     "default"},
    {"priority.offset", PropertyKey::kPriorityOffset, {"", "", ""}, false, "a 32-bit integer", "0"},
    {"preemption.policy",
     PropertyKey::kPreemptionPolicy,
     {"default", "fence", "disabled"},
     true,
     "",
     "default"},
    {"preemption.delay",
     PropertyKey::kPreemptionDelay,
     {"", "", ""},
     false,
     kDurationSyntax,
     "30s"},
    // YuniKorn 1.8-1.9 (applied by the yunikorn-1.9 profile; v1.2.0 ignores them).
    {"application.unschedasks.backoff",
     PropertyKey::kBackoff,
     {"", "", ""},
     false,
     "an unsigned 64-bit integer",
     "0"},
    {"application.unschedasks.backoff.delay",
     PropertyKey::kBackoffDelay,
     {"", "", ""},
     false,
     kDurationSyntax,
     "30s"},
    {"quota.preemption.delay",
     PropertyKey::kQuotaPreemptionDelay,
     {"", "", ""},
     false,
     kDurationSyntax,
     "0"},
};

// A Go duration rounded up to the millisecond (exact on a millisecond clock), when it parses
// and is positive: what YuniKorn's convertDelay keeps.
std::optional<int64_t> DelayMillis(std::string_view value) {
  std::optional<int64_t> nanos = ParseGoDuration(value);
  constexpr int64_t kNanosPerMs = 1'000'000;
  if (!nanos || *nanos <= 0) return std::nullopt;
  return (*nanos - 1) / kNanosPerMs + 1;
}

bool IsOneOf(const KnownProperty& known, std::string_view value) {
  return std::any_of(known.values.begin(), known.values.end(), [&](std::string_view accepted) {
    return !accepted.empty() &&
           (known.case_insensitive ? EqualsIgnoreCase(value, accepted) : value == accepted);
  });
}

// Applies one known property to `out`; false when YuniKorn does not understand the value (it
// then reads the default, which is what `out` is left holding or is given).
bool ApplyProperty(const KnownProperty& known, std::string_view value, Semantics semantics,
                   ParsedProperties* out) {
  QueueProperties& queue = out->queue;
  const bool v19 = semantics == Semantics::kYunikorn19;  // YUNIKORN-3115 and -3133 are 1.8+
  switch (known.id) {
    case PropertyKey::kSortPolicy:
      if (value == "fair") {
        queue.sort_policy = AppSortPolicy::kFair;
      } else if (value == "stateaware") {
        // 1.6+ read the deprecated stateaware policy as fifo (YUNIKORN-2483).
        queue.sort_policy = v19 ? AppSortPolicy::kFifo : AppSortPolicy::kStateAware;
      } else {
        queue.sort_policy = AppSortPolicy::kFifo;
      }
      return IsOneOf(known, value);
    case PropertyKey::kSortPriority:
      queue.priority_sort_enabled = !EqualsIgnoreCase(value, "disabled");
      return IsOneOf(known, value);
    case PropertyKey::kPriorityPolicy:
      queue.fenced = EqualsIgnoreCase(value, "fence");
      return IsOneOf(known, value);
    case PropertyKey::kPriorityOffset: {
      int32_t offset = 0;
      const bool understood = ParseInt32Strict(value, &offset);
      queue.offset = understood ? offset : 0;
      return understood;
    }
    case PropertyKey::kPreemptionPolicy:
      queue.preemption_policy = EqualsIgnoreCase(value, "fence")      ? PreemptionPolicy::kFence
                                : EqualsIgnoreCase(value, "disabled") ? PreemptionPolicy::kDisabled
                                                                      : PreemptionPolicy::kDefault;
      return IsOneOf(known, value);
    case PropertyKey::kPreemptionDelay: {
      const std::optional<int64_t> millis = DelayMillis(value);
      queue.preemption_delay_ms = millis.value_or(kDefaultPreemptionDelayMs);
      return millis.has_value();
    }
    case PropertyKey::kBackoff: {
      const std::optional<uint64_t> asks = ParseUint64Strict(value);
      if (v19) out->backoff.asks = asks.value_or(0);
      return asks.has_value();
    }
    case PropertyKey::kBackoffDelay: {
      const std::optional<int64_t> millis = DelayMillis(value);
      if (v19) out->backoff.delay_ms = millis.value_or(kDefaultUnschedAskBackoffDelayMs);
      return millis.has_value();
    }
    case PropertyKey::kQuotaPreemptionDelay: {
      const std::optional<int64_t> millis = DelayMillis(value);
      if (v19) out->quota_delay_ms = millis.value_or(0);
      return millis.has_value();
    }
  }
  return false;
}

// "fifo, fair or stateaware" for a property with a list of values, else its syntax.
std::string Expected(const KnownProperty& known) {
  if (!known.expected.empty()) return std::string(known.expected);
  std::string out;
  size_t count = 0;
  for (std::string_view accepted : known.values) count += accepted.empty() ? 0 : 1;
  for (size_t i = 0; i < count; ++i) {
    out += i == 0 ? "" : i + 1 == count ? " or " : ", ";
    out += known.values[i];
  }
  return out;
}

PropertyFallback UnknownKey(std::string_view key) {
  PropertyFallback finding;
  finding.key = std::string(key);
  finding.unknown_key = true;
  size_t best = key.size() / 4 + 2;  // close enough to be a typo
  // A key twice as long as any known one is no typo of it (and a hostile key of megabytes
  // must not cost a quadratic distance).
  constexpr size_t kLongestTypo = 2 * std::string_view("application.sort.priority").size();
  if (key.size() > kLongestTypo) return finding;
  for (const KnownProperty& k : kKnownProperties) {
    size_t distance = EditDistance(key, k.key);
    if (distance <= best) {
      best = distance;
      finding.nearest_key = std::string(k.key);
    }
  }
  return finding;
}

}  // namespace

ParsedProperties ParseProperties(const PropertyMap& properties, Semantics semantics) {
  ParsedProperties out;
  for (const auto& [key, value] : properties) {
    const KnownProperty* known = nullptr;
    for (const KnownProperty& k : kKnownProperties) {
      if (k.key == key) known = &k;
    }
    if (known == nullptr) {
      out.fallbacks.push_back(UnknownKey(key));
      continue;
    }
    if (ApplyProperty(*known, value, semantics, &out)) continue;
    PropertyFallback& finding = out.fallbacks.emplace_back();
    finding.key = key;
    finding.value = value;
    finding.expected = Expected(*known);
    finding.fallback = std::string(known->fallback);
  }
  out.queue.unsched_ask_backoff_on = out.backoff.asks > 0;
  return out;
}

std::string_view AppSortPolicyName(AppSortPolicy policy) {
  switch (policy) {
    case AppSortPolicy::kFifo:
      return "fifo";
    case AppSortPolicy::kFair:
      return "fair";
    case AppSortPolicy::kStateAware:
      return "stateaware";
  }
  return "fifo";
}

PropertyMap MergeProperties(const PropertyMap& parent, const PropertyMap& own) {
  PropertyMap merged;
  for (const auto& [key, value] : parent) {
    if (key == "priority.policy") {
      merged.emplace_back(key, "default");
    } else if (key == "priority.offset") {
      merged.emplace_back(key, "0");
    } else if (key == "preemption.policy") {
      merged.emplace_back(key, EqualsIgnoreCase(value, "disabled") ? "disabled" : "default");
    } else {
      merged.emplace_back(key, value);
    }
  }
  for (const auto& [key, value] : own) {
    bool replaced = false;
    for (auto& entry : merged) {
      if (entry.first == key) {
        entry.second = value;
        replaced = true;
      }
    }
    if (!replaced) merged.emplace_back(key, value);
  }
  return merged;
}

bool ConfiguredAsLeaf(const QueueConfig& config, bool root) {
  return !root && !config.parent && config.queues.empty();
}

namespace {

void AddEffective(const QueueConfig& config, const PropertyMap& parent_properties,
                  const std::string& parent_path, int depth, Semantics semantics,
                  std::vector<EffectiveQueue>* out) {
  EffectiveQueue queue;
  queue.path = parent_path.empty() ? config.name : parent_path + "." + config.name;
  queue.depth = depth;
  queue.leaf = ConfiguredAsLeaf(config, depth == 0);
  queue.properties = MergeProperties(parent_properties, config.properties);
  const ParsedProperties all = ParseProperties(queue.properties, semantics);
  const QueueProperties& parsed = all.queue;
  if (queue.leaf) queue.app_sort_policy = std::string(AppSortPolicyName(parsed.sort_policy));
  queue.priority_sort_enabled = parsed.priority_sort_enabled;
  queue.priority_fenced = parsed.fenced;
  queue.priority_offset = parsed.offset;
  queue.preemption_policy = parsed.preemption_policy == PreemptionPolicy::kFence      ? "fence"
                            : parsed.preemption_policy == PreemptionPolicy::kDisabled ? "disabled"
                                                                                      : "default";
  queue.preemption_delay_millis = parsed.preemption_delay_ms;
  queue.unsched_ask_backoff = all.backoff.asks;
  queue.unsched_ask_backoff_delay_millis = all.backoff.delay_ms;
  queue.quota_preemption_delay_millis = all.quota_delay_ms.value_or(0);
  const PropertyMap merged = queue.properties;
  const std::string path = queue.path;
  out->push_back(std::move(queue));
  for (const QueueConfig& child : config.queues) {
    AddEffective(child, merged, path, depth + 1, semantics, out);
  }
}

}  // namespace
}  // namespace allocore::internal

namespace allocore {

std::vector<EffectiveQueue> EffectiveQueues(const PartitionConfig& partition, Semantics semantics) {
  std::vector<EffectiveQueue> out;
  for (const QueueConfig& root : partition.queues) {
    internal::AddEffective(root, {}, "", 0, semantics, &out);
  }
  return out;
}

}  // namespace allocore

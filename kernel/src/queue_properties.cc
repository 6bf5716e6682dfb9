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

// The queue properties YuniKorn defines, with the values each understands (checked the way
// ParseQueueProperties and MergeProperties read them) and the default otherwise.
struct KnownProperty {
  std::string_view key;
  std::array<std::string_view, 3> values;  // all empty: any value is read
  bool case_insensitive;
  std::string_view fallback;  // what an unknown value means
};

constexpr KnownProperty kKnownProperties[] = {
    {"application.sort.policy", {"fifo", "fair", "stateaware"}, false, "fifo"},
    {"application.sort.priority", {"enabled", "disabled", ""}, true, "enabled"},
    {"priority.policy", {"default", "fence", ""}, true, "default"},
    {"priority.offset", {"", "", ""}, false, "0"},
    {"preemption.policy", {"default", "fence", "disabled"}, true, "default"},
    {"preemption.delay", {"", "", ""}, false, "30s"},
    // YuniKorn 1.8-1.9 (read by the yunikorn-1.9 profile; v1.2.0 ignores them).
    {"application.unschedasks.backoff", {"", "", ""}, false, "0"},
    {"application.unschedasks.backoff.delay", {"", "", ""}, false, "30s"},
    {"quota.preemption.delay", {"", "", ""}, false, "0"},
};

}  // namespace

std::vector<PropertyFallback> PropertyFallbacks(const PropertyMap& properties) {
  std::vector<PropertyFallback> out;
  for (const auto& [key, value] : properties) {
    const KnownProperty* known = nullptr;
    for (const KnownProperty& k : kKnownProperties) {
      if (k.key == key) known = &k;
    }
    if (known == nullptr) {
      PropertyFallback& finding = out.emplace_back();
      finding.key = key;
      finding.unknown_key = true;
      size_t best = key.size() / 4 + 2;  // close enough to be a typo
      // A key twice as long as any known one is no typo of it (and a hostile key of megabytes
      // must not cost a quadratic distance).
      constexpr size_t kLongestTypo = 2 * std::string_view("application.sort.priority").size();
      for (const KnownProperty& k : kKnownProperties) {
        if (key.size() > kLongestTypo) break;
        size_t distance = EditDistance(key, k.key);
        if (distance <= best) {
          best = distance;
          finding.nearest_key = std::string(k.key);
        }
      }
      continue;
    }
    bool understood = true;
    if (key == "priority.offset") {
      int32_t offset = 0;
      understood = ParseInt32Strict(value, &offset);
    } else if (key == "preemption.delay" || key == "application.unschedasks.backoff.delay" ||
               key == "quota.preemption.delay") {
      std::optional<int64_t> nanos = ParseGoDuration(value);
      understood = nanos && *nanos > 0;
    } else if (key == "application.unschedasks.backoff") {
      understood = ParseUint64Strict(value).has_value();
    } else if (!known->values[0].empty()) {
      understood = false;
      for (std::string_view accepted : known->values) {
        if (accepted.empty()) continue;
        if (known->case_insensitive ? EqualsIgnoreCase(value, accepted) : value == accepted) {
          understood = true;
        }
      }
    }
    if (understood) continue;
    std::string expected;
    if (key == "priority.offset") {
      expected = "a 32-bit integer";
    } else if (key == "preemption.delay" || key == "application.unschedasks.backoff.delay" ||
               key == "quota.preemption.delay") {
      expected = "a positive Go duration such as 30s or 1m30s";
    } else if (key == "application.unschedasks.backoff") {
      expected = "an unsigned 64-bit integer";
    } else {
      size_t count = 0;
      for (std::string_view accepted : known->values) count += accepted.empty() ? 0 : 1;
      for (size_t i = 0; i < count; ++i) {
        expected += std::string(i == 0           ? ""
                                : i + 1 == count ? " or "
                                                 : ", ") +
                    std::string(known->values[i]);
      }
    }
    PropertyFallback& finding = out.emplace_back();
    finding.key = key;
    finding.value = value;
    finding.expected = std::move(expected);
    finding.fallback = std::string(known->fallback);
  }
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

namespace {

// A Go duration rounded up to the millisecond (exact on a millisecond clock); `fallback` when
// it does not parse or is not positive, as YuniKorn's convertDelay.
int64_t DelayMillis(std::string_view value, int64_t fallback) {
  std::optional<int64_t> nanos = ParseGoDuration(value);
  constexpr int64_t kNanosPerMs = 1'000'000;
  return nanos && *nanos > 0 ? (*nanos - 1) / kNanosPerMs + 1 : fallback;
}

}  // namespace

QueueProperties ParseQueueProperties(const PropertyMap& properties, Semantics semantics) {
  QueueProperties out;
  for (const auto& [key, value] : properties) {
    if (key == "application.sort.policy") {
      if (value == "fair") {
        out.sort_policy = AppSortPolicy::kFair;
      } else if (value == "stateaware") {
        // 1.6+ read the deprecated stateaware policy as fifo (YUNIKORN-2483).
        out.sort_policy =
            semantics == Semantics::kYunikorn12 ? AppSortPolicy::kStateAware : AppSortPolicy::kFifo;
      } else {
        out.sort_policy = AppSortPolicy::kFifo;
      }
    } else if (key == "application.sort.priority") {
      out.priority_sort_enabled = !EqualsIgnoreCase(value, "disabled");
    } else if (key == "priority.policy") {
      out.fenced = EqualsIgnoreCase(value, "fence");
    } else if (key == "priority.offset") {
      int32_t offset = 0;
      out.offset = ParseInt32Strict(value, &offset) ? offset : 0;
    } else if (key == "preemption.policy") {
      out.preemption_policy = EqualsIgnoreCase(value, "fence")      ? PreemptionPolicy::kFence
                              : EqualsIgnoreCase(value, "disabled") ? PreemptionPolicy::kDisabled
                                                                    : PreemptionPolicy::kDefault;
    } else if (key == "preemption.delay") {
      out.preemption_delay_ms = DelayMillis(value, kDefaultPreemptionDelayMs);
    }
  }
  out.unsched_ask_backoff_on = ParseUnschedAskBackoff(properties, semantics).asks > 0;
  return out;
}

UnschedAskBackoff ParseUnschedAskBackoff(const PropertyMap& properties, Semantics semantics) {
  UnschedAskBackoff out;
  if (semantics != Semantics::kYunikorn19) return out;  // YUNIKORN-3115 is 1.8+
  for (const auto& [key, value] : properties) {
    if (key == "application.unschedasks.backoff") {
      out.asks = ParseUint64Strict(value).value_or(0);
    } else if (key == "application.unschedasks.backoff.delay") {
      out.delay_ms = DelayMillis(value, kDefaultUnschedAskBackoffDelayMs);
    }
  }
  return out;
}

std::optional<int64_t> ParseQuotaPreemptionDelay(const PropertyMap& properties,
                                                 Semantics semantics) {
  if (semantics != Semantics::kYunikorn19) return std::nullopt;  // YUNIKORN-3133 is 1.8+
  std::optional<int64_t> delay_ms;
  for (const auto& [key, value] : properties) {
    if (key == "quota.preemption.delay") delay_ms = DelayMillis(value, 0);
  }
  return delay_ms;
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
  QueueProperties parsed = ParseQueueProperties(queue.properties, semantics);
  if (queue.leaf) queue.app_sort_policy = std::string(AppSortPolicyName(parsed.sort_policy));
  queue.priority_sort_enabled = parsed.priority_sort_enabled;
  queue.priority_fenced = parsed.fenced;
  queue.priority_offset = parsed.offset;
  queue.preemption_policy = parsed.preemption_policy == PreemptionPolicy::kFence      ? "fence"
                            : parsed.preemption_policy == PreemptionPolicy::kDisabled ? "disabled"
                                                                                      : "default";
  queue.preemption_delay_millis = parsed.preemption_delay_ms;
  const UnschedAskBackoff backoff = ParseUnschedAskBackoff(queue.properties, semantics);
  queue.unsched_ask_backoff = backoff.asks;
  queue.unsched_ask_backoff_delay_millis = backoff.delay_ms;
  queue.quota_preemption_delay_millis =
      ParseQuotaPreemptionDelay(queue.properties, semantics).value_or(0);
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

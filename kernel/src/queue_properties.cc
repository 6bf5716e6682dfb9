#include "queue_properties.h"

#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace allocore::internal {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(absl::string_view(a.data(), a.size()),
                                absl::string_view(b.data(), b.size()));
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

}  // namespace

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

QueueProperties ParseQueueProperties(const PropertyMap& properties) {
  QueueProperties out;
  for (const auto& [key, value] : properties) {
    if (key == "application.sort.policy") {
      if (value == "fair") {
        out.sort_policy = AppSortPolicy::kFair;
      } else if (value == "stateaware") {
        out.sort_policy = AppSortPolicy::kStateAware;
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
    }
  }
  return out;
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

}  // namespace allocore::internal

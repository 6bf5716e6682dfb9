// kernel/src/queue_properties.h — the queue properties the kernel acts on (§2.5).
//
// Values are parsed leniently, as YuniKorn does: an unparsable value falls back to the
// default. Configured children inherit their parent's properties filtered by
// InheritedValue(); their own properties win.
#ifndef ALLOCORE_KERNEL_SRC_QUEUE_PROPERTIES_H_
#define ALLOCORE_KERNEL_SRC_QUEUE_PROPERTIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/config.h"
#include "allocore/semantics.h"

namespace allocore::internal {

enum class AppSortPolicy : uint8_t { kFifo, kFair, kStateAware };
std::string_view AppSortPolicyName(AppSortPolicy policy);

enum class PreemptionPolicy : uint8_t { kDefault, kFence, kDisabled };

inline constexpr int64_t kDefaultPreemptionDelayMs = 30'000;
inline constexpr int64_t kDefaultUnschedAskBackoffDelayMs = 30'000;

struct QueueProperties {
  AppSortPolicy sort_policy = AppSortPolicy::kFifo;
  bool priority_sort_enabled = true;
  bool fenced = false;  // priority.policy: fence
  int32_t offset = 0;
  PreemptionPolicy preemption_policy = PreemptionPolicy::kDefault;
  // application.unschedasks.backoff is set above 0 (yunikorn-1.9): the values are in
  // ParsedProperties::backoff, kept beside the queue (this struct is part of the walk's hot
  // record).
  bool unsched_ask_backoff_on = false;
  // preemption.delay rounded up to the millisecond (exact on a millisecond clock); read on
  // leaves only, as YuniKorn does.
  int64_t preemption_delay_ms = kDefaultPreemptionDelayMs;
};

// yunikorn-1.9 (YUNIKORN-3115): after `asks` unschedulable asks in one visit an application is
// skipped for `delay_ms` (asks 0: never); read on leaves only. yunikorn-1.2: always off.
struct UnschedAskBackoff {
  uint64_t asks = 0;
  int64_t delay_ms = kDefaultUnschedAskBackoffDelayMs;
};

// What YuniKorn silently ignores or reads as a default: a key it does not know (with the
// nearest known key, when one is close), or a value it does not understand (with the default
// it falls back to). One finding per such property.
struct PropertyFallback {
  std::string key;
  bool unknown_key = false;
  std::string nearest_key;  // unknown_key: a known key it may be a typo of, or empty
  std::string value;        // otherwise: the value not understood,
  std::string expected;     // what would be understood ("fifo, fair or stateaware"),
  std::string fallback;     // and what the value counts as
};

// Everything the kernel and the validator read of one queue's properties, from one pass over
// them: the kernel applies the values, the validator reports the fallbacks.
struct ParsedProperties {
  QueueProperties queue;  // the walk's part (`stateaware` reads as fifo under yunikorn-1.9)
  UnschedAskBackoff backoff;
  // yunikorn-1.9 (YUNIKORN-3133): quota.preemption.delay in milliseconds, 0 when it does not
  // parse or is not positive (quota-change preemption off); nullopt when the key is absent (the
  // queue's start time is then left as it is) or under yunikorn-1.2.
  std::optional<int64_t> quota_delay_ms;
  std::vector<PropertyFallback> fallbacks;
};
ParsedProperties ParseProperties(const PropertyMap& properties, Semantics semantics);

// The properties a configured child starts from: the parent's, filtered for inheritance
// (priority.policy and priority.offset reset, preemption.policy kept only when disabled),
// overlaid by the child's own.
PropertyMap MergeProperties(const PropertyMap& parent, const PropertyMap& own);

// A configured queue is a leaf unless it is the root, is marked `parent: true` or has children.
bool ConfiguredAsLeaf(const QueueConfig& config, bool root);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_QUEUE_PROPERTIES_H_

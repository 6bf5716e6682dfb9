// ParseProperties: the one reader of a queue's properties. What the kernel applies and what the
// validator reports as a fallback come from the same parse, so a value is applied exactly when
// it is not reported.
#include "queue_properties.h"

#include <cstdint>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace allocore::internal {
namespace {

ParsedProperties Parse(const PropertyMap& properties,
                       Semantics semantics = Semantics::kYunikorn19) {
  return ParseProperties(properties, semantics);
}

TEST(QueuePropertiesTest, DefaultsWithoutProperties) {
  const ParsedProperties parsed = Parse({});
  EXPECT_EQ(parsed.queue.sort_policy, AppSortPolicy::kFifo);
  EXPECT_TRUE(parsed.queue.priority_sort_enabled);
  EXPECT_FALSE(parsed.queue.fenced);
  EXPECT_EQ(parsed.queue.offset, 0);
  EXPECT_EQ(parsed.queue.preemption_policy, PreemptionPolicy::kDefault);
  EXPECT_EQ(parsed.queue.preemption_delay_ms, kDefaultPreemptionDelayMs);
  EXPECT_FALSE(parsed.queue.unsched_ask_backoff_on);
  EXPECT_EQ(parsed.backoff.asks, 0u);
  EXPECT_EQ(parsed.backoff.delay_ms, kDefaultUnschedAskBackoffDelayMs);
  EXPECT_EQ(parsed.quota_delay_ms, std::nullopt);
  EXPECT_TRUE(parsed.fallbacks.empty());
}

TEST(QueuePropertiesTest, AppliesEveryKnownKey) {
  const ParsedProperties parsed = Parse({{"application.sort.policy", "fair"},
                                         {"application.sort.priority", "Disabled"},
                                         {"priority.policy", "FENCE"},
                                         {"priority.offset", "-7"},
                                         {"preemption.policy", "disabled"},
                                         {"preemption.delay", "1m0.0001s"},
                                         {"application.unschedasks.backoff", "3"},
                                         {"application.unschedasks.backoff.delay", "2s"},
                                         {"quota.preemption.delay", "90s"}});
  EXPECT_EQ(parsed.queue.sort_policy, AppSortPolicy::kFair);
  EXPECT_FALSE(parsed.queue.priority_sort_enabled);
  EXPECT_TRUE(parsed.queue.fenced);
  EXPECT_EQ(parsed.queue.offset, -7);
  EXPECT_EQ(parsed.queue.preemption_policy, PreemptionPolicy::kDisabled);
  EXPECT_EQ(parsed.queue.preemption_delay_ms, 60'001);  // rounded up to the millisecond
  EXPECT_TRUE(parsed.queue.unsched_ask_backoff_on);
  EXPECT_EQ(parsed.backoff.asks, 3u);
  EXPECT_EQ(parsed.backoff.delay_ms, 2'000);
  EXPECT_EQ(parsed.quota_delay_ms, 90'000);
  EXPECT_TRUE(parsed.fallbacks.empty());
}

TEST(QueuePropertiesTest, ReleaseDecidesStateawareAndTheNewerKeys) {
  const PropertyMap properties{{"application.sort.policy", "stateaware"},
                               {"application.unschedasks.backoff", "2"},
                               {"application.unschedasks.backoff.delay", "5s"},
                               {"quota.preemption.delay", "10s"}};
  const ParsedProperties v12 = Parse(properties, Semantics::kYunikorn12);
  EXPECT_EQ(v12.queue.sort_policy, AppSortPolicy::kStateAware);
  EXPECT_FALSE(v12.queue.unsched_ask_backoff_on);
  EXPECT_EQ(v12.backoff.asks, 0u);
  EXPECT_EQ(v12.backoff.delay_ms, kDefaultUnschedAskBackoffDelayMs);
  EXPECT_EQ(v12.quota_delay_ms, std::nullopt);
  const ParsedProperties v19 = Parse(properties, Semantics::kYunikorn19);
  EXPECT_EQ(v19.queue.sort_policy, AppSortPolicy::kFifo);
  EXPECT_TRUE(v19.queue.unsched_ask_backoff_on);
  EXPECT_EQ(v19.backoff.delay_ms, 5'000);
  EXPECT_EQ(v19.quota_delay_ms, 10'000);
  // The keys are YuniKorn's under both releases: neither reports them.
  EXPECT_TRUE(v12.fallbacks.empty());
  EXPECT_TRUE(v19.fallbacks.empty());
}

// Each value YuniKorn does not understand is reported once, with what it counts as, and the
// kernel applies exactly that default.
TEST(QueuePropertiesTest, AValueNotUnderstoodIsReportedAndReadAsTheDefault) {
  const ParsedProperties parsed = Parse({{"application.sort.policy", "FAIR"},
                                         {"priority.offset", "2147483648"},
                                         {"preemption.delay", "-5s"},
                                         {"application.unschedasks.backoff", "-1"},
                                         {"application.unschedasks.backoff.delay", "0s"},
                                         {"quota.preemption.delay", "soon"}});
  EXPECT_EQ(parsed.queue.sort_policy, AppSortPolicy::kFifo);
  EXPECT_EQ(parsed.queue.offset, 0);
  EXPECT_EQ(parsed.queue.preemption_delay_ms, kDefaultPreemptionDelayMs);
  EXPECT_EQ(parsed.backoff.asks, 0u);
  EXPECT_EQ(parsed.backoff.delay_ms, kDefaultUnschedAskBackoffDelayMs);
  EXPECT_EQ(parsed.quota_delay_ms, 0);  // present but not understood: quota preemption off
  ASSERT_EQ(parsed.fallbacks.size(), 6u);
  EXPECT_EQ(parsed.fallbacks[0].key, "application.sort.policy");
  EXPECT_EQ(parsed.fallbacks[0].expected, "fifo, fair or stateaware");
  EXPECT_EQ(parsed.fallbacks[0].fallback, "fifo");
  EXPECT_EQ(parsed.fallbacks[1].expected, "a 32-bit integer");
  EXPECT_EQ(parsed.fallbacks[2].value, "-5s");
  EXPECT_EQ(parsed.fallbacks[2].expected, "a positive Go duration such as 30s or 1m30s");
  EXPECT_EQ(parsed.fallbacks[2].fallback, "30s");
  EXPECT_EQ(parsed.fallbacks[3].expected, "an unsigned 64-bit integer");
  EXPECT_EQ(parsed.fallbacks[5].fallback, "0");
  for (const PropertyFallback& f : parsed.fallbacks) EXPECT_FALSE(f.unknown_key) << f.key;
}

TEST(QueuePropertiesTest, UnknownKeysNameTheNearestKnownOne) {
  const ParsedProperties parsed =
      Parse({{"preemption.dealy", "10s"}, {"colour", "blue"}, {std::string(200, 'x'), "1"}});
  ASSERT_EQ(parsed.fallbacks.size(), 3u);
  EXPECT_TRUE(parsed.fallbacks[0].unknown_key);
  EXPECT_EQ(parsed.fallbacks[0].nearest_key, "preemption.delay");
  EXPECT_EQ(parsed.fallbacks[1].nearest_key, "");
  EXPECT_EQ(parsed.fallbacks[2].nearest_key, "");  // far too long to be a typo
  // A misspelt key changes nothing.
  EXPECT_EQ(parsed.queue.preemption_delay_ms, kDefaultPreemptionDelayMs);
}

// The same key twice (a map built by hand): the last one counts, and each is judged.
TEST(QueuePropertiesTest, ARepeatedKeyTakesItsLastValue) {
  const ParsedProperties parsed = Parse({{"priority.offset", "x"},
                                         {"priority.offset", "4"},
                                         {"preemption.delay", "2s"},
                                         {"preemption.delay", "bad"}});
  EXPECT_EQ(parsed.queue.offset, 4);
  EXPECT_EQ(parsed.queue.preemption_delay_ms, kDefaultPreemptionDelayMs);
  ASSERT_EQ(parsed.fallbacks.size(), 2u);
  EXPECT_EQ(parsed.fallbacks[0].value, "x");
  EXPECT_EQ(parsed.fallbacks[1].value, "bad");
}

}  // namespace
}  // namespace allocore::internal

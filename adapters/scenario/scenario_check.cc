// A run against the scenario's `expect:` block, with a diff a person can read (see scenario.h).
//
// Allocations are compared position by position: the contract lists every allocation of the
// run in order, so an insertion shows up as a run of differences, which the diff makes plain
// by printing the first divergence with context, then every differing position (up to a cap),
// then the missing and extra tails.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/scenario.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

constexpr size_t kMaxListed = 20;  // differing positions shown before "... and N more"

bool Matches(const ExpectedAllocation& expected, const ActualAllocation& actual) {
  auto same = [](const std::optional<std::string>& want, std::string_view got) {
    return !want || *want == got;
  };
  return same(expected.partition, actual.partition) && same(expected.queue, actual.queue) &&
         same(expected.app, actual.app) && same(expected.ask, actual.ask) &&
         same(expected.node, actual.node) && same(expected.reason, actual.reason) &&
         same(expected.from, actual.from) && same(expected.to, actual.to) &&
         (!expected.step || *expected.step == actual.step) &&
         (!expected.seq || *expected.seq == actual.seq) &&
         (!expected.victims || *expected.victims == actual.victims);
}

std::string Describe(const ExpectedAllocation& expected) {
  std::vector<std::string> parts;
  if (expected.app) parts.push_back(internal::Cat("app: ", *expected.app));
  if (expected.ask) parts.push_back(internal::Cat("ask: ", *expected.ask));
  if (expected.node) parts.push_back(internal::Cat("node: ", *expected.node));
  if (expected.queue) parts.push_back(internal::Cat("queue: ", *expected.queue));
  if (expected.partition) parts.push_back(internal::Cat("partition: ", *expected.partition));
  if (expected.reason) parts.push_back(internal::Cat("reason: ", *expected.reason));
  if (expected.from) parts.push_back(internal::Cat("from: ", *expected.from));
  if (expected.to) parts.push_back(internal::Cat("to: ", *expected.to));
  if (expected.step) parts.push_back(internal::Cat("step: ", *expected.step));
  if (expected.seq) parts.push_back(internal::Cat("seq: ", *expected.seq));
  if (expected.victims) parts.push_back(internal::Cat("victims: ", *expected.victims));
  return internal::Cat("{", internal::Join(parts, ", "), "}");
}

// The actual allocation, showing the keys `like` names (every key when `like` is null), plus
// where it came from.
std::string Describe(const ActualAllocation& actual, const ExpectedAllocation* like) {
  std::vector<std::string> parts;
  if (actual.victims >= 0) {  // a quota_preemption record: a queue and a count
    parts.push_back(internal::Cat("queue: ", actual.queue));
    parts.push_back(internal::Cat("victims: ", actual.victims));
    if (like == nullptr || like->partition) {
      parts.push_back(internal::Cat("partition: ", actual.partition));
    }
    return internal::Cat("{", internal::Join(parts, ", "), "}  (step ", actual.step, ")");
  }
  if (!actual.from.empty()) {  // an app_state record: no ask, node or queue
    parts.push_back(internal::Cat("app: ", actual.app));
    parts.push_back(internal::Cat("from: ", actual.from));
    parts.push_back(internal::Cat("to: ", actual.to));
    return internal::Cat("{", internal::Join(parts, ", "), "}  (step ", actual.step, ")");
  }
  auto add = [&](const std::optional<std::string>* key, std::string_view name,
                 std::string_view value) {
    if (like == nullptr || key->has_value()) parts.push_back(internal::Cat(name, ": ", value));
  };
  add(like ? &like->app : nullptr, "app", actual.app);
  add(like ? &like->ask : nullptr, "ask", actual.ask);
  add(like ? &like->node : nullptr, "node", actual.node);
  add(like ? &like->queue : nullptr, "queue", actual.queue);
  if (like == nullptr || like->partition) {
    parts.push_back(internal::Cat("partition: ", actual.partition));
  }
  if (!actual.reason.empty() && (like == nullptr || like->reason)) {
    parts.push_back(internal::Cat("reason: ", actual.reason));
  }
  if (actual.seq == 0) {
    return internal::Cat("{", internal::Join(parts, ", "), "}  (step ", actual.step, ")");
  }
  return internal::Cat("{", internal::Join(parts, ", "), "}  (step ", actual.step, ", seq ",
                       actual.seq, ")");
}

// "#12" padded to the width of the largest index, so that the columns line up.
std::string Index(size_t index, size_t largest) {
  std::string number = internal::Cat(index);
  std::string width = internal::Cat(largest);
  number.append(width.size() > number.size() ? width.size() - number.size() : 0, ' ');
  return internal::Cat("#", number);
}

void CheckRecords(std::string_view label, const std::vector<ExpectedAllocation>& expected,
                  const std::vector<ActualAllocation>& actual, std::string* diff) {
  const size_t common = std::min(expected.size(), actual.size());
  const size_t largest = std::max(expected.size(), actual.size());
  auto index = [&](size_t i) { return Index(i, largest); };
  std::vector<size_t> differing;
  for (size_t i = 0; i < common; ++i) {
    if (!Matches(expected[i], actual[i])) differing.push_back(i);
  }
  if (differing.empty() && expected.size() == actual.size()) return;

  internal::Append(diff, label, ": expected ", expected.size(), ", got ", actual.size());
  if (!differing.empty()) {
    internal::Append(diff, "; ", differing.size(), " of the first ", common, " differ");
  }
  *diff += "\n";
  size_t first = differing.empty() ? common : differing.front();
  internal::Append(diff, "  first divergence at #", first + 1, "\n");
  if (first > 0) {
    internal::Append(diff, "    ", index(first), "  ok        ",
                     Describe(actual[first - 1], nullptr), "\n");
  }
  for (size_t n = 0; n < differing.size() && n < kMaxListed; ++n) {
    size_t i = differing[n];
    internal::Append(diff, "  - ", index(i + 1), "  expected  ", Describe(expected[i]), "\n");
    internal::Append(diff, "  + ", index(i + 1), "  actual    ", Describe(actual[i], &expected[i]),
                     "\n");
  }
  if (differing.size() > kMaxListed) {
    internal::Append(diff, "    ... and ", differing.size() - kMaxListed, " more differences\n");
  }
  if (expected.size() > common) {
    internal::Append(diff, "  missing (expected, not made): ", expected.size() - common, "\n");
    for (size_t i = common; i < expected.size() && i < common + kMaxListed; ++i) {
      internal::Append(diff, "  - ", index(i + 1), "  ", Describe(expected[i]), "\n");
    }
    if (expected.size() > common + kMaxListed) {
      internal::Append(diff, "    ... and ", expected.size() - common - kMaxListed, " more\n");
    }
  }
  if (actual.size() > common) {
    internal::Append(diff, "  extra (made, not expected): ", actual.size() - common, "\n");
    for (size_t i = common; i < actual.size() && i < common + kMaxListed; ++i) {
      internal::Append(diff, "  + ", index(i + 1), "  ", Describe(actual[i], nullptr), "\n");
    }
    if (actual.size() > common + kMaxListed) {
      internal::Append(diff, "    ... and ", actual.size() - common - kMaxListed, " more\n");
    }
  }
}

void CheckRejected(const std::vector<std::string>& expected, const std::vector<std::string>& actual,
                   std::string* diff) {
  std::set<std::string> want(expected.begin(), expected.end());
  std::set<std::string> got(actual.begin(), actual.end());
  if (want == got) return;
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  internal::Append(diff, "rejected_apps: expected [", internal::Join(expected, ", "), "], got [",
                   internal::Join(actual, ", "), "]\n");
  if (!missing.empty()) {
    internal::Append(diff, "  - not rejected: ", internal::Join(missing, ", "), "\n");
  }
  if (!extra.empty()) {
    internal::Append(diff, "  + rejected unexpectedly: ", internal::Join(extra, ", "), "\n");
  }
}

void CheckErrors(int64_t expected, const std::vector<ErrorRecord>& actual, std::string* diff) {
  if (static_cast<int64_t>(actual.size()) == expected) return;
  internal::Append(diff, "errors: expected ", expected, ", got ", actual.size(), "\n");
  for (size_t i = 0; i < actual.size() && i < kMaxListed; ++i) {
    internal::Append(diff, "  step ", actual[i].step, ": ", actual[i].message, "\n");
  }
  if (actual.size() > kMaxListed) {
    internal::Append(diff, "  ... and ", actual.size() - kMaxListed, " more\n");
  }
}

}  // namespace

CheckResult CheckExpectations(const ScenarioExpect& expect, const RunResult& run) {
  CheckResult result;
  if (expect.allocations) {
    CheckRecords("allocations", *expect.allocations, run.allocations, &result.diff);
  }
  if (expect.releases) CheckRecords("releases", *expect.releases, run.releases, &result.diff);
  if (expect.app_states) {
    CheckRecords("app_states", *expect.app_states, run.app_states, &result.diff);
  }
  if (expect.recovered) {
    CheckRecords("recovered", *expect.recovered, run.recovered, &result.diff);
  }
  if (expect.quota_preemptions) {
    CheckRecords("quota_preemptions", *expect.quota_preemptions, run.quota_preemptions,
                 &result.diff);
  }
  if (expect.rejected_apps) CheckRejected(*expect.rejected_apps, run.rejected_apps, &result.diff);
  if (expect.errors) CheckErrors(*expect.errors, run.errors, &result.diff);
  result.ok = result.diff.empty();
  return result;
}

}  // namespace allocore::adapters

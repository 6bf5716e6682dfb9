// bench/name_churn.cc — uniquely named applications pass through a 5,000-node cluster: peak
// RSS must not grow with how many have passed (issue: names are released when nothing refers
// to them any more).
//
//   allocore_name_churn --apps N [--keep-names]
// prints one line:
//   name-churn apps=N nodes=5000 live_apps=10000 names=X peak_rss_mib=Y ns_per_app=Z
// Compare the lines for 1,000,000 and 10,000,000 applications: peak RSS within 10%.
//
// Each application has a unique id, one ask with a unique id and a unique task group, is
// allocated, and is removed 10,000 applications later; the logical clock moves 60 s per
// application so that terminated applications expire. The kernel's names are released as
// `allocore run` does: when the table has doubled since the last release (never with
// --keep-names, to see what it saves).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "support/configs.h"

namespace {

constexpr int64_t kNodes = 5000;
constexpr int64_t kLiveApps = 10000;

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "allocore_name_churn: %s: %s\n", what,
               std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t apps = 0;
  bool keep_names = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--apps") == 0 && i + 1 < argc) {
      apps = std::strtoll(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--keep-names") == 0) {
      keep_names = true;
    } else if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: allocore_name_churn --apps N [--keep-names]\n");
      return 0;
    } else {
      std::fprintf(stderr, "allocore_name_churn: unknown argument %s (usage: --apps N)\n", argv[i]);
      return 2;
    }
  }
  if (apps <= 0) {
    std::fprintf(stderr, "allocore_name_churn: --apps N (N > 0) is required\n");
    return 2;
  }
  auto created = allocore::Kernel::Create(
      allocore::test_support::RootWith(allocore::test_support::Leaves({"a", "b", "c", "d"})));
  if (!created.ok()) return Fail("Kernel::Create", created.status());
  allocore::Kernel& kernel = **created;
  std::vector<allocore::Decision> out;
  for (int64_t n = 0; n < kNodes; ++n) {
    absl::Status added = kernel.AddNode(
        {.id = "node-" + std::to_string(n), .capacity = {{"memory", 1 << 20}, {"vcore", 1000}}},
        &out);
    if (!added.ok()) return Fail("AddNode", added);
  }
  const char* queues[] = {"root.a", "root.b", "root.c", "root.d"};
  auto app_id = [](int64_t i) { return "pod-" + std::to_string(i) + "-7f3c9a2e"; };
  int64_t names_after_release = 0;
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < apps; ++i) {
    out.clear();
    const std::string id = app_id(i);
    absl::Status status = kernel.AddApplication(
        {.id = id, .queue = queues[i % 4], .user = "user-" + std::to_string(i % 100)}, &out);
    if (!status.ok()) return Fail("AddApplication", status);
    status = kernel.AddAsk({.app = id,
                            .id = id + "-ask",
                            .resources = {{"memory", 64}, {"vcore", 1}},
                            .task_group = id + "-group"},
                           &out);
    if (!status.ok()) return Fail("AddAsk", status);
    absl::StatusOr<int64_t> made = kernel.Schedule(1, "", &out);
    if (!made.ok()) return Fail("Schedule", made.status());
    if (i >= kLiveApps) {
      status = kernel.RemoveApplication("default", app_id(i - kLiveApps), &out);
      if (!status.ok()) return Fail("RemoveApplication", status);
    }
    status = kernel.Advance(60'000, &out);
    if (!status.ok()) return Fail("Advance", status);
    out.clear();
    if (!keep_names && kernel.name_count() >= 2 * names_after_release + 4096) {
      kernel.ReleaseUnusedNames();
      names_after_release = kernel.name_count();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "name-churn apps=%lld nodes=%lld live_apps=%lld names=%lld peak_rss_mib=%.1f "
      "ns_per_app=%.0f\n",
      static_cast<long long>(apps), static_cast<long long>(kNodes),
      static_cast<long long>(kLiveApps), static_cast<long long>(kernel.name_count()),
      static_cast<double>(usage.ru_maxrss) / 1024.0, seconds * 1e9 / static_cast<double>(apps));
  return 0;
}

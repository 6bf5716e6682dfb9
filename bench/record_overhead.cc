// allocore_record_overhead — what recording adds to a kernel's time, on a real call sequence:
//
//   allocore_record_overhead SCENARIO --mode plain|record|buffered [--log PATH] [--repeat N]
//                            [--digests on|off]
//   allocore_record_overhead SCENARIO --mode durable-every|durable-group [--log DIR]
//                            [--events N]
//
// Loads the scenario (YAML or event log) into memory first, then makes its calls as a manager
// would (its nodes, then for every step the runner's 1 ms tick and the step's call; probes are
// left out) on a fresh kernel: `plain` through ApplyEvent, `record` through an EventRecorder
// writing every event as it is made, `buffered` through one writing 64 KiB blocks. Only the
// calls are timed (recording included); loading is not. `--digests off` records without the
// decision digests (EventRecorderOptions::decision_digests), to measure what they cost. The
// durable modes make the first N calls (default all) through a DurableKernel in the directory
// DIR (emptied first; default /tmp/allocore-durable-bench), every event synced before it returns
// or synced in groups of 64 events or 10 ms, a checkpoint every 10,000 events, and print the
// events per second. Prints one line per repetition:
//
//   mode=record steps=N events=N decisions=N kernel_ms=X ns_per_event=Y log_bytes=Z
//
// For instruction counts, run it under valgrind --tool=callgrind
// --toggle-collect='*DriveCalls*': only the calls (and their recording) are counted.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/durable_kernel.h"
#include "allocore/adapters/event_recorder.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"

namespace {

using allocore::Event;
using allocore::adapters::EventRecorder;
using allocore::adapters::Scenario;
using Clock = std::chrono::steady_clock;

struct Totals {
  int64_t events = 0;
  int64_t decisions = 0;
  int64_t nanos = 0;
};

// The calls, kept apart so that callgrind can count them alone (--toggle-collect).
[[gnu::noinline]] Totals DriveCalls(allocore::Kernel& kernel, const std::vector<Event>& events,
                                    EventRecorder* recorder) {
  Totals totals;
  std::vector<allocore::Decision> out;
  const Clock::time_point start = Clock::now();
  for (const Event& event : events) {
    const absl::Status status = recorder != nullptr ? recorder->Apply(kernel, event, &out)
                                                    : allocore::ApplyEvent(kernel, event, &out);
    (void)status;  // a refused call is part of the sequence, as in a replay
    totals.decisions += static_cast<int64_t>(out.size());
    out.clear();
  }
  totals.nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  totals.events = static_cast<int64_t>(events.size());
  return totals;
}

// The durable modes: the calls through a DurableKernel, timed whole (syncs included).
int DriveDurable(const Scenario& header, const std::vector<Event>& events, const std::string& mode,
                 std::string dir, int64_t limit) {
  using allocore::adapters::DurableKernel;
  using allocore::adapters::SyncPolicy;
  if (dir == "/tmp/allocore-record-overhead.alog") dir = "/tmp/allocore-durable-bench";
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  absl::StatusOr<std::unique_ptr<DurableKernel>> durable = DurableKernel::Create(
      dir, header.config, {.semantics = header.semantics},
      {.sync = mode == "durable-every" ? SyncPolicy::kEveryEvent : SyncPolicy::kGroupCommit,
       .group_events = 64,
       .group_millis = 10,
       .checkpoint_every = 10000});
  if (!durable.ok()) {
    std::fprintf(stderr, "%s\n", durable.status().ToString().c_str());
    return 2;
  }
  const size_t count =
      limit > 0 ? std::min(events.size(), static_cast<size_t>(limit)) : events.size();
  std::vector<allocore::Decision> out;
  const Clock::time_point start = Clock::now();
  for (size_t i = 0; i < count; ++i) {
    absl::StatusOr<int64_t> seq = (*durable)->Apply(events[i], &out);
    if (!seq.ok() && seq.status().code() == absl::StatusCode::kDataLoss) {
      std::fprintf(stderr, "%s\n", seq.status().ToString().c_str());
      return 2;
    }
    out.clear();
  }
  if (absl::Status synced = (*durable)->Sync(); !synced.ok()) {
    std::fprintf(stderr, "%s\n", synced.ToString().c_str());
    return 2;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("mode=%s events=%zu accepted=%lld seconds=%.2f events_per_second=%.0f\n",
              mode.c_str(), count, static_cast<long long>((*durable)->applied_seq()), seconds,
              static_cast<double>(count) / seconds);
  return 0;
}

int Usage() {
  std::fputs(
      "usage: allocore_record_overhead SCENARIO --mode plain|record|buffered [--log PATH] "
      "[--repeat N] [--digests on|off]\n"
      "       allocore_record_overhead SCENARIO --mode durable-every|durable-group [--log DIR] "
      "[--events N]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string scenario_path = argv[1];
  std::string mode = "plain";
  std::string log = "/tmp/allocore-record-overhead.alog";
  int repeat = 1;
  std::string digests = "on";
  int64_t limit = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--mode") {
      mode = argv[i + 1];
    } else if (flag == "--log") {
      log = argv[i + 1];
    } else if (flag == "--repeat") {
      repeat = std::atoi(argv[i + 1]);
    } else if (flag == "--digests") {
      digests = argv[i + 1];
    } else if (flag == "--events") {
      limit = std::atoll(argv[i + 1]);
    } else {
      return Usage();
    }
  }
  if (argc % 2 != 0 ||
      (mode != "plain" && mode != "record" && mode != "buffered" && mode != "durable-every" &&
       mode != "durable-group") ||
      (digests != "on" && digests != "off")) {
    return Usage();
  }

  absl::StatusOr<std::unique_ptr<allocore::adapters::ScenarioStream>> stream =
      allocore::adapters::ScenarioStream::Open(scenario_path);
  if (!stream.ok()) {
    std::fprintf(stderr, "%s\n", stream.status().ToString().c_str());
    return 2;
  }
  const Scenario& header = (*stream)->header();
  // The calls in order: nodes, then per step the 1 ms tick and the step (probes left out).
  std::vector<Event> events;
  for (const allocore::adapters::AddNodeStep& node : header.nodes) events.push_back(node.node);
  allocore::adapters::StepSource& steps = (*stream)->steps();
  int64_t step_count = 0;
  while (true) {
    absl::StatusOr<const allocore::adapters::ScenarioStep*> step = steps.Next();
    if (!step.ok()) {
      std::fprintf(stderr, "%s\n", step.status().ToString().c_str());
      return 2;
    }
    if (*step == nullptr) break;
    ++step_count;
    events.push_back(allocore::AdvanceEvent{1});
    std::visit(
        [&](const auto& action) {
          using T = std::decay_t<decltype(action)>;
          if constexpr (std::is_same_v<T, allocore::adapters::ProbeStep>) {
            return;
          } else if constexpr (std::is_same_v<T, allocore::adapters::AddNodeStep>) {
            events.push_back(action.node);
          } else {
            events.push_back(action);
          }
        },
        (*step)->action);
  }

  if (mode.starts_with("durable-")) return DriveDurable(header, events, mode, log, limit);
  allocore::KernelOptions options{.semantics = header.semantics};
  for (int r = 0; r < repeat; ++r) {
    absl::StatusOr<std::unique_ptr<allocore::Kernel>> kernel =
        allocore::Kernel::Create(header.config, options);
    if (!kernel.ok()) {
      std::fprintf(stderr, "%s\n", kernel.status().ToString().c_str());
      return 2;
    }
    std::unique_ptr<EventRecorder> recorder;
    if (mode != "plain") {
      absl::StatusOr<std::unique_ptr<EventRecorder>> made =
          EventRecorder::Create(log, header.config, options,
                                {.buffer_bytes = mode == "buffered" ? size_t{64} << 10 : 0,
                                 .decision_digests = digests == "on"});
      if (!made.ok()) {
        std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
        return 2;
      }
      recorder = *std::move(made);
    }
    const Totals totals = DriveCalls(**kernel, events, recorder.get());
    int64_t log_bytes = 0;
    if (recorder) {
      if (absl::Status closed = recorder->Close(); !closed.ok()) {
        std::fprintf(stderr, "%s\n", closed.ToString().c_str());
        return 2;
      }
      struct stat info {};
      if (::stat(log.c_str(), &info) == 0) log_bytes = static_cast<int64_t>(info.st_size);
    }
    std::printf(
        "mode=%s steps=%lld events=%lld decisions=%lld kernel_ms=%.1f ns_per_event=%.0f "
        "log_bytes=%lld\n",
        mode.c_str(), static_cast<long long>(step_count), static_cast<long long>(totals.events),
        static_cast<long long>(totals.decisions), static_cast<double>(totals.nanos) / 1e6,
        static_cast<double>(totals.nanos) / static_cast<double>(totals.events),
        static_cast<long long>(log_bytes));
  }
  return 0;
}

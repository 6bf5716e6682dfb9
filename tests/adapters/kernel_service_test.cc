// KernelService: producers on many threads, one scheduler thread, snapshot readers; the decision
// stream equals the one a single-threaded kernel gives for the same events in submission order
// with Schedule() after each batch. Run under ThreadSanitizer by the tsan preset (.ci/run).
#include "allocore/adapters/kernel_service.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "adapters/recording_test_util.h"
#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/event_log.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/files.h"

namespace allocore::adapters {
namespace {

using Event = KernelService::Event;

SchedulerConfig TwoQueues() {
  std::vector<QueueConfig> leaves = {test_support::Leaf("a"), test_support::Leaf("b")};
  for (QueueConfig& leaf : leaves) leaf.resources.guaranteed = QuantityMap{{"memory", 100}};
  return test_support::RootWith(std::move(leaves));
}

// A service over TwoQueues() with `options`, without a sink; null after a test failure.
std::unique_ptr<KernelService> NewService(const KernelService::Options& options = {}) {
  absl::StatusOr<std::unique_ptr<KernelService>> service =
      KernelService::Create(TwoQueues(), {}, nullptr, options);
  EXPECT_TRUE(service.ok()) << service.status();
  return service.ok() ? *std::move(service) : nullptr;
}

std::string Text(const Decision& d) {
  std::ostringstream out;
  out << static_cast<int>(d.type) << ' ' << d.partition << ' ' << d.queue << ' ' << d.app << ' '
      << d.ask << ' ' << d.node << ' ' << d.seq << ' ' << d.priority << ' ' << AppStateName(d.from)
      << '>' << AppStateName(d.to) << ' ' << d.reason << ' ' << ReleaseReasonName(d.release_reason)
      << ' ' << d.count;
  return out.str();
}

// What one producer thread submits: its own applications and asks, releases of what it may
// have got, and a node now and then.
std::vector<Event> ProducerEvents(int producer) {
  std::vector<Event> events;
  const std::string queue = producer % 2 == 0 ? "root.a" : "root.b";
  for (int i = 0; i < 40; ++i) {
    const std::string app = absl::StrCat("app-", producer, "-", i);
    if (i % 10 == 0) {
      events.push_back(NodeSpec{.id = absl::StrCat("node-", producer, "-", i),
                                .capacity = {{"memory", 64}, {"vcore", 8000}}});
    }
    events.push_back(AppSpec{.id = app, .queue = queue, .user = "u"});
    events.push_back(AskSpec{.app = app,
                             .id = "ask",
                             .resources = {{"memory", 4 + i % 5}, {"vcore", 100}},
                             .priority = i % 3,
                             .count = 2});
    if (i % 4 == 3) {
      events.push_back(KernelService::ReleaseAllocation{
          .app = absl::StrCat("app-", producer, "-", i - 1), .ask = "ask"});
    }
    if (i % 6 == 5) {
      events.push_back(
          KernelService::RemoveApplication{.id = absl::StrCat("app-", producer, "-", i - 4)});
    }
    if (i % 8 == 7) events.push_back(KernelService::AdvanceClock{.millis = 1000});
  }
  return events;
}

absl::Status ApplyDirect(Kernel& k, const Event& event, std::vector<Decision>* out) {
  if (const auto* e = std::get_if<NodeSpec>(&event)) return k.AddNode(*e, out);
  if (const auto* e = std::get_if<NodeUpdate>(&event)) return k.UpdateNode(*e, out);
  if (const auto* e = std::get_if<KernelService::RemoveNode>(&event)) {
    return k.RemoveNode(e->partition, e->id, out);
  }
  if (const auto* e = std::get_if<AppSpec>(&event)) return k.AddApplication(*e, out);
  if (const auto* e = std::get_if<KernelService::RemoveApplication>(&event)) {
    return k.RemoveApplication(e->partition, e->id, out);
  }
  if (const auto* e = std::get_if<AskSpec>(&event)) return k.AddAsk(*e, out);
  if (const auto* e = std::get_if<KernelService::RemoveAsk>(&event)) {
    return k.RemoveAsk(e->partition, e->app, e->ask, out);
  }
  if (const auto* e = std::get_if<KernelService::ReleaseAllocation>(&event)) {
    return k.ReleaseAllocation(e->partition, e->app, e->ask, e->node, out);
  }
  return k.Advance(std::get<KernelService::AdvanceClock>(event).millis, out);
}

TEST(KernelServiceTest, ConcurrentProducersGiveTheStreamOfTheSameEventsInOrder) {
  struct Seen {
    uint64_t first_seq;
    uint64_t last_seq;
    std::vector<std::string> decisions;
    size_t refused;
  };
  std::vector<Seen> batches;  // written by the scheduler thread only, read after Stop()
  int64_t allocations = 0;
  auto service =
      KernelService::Create(TwoQueues(), {},
                            [&](const KernelService::Batch& batch) {
                              Seen seen{batch.first_seq, batch.last_seq, {}, batch.refused.size()};
                              for (const Decision& d : batch.decisions)
                                seen.decisions.push_back(Text(d));
                              batches.push_back(std::move(seen));
                              allocations += batch.allocations;
                            },
                            {.max_batch = 16});
  ASSERT_TRUE(service.ok()) << service.status();
  KernelService& svc = **service;
  svc.Start();

  constexpr int kProducers = 4;
  std::mutex log_mutex;
  std::vector<std::pair<uint64_t, Event>> log;  // every submitted event with its seq
  std::atomic<bool> producing{true};
  std::atomic<int64_t> snapshots_read{0};
  std::thread reader([&] {
    uint64_t last = 0;
    // At least one read, however late the thread starts on a loaded machine.
    do {
      std::shared_ptr<const KernelService::Snapshot> s = svc.snapshot();
      EXPECT_GE(s->applied_seq, last) << "snapshots go back in time";
      last = s->applied_seq;
      EXPECT_EQ(s->queues.count("default"), 1u);
      ++snapshots_read;
    } while (producing.load());
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (Event& event : ProducerEvents(p)) {
        Event copy = event;
        uint64_t seq = svc.Submit(std::move(event));
        std::lock_guard<std::mutex> lock(log_mutex);
        log.emplace_back(seq, std::move(copy));
      }
    });
  }
  for (std::thread& t : producers) t.join();
  svc.Stop();
  producing = false;
  reader.join();

  std::sort(log.begin(), log.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(svc.snapshot()->applied_seq, log.back().first);
  EXPECT_GT(allocations, 0);
  EXPECT_GT(snapshots_read.load(), 0);

  // The same events, in submission order, batch by batch, on one thread.
  auto reference = Kernel::Create(TwoQueues());
  ASSERT_TRUE(reference.ok());
  size_t next = 0;
  uint64_t expected_first = 1;
  for (const Seen& batch : batches) {
    ASSERT_EQ(batch.first_seq, expected_first) << "batches are contiguous and in order";
    expected_first = batch.last_seq + 1;
    std::vector<Decision> out;
    size_t refused = 0;
    for (; next < log.size() && log[next].first <= batch.last_seq; ++next) {
      if (!ApplyDirect(**reference, log[next].second, &out).ok()) ++refused;
    }
    ASSERT_TRUE((*reference)->Schedule(0, "", &out).ok());
    std::vector<std::string> texts;
    for (const Decision& d : out) texts.push_back(Text(d));
    ASSERT_EQ(texts, batch.decisions) << "batch " << batch.first_seq << ".." << batch.last_seq;
    EXPECT_EQ(refused, batch.refused);
  }
  EXPECT_EQ(next, log.size());
  EXPECT_TRUE((*reference)->CheckConsistency().ok());
}

TEST(KernelServiceTest, ARecordedServiceReplaysWithTheDecisionsItsSinkSaw) {
  const std::string log =
      (std::filesystem::path(::testing::TempDir()) / "kernel_service_test.alog").string();
  std::string sink_saw;  // written by the scheduler thread only, read after Stop()
  auto service = KernelService::Create(
      TwoQueues(), {.max_live_allocations = 200},
      [&](const KernelService::Batch& batch) {
        // Without resource type names (the sink does not hold the kernel); the replay's lines
        // are written without them too.
        for (const Decision& d : batch.decisions) {
          Record record{.type = testing_util::RecordTypeOf(d.type), .step = 0, .decision = &d};
          AppendJsonLine(record, &sink_saw);
        }
      },
      {.max_batch = 16, .record_path = log});
  ASSERT_TRUE(service.ok()) << service.status();
  KernelService& svc = **service;
  svc.Start();
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back([&, p] {
      for (Event& event : ProducerEvents(p)) svc.Submit(std::move(event));
      // By handle: recorded as the same calls by name.
      absl::StatusOr<AppHandle> app =
          svc.FindApplication("default", absl::StrCat("app-", p, "-39"));
      if (app.ok()) svc.Submit(RemoveApplicationByHandleEvent{.app = *app});
    });
  }
  for (std::thread& t : producers) t.join();
  svc.Stop();
  ASSERT_TRUE(svc.StopRecording().ok()) << svc.recording_status();

  absl::StatusOr<EventLogContents> read = ReadEventLog(test_support::ReadFile(log), "service.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->warnings.empty());
  EXPECT_EQ(read->scenario.budgets.max_live_allocations, 200);
  ASSERT_FALSE(sink_saw.empty());
  testing_util::DecisionCollector replayed;
  replayed.no_types = true;
  ASSERT_TRUE(RunScenario(read->scenario, {}, &replayed).ok());
  EXPECT_EQ(replayed.lines, sink_saw);
  // The service's recorder writes the decision digests, and the replay matches them.
  ASSERT_TRUE(read->scenario.decision_digests);
  absl::StatusOr<RunResult> checked = testing_util::CheckedReplay(read->scenario);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_FALSE(checked->digest_divergence);
  EXPECT_EQ(checked->digests_checked, checked->steps_run);
}

// On a durable directory, a service created again continues the kernel the first one left
// (docs/durability.md); the directory logs the events itself, so record_path is refused with it.
TEST(KernelServiceTest, ADurableServiceCreatedAgainContinuesItsDirectory) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("kernel_service_durable_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelService::Options options;
  options.durable_dir = dir.string();
  std::string before;
  int64_t durable = 0;
  {
    auto service = KernelService::Create(TwoQueues(), {}, nullptr, options);
    ASSERT_TRUE(service.ok()) << service.status();
    EXPECT_EQ((*service)->restart_report().recovered_seq, 0);
    (*service)->Submit(NodeSpec{.id = "n1", .capacity = {{"memory", 100}}});
    (*service)->Submit(AppSpec{.id = "a", .queue = "root.a", .user = "u"});
    (*service)->Submit(AskSpec{.app = "a", .id = "k", .resources = {{"memory", 30}}, .count = 2});
    std::future<KernelService::Receipt> receipt = (*service)->SubmitWithReceipt(
        AskSpec{.app = "a", .id = "big", .resources = {{"memory", 90}}});
    ASSERT_TRUE((*service)->RunOnce());
    ASSERT_TRUE(receipt.get().status.ok());
    durable = (*service)->durable_seq();
    EXPECT_EQ(durable, 5);  // four events and the batch's Schedule(0)
    (*service)->Inspect([&](const Kernel& k) {
      auto allocations = k.ListAllocations("default", "", "");
      ASSERT_TRUE(allocations.ok());
      EXPECT_EQ(allocations->size(), 2u);
      for (const PendingExplanation& e : k.ExplainPending()) before += e.ask + ": " + e.reason;
    });
  }
  auto again = KernelService::Create(TwoQueues(), {}, nullptr, options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->restart_report().recovered_seq, durable);
  std::string after;
  (*again)->Inspect([&](const Kernel& k) {
    auto allocations = k.ListAllocations("default", "", "");
    ASSERT_TRUE(allocations.ok());
    EXPECT_EQ(allocations->size(), 2u);
    for (const PendingExplanation& e : k.ExplainPending()) after += e.ask + ": " + e.reason;
  });
  EXPECT_EQ(after, before);
  EXPECT_NE(after.find("big"), std::string::npos);
  // The events go on from there.
  (*again)->Submit(ReleaseEvent{.app = "a", .ask = "k"});
  ASSERT_TRUE((*again)->RunOnce());
  EXPECT_EQ((*again)->durable_seq(), durable + 2);
  options.record_path = (dir / "also.alog").string();
  auto both = KernelService::Create(TwoQueues(), {}, nullptr, options);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(KernelServiceTest, SnapshotsFollowTheBatchesAndForgetRemovedApplications) {
  std::unique_ptr<KernelService> service = NewService();
  ASSERT_NE(service, nullptr);
  KernelService& svc = *service;
  EXPECT_EQ(svc.snapshot()->applied_seq, 0u);
  EXPECT_FALSE(svc.RunOnce());
  svc.Submit(NodeSpec{.id = "n", .capacity = {{"memory", 100}}});
  svc.Submit(AppSpec{.id = "x", .queue = "root.a", .user = "u"});
  uint64_t last = svc.Submit(AskSpec{.app = "x", .id = "k", .resources = {{"memory", 10}}});
  EXPECT_TRUE(svc.RunOnce());
  std::shared_ptr<const KernelService::Snapshot> s = svc.snapshot();
  EXPECT_EQ(s->applied_seq, last);
  ASSERT_EQ(s->apps.count({"default", "x"}), 1u);
  EXPECT_EQ(s->apps.at({"default", "x"}), AppState::kStarting);
  EXPECT_EQ(s->usage.live_allocations, 1);
  svc.Submit(KernelService::RemoveApplication{.id = "x"});
  EXPECT_TRUE(svc.RunOnce());
  EXPECT_EQ(svc.snapshot()->apps.count({"default", "x"}), 0u);
  EXPECT_EQ(svc.snapshot()->usage.live_allocations, 0);
  // The earlier snapshot is unchanged: readers keep a consistent picture.
  EXPECT_EQ(s->usage.live_allocations, 1);
}

// A manager may go by handle end to end: the sink's decisions carry them, events take them.
TEST(KernelServiceTest, HandlesFromTheDecisionsDriveLaterEvents) {
  AppHandle app;
  AskHandle ask;
  auto service = KernelService::Create(TwoQueues(), {}, [&](const KernelService::Batch& batch) {
    for (const Decision& d : batch.decisions) {
      if (d.type == DecisionType::kAllocation) {
        app = d.app_handle;
        ask = d.ask_handle;
      }
    }
  });
  ASSERT_TRUE(service.ok());
  KernelService& svc = **service;
  svc.Submit(NodeSpec{.id = "n", .capacity = {{"memory", 100}}});
  svc.Submit(AppSpec{.id = "x", .queue = "root.a", .user = "u"});
  svc.Submit(AskSpec{.app = "x", .id = "k", .resources = {{"memory", 10}}, .count = 2});
  EXPECT_TRUE(svc.RunOnce());
  ASSERT_TRUE(ask.valid());
  EXPECT_EQ(svc.snapshot()->usage.live_allocations, 2);
  svc.Submit(ReleaseByHandleEvent{.ask = ask});
  EXPECT_TRUE(svc.RunOnce());
  EXPECT_EQ(svc.snapshot()->usage.live_allocations, 1);
  ASSERT_EQ(svc.snapshot()->apps.count({"default", "x"}), 1u);
  svc.Submit(RemoveApplicationByHandleEvent{.app = app});
  EXPECT_TRUE(svc.RunOnce());
  EXPECT_EQ(svc.snapshot()->apps.count({"default", "x"}), 0u);
  EXPECT_EQ(svc.snapshot()->usage.live_allocations, 0);
}

TEST(KernelServiceTest, AFullQueueRefusesEventsAndKeepsTheSequenceDense) {
  std::unique_ptr<KernelService> service = NewService({.max_queued = 2});
  ASSERT_NE(service, nullptr);
  KernelService& svc = *service;
  EXPECT_EQ(svc.Submit(NodeSpec{.id = "n1", .capacity = {{"memory", 10}}}), 1u);
  EXPECT_EQ(svc.Submit(NodeSpec{.id = "n2", .capacity = {{"memory", 10}}}), 2u);
  EXPECT_EQ(svc.Submit(NodeSpec{.id = "n3", .capacity = {{"memory", 10}}}), 0u);  // refused
  EXPECT_TRUE(svc.RunOnce());
  EXPECT_EQ(svc.snapshot()->applied_seq, 2u);
  // Room again: the next event takes the next number, no gap where the refused one was.
  EXPECT_EQ(svc.Submit(NodeSpec{.id = "n3", .capacity = {{"memory", 10}}}), 3u);
}

// The service answers what the kernel answers: type ids and names, handles by name, handles in
// receipts, and a snapshot whose usage reads by type name.
TEST(KernelServiceTest, TypeIdsLookupsAndReceiptsGiveHandlesEndToEnd) {
  std::unique_ptr<KernelService> service = NewService({.snapshot_inventory = true});
  ASSERT_NE(service, nullptr);
  KernelService& svc = *service;
  absl::StatusOr<int> memory = svc.ResourceTypeId("memory");
  absl::StatusOr<int> gpu = svc.ResourceTypeId("nvidia.com/gpu");
  ASSERT_TRUE(memory.ok() && gpu.ok());
  EXPECT_EQ(svc.ResourceTypeId("memory").value(), *memory);  // stable
  EXPECT_EQ(svc.ResourceTypeNames()[static_cast<size_t>(*gpu)], "nvidia.com/gpu");

  std::future<KernelService::Receipt> node =
      svc.SubmitWithReceipt(NodeSpec{.id = "n", .capacity = {{"memory", 100}}});
  std::future<KernelService::Receipt> app =
      svc.SubmitWithReceipt(AppSpec{.id = "x", .queue = "root.a", .user = "u"});
  std::future<KernelService::Receipt> unknown_queue =
      svc.SubmitWithReceipt(AppSpec{.id = "y", .queue = "root.nowhere.deep", .user = "u"});
  EXPECT_EQ(app.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  EXPECT_TRUE(svc.RunOnce());
  KernelService::Receipt node_receipt = node.get();
  KernelService::Receipt app_receipt = app.get();
  EXPECT_EQ(node_receipt.seq, 1u);
  EXPECT_TRUE(node_receipt.node.valid());
  ASSERT_TRUE(app_receipt.status.ok());
  ASSERT_TRUE(app_receipt.app.valid());
  EXPECT_FALSE(app_receipt.ask.valid());
  // A rejected application is accepted as an event but has no handle.
  KernelService::Receipt rejected = unknown_queue.get();
  EXPECT_TRUE(rejected.status.ok());
  EXPECT_FALSE(rejected.app.valid());
  EXPECT_EQ(svc.FindApplication("default", "x").value(), app_receipt.app);
  EXPECT_EQ(svc.FindNode("default", "n").value(), node_receipt.node);
  EXPECT_EQ(svc.FindApplication("default", "ghost").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(svc.FindApplication("nowhere", "x").status().code(), absl::StatusCode::kNotFound);

  Resource ask_resources;
  ask_resources.Set(*memory, 30);
  std::future<KernelService::Receipt> ask = svc.SubmitWithReceipt(AddAskByHandleEvent{
      .app = app_receipt.app, .ask = {.id = "k", .resources = ask_resources, .count = 2}});
  EXPECT_TRUE(svc.RunOnce());
  KernelService::Receipt ask_receipt = ask.get();
  ASSERT_TRUE(ask_receipt.ask.valid());
  EXPECT_EQ(svc.FindAsk(app_receipt.app, "k").value(), ask_receipt.ask);

  std::shared_ptr<const KernelService::Snapshot> now = svc.snapshot();
  ASSERT_EQ(now->queues.at("default").size(), 3u);
  const QueueInfo& leaf = now->queues.at("default")[1];
  EXPECT_EQ(leaf.path, "root.a");
  EXPECT_EQ(now->Named(leaf.allocated), (std::map<std::string, int64_t>{{"memory", 60}}));
  ASSERT_EQ(now->nodes.at("default").size(), 1u);
  EXPECT_EQ(now->Named(now->nodes.at("default")[0].available)["memory"], 40);
  ASSERT_EQ(now->applications.at("default").size(), 1u);
  EXPECT_EQ(now->applications.at("default")[0].id, "x");
  ASSERT_EQ(now->allocations.at("default").size(), 2u);
  EXPECT_GT(now->allocations.at("default")[0].seq, 0);

  // Any other query between batches.
  std::vector<AllocationInfo> live;
  svc.Inspect([&](const Kernel& k) { live = k.ListAllocations("default", "x", "").value(); });
  ASSERT_EQ(live.size(), 2u);

  // A refused event's receipt says why; its handles are empty.
  std::future<KernelService::Receipt> refused =
      svc.SubmitWithReceipt(ReleaseByHandleEvent{.ask = ask_receipt.ask, .seq = 999});
  EXPECT_TRUE(svc.RunOnce());
  KernelService::Receipt refused_receipt = refused.get();
  EXPECT_EQ(refused_receipt.status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(svc.snapshot()->usage.live_allocations, 2);
  // Release exactly the newer allocation, by handle and seq.
  svc.Submit(ReleaseByHandleEvent{.ask = ask_receipt.ask, .seq = live[1].seq});
  EXPECT_TRUE(svc.RunOnce());
  svc.Inspect([&](const Kernel& k) {
    std::vector<AllocationInfo> left = k.ListAllocations("default", "x", "").value();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].seq, live[0].seq);
  });
  // The application goes: its handle is stale for lookups and events alike.
  svc.Submit(RemoveApplicationByHandleEvent{.app = app_receipt.app});
  EXPECT_TRUE(svc.RunOnce());
  EXPECT_EQ(svc.FindAsk(app_receipt.app, "k").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(KernelServiceTest, WaitAppliedReturnsTheSnapshotThatShowsTheEvent) {
  std::unique_ptr<KernelService> service = NewService();
  ASSERT_NE(service, nullptr);
  KernelService& svc = *service;
  // Never issued: refused at once.
  EXPECT_EQ(svc.WaitApplied(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(svc.WaitApplied(1).status().code(), absl::StatusCode::kInvalidArgument);
  uint64_t seq = svc.Submit(AppSpec{.id = "x", .queue = "root.a", .user = "u"});
  EXPECT_EQ(svc.WaitApplied(seq + 1).status().code(), absl::StatusCode::kInvalidArgument);
  // Issued but not applied (no scheduler thread, no RunOnce): the wait times out.
  EXPECT_EQ(svc.WaitApplied(seq, std::chrono::milliseconds(1)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  svc.Start();
  absl::StatusOr<std::shared_ptr<const KernelService::Snapshot>> applied = svc.WaitApplied(seq);
  ASSERT_TRUE(applied.ok());
  EXPECT_GE((*applied)->applied_seq, seq);
  EXPECT_EQ((*applied)->apps.count({"default", "x"}), 1u);
  // Receipts through the scheduler thread.
  KernelService::Receipt receipt =
      svc.SubmitWithReceipt(AppSpec{.id = "z", .queue = "root.b", .user = "u"}).get();
  EXPECT_TRUE(receipt.app.valid());
  EXPECT_EQ(svc.FindApplication("default", "z").value(), receipt.app);
  svc.Stop();
}

TEST(KernelServiceTest, AFullQueueAnswersAReceiptAtOnce) {
  std::unique_ptr<KernelService> service = NewService({.max_queued = 1});
  ASSERT_NE(service, nullptr);
  KernelService& svc = *service;
  EXPECT_EQ(svc.Submit(NodeSpec{.id = "n1", .capacity = {{"memory", 10}}}), 1u);
  std::future<KernelService::Receipt> dropped =
      svc.SubmitWithReceipt(NodeSpec{.id = "n2", .capacity = {{"memory", 10}}});
  ASSERT_EQ(dropped.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  KernelService::Receipt receipt = dropped.get();
  EXPECT_EQ(receipt.seq, 0u);
  EXPECT_EQ(receipt.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(svc.RunOnce());
  EXPECT_EQ(svc.FindNode("default", "n2").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace allocore::adapters

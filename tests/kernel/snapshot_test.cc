// Kernel::Snapshot, Restore and Fork.
//
// The proof is behavioural: random call sequences (the fuzz targets' decoder, both semantics
// profiles, config reloads, budgets, gangs, preemption, recovery, foreign pods) are run once
// without a break, and again with the kernel snapshotted and restored at every call; from each
// point the restored kernel's decisions and final state must equal the uninterrupted run's, its
// own snapshot must be the same bytes, and CheckConsistency must hold. Then what a damaged or
// foreign snapshot does: refused with the offset, never run.
//
// Environment: ALLOCORE_SNAPSHOT_SEEDS=N sequences (default 200).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "allocore/kernel.h"
#include "byte_reader.h"
#include "digest.h"
#include "event_sequence.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore {
namespace {

using fuzz::ByteReader;
using fuzz::DecisionText;
using fuzz::ReplayCalls;
using fuzz::Sequence;
using fuzz::StateDigest;
using ::testing::HasSubstr;

int64_t Seeds() {
  const char* v = std::getenv("ALLOCORE_SNAPSHOT_SEEDS");
  return v != nullptr && *v != '\0' ? std::strtoll(v, nullptr, 10) : 200;
}

struct Input {
  std::vector<uint8_t> bytes;
  Sequence seq;
};

Input MakeInput(uint32_t seed) {
  std::mt19937 random(seed);
  Input input;
  input.bytes.resize(1500 + random() % 2500);
  for (uint8_t& b : input.bytes) b = static_cast<uint8_t>(random());
  ByteReader in(input.bytes.data(), input.bytes.size());
  input.seq = fuzz::DecodeSequence(in, fuzz::DecodeOptions{.max_calls = 120});
  input.seq.kernel_options.semantics =
      fuzz::ProfileFor(input.seq.config, input.bytes.data(), input.bytes.size());
  return input;
}

std::unique_ptr<Kernel> Fresh(const Sequence& seq) {
  auto kernel = Kernel::Create(seq.config, seq.kernel_options);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return kernel.ok() ? *std::move(kernel) : nullptr;
}

std::set<std::pair<std::string, std::string>> AppsOf(const Sequence& seq) {
  std::set<std::pair<std::string, std::string>> apps;
  for (const fuzz::Call& call : seq.calls) {
    if (call.kind == fuzz::CallKind::kAddApp) apps.insert({call.app.partition, call.app.id});
  }
  return apps;
}

TEST(SnapshotTest, RestoredAtEveryCallTheKernelDecidesAsTheUninterruptedOne) {
  int64_t restores = 0;
  int64_t decisions = 0;
  for (uint32_t seed = 1; seed <= Seeds(); ++seed) {
    Input input = MakeInput(seed);
    const Sequence& seq = input.seq;
    const size_t n = seq.calls.size();
    // The uninterrupted run: the stream each call adds, and the final state.
    std::unique_ptr<Kernel> whole = Fresh(seq);
    ASSERT_NE(whole, nullptr);
    std::vector<size_t> stream_at(n + 1, 0);
    std::vector<std::string> stream;
    for (size_t i = 0; i < n; ++i) {
      stream_at[i] = stream.size();
      ReplayCalls(*whole, seq, i, i + 1, &stream);
    }
    stream_at[n] = stream.size();
    const std::string final_state = StateDigest(*whole, AppsOf(seq));

    std::unique_ptr<Kernel> walking = Fresh(seq);
    for (size_t cut = 0; cut <= n; ++cut) {
      const std::string snapshot = walking->Snapshot();
      absl::StatusOr<std::unique_ptr<Kernel>> restored = Kernel::Restore(snapshot);
      ASSERT_TRUE(restored.ok()) << "seed " << seed << " cut " << cut << ": " << restored.status();
      ++restores;
      Kernel& kernel = **restored;
      ASSERT_TRUE(kernel.CheckConsistency().ok()) << "seed " << seed << " cut " << cut;
      ASSERT_EQ(kernel.Snapshot(), snapshot) << "seed " << seed << " cut " << cut;
      std::vector<std::string> rest;
      ReplayCalls(kernel, seq, cut, n, &rest);
      const std::vector<std::string> expected(stream.begin() + static_cast<long>(stream_at[cut]),
                                              stream.end());
      decisions += static_cast<int64_t>(rest.size());
      ASSERT_EQ(rest, expected) << "seed " << seed << " restored after call " << cut << "\n"
                                << fuzz::DescribeSequence(seq, n);
      ASSERT_EQ(StateDigest(kernel, AppsOf(seq)), final_state) << "seed " << seed << " cut " << cut;
      ASSERT_TRUE(kernel.CheckConsistency().ok());
      std::vector<std::string> ignored;
      ReplayCalls(*walking, seq, cut, cut + 1, &ignored);
    }
  }
  std::printf("%lld restores, %lld decisions compared\n", static_cast<long long>(restores),
              static_cast<long long>(decisions));
  EXPECT_GT(restores, 1000);
  EXPECT_GT(decisions, 5 * restores);
}

TEST(SnapshotTest, WhatAForkDoesNeverReachesTheOriginal) {
  for (uint32_t seed = 1; seed <= Seeds() / 2; ++seed) {
    Input input = MakeInput(seed);
    Input other = MakeInput(seed + 100'000);
    const Sequence& seq = input.seq;
    const size_t n = seq.calls.size();
    std::unique_ptr<Kernel> whole = Fresh(seq);
    std::vector<std::string> expected;
    ReplayCalls(*whole, seq, 0, n, &expected);

    std::unique_ptr<Kernel> original = Fresh(seq);
    std::vector<std::string> stream;
    ReplayCalls(*original, seq, 0, n / 2, &stream);
    absl::StatusOr<std::unique_ptr<Kernel>> fork = original->Fork();
    ASSERT_TRUE(fork.ok()) << fork.status();
    // The fork takes another workload, removes every node and reloads its config.
    std::vector<std::string> fork_stream;
    ReplayCalls(**fork, other.seq, 0, other.seq.calls.size(), &fork_stream);
    std::vector<Decision> out;
    for (const std::string& partition : (*fork)->PartitionNames()) {
      auto nodes = (*fork)->ListNodes(partition);
      if (!nodes.ok()) continue;
      for (const NodeInfo& node : *nodes) {
        (void)(*fork)->RemoveNode(partition, std::string(node.id), &out);
      }
    }
    (void)(*fork)->UpdateConfig(other.seq.config, &out);
    (void)(*fork)->Advance(int64_t{4} * 24 * 60 * 60 * 1000, &out);
    ASSERT_TRUE((*fork)->CheckConsistency().ok());
    // The original goes on as if there were no fork.
    ReplayCalls(*original, seq, n / 2, n, &stream);
    ASSERT_EQ(stream, expected) << "seed " << seed;
    EXPECT_EQ(original->Snapshot(), whole->Snapshot()) << "seed " << seed;
  }
}

TEST(SnapshotTest, HandlesIssuedBeforeTheSnapshotWorkOnTheRestoredKernel) {
  auto kernel = Kernel::Create(test_support::RootWith({test_support::Leaf("a")})).value();
  std::vector<Decision> out;
  ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 100}}}, &out).ok());
  ASSERT_TRUE(kernel->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  ASSERT_TRUE(
      kernel->AddAsk({.app = "app", .id = "k", .resources = {{"memory", 10}}, .count = 3}, &out)
          .ok());
  const PartitionHandle partition = kernel->FindPartition(kDefaultPartition).value();
  const AppHandle app = kernel->FindApplication(partition, "app").value();
  const AskHandle ask = kernel->FindAsk(app, "k").value();
  auto restored = Kernel::Restore(kernel->Snapshot()).value();
  ASSERT_TRUE(restored->RemoveAsk(ask, &out).ok());
  EXPECT_THAT(restored->ExplainPending(), ::testing::IsEmpty());
  EXPECT_EQ(kernel->ExplainPending().size(), 1u);  // the original still has it
  EXPECT_EQ(restored->FindApplication(partition, "app").value(), app);
}

TEST(SnapshotTest, TheSameStateGivesTheSameBytes) {
  Input input = MakeInput(7);
  std::unique_ptr<Kernel> a = Fresh(input.seq);
  std::unique_ptr<Kernel> b = Fresh(input.seq);
  std::vector<std::string> ignored;
  ReplayCalls(*a, input.seq, 0, input.seq.calls.size(), &ignored);
  ReplayCalls(*b, input.seq, 0, input.seq.calls.size(), &ignored);
  EXPECT_EQ(a->Snapshot(), b->Snapshot());
}

// A snapshot with something in every table: a few seeds' state, the largest kept.
std::string BusySnapshot() {
  std::string largest;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Input input = MakeInput(seed);
    std::unique_ptr<Kernel> kernel = Fresh(input.seq);
    std::vector<std::string> ignored;
    ReplayCalls(*kernel, input.seq, 0, input.seq.calls.size(), &ignored);
    std::string snapshot = kernel->Snapshot();
    if (snapshot.size() > largest.size()) largest = std::move(snapshot);
  }
  return largest;
}

TEST(SnapshotTest, RefusesWhatIsNotASnapshotOfThisVersion) {
  const std::string snapshot = BusySnapshot();
  ASSERT_GT(snapshot.size(), 1000u);
  EXPECT_THAT(std::string(Kernel::Restore("").status().message()),
              HasSubstr("not an allocore snapshot"));
  EXPECT_THAT(std::string(Kernel::Restore("steps:\n  - schedule: {}\n").status().message()),
              HasSubstr("not an allocore snapshot"));
  std::string newer = snapshot;
  newer[8] = static_cast<char>(kSnapshotVersion + 1);
  EXPECT_THAT(std::string(Kernel::Restore(newer).status().message()),
              HasSubstr("byte 8: version 2; this build reads versions 1 to 1"));
  EXPECT_THAT(
      std::string(Kernel::Restore(snapshot.substr(0, snapshot.size() - 1)).status().message()),
      HasSubstr("(cut short)"));
}

TEST(SnapshotTest, EveryCutAndEveryFlippedByteIsRefused) {
  const std::string snapshot = BusySnapshot();
  for (size_t size = 0; size < snapshot.size(); size += 1 + size / 64) {
    absl::StatusOr<std::unique_ptr<Kernel>> restored = Kernel::Restore(snapshot.substr(0, size));
    EXPECT_EQ(restored.status().code(), absl::StatusCode::kInvalidArgument) << size;
  }
  for (size_t at = 0; at < snapshot.size(); ++at) {
    std::string damaged = snapshot;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    absl::StatusOr<std::unique_ptr<Kernel>> restored = Kernel::Restore(damaged);
    ASSERT_FALSE(restored.ok()) << "a flip at byte " << at << " was not noticed";
    EXPECT_THAT(std::string(restored.status().message()), HasSubstr("snapshot: byte "));
  }
}

// Damage the checksum cannot see (the checksum recomputed after the change): what decodes is
// either refused, naming where, or a kernel whose state holds together.
TEST(SnapshotTest, DamageBehindAValidChecksumIsRefusedOrHoldsTogether) {
  const std::string snapshot = BusySnapshot();
  constexpr size_t kHeader = 24;
  std::mt19937 random(11);
  int64_t refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = snapshot;
    const size_t at = kHeader + random() % (snapshot.size() - kHeader);
    damaged[at] = static_cast<char>(random());
    const uint32_t crc = [&] {
      // The body's CRC-32C, as the writer computes it.
      uint32_t c = 0xffffffffu;
      for (size_t i = kHeader; i < damaged.size(); ++i) {
        c ^= static_cast<uint8_t>(damaged[i]);
        for (int bit = 0; bit < 8; ++bit) c = (c & 1u) != 0 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      }
      return c ^ 0xffffffffu;
    }();
    for (int i = 0; i < 4; ++i)
      damaged[12 + static_cast<size_t>(i)] = static_cast<char>(crc >> (8 * i));
    absl::StatusOr<std::unique_ptr<Kernel>> restored = Kernel::Restore(damaged);
    if (!restored.ok()) {
      ++refused;
      EXPECT_THAT(std::string(restored.status().message()), HasSubstr("snapshot: "));
      continue;
    }
    ASSERT_TRUE((*restored)->CheckConsistency().ok()) << "byte " << at;
    std::vector<Decision> out;
    (void)(*restored)->Schedule(0, "", &out);
    (void)(*restored)->Advance(int64_t{4} * 24 * 60 * 60 * 1000, &out);
    ASSERT_TRUE((*restored)->CheckConsistency().ok()) << "byte " << at;
  }
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace allocore

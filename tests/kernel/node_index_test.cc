// The node index against a from-scratch model: a sorted list of (key, availability,
// eligibility) scanned linearly. Random inserts, erases, moves (score changes, by erase and
// insert and by Move) and updates; after each one the order, every block's maxima and the first
// fit of random asks must equal what the model computes.
#include "node_index.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "contract.h"
#include "gtest/gtest.h"

namespace allocore::internal {
namespace {

struct ModelNode {
  double score;
  Resource available;
  bool eligible;
};

class NodeIndexModelTest : public ::testing::TestWithParam<int> {
 protected:
  // Ranks as the partition deals them: the ids' byte-wise order, one rank per node.
  NodeKey Key(uint32_t slot) const { return NodeKey{model_.at(slot).score, ranks_[slot], slot}; }
  void RankIds() {
    std::vector<uint32_t> by_id(ids_.size());
    for (uint32_t i = 0; i < by_id.size(); ++i) by_id[i] = i;
    std::sort(by_id.begin(), by_id.end(), [&](uint32_t a, uint32_t b) {
      return ids_[a] != ids_[b] ? ids_[a] < ids_[b] : a < b;
    });
    ranks_.assign(ids_.size(), 0);
    for (uint32_t r = 0; r < by_id.size(); ++r) ranks_[by_id[r]] = (uint64_t{r} + 1) << 8;
  }
  std::vector<uint32_t> ModelOrder() const {
    std::vector<uint32_t> order;
    for (const auto& [slot, node] : model_) order.push_back(slot);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return Key(a) < Key(b); });
    return order;
  }
  uint32_t ModelFirstFit(const Resource& ask, uint32_t refused) const {
    for (uint32_t slot : ModelOrder()) {
      const ModelNode& n = model_.at(slot);
      if (n.eligible && FitIn(n.available, ask) && slot != refused) return slot;
    }
    return NodeIndex::kNotFound;
  }
  Resource RandomResource(std::mt19937_64& rng, int types) {
    Resource r;
    for (int t = 0; t < types; ++t) {
      // Missing, negative, zero and a small range, so that equal maxima are common.
      switch (rng() % 6) {
        case 0:
          break;
        case 1:
          r.Set(t, -static_cast<int64_t>(rng() % 3));
          break;
        default:
          r.Set(t, static_cast<int64_t>(rng() % 8));
      }
    }
    return r;
  }

  std::vector<std::string> ids_;
  std::vector<uint64_t> ranks_;
  std::map<uint32_t, ModelNode> model_;
};

TEST_P(NodeIndexModelTest, MatchesALinearScanAfterEveryChange) {
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()));
  const uint32_t kSlots = 400;  // enough for several blocks, splits and merges
  for (uint32_t i = 0; i < kSlots; ++i) {
    // Shared prefixes, so that ties on score and prefix reach the full id comparison.
    ids_.push_back("node-" + std::to_string(rng() % 3) + "-" + std::to_string(i));
  }
  RankIds();
  NodeIndex index;
  // Types appear over time: the first ones at once, more later (the index widens its maxima).
  int types = 2;
  for (int step = 0; step < 6000; ++step) {
    if (step == 2000) types = 4;
    if (step == 4000) types = kMaxResourceTypes;
    uint32_t slot = static_cast<uint32_t>(rng() % kSlots);
    bool present = model_.count(slot) > 0;
    switch (rng() % 5) {
      case 0:  // insert or erase
        if (present) {
          index.Erase(Key(slot));
          model_.erase(slot);
        } else {
          model_[slot] = {static_cast<double>(rng() % 5) / 4.0, RandomResource(rng, types),
                          rng() % 4 != 0};
          index.Insert(Key(slot), model_[slot].available, model_[slot].eligible);
        }
        break;
      case 1:  // score change: the node moves
        if (present) {
          index.Erase(Key(slot));
          model_[slot].score = static_cast<double>(rng() % 5) / 4.0;
          model_[slot].available = RandomResource(rng, types);
          index.Insert(Key(slot), model_[slot].available, model_[slot].eligible);
        }
        break;
      case 2:  // score change through Move: in place when the node keeps its neighbours
        if (present) {
          ModelNode& n = model_[slot];
          const NodeKey before = Key(slot);
          // Small steps as well as jumps, so that both the in-place and the moving path run.
          const double nudge = static_cast<double>(rng() % 3) / 64.0;
          n.score = rng() % 2 == 0 ? n.score + nudge : static_cast<double>(rng() % 5) / 4.0;
          if (rng() % 2 == 0) n.available = RandomResource(rng, types);
          if (rng() % 4 == 0) n.eligible = !n.eligible;
          index.Move(before, n.score, n.available, n.eligible);
        }
        break;
      default:  // availability or eligibility change in place
        if (present) {
          ModelNode& n = model_[slot];
          if (rng() % 3 == 0) n.eligible = !n.eligible;
          if (rng() % 2 == 0) n.available = RandomResource(rng, types);
          index.Update(Key(slot), n.available, n.eligible);
        }
    }
    std::string why;
    ASSERT_TRUE(index.CheckFromScratch(&why)) << "step " << step << ": " << why;
    ASSERT_EQ(index.size(), model_.size());
    if (step % 7 != 0) continue;
    std::vector<uint32_t> order;
    index.ForEach([&](uint32_t in_order) { order.push_back(in_order); });
    ASSERT_EQ(order, ModelOrder()) << "step " << step;
    for (int probe = 0; probe < 4; ++probe) {
      Resource ask = RandomResource(rng, types);
      uint32_t refused = static_cast<uint32_t>(rng() % kSlots);
      uint32_t found = index.FirstFit(ask, [&](uint32_t s) { return s != refused; });
      ASSERT_EQ(found, ModelFirstFit(ask, refused)) << "step " << step;
    }
    for (const auto& [s, node] : model_) {
      ASSERT_NE(index.Find(Key(s)), nullptr);
      ASSERT_EQ(index.Available(s), ToFitQuantities(node.available));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, NodeIndexModelTest, ::testing::Range(1, 9));

// The fair policy's pattern: the node just allocated leaves the front block for the back one on
// every allocation. The front blocks drain and the back ones fill without a split, and the
// order, the maxima and the block list stay right through thousands of rotations.
TEST(NodeIndexTest, RotatingFrontToBackKeepsTheOrder) {
  NodeIndex index;
  constexpr uint32_t kNodes = 1000;
  std::vector<double> score(kNodes, 0.0);
  auto key = [&](uint32_t slot) { return NodeKey{score[slot], uint64_t{slot} + 1, slot}; };
  Resource room;
  room.Set(0, 100);
  for (uint32_t slot = 0; slot < kNodes; ++slot) index.Insert(key(slot), room, true);
  std::mt19937_64 rng(3);
  for (int step = 0; step < 20000; ++step) {
    Resource ask;
    ask.Set(0, 1);
    const uint32_t first = index.FirstFit(ask, [](uint32_t) { return true; });
    ASSERT_NE(first, NodeIndex::kNotFound);
    room.Set(0, 100 - static_cast<int64_t>(score[first] * 100) - 1);
    const double next = score[first] + 0.01;
    index.Move(key(first), next, room, rng() % 50 != 0);
    score[first] = next;
    if (step % 97 == 0) {
      std::string why;
      ASSERT_TRUE(index.CheckFromScratch(&why)) << "step " << step << ": " << why;
      std::vector<uint32_t> order;
      index.ForEach([&](uint32_t slot) { order.push_back(slot); });
      ASSERT_TRUE(std::is_sorted(order.begin(), order.end(),
                                 [&](uint32_t a, uint32_t b) { return key(a) < key(b); }));
      ASSERT_EQ(order.size(), kNodes);
    }
  }
}

// Nodes leaving the front for the back (the fair policy), the back for the front (binpacking),
// and the middle for the middle, over two or three blocks: inserts that shift a full array's
// front, appends that compact a block first, merges into a block with room only after
// compacting, and two types losing their maximum at once. Every step is checked from scratch
// and against the model order.
TEST(NodeIndexTest, FrontBackAndMiddleMovesKeepEveryBlockRight) {
  NodeIndex index;
  constexpr uint32_t kNodes = 130;
  std::vector<double> score(kNodes);
  std::vector<Resource> room(kNodes);
  auto key = [&](uint32_t slot) { return NodeKey{score[slot], uint64_t{slot} + 1, slot}; };
  std::mt19937_64 rng(11);
  auto random_room = [&] {
    Resource r;
    r.Set(0, static_cast<int64_t>(rng() % 3));
    r.Set(1, static_cast<int64_t>(rng() % 3));
    return r;
  };
  for (uint32_t slot = 0; slot < kNodes; ++slot) {
    score[slot] = static_cast<double>(slot);
    room[slot] = random_room();
    index.Insert(key(slot), room[slot], true);
  }
  auto order = [&] {
    std::vector<uint32_t> slots;
    index.ForEach([&](uint32_t in_order) { slots.push_back(in_order); });
    return slots;
  };
  for (int step = 0; step < 6000; ++step) {
    const std::vector<uint32_t> before = order();
    const double low = score[before.front()];
    const double high = score[before.back()];
    uint32_t slot;
    double next;
    switch (step % 4) {
      case 0:  // the first node moves behind every other
      case 1:
        slot = before.front();
        next = high + 1;
        break;
      case 2:  // the last node moves before every other
        slot = before.back();
        next = low - 1;
        break;
      default:  // a node moves between two others
        slot = before[rng() % before.size()];
        next = score[before[rng() % before.size()]] + 0.5;
    }
    room[slot] = random_room();
    index.Move(key(slot), next, room[slot], rng() % 8 != 0);
    score[slot] = next;
    std::string why;
    ASSERT_TRUE(index.CheckFromScratch(&why)) << "step " << step << ": " << why;
    std::vector<uint32_t> model(before.begin(), before.end());
    std::sort(model.begin(), model.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    ASSERT_EQ(order(), model) << "step " << step;
  }
}

TEST(NodeIndexTest, EmptyIndexFindsNothing) {
  NodeIndex index;
  Resource ask;
  EXPECT_EQ(index.FirstFit(ask, [](uint32_t) { return true; }), NodeIndex::kNotFound);
  std::string why;
  EXPECT_TRUE(index.CheckFromScratch(&why)) << why;
}

TEST(NodeIndexTest, MissingAndNegativeAvailabilityCountAsZero) {
  NodeIndex index;
  Resource available;
  available.Set(0, -5);
  index.Insert(NodeKey{0.0, 1, 0}, available, true);
  Resource zero_ask;
  zero_ask.Set(0, 0);
  zero_ask.Set(1, 0);  // a type the node lacks, asked at 0: fits, as FitIn says
  EXPECT_EQ(index.FirstFit(zero_ask, [](uint32_t) { return true; }), 0u);
  Resource one;
  one.Set(0, 1);
  EXPECT_EQ(index.FirstFit(one, [](uint32_t) { return true; }), NodeIndex::kNotFound);
}

// The contract checks (kernel/src/contract.h) are live where the presets compile them: a
// caller that breaks a REQUIRES stops at once with the condition named, instead of reading past
// the end of a block.
TEST(NodeIndexContractTest, ErasingAKeyThatIsNotThereStopsTheKernel) {
  if (!kDebugChecks) {
    GTEST_SKIP() << "this build has no contract checks (configure with ALLOCORE_DEBUG_CHECKS=ON, "
                    "as the dev and sanitizer presets do)";
  }
  NodeIndex index;
  Resource room;
  room.Set(0, 10);
  index.Insert(NodeKey{0, 1, 0}, room, true);
  EXPECT_DEATH(index.Erase(NodeKey{0, 2, 1}),
               "contract violated at .*node_index.cc:[0-9]+: at != block.end\\(\\) && "
               "SameKey\\(\\*at, key\\)");
  EXPECT_DEATH(index.Insert(NodeKey{0, 1, 0}, room, true), "contract violated at .*node_index.cc");
}

}  // namespace
}  // namespace allocore::internal

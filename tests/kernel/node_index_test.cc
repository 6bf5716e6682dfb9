// The node index against a from-scratch model: a sorted list of (key, availability,
// eligibility) scanned linearly. Random inserts, erases, moves (score changes) and updates;
// after each one the order, every block's maxima and the first fit of random asks must equal
// what the model computes.
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
  NodeKey Key(uint32_t slot) const {
    return NodeKey{model_.at(slot).score, IdPrefix(ids_[slot]), ids_[slot], slot};
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
  std::map<uint32_t, ModelNode> model_;
};

TEST_P(NodeIndexModelTest, MatchesALinearScanAfterEveryChange) {
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()));
  const uint32_t kSlots = 400;  // enough for several blocks, splits and merges
  for (uint32_t i = 0; i < kSlots; ++i) {
    // Shared prefixes, so that ties on score and prefix reach the full id comparison.
    ids_.push_back("node-" + std::to_string(rng() % 3) + "-" + std::to_string(i));
  }
  NodeIndex index;
  // Types appear over time: the first ones at once, more later (the index widens its maxima).
  int types = 2;
  for (int step = 0; step < 6000; ++step) {
    if (step == 2000) types = 4;
    if (step == 4000) types = kMaxResourceTypes;
    uint32_t slot = static_cast<uint32_t>(rng() % kSlots);
    bool present = model_.count(slot) > 0;
    switch (rng() % 4) {
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
    index.ForEach([&](const NodeKey& key) { order.push_back(key.slot); });
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

// NodeKey orders ids byte-wise (unsigned), as std::string_view does, whatever their lengths,
// shared prefixes (past the 8 bytes IdPrefix holds), high bytes or NUL bytes.
TEST(NodeIndexTest, KeysOrderIdsByteWise) {
  std::mt19937_64 rng(7);
  const std::string alphabet("\0\x01a-9z\x7f\x80\xff", 9);
  std::vector<std::string> ids = {"",
                                  "a",
                                  "node-1",
                                  "node-12345678",
                                  "node-12345679",
                                  "node-1234567",
                                  "node-123456789",
                                  std::string("ab\0", 3),
                                  "ab"};
  for (int i = 0; i < 400; ++i) {
    std::string id = i % 2 == 0 ? "node-123" : "";
    const size_t extra = rng() % 12;
    for (size_t k = 0; k < extra; ++k) id += alphabet[rng() % alphabet.size()];
    ids.push_back(id);
  }
  for (const std::string& a : ids) {
    for (const std::string& b : ids) {
      const NodeKey ka{1.5, IdPrefix(a), a, 0};
      const NodeKey kb{1.5, IdPrefix(b), b, 1};
      ASSERT_EQ(ka < kb, std::string_view(a) < std::string_view(b))
          << testing::PrintToString(a) << " vs " << testing::PrintToString(b);
    }
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
  index.Insert(NodeKey{0.0, IdPrefix("a"), "a", 0}, available, true);
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
  index.Insert(NodeKey{0, IdPrefix("a"), "a", 0}, room, true);
  EXPECT_DEATH(index.Erase(NodeKey{0, IdPrefix("b"), "b", 1}),
               "contract violated at .*node_index.cc:[0-9]+: at != block.entries.end\\(\\) && "
               "at->key.slot == key.slot");
  EXPECT_DEATH(index.Insert(NodeKey{0, IdPrefix("a"), "a", 0}, room, true),
               "contract violated at .*node_index.cc");
}

}  // namespace
}  // namespace allocore::internal

// kernel/src/node_index.h — the partition's nodes in policy order (score, id), indexed so that
// "the first node in order whose availability fits this ask" skips the nodes that cannot fit.
//
// The order is cut into blocks of consecutive nodes; each block keeps, per resource type, the
// largest availability of its eligible nodes (schedulable, no reservation). A block whose
// maxima do not fit an ask holds no node that fits it, so the search reads one small summary
// instead of every node: an ask that fits few nodes (a GPU ask among CPU nodes) or none costs
// O(blocks), and the tight-binpacking case (full nodes first) skips the full blocks at once.
// Each block's nodes sit together with their availability, in order, so the scan inside a
// block reads memory sequentially rather than in score order over the node table.
//
// Invariants (CheckFromScratch):
//   1. Entries are in strictly increasing key order across blocks; no block is empty.
//   2. Every block's maxima and eligible count equal a recomputation over its entries.
//   3. block_of_[slot] is the block that holds the node in `slot`.
#ifndef ALLOCORE_KERNEL_SRC_NODE_INDEX_H_
#define ALLOCORE_KERNEL_SRC_NODE_INDEX_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/resource.h"

namespace allocore::internal {

// The first 8 bytes of an id, big-endian, zero padded: comparing prefixes orders ids byte-wise
// as far as the prefix goes, so most id comparisons never touch the strings.
inline uint64_t IdPrefix(std::string_view id) {
  uint64_t prefix = 0;
  for (size_t i = 0; i < 8; ++i) {
    prefix = (prefix << 8) | (i < id.size() ? static_cast<uint8_t>(id[i]) : 0u);
  }
  return prefix;
}

// A node's place in policy order: score (§1.6), then id. `id_rank` orders the ids without
// reading them: the partition ranks every node by the byte-wise order of all its node ids
// (Partition::AssignIdRank), so two of its nodes never tie and a comparison never reads an id
// (real clusters name nodes alike: "openb-node-0000-r1"... share 16 bytes). IdPrefix is a
// coarser rank that ties on a shared first 8 bytes; then the ids decide.
struct NodeKey {
  double score;
  uint64_t id_rank;
  std::string_view id;
  uint32_t slot;
  friend bool operator<(const NodeKey& a, const NodeKey& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.id_rank != b.id_rank) return a.id_rank < b.id_rank;
    // Equal IdPrefix ranks: the ids agree on their first 8 bytes (or are shorter, zero padded),
    // so the rest decides; a short loop, because ids that outgrow the prefix ("node-12345")
    // differ in a byte or two past it and a memcmp call costs more than that.
    const size_t common = a.id.size() < b.id.size() ? a.id.size() : b.id.size();
    for (size_t i = 8; i < common; ++i) {
      if (a.id[i] != b.id[i]) {
        return static_cast<unsigned char>(a.id[i]) < static_cast<unsigned char>(b.id[i]);
      }
    }
    return a.id.size() < b.id.size();
  }
  friend bool operator==(const NodeKey& a, const NodeKey& b) {
    return a.score == b.score && a.id_rank == b.id_rank && a.id == b.id;
  }
};

// Availability as FitIn reads it: a missing or negative quantity counts as 0.
using FitQuantities = std::array<int64_t, kMaxResourceTypes>;
FitQuantities ToFitQuantities(const Resource& available);

// FitIn(available, ask) for availability in FitQuantities form.
inline bool FitsQuantities(const FitQuantities& available, const Resource& ask) {
  for (ResourceMask m = ask.present; m != 0; m &= m - 1) {
    int k = __builtin_ctz(m);
    if (ask.value[static_cast<size_t>(k)] > available[static_cast<size_t>(k)]) return false;
  }
  return true;
}

class NodeIndex {
 public:
  // Kept small (48 bytes) because moving a node in the order shifts part of a block; its
  // availability lives in a table by slot, one cache line per node.
  struct Entry {
    NodeKey key;
    bool eligible;
  };

  // REQUIRES: `key` is not in the index.
  void Insert(const NodeKey& key, const Resource& available, bool eligible);
  // REQUIRES: `key` is in the index.
  void Erase(const NodeKey& key);
  // New availability or eligibility for a node whose key stays the same.
  // REQUIRES: `key` is in the index.
  void Update(const NodeKey& key, const Resource& available, bool eligible);
  void Clear();
  // New id ranks in the same relative order (the partition's relabelling): every entry's key
  // changes in place, nothing moves.
  template <typename RankOf>
  void Rerank(RankOf&& rank_of) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
      for (Entry& e : blocks_[b]->entries) e.key.id_rank = rank_of(e.key.slot);
      SyncLast(b);
    }
  }

  // The first eligible node in order whose availability fits `ask` and for which
  // accept(slot) holds; kNotFound when there is none.
  static constexpr uint32_t kNotFound = UINT32_MAX;
  template <typename Accept>
  uint32_t FirstFit(const Resource& ask, Accept&& accept) const {
    for (const auto& block : blocks_) {
      if (block->eligible == 0 || !FitsQuantities(block->max, ask)) continue;
      for (const Entry& e : block->entries) {
        if (e.eligible && FitsQuantities(available_[e.key.slot], ask) && accept(e.key.slot)) {
          return e.key.slot;
        }
      }
    }
    return kNotFound;
  }
  // Calls fn(const NodeKey&) for every node, in order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& block : blocks_) {
      for (const Entry& e : block->entries) fn(e.key);
    }
  }

  size_t size() const { return size_; }
  // The entry of `key`, or nullptr.
  const Entry* Find(const NodeKey& key) const;
  // The availability the index holds for the node in `slot`.
  const FitQuantities& Available(uint32_t slot) const { return available_[slot]; }
  // Invariants 1 to 3 recomputed from the entries; false with `why` on the first difference.
  bool CheckFromScratch(std::string* why) const;

 private:
  // max[k] is the largest availability of type k among the block's eligible entries and
  // holders[k] how many of them have it: dropping one of several holders keeps the maximum, so
  // a block is recomputed only when its last holder of a maximum loses it.
  struct Block {
    FitQuantities max{};
    std::array<uint32_t, kMaxResourceTypes> holders{};
    uint32_t eligible = 0;
    std::vector<Entry> entries;
  };
  // The block where `key` is or would go.
  size_t BlockFor(const NodeKey& key) const;
  // The block that holds the node of `key` (block_of_), else the one BlockFor names.
  Block& HolderOf(const NodeKey& key) const;
  void Recompute(Block* block) const;
  // Widens the types the maxima track; every block counts its holders of the new ones.
  void AddTypes(ResourceMask types);
  // Adds / removes one eligible node's availability to / from the block's maxima.
  void Raise(Block* block, const FitQuantities& available) const;
  void Lower(Block* block, const FitQuantities& available) const;
  // An empty block: a dropped one (its entry storage kept), so that steady state does not
  // allocate.
  Block* TakeBlock();
  void SyncLast(size_t b) {
    const NodeKey& key = blocks_[b]->entries.back().key;
    last_[b] = {key.score, key.id_rank};
  }
  void DropBlock(size_t b);
  void SplitIfFull(size_t b);
  void MergeIfSmall(size_t b);

  // Blocks by pointer: a block split off or dropped near the front shifts 8-byte pointers, not
  // 128-byte blocks (nodes that gain a score leave the front blocks for the back ones, so the
  // blocks that empty and merge sit near the front: 1,500 blocks at 50,000 nodes).
  // Plain pointers, so that erase and insert move them with one memmove.
  std::vector<Block*> blocks_;
  // The leading part of each block's last key, by block position: BlockFor's binary search
  // reads this dense array instead of following two pointers per step into the blocks (only
  // a tie on both fields reads the block).
  struct LastKey {
    double score;
    uint64_t id_rank;
  };
  std::vector<LastKey> last_;
  std::vector<Block*> spare_;                  // dropped blocks, reused by TakeBlock
  std::vector<std::unique_ptr<Block>> owned_;  // every block ever made
  std::vector<FitQuantities> available_;       // by node slot
  // The block that holds each indexed node, by slot (invariant 3): Erase and Update go straight
  // to it, and search the block list only when the block's position is needed (its last entry
  // leaves, or it falls below the merge size).
  std::vector<Block*> block_of_;
  // Types some node ever had available: maxima of the others are 0 and stay so.
  ResourceMask types_ = 0;
  size_t size_ = 0;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NODE_INDEX_H_

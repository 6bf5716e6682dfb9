// kernel/src/node_index.h — the partition's nodes in policy order (score, id), indexed so that
// "the first node in order whose availability fits this ask" skips the nodes that cannot fit.
//
// The order is cut into blocks of consecutive nodes; each block keeps, per resource type, the
// largest availability of its eligible nodes (schedulable, no reservation). A block whose
// maxima do not fit an ask holds no node that fits it, so the search reads one small summary
// instead of every node: an ask that fits few nodes (a GPU ask among CPU nodes) or none costs
// O(blocks), and the tight-binpacking case (full nodes first) skips the full blocks at once.
// Each block's nodes sit together, in order, in 24-byte entries, so the scan inside a block
// reads memory sequentially rather than in score order over the node table.
//
// A block's entries live in a fixed array with room at both ends: a node leaving the front of
// a block (under the fair policy the node just allocated leaves the front block for the back
// one on every allocation) moves nothing, and an insert or erase in the middle shifts the
// shorter side.
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
#include <vector>

#include "allocore/resource.h"

namespace allocore::internal {

// A node's place in policy order: score (§1.6), then id. `id_rank` orders the ids without
// reading them: the partition ranks every node by the byte-wise order of all its node ids
// (Partition::AssignIdRank), and no two of its nodes share a rank, so two keys never tie.
struct NodeKey {
  double score;
  uint64_t id_rank;
  uint32_t slot;
  friend bool operator<(const NodeKey& a, const NodeKey& b) {
    return a.score != b.score ? a.score < b.score : a.id_rank < b.id_rank;
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
  // 24 bytes: moving a node in the order shifts part of a block. Its availability lives in a
  // table by slot, one cache line per node.
  struct Entry {
    double score;
    uint64_t id_rank;
    uint32_t slot;
    bool eligible;
    NodeKey key() const { return NodeKey{score, id_rank, slot}; }
  };
  static_assert(sizeof(Entry) == 24);

  // REQUIRES: no node with this slot or rank is in the index.
  void Insert(const NodeKey& key, const Resource& available, bool eligible);
  // REQUIRES: `key` is in the index.
  void Erase(const NodeKey& key);
  // New availability or eligibility for a node whose key stays the same.
  // REQUIRES: `key` is in the index.
  void Update(const NodeKey& key, const Resource& available, bool eligible);
  // The node of `key` takes `score`, `available` and `eligible`: rewritten in place when it
  // keeps its neighbours inside its block, else erased and inserted.
  // REQUIRES: `key` is in the index.
  void Move(const NodeKey& key, double score, const Resource& available, bool eligible);
  void Clear();
  // New id ranks in the same relative order (the partition's relabelling): every entry's key
  // changes in place, nothing moves.
  template <typename RankOf>
  void Rerank(RankOf&& rank_of) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
      for (Entry& e : *blocks_[b]) e.id_rank = rank_of(e.slot);
      SyncLast(b);
    }
  }

  // The first eligible node in order whose availability fits `ask` and for which
  // accept(slot) holds; kNotFound when there is none.
  static constexpr uint32_t kNotFound = UINT32_MAX;
  template <typename Accept>
  uint32_t FirstFit(const Resource& ask, Accept&& accept) const {
    for (const Block* block : blocks_) {
      if (block->eligible == 0 || !FitsQuantities(block->max, ask)) continue;
      for (const Entry& e : *block) {
        if (e.eligible && FitsQuantities(available_[e.slot], ask) && accept(e.slot)) {
          return e.slot;
        }
      }
    }
    return kNotFound;
  }
  // Calls fn(slot) for every node, in order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Block* block : blocks_) {
      for (const Entry& e : *block) fn(e.slot);
    }
  }

  size_t size() const { return size_; }
  // The entry of `key` (same score, rank and slot), or nullptr.
  const Entry* Find(const NodeKey& key) const;
  // The availability the index holds for the node in `slot`.
  const FitQuantities& Available(uint32_t slot) const { return available_[slot]; }
  // Invariants 1 to 3 recomputed from the entries; false with `why` on the first difference.
  bool CheckFromScratch(std::string* why) const;

  // A block splits in two when it reaches kMaxEntries and merges into a neighbour when it
  // falls below kMinEntries. Blocks of this size keep the summary scan short (a few hundred
  // blocks for tens of thousands of nodes) and the in-block work to 1.5 KiB of contiguous
  // memory.
  static constexpr uint32_t kMaxEntries = 64;
  static constexpr uint32_t kMinEntries = 8;

 private:
  // max[k] is the largest availability of type k among the block's eligible entries and
  // holders[k] how many of them have it: dropping one of several holders keeps the maximum, so
  // a block is recomputed only when its last holder of a maximum loses it.
  struct Block {
    FitQuantities max{};
    std::array<uint32_t, kMaxResourceTypes> holders{};
    uint32_t eligible = 0;
    uint32_t head = 0;  // the entries are items[head, tail)
    uint32_t tail = 0;
    std::array<Entry, kMaxEntries> items;

    Entry* begin() { return items.data() + head; }
    Entry* end() { return items.data() + tail; }
    const Entry* begin() const { return items.data() + head; }
    const Entry* end() const { return items.data() + tail; }
    uint32_t size() const { return tail - head; }
    bool empty() const { return head == tail; }
    const Entry& back() const { return items[tail - 1]; }
    // The first entry whose key is not below `key`.
    Entry* LowerBound(const NodeKey& key);
    // The entry of `key`'s node when the block holds it (else LowerBound's answer).
    Entry* Holding(const NodeKey& key);
    // REQUIRES: size() < kMaxEntries. Returns where `entry` went.
    Entry* InsertAt(Entry* at, const Entry& entry);
    void EraseAt(Entry* at);
    // Moves the entries to the front of the array, leaving the room at the back.
    void Compact();
  };
  // The block where `key` is or would go.
  size_t BlockFor(const NodeKey& key) const;
  // The block that holds the node of `key` (block_of_), else the one BlockFor names.
  Block& HolderOf(const NodeKey& key) const;
  void Recompute(Block* block) const;
  // The maxima (and their holders) of `types` alone, recounted over the eligible entries.
  void RecomputeMaxima(Block* block, ResourceMask types) const;
  // Counts one eligible node's availability into the block's maxima of `types`.
  static void CountMaxima(Block* block, const FitQuantities& available, ResourceMask types);
  // Widens the types the maxima track; every block counts its holders of the new ones.
  void AddTypes(ResourceMask types);
  // Adds / removes one eligible node's availability to / from the block's maxima.
  void Raise(Block* block, const FitQuantities& available) const;
  void Lower(Block* block, const FitQuantities& available) const;
  // Removes the entry `at` of `block` (which holds it).
  void EraseEntry(Block* block, Entry* at);
  // New availability and eligibility of the entry `at` in `block`.
  void Refresh(Block* block, Entry* at, const Resource& available, bool eligible);
  // An empty block: a dropped one, so that steady state does not allocate.
  Block* TakeBlock();
  void SyncLast(size_t b) {
    const Entry& last = blocks_[b]->back();
    last_[b] = {last.score, last.id_rank};
  }
  void DropBlock(size_t b);
  void SplitIfFull(size_t b);
  void MergeIfSmall(size_t b);

  // Blocks by pointer: a block split off or dropped near the front shifts 8-byte pointers, not
  // whole blocks (nodes that gain a score leave the front blocks for the back ones, so the
  // blocks that empty and merge sit near the front: 1,500 blocks at 50,000 nodes).
  std::vector<Block*> blocks_;
  // Each block's last key, by block position: BlockFor's binary search reads this dense array
  // instead of following a pointer per step into the blocks.
  struct LastKey {
    double score;
    uint64_t id_rank;
  };
  std::vector<LastKey> last_;
  std::vector<Block*> spare_;                  // dropped blocks, reused by TakeBlock
  std::vector<std::unique_ptr<Block>> owned_;  // every block ever made
  std::vector<FitQuantities> available_;       // by node slot
  // The block that holds each indexed node, by slot (invariant 3): Erase, Update and Move go
  // straight to it, and search the block list only when the block's position is needed (its
  // last entry changes, or it falls below the merge size).
  std::vector<Block*> block_of_;
  // Types some node ever had available: maxima of the others are 0 and stay so.
  ResourceMask types_ = 0;
  size_t size_ = 0;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NODE_INDEX_H_

#include "node_index.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "contract.h"

namespace allocore::internal {
namespace {

bool KeyBefore(const NodeIndex::Entry& e, const NodeKey& key) {
  return e.score != key.score ? e.score < key.score : e.id_rank < key.id_rank;
}

bool SameKey(const NodeIndex::Entry& e, const NodeKey& key) {
  return e.score == key.score && e.id_rank == key.id_rank && e.slot == key.slot;
}

}  // namespace

FitQuantities ToFitQuantities(const Resource& available) {
  FitQuantities out{};
  for (size_t k = 0; k < kMaxResourceTypes; ++k) {
    out[k] = available.value[k] > 0 ? available.value[k] : 0;  // missing types hold 0
  }
  return out;
}

NodeIndex::Entry* NodeIndex::Block::LowerBound(const NodeKey& key) {
  return std::lower_bound(begin(), end(), key, KeyBefore);
}

NodeIndex::Entry* NodeIndex::Block::Holding(const NodeKey& key) {
  // The node a first fit just took is usually the first of its block.
  Entry* first = begin();
  if (first != end() && first->slot == key.slot) return first;
  return LowerBound(key);
}

NodeIndex::Entry* NodeIndex::Block::InsertAt(Entry* at, const Entry& entry) {
  ALLOCORE_DCHECK(size() < kMaxEntries);
  const auto before = static_cast<uint32_t>(at - begin());
  const uint32_t after = size() - before;
  // Shift the side that has room, the shorter one when both have.
  // (No call for an empty shift: appends and front inserts are the common case.)
  if (tail < kMaxEntries && (head == 0 || after <= before)) {
    if (after > 0) std::memmove(at + 1, at, after * sizeof(Entry));
    ++tail;
  } else {
    if (before > 0) std::memmove(begin() - 1, begin(), before * sizeof(Entry));
    --head;
    --at;
  }
  *at = entry;
  return at;
}

void NodeIndex::Block::EraseAt(Entry* at) {
  const auto before = static_cast<uint32_t>(at - begin());
  const uint32_t after = size() - before - 1;
  if (before < after) {
    if (before > 0) std::memmove(begin() + 1, begin(), before * sizeof(Entry));
    ++head;
  } else {
    if (after > 0) std::memmove(at, at + 1, after * sizeof(Entry));
    --tail;
  }
  if (head == tail) head = tail = 0;
}

void NodeIndex::Block::Compact() {
  if (head == 0) return;
  std::memmove(items.data(), begin(), size() * sizeof(Entry));
  tail -= head;
  head = 0;
}

size_t NodeIndex::BlockFor(const NodeKey& key) const {
  // Needs non-empty blocks (invariant 1). The first block whose last key is not below `key`; past
  // the end, the last block.
  size_t lo = 0;
  size_t hi = blocks_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const LastKey& last = last_[mid];
    const bool before =
        last.score != key.score ? last.score < key.score : last.id_rank < key.id_rank;
    if (before) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == blocks_.size() ? blocks_.size() - 1 : lo;
}

void NodeIndex::Recompute(Block* block) const {
  block->max.fill(0);
  block->holders.fill(0);
  block->eligible = 0;
  for (const Entry& e : *block) {
    if (e.eligible) Raise(block, available_[e.slot]);
  }
}

void NodeIndex::RecomputeMaxima(Block* block, ResourceMask types) const {
  for (ResourceMask m = types; m != 0; m &= m - 1) {
    auto k = static_cast<size_t>(__builtin_ctz(m));
    block->max[k] = 0;
    block->holders[k] = 0;
  }
  for (const Entry& e : *block) {
    if (e.eligible) CountMaxima(block, available_[e.slot], types);
  }
}

void NodeIndex::AddTypes(ResourceMask types) {
  if ((types & ~types_) == 0) return;
  types_ |= types;
  for (Block* block : blocks_) Recompute(block);  // at most kMaxResourceTypes times
}

void NodeIndex::CountMaxima(Block* block, const FitQuantities& available, ResourceMask types) {
  for (ResourceMask m = types; m != 0; m &= m - 1) {
    auto k = static_cast<size_t>(__builtin_ctz(m));
    if (available[k] > block->max[k]) {
      block->max[k] = available[k];
      block->holders[k] = 1;
    } else if (available[k] == block->max[k]) {
      ++block->holders[k];
    }
  }
}

void NodeIndex::Raise(Block* block, const FitQuantities& available) const {
  ++block->eligible;
  CountMaxima(block, available, types_);
}

void NodeIndex::Lower(Block* block, const FitQuantities& available) const {
  --block->eligible;
  ResourceMask lost = 0;  // the types whose maximum lost its last holder
  for (ResourceMask m = types_; m != 0; m &= m - 1) {
    auto k = static_cast<size_t>(__builtin_ctz(m));
    if (available[k] == block->max[k] && --block->holders[k] == 0) lost |= ResourceMask{1} << k;
  }
  // Only those types are recomputed (a GPU node's allocation lowers the block's GPU maximum,
  // not its memory one).
  if (lost != 0) RecomputeMaxima(block, lost);
}

void NodeIndex::Insert(const NodeKey& key, const Resource& available, bool eligible) {
  const Entry entry{key.score, key.id_rank, key.slot, eligible};
  AddTypes(available.present);
  if (key.slot >= available_.size()) {
    available_.resize(key.slot + 1);
    block_of_.resize(key.slot + 1, nullptr);
  }
  ALLOCORE_DCHECK(block_of_[key.slot] == nullptr);
  available_[key.slot] = ToFitQuantities(available);
  if (blocks_.empty()) {
    blocks_.push_back(TakeBlock());  // the one empty block, filled below
    last_.push_back({key.score, key.id_rank});
  }
  // A key after the last one (a node that gains a score under the fair policy moves behind the
  // others) goes to the end of the last block without a search; when that block is full, it
  // starts a new one instead of splitting it, so that appends never recompute a block.
  const LastKey tail = last_.back();  // a copy: a new block below grows last_
  const bool after_all =
      tail.score < key.score || (tail.score == key.score && tail.id_rank < key.id_rank);
  size_t b;
  if (after_all && blocks_.back()->size() + 1 >= kMaxEntries) {
    blocks_.push_back(TakeBlock());
    last_.push_back({key.score, key.id_rank});
    b = blocks_.size() - 1;
  } else {
    b = after_all || blocks_.size() == 1 ? blocks_.size() - 1 : BlockFor(key);
  }
  Block& block = *blocks_[b];
  Entry* at;
  if (after_all) {
    if (block.tail == kMaxEntries) block.Compact();
    at = block.end();
  } else {
    at = block.LowerBound(key);
  }
  ALLOCORE_DCHECK(at == block.end() || key < at->key());
  ALLOCORE_DCHECK(at == block.begin() || (at - 1)->key() < key);
  block.InsertAt(at, entry);
  block_of_[key.slot] = &block;
  SyncLast(b);
  if (eligible) Raise(&block, available_[key.slot]);
  ++size_;
  SplitIfFull(b);
}

NodeIndex::Block& NodeIndex::HolderOf(const NodeKey& key) const {
  Block* holder = key.slot < block_of_.size() ? block_of_[key.slot] : nullptr;
  // A key that is not in the index (a broken REQUIRES): the block where it would be, so that
  // the caller's check on the entry names the violation.
  return holder != nullptr ? *holder : *blocks_[BlockFor(key)];
}

void NodeIndex::Erase(const NodeKey& key) {
  Block& block = HolderOf(key);
  Entry* at = block.Holding(key);
  ALLOCORE_DCHECK(at != block.end() && SameKey(*at, key));
  EraseEntry(&block, at);
}

void NodeIndex::EraseEntry(Block* block, Entry* at) {
  const NodeKey key = at->key();
  // The block's position matters only when its last key changes or it may merge or drop.
  const bool moves_last = at + 1 == block->end();
  const bool small = block->size() <= kMinEntries;
  const size_t b = moves_last || small ? BlockFor(key) : 0;
  ALLOCORE_DCHECK(!(moves_last || small) || blocks_[b] == block);
  const bool was_eligible = at->eligible;
  block->EraseAt(at);
  block_of_[key.slot] = nullptr;
  if (moves_last && !block->empty()) SyncLast(b);
  --size_;
  if (was_eligible) Lower(block, available_[key.slot]);
  if (small) MergeIfSmall(b);
}

void NodeIndex::Refresh(Block* block, Entry* at, const Resource& available, bool eligible) {
  AddTypes(available.present);
  FitQuantities now = ToFitQuantities(available);
  FitQuantities& held = available_[at->slot];
  if (at->eligible == eligible && held == now) return;
  const bool was_eligible = at->eligible;
  const FitQuantities before = held;
  held = now;
  at->eligible = eligible;
  // Raise first, so that Lower does not recompute a maximum the new value keeps; a
  // recomputation reads the new value.
  if (eligible) Raise(block, now);
  if (was_eligible) Lower(block, before);
}

void NodeIndex::Update(const NodeKey& key, const Resource& available, bool eligible) {
  Block& block = HolderOf(key);
  Entry* at = block.Holding(key);
  ALLOCORE_DCHECK(at != block.end() && SameKey(*at, key));
  Refresh(&block, at, available, eligible);
}

void NodeIndex::Move(const NodeKey& key, double score, const Resource& available, bool eligible) {
  Block& block = HolderOf(key);
  Entry* at = block.Holding(key);
  ALLOCORE_DCHECK(at != block.end() && SameKey(*at, key));
  const NodeKey moved{score, key.id_rank, key.slot};
  // Between its two neighbours in the same block, the entry keeps its place: the block's last
  // key and its position in the block list do not change.
  if (at != block.begin() && at + 1 != block.end() && (at - 1)->key() < moved &&
      moved < (at + 1)->key()) {
    at->score = score;
    Refresh(&block, at, available, eligible);
    return;
  }
  EraseEntry(&block, at);
  Insert(moved, available, eligible);
}

NodeIndex::Block* NodeIndex::TakeBlock() {
  Block* block;
  if (!spare_.empty()) {
    block = spare_.back();
    spare_.pop_back();
  } else {
    block = owned_.emplace_back(std::make_unique<Block>()).get();
  }
  block->max.fill(0);
  block->holders.fill(0);
  block->eligible = 0;
  block->head = block->tail = 0;
  return block;
}

void NodeIndex::DropBlock(size_t b) {
  spare_.push_back(blocks_[b]);
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
  last_.erase(last_.begin() + static_cast<std::ptrdiff_t>(b));
}

void NodeIndex::SplitIfFull(size_t b) {
  Block& lower = *blocks_[b];
  if (lower.size() < kMaxEntries) return;
  Block* upper = TakeBlock();
  const uint32_t half = lower.size() / 2;
  const Entry* from = lower.begin() + half;
  const auto moved = static_cast<uint32_t>(lower.end() - from);
  std::memcpy(upper->items.data(), from, moved * sizeof(Entry));
  upper->tail = moved;
  lower.tail = lower.head + half;
  for (const Entry& e : *upper) block_of_[e.slot] = upper;
  Recompute(&lower);
  Recompute(upper);
  blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b + 1), upper);
  last_.insert(last_.begin() + static_cast<std::ptrdiff_t>(b + 1), LastKey{});
  SyncLast(b);
  SyncLast(b + 1);
}

void NodeIndex::MergeIfSmall(size_t b) {
  if (blocks_[b]->empty()) {
    DropBlock(b);
    return;
  }
  if (blocks_[b]->size() >= kMinEntries) return;
  // Into the smaller neighbour, when both fit in one block below the split size.
  size_t first;
  if (b == 0) {
    if (blocks_.size() == 1) return;
    first = 0;
  } else if (b + 1 == blocks_.size() || blocks_[b - 1]->size() <= blocks_[b + 1]->size()) {
    first = b - 1;
  } else {
    first = b;
  }
  Block& into = *blocks_[first];
  const Block& from = *blocks_[first + 1];
  if (into.size() + from.size() >= kMaxEntries) return;
  if (into.tail + from.size() > kMaxEntries) into.Compact();
  std::memcpy(into.end(), from.begin(), from.size() * sizeof(Entry));
  into.tail += from.size();
  for (const Entry& e : from) block_of_[e.slot] = &into;
  Recompute(&into);
  SyncLast(first);
  DropBlock(first + 1);
}

void NodeIndex::Clear() {
  spare_.insert(spare_.end(), blocks_.begin(), blocks_.end());
  blocks_.clear();
  last_.clear();
  available_.clear();
  block_of_.clear();
  size_ = 0;
}

const NodeIndex::Entry* NodeIndex::Find(const NodeKey& key) const {
  if (blocks_.empty()) return nullptr;
  Block& block = *blocks_[BlockFor(key)];
  const Entry* at = block.LowerBound(key);
  if (at == block.end() || !SameKey(*at, key)) return nullptr;
  return at;
}

bool NodeIndex::CheckFromScratch(std::string* why) const {
  size_t count = 0;
  const Entry* previous = nullptr;
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const Block& block = *blocks_[b];
    if (block.empty() || block.head > block.tail || block.tail > kMaxEntries) {
      *why = absl::StrCat("node index block ", b, " is empty or its bounds are broken");
      return false;
    }
    Block fresh = block;
    Recompute(&fresh);
    if (fresh.max != block.max || fresh.holders != block.holders ||
        fresh.eligible != block.eligible) {
      *why = absl::StrCat("node index block ", b, ": cached maxima differ from a recomputation");
      return false;
    }
    if (last_.size() != blocks_.size() || last_[b].score != block.back().score ||
        last_[b].id_rank != block.back().id_rank) {
      *why = absl::StrCat("node index block ", b, ": its last key is not the one BlockFor reads");
      return false;
    }
    for (const Entry& e : block) {
      if (e.slot >= block_of_.size() || block_of_[e.slot] != &block) {
        *why = absl::StrCat("node index: the node in slot ", e.slot,
                            " is not listed under the block that holds it");
        return false;
      }
      if (previous != nullptr && !(previous->key() < e.key())) {
        *why = absl::StrCat("node index out of order at the node in slot ", e.slot);
        return false;
      }
      previous = &e;
      ++count;
    }
  }
  if (count != size_) {
    *why = absl::StrCat("node index holds ", count, " nodes, counts ", size_);
    return false;
  }
  // Slots not indexed hold no block (Insert relies on it).
  const auto listed = static_cast<size_t>(std::count_if(
      block_of_.begin(), block_of_.end(), [](const Block* b) { return b != nullptr; }));
  if (listed != size_) {
    *why = absl::StrCat("node index lists ", listed, " slots under a block, holds ", size_);
    return false;
  }
  return true;
}

}  // namespace allocore::internal

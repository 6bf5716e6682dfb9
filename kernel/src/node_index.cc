#include "node_index.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "contract.h"

namespace allocore::internal {
namespace {

// A block splits in two when it reaches kMaxEntries and merges into a neighbour when it falls
// below kMinEntries. Blocks of this size keep the summary scan short (a few hundred blocks for
// tens of thousands of nodes) and the in-block work (insert, erase, recompute) to a few
// kilobytes of contiguous memory.
constexpr size_t kMaxEntries = 64;
constexpr size_t kMinEntries = 8;

}  // namespace

FitQuantities ToFitQuantities(const Resource& available) {
  FitQuantities out{};
  for (size_t k = 0; k < kMaxResourceTypes; ++k) {
    out[k] = available.value[k] > 0 ? available.value[k] : 0;  // missing types hold 0
  }
  return out;
}

size_t NodeIndex::BlockFor(const NodeKey& key) const {
  // Needs non-empty blocks (invariant 1). The first block whose last key is not below `key`; past
  // the end, the last block.
  size_t lo = 0;
  size_t hi = blocks_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const LastKey& last = last_[mid];
    const bool before = last.score != key.score       ? last.score < key.score
                        : last.id_rank != key.id_rank ? last.id_rank < key.id_rank
                                                      : blocks_[mid]->entries.back().key < key;
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
  for (const Entry& e : block->entries) {
    if (e.eligible) Raise(block, available_[e.key.slot]);
  }
}

void NodeIndex::AddTypes(ResourceMask types) {
  if ((types & ~types_) == 0) return;
  types_ |= types;
  for (Block* block : blocks_) Recompute(block);  // at most kMaxResourceTypes times
}

void NodeIndex::Raise(Block* block, const FitQuantities& available) const {
  ++block->eligible;
  for (ResourceMask m = types_; m != 0; m &= m - 1) {
    auto k = static_cast<size_t>(__builtin_ctz(m));
    if (available[k] > block->max[k]) {
      block->max[k] = available[k];
      block->holders[k] = 1;
    } else if (available[k] == block->max[k]) {
      ++block->holders[k];
    }
  }
}

void NodeIndex::Lower(Block* block, const FitQuantities& available) const {
  --block->eligible;
  bool last_holder = false;
  for (ResourceMask m = types_; m != 0; m &= m - 1) {
    auto k = static_cast<size_t>(__builtin_ctz(m));
    if (available[k] == block->max[k] && --block->holders[k] == 0) last_holder = true;
  }
  if (last_holder) Recompute(block);
}

namespace {

auto EntryBefore = [](const NodeIndex::Entry& e, const NodeKey& key) { return e.key < key; };

}  // namespace

void NodeIndex::Insert(const NodeKey& key, const Resource& available, bool eligible) {
  Entry entry{key, eligible};
  AddTypes(available.present);
  if (key.slot >= available_.size()) {
    available_.resize(key.slot + 1);
    block_of_.resize(key.slot + 1, nullptr);
  }
  available_[key.slot] = ToFitQuantities(available);
  if (blocks_.empty()) {
    blocks_.push_back(TakeBlock());  // the one empty block, filled below
    last_.push_back({key.score, key.id_rank});
  }
  // A key after the last one (a node that gains a score under the fair policy moves behind the
  // others) goes to the end of the last block without a search; a tie on both fields searches.
  const LastKey& tail = last_.back();
  const bool after_all =
      tail.score < key.score || (tail.score == key.score && tail.id_rank < key.id_rank);
  const size_t b = after_all || blocks_.size() == 1 ? blocks_.size() - 1 : BlockFor(key);
  Block& block = *blocks_[b];
  auto at = after_all
                ? block.entries.end()
                : std::lower_bound(block.entries.begin(), block.entries.end(), key, EntryBefore);
  ALLOCORE_DCHECK(at == block.entries.end() || at->key.slot != key.slot);
  ALLOCORE_DCHECK(at == block.entries.begin() || std::prev(at)->key < key);
  block.entries.insert(at, entry);
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
  auto at = std::lower_bound(block.entries.begin(), block.entries.end(), key, EntryBefore);
  ALLOCORE_DCHECK(at != block.entries.end() && at->key.slot == key.slot);
  // The block's position matters only when its last key changes or it may merge or drop.
  const bool moves_last = at + 1 == block.entries.end();
  const bool small = block.entries.size() <= kMinEntries;
  const size_t b = moves_last || small ? BlockFor(key) : 0;
  ALLOCORE_DCHECK(!(moves_last || small) || blocks_[b] == &block);
  Entry gone = *at;
  block.entries.erase(at);
  block_of_[key.slot] = nullptr;
  if (moves_last && !block.entries.empty()) SyncLast(b);
  --size_;
  if (gone.eligible) Lower(&block, available_[gone.key.slot]);
  if (small) MergeIfSmall(b);
}

void NodeIndex::Update(const NodeKey& key, const Resource& available, bool eligible) {
  AddTypes(available.present);
  Block& block = HolderOf(key);
  auto at = std::lower_bound(block.entries.begin(), block.entries.end(), key, EntryBefore);
  ALLOCORE_DCHECK(at != block.entries.end() && at->key.slot == key.slot);
  FitQuantities now = ToFitQuantities(available);
  FitQuantities& held = available_[key.slot];
  if (at->eligible == eligible && held == now) return;
  const bool was_eligible = at->eligible;
  const FitQuantities before = held;
  held = now;
  at->eligible = eligible;
  // Raise first, so that Lower does not recompute a maximum the new value keeps; a
  // recomputation reads the new value.
  if (eligible) Raise(&block, now);
  if (was_eligible) Lower(&block, before);
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
  block->entries.clear();
  block->entries.reserve(kMaxEntries);
  return block;
}

void NodeIndex::DropBlock(size_t b) {
  spare_.push_back(blocks_[b]);
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
  last_.erase(last_.begin() + static_cast<std::ptrdiff_t>(b));
}

void NodeIndex::SplitIfFull(size_t b) {
  if (blocks_[b]->entries.size() < kMaxEntries) return;
  Block* upper = TakeBlock();
  std::vector<Entry>& lower = blocks_[b]->entries;
  size_t half = lower.size() / 2;
  upper->entries.assign(lower.begin() + static_cast<std::ptrdiff_t>(half), lower.end());
  lower.resize(half);
  for (const Entry& e : upper->entries) block_of_[e.key.slot] = upper;
  Recompute(blocks_[b]);
  Recompute(upper);
  blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b + 1), upper);
  last_.insert(last_.begin() + static_cast<std::ptrdiff_t>(b + 1), LastKey{});
  SyncLast(b);
  SyncLast(b + 1);
}

void NodeIndex::MergeIfSmall(size_t b) {
  if (blocks_[b]->entries.empty()) {
    DropBlock(b);
    return;
  }
  if (blocks_[b]->entries.size() >= kMinEntries) return;
  // Into the smaller neighbour, when both fit in one block below the split size.
  size_t first;
  if (b == 0) {
    if (blocks_.size() == 1) return;
    first = 0;
  } else if (b + 1 == blocks_.size() ||
             blocks_[b - 1]->entries.size() <= blocks_[b + 1]->entries.size()) {
    first = b - 1;
  } else {
    first = b;
  }
  Block& into = *blocks_[first];
  const Block& from = *blocks_[first + 1];
  if (into.entries.size() + from.entries.size() >= kMaxEntries) return;
  into.entries.insert(into.entries.end(), from.entries.begin(), from.entries.end());
  for (const Entry& e : from.entries) block_of_[e.key.slot] = &into;
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
  const Block& block = *blocks_[BlockFor(key)];
  auto at = std::lower_bound(block.entries.begin(), block.entries.end(), key, EntryBefore);
  if (at == block.entries.end() || !(at->key == key) || at->key.slot != key.slot) return nullptr;
  return &*at;
}

bool NodeIndex::CheckFromScratch(std::string* why) const {
  size_t count = 0;
  const Entry* previous = nullptr;
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const Block& block = *blocks_[b];
    if (block.entries.empty()) {
      *why = absl::StrCat("node index block ", b, " is empty");
      return false;
    }
    Block fresh;
    fresh.entries = block.entries;
    Recompute(&fresh);
    if (fresh.max != block.max || fresh.holders != block.holders ||
        fresh.eligible != block.eligible) {
      *why = absl::StrCat("node index block ", b, ": cached maxima differ from a recomputation");
      return false;
    }
    if (last_.size() != blocks_.size() || last_[b].score != block.entries.back().key.score ||
        last_[b].id_rank != block.entries.back().key.id_rank) {
      *why = absl::StrCat("node index block ", b, ": its last key is not the one BlockFor reads");
      return false;
    }
    for (const Entry& e : block.entries) {
      if (e.key.slot >= block_of_.size() || block_of_[e.key.slot] != &block) {
        *why = absl::StrCat("node index: node ", std::string(e.key.id),
                            " is not listed under the block that holds it");
        return false;
      }
      if (previous != nullptr && !(previous->key < e.key)) {
        *why = absl::StrCat("node index out of order at node ", std::string(e.key.id));
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
  return true;
}

}  // namespace allocore::internal

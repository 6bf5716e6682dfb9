// kernel/src/slots.h — taking a slot of a table with a free list, for the partition's records.
#ifndef ALLOCORE_KERNEL_SRC_SLOTS_H_
#define ALLOCORE_KERNEL_SRC_SLOTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace allocore::internal {

// A freed slot of `slots` (reset to a fresh record), or a new one at the end.
template <typename T>
uint32_t TakeSlot(std::vector<T>& slots, std::vector<uint32_t>& free) {
  if (!free.empty()) {
    uint32_t slot = free.back();
    free.pop_back();
    // Rebuilt in place rather than assigned from a temporary: nothing is moved, and GCC 12
    // sees no read of an inline buffer the temporary never wrote.
    std::destroy_at(&slots[slot]);
    std::construct_at(&slots[slot]);
    return slot;
  }
  slots.emplace_back();
  return static_cast<uint32_t>(slots.size() - 1);
}

// The other part (side or hot table) of the record TakeSlot just gave: fresh, whether the slot
// was reused or new (`slots`: the size of the table that gave it).
template <typename T>
void FreshPart(std::vector<T>& part, uint32_t slot, size_t slots) {
  if (slot < part.size()) {
    part[slot] = T{};
  } else {
    part.resize(slots);
  }
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_SLOTS_H_

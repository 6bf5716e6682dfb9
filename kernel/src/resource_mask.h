// kernel/src/resource_mask.h — visiting the types a presence mask holds.
#ifndef ALLOCORE_KERNEL_SRC_RESOURCE_MASK_H_
#define ALLOCORE_KERNEL_SRC_RESOURCE_MASK_H_

#include "allocore/resource.h"

namespace allocore::internal {

// Calls fn(type) for every type whose bit is set in `mask`, lowest id first.
template <typename Fn>
void ForEachType(ResourceMask mask, Fn&& fn) {
  while (mask != 0) {
    int type = __builtin_ctz(mask);
    fn(type);
    mask &= mask - 1;
  }
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_RESOURCE_MASK_H_

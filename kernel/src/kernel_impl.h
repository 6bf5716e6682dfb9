// kernel/src/kernel_impl.h — what the Kernel façade holds (its partitions, the shared context,
// its options) and the checks every call shares; kernel.cc holds the calls by name,
// kernel_handles.cc the calls by handle.
#ifndef ALLOCORE_KERNEL_SRC_KERNEL_IMPL_H_
#define ALLOCORE_KERNEL_SRC_KERNEL_IMPL_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/kernel.h"
#include "allocore/status_macros.h"
#include "api_limits.h"
#include "message.h"
#include "partition.h"

namespace allocore {

using internal::Cat;
using internal::KernelContext;
using internal::kNoSlot;
using internal::Partition;

class Kernel::Impl {
 public:
  KernelOptions options;
  KernelContext context;
  std::vector<std::unique_ptr<Partition>> partitions;  // configuration order

  Partition* Find(std::string_view name) {
    for (auto& p : partitions) {
      if (p->name() == name) return p.get();
    }
    return nullptr;
  }
  const Partition* Find(std::string_view name) const { return const_cast<Impl*>(this)->Find(name); }
  // The partition a handle names, or FailedPrecondition when a reload replaced or removed it.
  // The index is a hint: a reload may move a partition (decisions made during the reload
  // name it by its position before), so the serial decides.
  absl::StatusOr<Partition*> Resolve(PartitionHandle handle, std::string_view what) const {
    if (handle.index < partitions.size() && partitions[handle.index]->serial() == handle.serial) {
      return partitions[handle.index].get();
    }
    for (const auto& p : partitions) {
      if (p->serial() == handle.serial) return p.get();
    }
    return absl::FailedPreconditionError(Cat(what, ": stale partition handle"));
  }
  absl::StatusOr<Partition*> Require(std::string_view name, std::string_view what) {
    ALLOCORE_RETURN_IF_ERROR(internal::CheckNameLengths(what, {{"partition", name}}));
    Partition* p = Find(name);
    if (p == nullptr) {
      return absl::NotFoundError(Cat(what, ": unknown partition ", name));
    }
    return p;
  }

  Usage usage() const {  // NOLINT(readability-identifier-naming): the accessor of Kernel::usage
    Usage total;
    for (const auto& p : partitions) {
      Usage u = p->Usage();
      total.applications += u.applications;
      total.asks += u.asks;
      total.live_allocations += u.live_allocations;
    }
    return total;
  }

  // ResourceExhausted when `used` has reached a non-zero `cap`.
  static absl::Status Budget(std::string_view call, int64_t used, int64_t cap,
                             std::string_view what, std::string_view option) {
    if (cap <= 0 || used < cap) return absl::OkStatus();
    return absl::ResourceExhaustedError(Cat(call, ": the kernel holds ", used, " ", what,
                                            ", its budget (KernelOptions::", option, " = ", cap,
                                            ") is full"));
  }

  bool AllocationBudgetFull() const {
    return options.max_live_allocations > 0 &&
           usage().live_allocations >= options.max_live_allocations;
  }
};

namespace internal {

// The limits of a call that names things and carries one resource list (ApiLimits).
inline absl::Status CheckNamesAndResources(std::string_view call, internal::NamedFields names,
                                           const Quantities& resources) {
  absl::Status status = internal::CheckNameLengths(call, names);
  if (status.ok()) status = internal::CheckQuantities(call, "resources", resources);
  return status;
}

}  // namespace internal

}  // namespace allocore

#endif  // ALLOCORE_KERNEL_SRC_KERNEL_IMPL_H_

// The resource types a configuration would register, probed before anything is applied.
#ifndef ALLOCORE_KERNEL_SRC_CONFIG_TYPES_H_
#define ALLOCORE_KERNEL_SRC_CONFIG_TYPES_H_

#include "absl/status/status.h"
#include "allocore/config.h"
#include "allocore/resource.h"

namespace allocore::internal {

// Interns, into `registry` (a copy: the caller's stays as it was), every type that applying
// `config` registers: queue and child-template guaranteed/max, limit maxresources and resource
// weights above 0, in every partition. Fails with the name that does not fit. The default
// node-sort weights (vcore, memory) are not among them: they never take a type slot.
[[nodiscard]] absl::Status ProbeConfigTypes(const SchedulerConfig& config, ResourceTypes registry);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_CONFIG_TYPES_H_

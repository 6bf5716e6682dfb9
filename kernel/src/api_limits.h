// kernel/src/api_limits.h — the ApiLimits of kernel.h, checked once per call before anything
// is looked up or changed.
#ifndef ALLOCORE_KERNEL_SRC_API_LIMITS_H_
#define ALLOCORE_KERNEL_SRC_API_LIMITS_H_

#include <initializer_list>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "allocore/kernel.h"

namespace allocore::internal {

// (field, value) pairs of one call, each at most ApiLimits::kMaxNameBytes.
using NamedFields = std::initializer_list<std::pair<std::string_view, std::string_view>>;
[[nodiscard]] absl::Status CheckNameLengths(std::string_view call, NamedFields fields);

// A call's resource list: at most ApiLimits::kMaxQuantityEntries entries, names bounded.
[[nodiscard]] absl::Status CheckQuantities(std::string_view call, std::string_view field,
                                           const Quantities& quantities);
[[nodiscard]] absl::Status CheckNodeSpec(const NodeSpec& node);
[[nodiscard]] absl::Status CheckNodeUpdate(const NodeUpdate& update);
[[nodiscard]] absl::Status CheckAppSpec(const AppSpec& app);
[[nodiscard]] absl::Status CheckAskSpec(const AskSpec& ask, std::string_view call = "add_ask");
// The ask's own fields (the handle call's AskArgs; CheckAskSpec checks them too).
[[nodiscard]] absl::Status CheckAskFields(std::string_view call, std::string_view id,
                                          std::string_view task_group,
                                          std::string_view required_node, int64_t count);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_API_LIMITS_H_

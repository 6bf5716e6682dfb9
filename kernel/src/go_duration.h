// kernel/src/go_duration.h — Go's time.ParseDuration, for queue properties that YuniKorn reads
// as durations (preemption.delay).
#ifndef ALLOCORE_KERNEL_SRC_GO_DURATION_H_
#define ALLOCORE_KERNEL_SRC_GO_DURATION_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace allocore::internal {

// Nanoseconds, or nullopt where Go reports an error: "[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+" with
// units ns, us, µs (either micro sign), ms, s, m, h, or a bare "0"; past int64 nanoseconds.
std::optional<int64_t> ParseGoDuration(std::string_view text);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_GO_DURATION_H_

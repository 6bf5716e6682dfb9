// Resources carried by an application tag, as YuniKorn reads them.
//
// Kubernetes namespaces hand their quota to YuniKorn through application tags
// (`namespace.resourcequota`, 1.4+ also `namespace.resourceguaranteed`) holding the scheduler
// interface's Resource message in JSON: {"resources": {"memory": {"value": 1024}}}. YuniKorn
// decodes it with Go's encoding/json into that struct, and this parser accepts exactly what
// that decoding accepts without an error: field names match ASCII case-insensitively, fields of
// other names are skipped whatever they hold, a quantity is an integer literal within int64 (no
// fraction, no exponent), `null` leaves a field unset, the last of repeated keys wins, and
// nothing but white space may follow the value. A quantity given as `null` inside "resources"
// (a nil entry, on which YuniKorn dereferences a nil pointer) is refused as well.
#ifndef ALLOCORE_KERNEL_SRC_TAG_RESOURCE_H_
#define ALLOCORE_KERNEL_SRC_TAG_RESOURCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocore::internal {

// The (type, quantity) pairs of the JSON text, in a stable order (by type name); nullopt when
// Go's decoding would report an error. Bounded: nesting past 64 levels is refused.
std::optional<std::vector<std::pair<std::string, int64_t>>> ParseResourceTag(std::string_view text);

// ASCII case-insensitive equality (tag keys, JSON field names).
bool EqualsAsciiIgnoreCase(std::string_view a, std::string_view b);

// A tag holding an unsigned 64-bit integer as Go's strconv.ParseUint(s, 10, 64) reads it (digits
// only, no sign, no space); nullopt otherwise.
std::optional<uint64_t> ParseUint64Tag(std::string_view text);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_TAG_RESOURCE_H_

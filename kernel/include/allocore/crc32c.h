// allocore/crc32c.h — CRC-32C (Castagnoli), the checksum of the kernel's snapshots, of the
// event logs' frames and of their decision digests
// (share/doc/allocore/docs/event-log-format.md), for the code around the kernel that writes or
// checks them. Both functions use SSE 4.2's crc32 instruction where the CPU has it.
#ifndef ALLOCORE_CRC32C_H_
#define ALLOCORE_CRC32C_H_

#include <cstdint>
#include <string_view>

#include "allocore/export.h"

namespace allocore {

struct Decision;

// The CRC-32C of `prefix` followed by `bytes`, given `crc` = Crc32c(prefix): a checksum computed
// in pieces, without the pieces in one buffer. Crc32cExtend(0, bytes) == Crc32c(bytes).
ALLOCORE_EXPORT uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes);

// CRC-32C as iSCSI and ext4 use it: Crc32c("123456789") == 0xe3069283.
inline uint32_t Crc32c(std::string_view bytes) { return Crc32cExtend(0, bytes); }

// Crc32cExtend over the encoding of `decision` that the decision digests checksum (the event
// log format's "Decision digests": type, names, numbers, states, release reason; no handle, no
// rejection text), folded field by field: a recorder digests every decision the kernel makes,
// so the bytes are never built.
ALLOCORE_EXPORT uint32_t Crc32cExtendDecision(uint32_t crc, const Decision& decision);

}  // namespace allocore

#endif  // ALLOCORE_CRC32C_H_

// kernel/src/field_location.h — where a config field was written, for messages.
#ifndef ALLOCORE_KERNEL_SRC_FIELD_LOCATION_H_
#define ALLOCORE_KERNEL_SRC_FIELD_LOCATION_H_

#include <string_view>

#include "allocore/config.h"

namespace allocore::internal {

// The location an adapter recorded for `field`, or `fallback` (the entity's own location).
inline SourceLocation FieldLocation(const FieldLocations& fields, std::string_view field,
                                    SourceLocation fallback) {
  for (const auto& [name, location] : fields) {
    if (name == field) return location;
  }
  return fallback;
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_FIELD_LOCATION_H_

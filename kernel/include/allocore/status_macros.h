// allocore/status_macros.h — early return on an error status, the one spelling the project uses.
//
// Example:
//   absl::Status Load(...) {
//     ALLOCORE_RETURN_IF_ERROR(CheckShape(spec));   // returns the status unless it is OK
//     ...
//   }

#ifndef ALLOCORE_STATUS_MACROS_H_
#define ALLOCORE_STATUS_MACROS_H_

#include "absl/status/status.h"

// Evaluates `expr` (an absl::Status) once and returns it from the enclosing function unless it
// is OK. The enclosing function returns absl::Status or an absl::StatusOr<T>.
#define ALLOCORE_RETURN_IF_ERROR(expr)                                      \
  do {                                                                      \
    if (::absl::Status allocore_status_ = (expr); !allocore_status_.ok()) { \
      return allocore_status_;                                              \
    }                                                                       \
  } while (false)

#endif  // ALLOCORE_STATUS_MACROS_H_

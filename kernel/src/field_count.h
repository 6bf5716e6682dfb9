// kernel/src/field_count.h — how many fields an aggregate has, at compile time.
//
// Where one struct must stay in step with another description of it (an ask's options in its
// three forms, a record's fields in the event log's codec), a static_assert on FieldCount makes
// a field added to one side and forgotten on the other a build error.
//
// Example:
//   static_assert(FieldCount<AskArgs>() == 10);
#ifndef ALLOCORE_KERNEL_SRC_FIELD_COUNT_H_
#define ALLOCORE_KERNEL_SRC_FIELD_COUNT_H_

#include <cstddef>

namespace allocore::internal {

// Converts to any field type; only ever used in unevaluated aggregate initialisation.
struct AnyField {
  template <typename T>
  operator T() const {  // NOLINT(google-explicit-constructor)
    return T{};
  }
};

// The largest number of initializers T{...} takes: its field count, for an aggregate.
template <typename T, typename... Fields>
constexpr size_t FieldCount() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return FieldCount<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_FIELD_COUNT_H_

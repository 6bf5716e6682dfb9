// adapters/import/k8s_quantity.h — internal: Kubernetes quantity strings as exact integers.
//
// Kubernetes writes resource amounts as quantities: a decimal number (`1`, `1.5`, `.5`, `2e3`)
// with an optional suffix, binary (`Ki` .. `Ei`) or decimal (`n`, `u`, `m`, `k`, `M` .. `E`),
// or an exponent (`e3`, `E-2`). YuniKorn's shim turns them into integers with the quantity's
// Value() (bytes, counts) or MilliValue() (cpu), both of which round up. This parser computes
// the same integers exactly (no floating point), and says when it had to round.
#ifndef ALLOCORE_ADAPTERS_IMPORT_K8S_QUANTITY_H_
#define ALLOCORE_ADAPTERS_IMPORT_K8S_QUANTITY_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace allocore::adapters::internal {

struct QuantityValue {
  int64_t value = 0;     // in the unit asked for, rounded up
  bool rounded = false;  // the quantity was not a whole number of that unit
};

// `milli`: the result in thousandths (cpu as YuniKorn's vcore), else in units. Errors
// (InvalidArgument) say what is wrong with the text: empty, not a number, an unknown suffix,
// a negative amount, a value past int64.
absl::StatusOr<QuantityValue> ParseKubernetesQuantity(std::string_view text, bool milli);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_IMPORT_K8S_QUANTITY_H_

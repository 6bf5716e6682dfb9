// allocore/semantics.h — which YuniKorn release a kernel decides like.
//
// A kernel has one semantics profile for its whole life (KernelOptions::semantics). The
// profile picks, for each rule YuniKorn changed between the releases allocore reproduces,
// which version of the rule the kernel runs; share/doc/allocore/kernel/README.md lists the rules
// per profile.
#ifndef ALLOCORE_SEMANTICS_H_
#define ALLOCORE_SEMANTICS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "allocore/export.h"

namespace allocore {

enum class Semantics : uint8_t {
  kYunikorn12,  // YuniKorn core v1.2.0 (the default)
  kYunikorn19,  // YuniKorn core v1.9.0
};

// "yunikorn-1.2" / "yunikorn-1.9".
ALLOCORE_EXPORT std::string_view SemanticsName(Semantics semantics);
// The profile a name selects (exactly as SemanticsName spells it), or nullopt.
ALLOCORE_EXPORT std::optional<Semantics> ParseSemantics(std::string_view name);
// "yunikorn-1.2, yunikorn-1.9": for messages that list what is accepted.
ALLOCORE_EXPORT std::string_view SemanticsNames();

}  // namespace allocore

#endif  // ALLOCORE_SEMANTICS_H_

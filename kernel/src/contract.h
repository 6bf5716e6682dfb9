// kernel/src/contract.h — preconditions and invariants the kernel's own code must keep.
//
// A function whose comment says "REQUIRES: ..." states what its callers inside the kernel
// guarantee; ALLOCORE_DCHECK(condition) checks it where checking is cheap. The checks are
// compiled in with ALLOCORE_DEBUG_CHECKS (the dev, sanitizer and fuzz presets) and are not
// evaluated otherwise, so the release builds pay nothing. A failed check is a kernel bug, never
// a caller's input error (those are refused with a status): it names the condition and the
// place, then aborts.
#ifndef ALLOCORE_KERNEL_SRC_CONTRACT_H_
#define ALLOCORE_KERNEL_SRC_CONTRACT_H_

namespace allocore::internal {

#ifdef ALLOCORE_DEBUG_CHECKS
inline constexpr bool kDebugChecks = true;
#else
inline constexpr bool kDebugChecks = false;
#endif

// Out of line and cold: a check costs its comparison and a never-taken branch, and the code
// around it is laid out (and inlined) as without it.
[[noreturn, gnu::cold, gnu::noinline]] void ContractViolated(const char* condition,
                                                             const char* file, int line);

}  // namespace allocore::internal

#ifdef ALLOCORE_DEBUG_CHECKS
#define ALLOCORE_DCHECK(condition)                                            \
  do {                                                                        \
    if (__builtin_expect(!(condition), 0)) {                                  \
      ::allocore::internal::ContractViolated(#condition, __FILE__, __LINE__); \
    }                                                                         \
  } while (false)
#else
// Type-checked, never evaluated.
#define ALLOCORE_DCHECK(condition) \
  do {                             \
    if (false) (void)(condition);  \
  } while (false)
#endif

#endif  // ALLOCORE_KERNEL_SRC_CONTRACT_H_

#include "contract.h"

#include <cstdio>
#include <cstdlib>

namespace allocore::internal {

// The one place the kernel writes anything: a broken contract is a bug, and the message is
// all that is left to find it by.
void ContractViolated(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "allocore: contract violated at %s:%d: %s\n", file, line, condition);
  std::abort();
}

}  // namespace allocore::internal

// Placeholder until the command lands: says so honestly and fails.
#include <cstdio>

#include "commands.h"

namespace allocore::cli {

int CheckCommand(int, char**) {
  std::fprintf(stderr, "allocore check: not implemented yet\n");
  return 1;
}

}  // namespace allocore::cli

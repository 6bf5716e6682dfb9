// Placeholder until the command lands: says so honestly and fails.
#include <cstdio>

#include "commands.h"

namespace allocore::cli {

int TreeCommand(int, char**) {
  std::fprintf(stderr, "allocore tree: not implemented yet\n");
  return 1;
}

}  // namespace allocore::cli

// Placeholder until the command lands: says so honestly and fails.
#include <cstdio>

#include "commands.h"

namespace allocore::cli {

int GenCommand(int, char**) {
  std::fprintf(stderr, "allocore gen: not implemented yet\n");
  return 1;
}

}  // namespace allocore::cli

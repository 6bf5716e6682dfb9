// Placeholder until the command lands: says so honestly and fails.
#include <cstdio>

#include "commands.h"

namespace allocore::cli {

int RunCommand(int, char**) {
  std::fprintf(stderr, "allocore run: not implemented yet\n");
  return 1;
}

}  // namespace allocore::cli

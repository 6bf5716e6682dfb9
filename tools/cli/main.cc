// allocore — command-line front end (run, check, tree, gen).
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: allocore <run|check|tree|gen> [args]\n");
    return 0;
  }
  std::fprintf(stderr, "allocore: not implemented yet\n");
  return 1;
}

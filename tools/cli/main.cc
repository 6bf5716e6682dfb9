// allocore — command-line front end: run, check, tree, gen, pack, unpack, report, import, export.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "allocore/version.h"
#include "commands.h"

namespace {

void PrintUsage(std::FILE* to) {
  std::fprintf(to,
               "usage: allocore <command> [args]\n"
               "\n"
               "commands:\n"
               "  run [SCENARIO|LOG]\n"
               "                   replay a scenario or an event log and print the decisions\n"
               "                   (default: the built-in priority-tree demo)\n"
               "  check FILE...    validate YuniKorn queues.yaml files\n"
               "  tree CONFIG|SCENARIO\n"
               "                   print the queue tree with priorities and usage\n"
               "  gen              write synthetic scenario files\n"
               "  pack SCENARIO -o LOG\n"
               "                   write a scenario as a binary event log\n"
               "  unpack LOG       write an event log as a scenario file\n"
               "  report SCENARIO|LOG\n"
               "                   pending times, usage, fairness and node packing per queue\n"
               "                   from a replay; --compare A B: two configurations side by side\n"
               "  import yunikorn|kubernetes FILE --config QUEUES.yaml\n"
               "                   a running cluster (YuniKorn's state dump, kubectl's JSON)\n"
               "                   as a scenario\n"
               "  export yunikorn SCENARIO [--at-step N]\n"
               "                   a scenario's state as YuniKorn's full state dump\n"
               "  version          print the version (also --version)\n"
               "\n"
               "`allocore <command> --help` describes each command.\n");
}

}  // namespace

namespace {

int Dispatch(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "--version" || command == "version") {
    std::printf("allocore %s\n", allocore_version());
    return 0;
  }
  if (command == "run") return allocore::cli::RunCommand(argc - 1, argv + 1);
  if (command == "check") return allocore::cli::CheckCommand(argc - 1, argv + 1);
  if (command == "tree") return allocore::cli::TreeCommand(argc - 1, argv + 1);
  if (command == "gen") return allocore::cli::GenCommand(argc - 1, argv + 1);
  if (command == "pack") return allocore::cli::PackCommand(argc - 1, argv + 1);
  if (command == "unpack") return allocore::cli::UnpackCommand(argc - 1, argv + 1);
  if (command == "report") return allocore::cli::ReportCommand(argc - 1, argv + 1);
  if (command == "import") return allocore::cli::ImportCommand(argc - 1, argv + 1);
  if (command == "export") return allocore::cli::ExportCommand(argc - 1, argv + 1);
  std::fprintf(stderr, "allocore: unknown command '%s'\n\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int status = Dispatch(argc, argv);
  // Output that could not be written (a full disk, a closed pipe) is a failure, whatever the
  // command: commands that report it themselves have returned non-zero already.
  if ((std::fflush(stdout) != 0 || std::ferror(stdout) != 0) && status == 0) {
    std::fprintf(stderr, "allocore: error writing the output\n");
    return 2;
  }
  return status;
}

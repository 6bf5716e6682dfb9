// tools/cli/commands.h — the subcommands of `allocore`. Each returns the process exit code.
#ifndef ALLOCORE_TOOLS_CLI_COMMANDS_H_
#define ALLOCORE_TOOLS_CLI_COMMANDS_H_

namespace allocore::cli {

// argv[0] is the subcommand name itself ("run", "check", ...).
int RunCommand(int argc, char** argv);     // run_command.cc
int CheckCommand(int argc, char** argv);   // check_command.cc
int TreeCommand(int argc, char** argv);    // tree_command.cc
int GenCommand(int argc, char** argv);     // gen_command.cc
int PackCommand(int argc, char** argv);    // log_command.cc
int UnpackCommand(int argc, char** argv);  // log_command.cc
int ReportCommand(int argc, char** argv);  // report_command.cc
int ImportCommand(int argc, char** argv);  // import_command.cc
int ExportCommand(int argc, char** argv);  // export_command.cc

}  // namespace allocore::cli

#endif  // ALLOCORE_TOOLS_CLI_COMMANDS_H_

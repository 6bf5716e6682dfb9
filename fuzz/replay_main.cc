// fuzz/replay_main.cc — a main for the fuzz targets when they are not built with libFuzzer.
//
// Runs every file named on the command line, and every regular file below every directory
// named (recursively, in sorted order), through LLVMFuzzerTestOneInput once. Arguments that
// start with '-' are libFuzzer flags and are ignored, so the same command line works for both
// builds. A target reports a finding by aborting; reaching the end means every input passed.
//
// Usage: fuzz_events [-flags...] CORPUS_DIR_OR_FILE...
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

bool RunFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so ASan sees reads past the end.
  std::vector<uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;
    std::error_code error;
    if (fs::is_directory(arg, error)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(arg, error)) {
        if (entry.is_regular_file()) found.push_back(entry.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, error)) {
      files.emplace_back(arg);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", arg.c_str());
      ok = false;
    }
  }
  size_t run = 0;
  for (const fs::path& file : files) {
    if (RunFile(file)) {
      ++run;
    } else {
      ok = false;
    }
  }
  std::printf("replay: %zu input(s) passed\n", run);
  return ok ? 0 : 1;
}

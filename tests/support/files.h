// tests/support/files.h — files as tests use them: read whole, written whole, and the
// conformance scenarios the tests of the runner walk.
#ifndef ALLOCORE_TESTS_SUPPORT_FILES_H_
#define ALLOCORE_TESTS_SUPPORT_FILES_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace allocore::test_support {

// The bytes of `path`; empty when it cannot be read.
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `bytes` as the whole of `path`.
inline void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

#if defined(ALLOCORE_SOURCE_DIR) && defined(ALLOCORE_SHARED_SCENARIOS)
// The conformance scenarios, sorted: tests/scenarios/*.yaml and, when the shared suite is beside
// the checkout (CMake sets ALLOCORE_SHARED_SCENARIOS to its directory, else to ""), its own.
inline std::vector<std::filesystem::path> ConformanceScenarioFiles() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {ALLOCORE_SOURCE_DIR "/tests/scenarios", ALLOCORE_SHARED_SCENARIOS}) {
    if (std::string_view(dir).empty() || !std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}
#endif

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_FILES_H_

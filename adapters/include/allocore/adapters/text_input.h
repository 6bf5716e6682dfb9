// allocore/adapters/text_input.h — reading a scenario or config text from a file or stdin,
// bounded.
//
// Every text the adapters and the allocore command take in comes through ReadTextInput, so
// that none of them can be made to read without end or to swallow a device: the size is
// capped, directories and devices are refused by name, and a NUL byte (which no YAML text
// holds, and which binary data has within its first bytes) stops the read at once.
//
// Example:
//   absl::StatusOr<std::string> text = allocore::adapters::ReadTextInput("-");  // stdin
//   if (!text.ok()) { /* FormatTextInputError(TextInputName("-"), text.status()) */ }
#ifndef ALLOCORE_ADAPTERS_TEXT_INPUT_H_
#define ALLOCORE_ADAPTERS_TEXT_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "allocore/export.h"

namespace allocore::adapters {

// The largest text read: YAML texts are parsed whole, and this bounds what that costs.
inline constexpr size_t kMaxTextInputBytes = size_t{64} << 20;  // 64 MiB

// "-" is stdin. Errors (messages do not name the input: callers put TextInputName first):
// NotFound (no such file), PermissionDenied (cannot open or read), InvalidArgument (a
// directory, a character or block device or socket other than an interactive terminal, a NUL
// byte, more than `max_bytes` bytes).
ALLOCORE_EXPORT absl::StatusOr<std::string> ReadTextInput(const std::string& path,
                                                          size_t max_bytes = kMaxTextInputBytes);

// The name ReadTextInput's messages use: "<stdin>" for "-", else `path`.
ALLOCORE_EXPORT std::string TextInputName(const std::string& path);

// Where in the text a ReadTextInput or TextFile::Open error lies (1-based; a NUL byte has
// one), or nullopt.
struct TextPosition {
  int line = 0;
  int column = 0;
};
ALLOCORE_EXPORT std::optional<TextPosition> TextInputErrorPosition(const absl::Status& status);
// "NAME:LINE:COL: message" when the error has a position, else "NAME: message".
ALLOCORE_EXPORT std::string FormatTextInputError(const std::string& name,
                                                 const absl::Status& status);

// A text input opened for reading more than once: a regular file as it is; stdin and pipes are
// first copied to an anonymous temporary file (on disk, not in memory), with the same checks
// as ReadTextInput (kind, NUL bytes, `max_bytes`). Closed on destruction.
class ALLOCORE_EXPORT TextFile {
 public:
  static absl::StatusOr<TextFile> Open(const std::string& path, uint64_t max_bytes);
  // A text held in memory (tests and fuzzers), read through the same FILE interface.
  static absl::StatusOr<TextFile> FromText(std::string text);
  TextFile(TextFile&& other) noexcept;
  TextFile& operator=(TextFile&& other) noexcept;
  ~TextFile();

  std::FILE* file() const { return file_; }
  uint64_t size() const { return size_; }
  // Back to the first byte; false when the file cannot seek.
  bool Rewind() const;
  // A second handle on the same bytes with a position of its own (a file is opened again
  // through /proc/self/fd; a text in memory is read in place, so this one must outlive it).
  absl::StatusOr<TextFile> Reopen() const;

 private:
  TextFile(std::FILE* file, uint64_t size) : file_(file), size_(size) {}
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
  std::unique_ptr<std::string> memory_;  // FromText: what file_ reads
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_TEXT_INPUT_H_

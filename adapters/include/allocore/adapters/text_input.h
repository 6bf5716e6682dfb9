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
//   if (!text.ok()) { /* TextInputName("-") + ": " + message names the problem */ }
#ifndef ALLOCORE_ADAPTERS_TEXT_INPUT_H_
#define ALLOCORE_ADAPTERS_TEXT_INPUT_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace allocore::adapters {

// The largest text read: YAML texts are parsed whole, and this bounds what that costs.
inline constexpr size_t kMaxTextInputBytes = size_t{64} << 20;  // 64 MiB

// "-" is stdin. Errors (messages do not name the input: callers put TextInputName first):
// NotFound (no such file), PermissionDenied (cannot open or read), InvalidArgument (a
// directory, a character or block device or socket other than an interactive terminal, a NUL
// byte, more than `max_bytes` bytes).
absl::StatusOr<std::string> ReadTextInput(const std::string& path,
                                          size_t max_bytes = kMaxTextInputBytes);

// The name ReadTextInput's messages use: "<stdin>" for "-", else `path`.
std::string TextInputName(const std::string& path);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_TEXT_INPUT_H_

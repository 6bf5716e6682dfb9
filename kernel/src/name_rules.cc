#include "name_rules.h"

#include "absl/strings/ascii.h"

namespace allocore::internal {
namespace {

bool IsLetterOrUnderscore(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

bool Wide(NameCharset charset) { return charset == NameCharset::kWide; }

}  // namespace

bool IsValidQueueName(std::string_view name, NameCharset charset) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool extra = Wide(charset) && (c == ':' || c == '#' || c == '/' || c == '@');
    if (!(IsAlnum(c) || c == '_' || c == '-' || extra)) return false;
  }
  return true;
}

bool IsValidUserName(std::string_view name, NameCharset charset) {
  if (name.empty() || !IsLetterOrUnderscore(name[0])) return false;
  for (size_t i = 1; i < name.size(); ++i) {
    char c = name[i];
    if (c == '$' && i + 1 == name.size()) return true;
    bool extra = Wide(charset) && (c == ':' || c == '#' || c == '/');
    if (!(IsAlnum(c) || c == '_' || c == '.' || c == '@' || c == '-' || extra)) return false;
  }
  return true;
}

bool IsValidGroupName(std::string_view name, NameCharset charset) {
  if (name.empty() || !IsLetterOrUnderscore(name[0])) return false;
  for (size_t i = 1; i < name.size(); ++i) {
    char c = name[i];
    bool extra = Wide(charset) && (c == ':' || c == '.');
    if (!(IsAlnum(c) || c == '_' || c == '-' || extra)) return false;
  }
  return true;
}

std::string_view QueueNameRule(NameCharset charset) {
  return Wide(charset) ? "1 to 64 characters from a-z, A-Z, 0-9, '_', '-', ':', '#', '/' and '@'"
                       : "1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'";
}

std::string_view UserNameRule(NameCharset charset) {
  return Wide(charset) ? "^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$" : "^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$";
}

std::string_view GroupNameRule(NameCharset charset) {
  return Wide(charset) ? "^[_a-zA-Z][a-zA-Z0-9:_.-]*$" : "^[_a-zA-Z][a-zA-Z0-9_-]*$";
}

}  // namespace allocore::internal

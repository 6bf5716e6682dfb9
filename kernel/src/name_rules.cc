#include "name_rules.h"

#include "absl/strings/ascii.h"

namespace allocore::internal {
namespace {

bool IsLetterOrUnderscore(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

}  // namespace

bool IsValidQueueName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!(IsAlnum(c) || c == '_' || c == '-')) return false;
  }
  return true;
}

bool IsValidUserName(std::string_view name) {
  if (name.empty() || !IsLetterOrUnderscore(name[0])) return false;
  for (size_t i = 1; i < name.size(); ++i) {
    char c = name[i];
    if (c == '$' && i + 1 == name.size()) return true;
    if (!(IsAlnum(c) || c == '_' || c == '.' || c == '@' || c == '-')) return false;
  }
  return true;
}

bool IsValidGroupName(std::string_view name) {
  if (name.empty() || !IsLetterOrUnderscore(name[0])) return false;
  for (size_t i = 1; i < name.size(); ++i) {
    char c = name[i];
    if (!(IsAlnum(c) || c == '_' || c == '-')) return false;
  }
  return true;
}

}  // namespace allocore::internal

#include "cli_util.h"

#include <unistd.h>

#include <charconv>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace allocore::cli {

std::optional<int64_t> ParseInt64(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<uint64_t> ParseUint64(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool IsTerminal(std::FILE* stream) { return isatty(fileno(stream)) == 1; }

std::string FormatDuration(int64_t nanos) {
  char buffer[32];
  const auto n = static_cast<double>(nanos);
  if (nanos < 1000) {
    std::snprintf(buffer, sizeof(buffer), "%lld ns", static_cast<long long>(nanos));
  } else if (nanos < 1000 * 1000) {
    std::snprintf(buffer, sizeof(buffer), "%.2f us", n / 1e3);
  } else if (nanos < 1000 * 1000 * 1000) {
    std::snprintf(buffer, sizeof(buffer), "%.1f ms", n / 1e6);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.2f s", n / 1e9);
  }
  return buffer;
}

void OutputBuffer::Flush() {
  if (text_.empty()) return;
  if (std::fwrite(text_.data(), 1, text_.size(), stream_) != text_.size()) ok_ = false;
  text_.clear();
  if (std::fflush(stream_) != 0) ok_ = false;
}

std::string Count(int64_t count, std::string_view noun, std::string_view plural) {
  std::string out = std::to_string(count) + " ";
  if (count == 1) return out.append(noun);
  if (!plural.empty()) return out.append(plural);
  return out.append(noun).append("s");
}

std::optional<int> ParseOptions(CLI::App* app, int argc, char** argv, std::string_view command,
                                std::string_view usage) {
  bool help = false;
  app->set_help_flag();  // the commands' own --help texts, not CLI11's
  app->add_flag("-h,--help", help);
  app->allow_windows_style_options(false);
  std::string message;
  try {
    app->parse(argc, argv);
  } catch (const CLI::ExtrasError&) {
    // Say which argument, in the words of the other commands' errors.
    std::vector<std::string> extras = app->remaining(/*recurse=*/true);
    std::string first = extras.empty() ? std::string() : extras.front();
    message = first.size() > 1 && first[0] == '-' ? "unknown option '" + first + "'"
                                                  : "unexpected argument '" + first + "'";
  } catch (const CLI::ArgumentMismatch& error) {
    std::string what = error.what();  // "--format: 1 required TEXT missing"
    message = what.substr(0, what.find(':')) + " needs a value";
  } catch (const CLI::ParseError& error) {
    message = error.what();
  }
  if (!message.empty()) {
    std::fprintf(stderr, "allocore %.*s: %s\n\n%.*s", static_cast<int>(command.size()),
                 command.data(), message.c_str(), static_cast<int>(usage.size()), usage.data());
    return 2;
  }
  if (help) {
    std::fwrite(usage.data(), 1, usage.size(), stdout);
    return 0;
  }
  return std::nullopt;
}

}  // namespace allocore::cli

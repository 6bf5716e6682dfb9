#include "cli_util.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"

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

bool ParseIntOption(std::string_view command, std::string_view flag, const std::string& text,
                    std::string_view need, int64_t min, int64_t max, int64_t* value) {
  std::optional<int64_t> n = ParseInt64(text);
  if (!n || *n < min || *n > max) {
    std::fprintf(stderr, "allocore %.*s: %.*s needs %.*s, got '%s'\n",
                 static_cast<int>(command.size()), command.data(), static_cast<int>(flag.size()),
                 flag.data(), static_cast<int>(need.size()), need.data(), text.c_str());
    return false;
  }
  *value = *n;
  return true;
}

bool ParseSemanticsOption(std::string_view command, const std::string& text,
                          std::optional<Semantics>* semantics) {
  if (text.empty()) return true;
  *semantics = ParseSemantics(text);
  if (*semantics) return true;
  std::fprintf(stderr, "allocore %.*s: unknown --semantics '%s' (known: %s)\n",
               static_cast<int>(command.size()), command.data(), text.c_str(),
               std::string(SemanticsNames()).c_str());
  return false;
}

std::string MessageOf(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) std::fprintf(stderr, "%s\n", warning.c_str());
}

bool TakeAllSteps(adapters::ScenarioStream& stream, adapters::Scenario* scenario) {
  scenario->steps.clear();
  scenario->steps.reserve(static_cast<size_t>(stream.step_count()));
  adapters::StepSource& steps = stream.steps();
  while (true) {
    absl::StatusOr<const adapters::ScenarioStep*> step = steps.Next();
    if (!step.ok()) {
      std::fprintf(stderr, "%s\n", MessageOf(step.status()).c_str());
      return false;
    }
    if (*step == nullptr) return true;
    scenario->steps.push_back(**step);
  }
}

std::optional<adapters::Scenario> ReadWholeScenario(const std::string& path,
                                                    const adapters::ScenarioLoadOptions& options) {
  absl::StatusOr<std::unique_ptr<adapters::ScenarioStream>> stream =
      adapters::ScenarioStream::Open(path, adapters::kStreamAboveBytes, options);
  if (!stream.ok()) {
    std::fprintf(stderr, "%s\n", MessageOf(stream.status()).c_str());
    return std::nullopt;
  }
  PrintWarnings((*stream)->header().config_warnings);
  adapters::Scenario scenario = (*stream)->header();
  if ((*stream)->streamed() && !TakeAllSteps(**stream, &scenario)) return std::nullopt;
  return scenario;
}

bool WriteOutput(const std::string& command, const std::string& path, std::string_view bytes) {
  std::FILE* out = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "allocore %s: %s: %s\n", command.c_str(), path.c_str(),
                 std::strerror(errno));
    return false;
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  const bool closed = out == stdout ? std::fflush(out) == 0 : std::fclose(out) == 0;
  if (!written || !closed) {
    std::fprintf(stderr, "allocore %s: %s: could not write all of it\n", command.c_str(),
                 path.c_str());
    return false;
  }
  return true;
}

std::optional<std::string> ReadBinaryFile(const std::string& command, const std::string& path,
                                          uint64_t max_bytes) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) {
    std::fprintf(stderr, "allocore %s: %s: %s\n", command.c_str(), path.c_str(),
                 std::strerror(errno));
    return std::nullopt;
  }
  std::string bytes;
  char block[1 << 16];
  size_t n = 0;
  while ((n = std::fread(block, 1, sizeof(block), in)) > 0) {
    if (bytes.size() + n > max_bytes) {
      std::fclose(in);
      std::fprintf(stderr, "allocore %s: %s: larger than %llu bytes\n", command.c_str(),
                   path.c_str(), static_cast<unsigned long long>(max_bytes));
      return std::nullopt;
    }
    bytes.append(block, n);
  }
  const bool failed = std::ferror(in) != 0;
  std::fclose(in);
  if (failed) {
    std::fprintf(stderr, "allocore %s: %s: read error\n", command.c_str(), path.c_str());
    return std::nullopt;
  }
  return bytes;
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

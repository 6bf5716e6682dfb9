#include "allocore/adapters/text_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "absl/status/status.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

// What a file that is neither regular nor a pipe is, for the message refusing it.
std::string_view KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "";
}

absl::Status OpenError(int error) {
  std::string message = internal::Cat("cannot read file: ", std::strerror(error));
  return error == ENOENT ? absl::NotFoundError(message) : absl::PermissionDeniedError(message);
}

class Descriptor {
 public:
  explicit Descriptor(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~Descriptor() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
  bool owned_;
};

}  // namespace

std::string TextInputName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

absl::StatusOr<std::string> ReadTextInput(const std::string& path, size_t max_bytes) {
  const bool is_stdin = path == "-";
  Descriptor fd(is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC), !is_stdin);
  if (fd.get() < 0) return OpenError(errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return OpenError(errno);
  std::string_view kind = KindOf(info.st_mode);
  // A terminal on stdin is someone typing the text: read it.
  if (!kind.empty() && !(S_ISCHR(info.st_mode) && ::isatty(fd.get()) == 1)) {
    return absl::InvalidArgumentError(
        internal::Cat("is ", kind, ", not a file: give a YAML file, a pipe or `-`"));
  }
  auto too_large = [&] {
    return absl::InvalidArgumentError(internal::Cat("larger than the limit of ", max_bytes,
                                                    " bytes (", max_bytes >> 20, " MiB)"));
  };
  std::string text;
  if (S_ISREG(info.st_mode)) {
    if (static_cast<uint64_t>(info.st_size) > max_bytes) return too_large();
    text.reserve(static_cast<size_t>(info.st_size));
  }
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::PermissionDeniedError(internal::Cat("read error: ", std::strerror(errno)));
    }
    if (n == 0) break;
    const auto size = static_cast<size_t>(n);
    if (const void* nul = std::memchr(buffer, '\0', size)) {
      size_t at = text.size() + static_cast<size_t>(static_cast<const char*>(nul) - buffer);
      return absl::InvalidArgumentError(
          internal::Cat("byte ", at + 1, " is a NUL byte: not a YAML text (binary data?)"));
    }
    if (text.size() + size > max_bytes) return too_large();
    text.append(buffer, size);
  }
  return text;
}

}  // namespace allocore::adapters

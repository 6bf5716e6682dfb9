#include "allocore/adapters/text_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "allocore/status_macros.h"
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

// Opens `path` ("-": stdin) and refuses what is not a text source by its kind.
absl::Status OpenChecked(const Descriptor& fd, struct stat* info) {
  if (fd.get() < 0) return OpenError(errno);
  if (::fstat(fd.get(), info) != 0) return OpenError(errno);
  std::string_view kind = KindOf(info->st_mode);
  // A terminal on stdin is someone typing the text: read it.
  if (!kind.empty() && !(S_ISCHR(info->st_mode) && ::isatty(fd.get()) == 1)) {
    return absl::InvalidArgumentError(
        internal::Cat("is ", kind, ", not a file: give a YAML file, a pipe or `-`"));
  }
  return absl::OkStatus();
}

absl::Status TooLarge(uint64_t max_bytes) {
  return absl::InvalidArgumentError(
      internal::Cat("larger than the limit of ", max_bytes, " bytes (", max_bytes >> 20, " MiB)"));
}

// The status payload that carries an error's position in the text, as "LINE:COLUMN".
constexpr char kPositionPayload[] = "allocore.text_position";

// Reads `fd` to its end in chunks, each passed to `sink` after the NUL and size checks.
template <typename Sink>
absl::Status ReadChecked(int fd, uint64_t max_bytes, Sink&& sink) {
  char buffer[1 << 16];
  uint64_t total = 0;
  int64_t line = 1;         // of the first byte of the next chunk
  int64_t line_column = 0;  // bytes of that line before the chunk
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::PermissionDeniedError(internal::Cat("read error: ", std::strerror(errno)));
    }
    if (n == 0) return absl::OkStatus();
    const auto size = static_cast<size_t>(n);
    const char* nul = static_cast<const char*>(std::memchr(buffer, '\0', size));
    // Lines up to the NUL (or through the chunk), so that a NUL is reported where it is.
    const char* end = nul != nullptr ? nul : buffer + size;
    for (const char* p = buffer; p < end; ++p) {
      if (*p == '\n') {
        ++line;
        line_column = 0;
      } else {
        ++line_column;
      }
    }
    if (nul != nullptr) {
      uint64_t at = total + static_cast<uint64_t>(nul - buffer);
      absl::Status status = absl::InvalidArgumentError(internal::Cat(
          "a NUL byte (byte ", at + 1, "): a YAML text holds none (is it binary data?)"));
      status.SetPayload(kPositionPayload, absl::Cord(internal::Cat(line, ":", line_column + 1)));
      return status;
    }
    if (total + size > max_bytes) return TooLarge(max_bytes);
    total += size;
    ALLOCORE_RETURN_IF_ERROR(sink(buffer, size));
  }
}

int OpenFd(const std::string& path) {
  return path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

}  // namespace

std::string TextInputName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::optional<TextPosition> TextInputErrorPosition(const absl::Status& status) {
  auto payload = status.GetPayload(kPositionPayload);  // absl::optional<absl::Cord>
  if (!payload) return std::nullopt;
  std::string text(*payload);
  TextPosition position;
  if (std::sscanf(text.c_str(), "%d:%d", &position.line, &position.column) != 2) {
    return std::nullopt;
  }
  return position;
}

std::string FormatTextInputError(const std::string& name, const absl::Status& status) {
  const std::string message(status.message().data(), status.message().size());
  if (std::optional<TextPosition> at = TextInputErrorPosition(status)) {
    return internal::Cat(name, ":", at->line, ":", at->column, ": ", message);
  }
  return internal::Cat(name, ": ", message);
}

absl::StatusOr<std::string> ReadTextInput(const std::string& path, size_t max_bytes) {
  Descriptor fd(OpenFd(path), path != "-");
  struct stat info {};
  ALLOCORE_RETURN_IF_ERROR(OpenChecked(fd, &info));
  std::string text;
  if (S_ISREG(info.st_mode)) {
    if (static_cast<uint64_t>(info.st_size) > max_bytes) return TooLarge(max_bytes);
    text.reserve(static_cast<size_t>(info.st_size));
  }
  absl::Status read = ReadChecked(fd.get(), max_bytes, [&](const char* data, size_t size) {
    text.append(data, size);
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  return text;
}

absl::StatusOr<TextFile> TextFile::Open(const std::string& path, uint64_t max_bytes) {
  Descriptor fd(OpenFd(path), path != "-");
  struct stat info {};
  ALLOCORE_RETURN_IF_ERROR(OpenChecked(fd, &info));
  if (S_ISREG(info.st_mode)) {
    if (static_cast<uint64_t>(info.st_size) > max_bytes) return TooLarge(max_bytes);
    int own = ::dup(fd.get());
    std::FILE* file = own < 0 ? nullptr : ::fdopen(own, "rb");
    if (file == nullptr) return OpenError(errno);
    return TextFile(file, static_cast<uint64_t>(info.st_size));
  }
  // A pipe or a terminal: copy it to disk so that it can be read twice.
  std::FILE* spool = std::tmpfile();
  if (spool == nullptr) {
    return absl::PermissionDeniedError(
        internal::Cat("cannot create a temporary file to hold the input: ", std::strerror(errno)));
  }
  TextFile out(spool, 0);
  absl::Status read = ReadChecked(fd.get(), max_bytes, [&](const char* data, size_t size) {
    if (std::fwrite(data, 1, size, spool) != size) {
      return absl::PermissionDeniedError(
          internal::Cat("cannot write the temporary copy of the input: ", std::strerror(errno)));
    }
    out.size_ += size;
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  if (std::fflush(spool) != 0 || !out.Rewind()) {
    return absl::PermissionDeniedError("cannot read back the temporary copy of the input");
  }
  return out;
}

absl::StatusOr<TextFile> TextFile::FromText(std::string text) {
  auto memory = std::make_unique<std::string>(std::move(text));
  const size_t size = memory->size();
  // fmemopen needs a non-empty buffer: an empty text is an empty temporary file.
  std::FILE* file = size == 0 ? std::tmpfile() : ::fmemopen(memory->data(), size, "r");
  if (file == nullptr) return absl::InternalError("cannot read the text as a file");
  TextFile out(file, size);
  out.memory_ = std::move(memory);
  return out;
}

TextFile::TextFile(TextFile&& other) noexcept
    : file_(other.file_), size_(other.size_), memory_(std::move(other.memory_)) {
  other.file_ = nullptr;
}

TextFile& TextFile::operator=(TextFile&& other) noexcept {
  if (this != &other) {
    if (file_ != nullptr) std::fclose(file_);
    file_ = other.file_;
    size_ = other.size_;
    memory_ = std::move(other.memory_);
    other.file_ = nullptr;
  }
  return *this;
}

TextFile::~TextFile() {
  if (file_ != nullptr) std::fclose(file_);
}

bool TextFile::Rewind() const { return std::fseek(file_, 0, SEEK_SET) == 0; }

absl::StatusOr<TextFile> TextFile::Reopen() const {
  if (memory_ != nullptr && size_ > 0) {
    std::FILE* file = ::fmemopen(memory_->data(), size_, "r");
    if (file == nullptr) return absl::InternalError("cannot read the text as a file again");
    return TextFile(file, size_);
  }
  // /proc/self/fd/N opens the file anew (its own offset), even once it was unlinked.
  const std::string self = internal::Cat("/proc/self/fd/", ::fileno(file_));
  std::FILE* file = std::fopen(self.c_str(), "rb");
  if (file == nullptr) return OpenError(errno);
  return TextFile(file, size_);
}

}  // namespace allocore::adapters

// RapidJSON's SAX reader drives a small builder: values below the streamed level are built
// into JsonValue trees and handed over one at a time.
#include "json_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "rapidjson/error/en.h"
#include "rapidjson/reader.h"
#include "str_util.h"

namespace allocore::adapters::internal {

const JsonValue* JsonValue::Find(std::string_view key) const {
  const JsonValue* found = nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) found = &items[i];
  }
  return found;
}

std::string_view JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return "a boolean";
    case JsonValue::Kind::kNumber:
      return "a number";
    case JsonValue::Kind::kString:
      return "a string";
    case JsonValue::Kind::kArray:
      return "an array";
    case JsonValue::Kind::kObject:
      return "an object";
  }
  return "a value";
}

namespace {

// RapidJSON's input stream concept over a file or a buffer, counting lines and columns for
// messages and stopping at the document limit (the parser then sees an early end).
class CountingStream {
 public:
  using Ch = char;

  CountingStream(std::FILE* file, uint64_t max_bytes) : file_(file), max_bytes_(max_bytes) {
    Refill();
  }
  CountingStream(std::string_view text, uint64_t max_bytes) : text_(text), max_bytes_(max_bytes) {
    Refill();
  }

  Ch Peek() const { return pos_ < end_ ? *pos_ : '\0'; }
  Ch Take() {
    if (pos_ >= end_) return '\0';
    Ch c = *pos_++;
    ++offset_;
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    if (pos_ == end_) Refill();
    return c;
  }
  size_t Tell() const { return static_cast<size_t>(offset_); }
  // Writing is never asked of an input stream parsed without kParseInsituFlag.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

  uint64_t offset() const { return offset_; }
  int64_t line() const { return line_; }
  int64_t column() const { return column_; }
  bool over_limit() const { return over_limit_; }
  bool read_error() const { return read_error_; }

 private:
  void Refill() {
    pos_ = end_ = buffer_;
    if (offset_ >= max_bytes_) {
      // Whether more follows decides between a document exactly at the limit and one past it.
      over_limit_ = file_ != nullptr ? std::fgetc(file_) != EOF : !text_.empty();
      return;
    }
    size_t want = sizeof(buffer_);
    if (max_bytes_ - offset_ < want) want = static_cast<size_t>(max_bytes_ - offset_);
    size_t got = 0;
    if (file_ != nullptr) {
      got = std::fread(buffer_, 1, want, file_);
      if (got < want && std::ferror(file_)) read_error_ = true;
    } else {
      got = std::min(want, text_.size());
      std::memcpy(buffer_, text_.data(), got);
      text_.remove_prefix(got);
    }
    end_ = buffer_ + got;
  }

  std::FILE* file_ = nullptr;
  std::string_view text_;
  uint64_t max_bytes_;
  char buffer_[1 << 16];
  const char* pos_ = buffer_;
  const char* end_ = buffer_;
  uint64_t offset_ = 0;
  int64_t line_ = 1;
  int64_t column_ = 1;
  bool over_limit_ = false;
  bool read_error_ = false;
};

// The SAX handler. Depth 1 is inside the top-level object; elements are delivered from
// depth 1 (a member that is not an array) or depth 2 (each element of a member array).
class Builder {
 public:
  Builder(const std::string& source, const JsonStreamLimits& limits, const JsonElementSink& sink,
          const CountingStream& stream)
      : source_(source), limits_(limits), sink_(sink), stream_(stream) {}

  bool Null() { return Scalar(JsonValue::Kind::kNull, {}, false); }
  bool Bool(bool b) { return Scalar(JsonValue::Kind::kBool, {}, b); }
  // With kParseNumbersAsStringsFlag every number arrives through RawNumber.
  bool Int(int) { return Unexpected(); }
  bool Uint(unsigned) { return Unexpected(); }
  bool Int64(int64_t) { return Unexpected(); }
  bool Uint64(uint64_t) { return Unexpected(); }
  bool Double(double) { return Unexpected(); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    return Scalar(JsonValue::Kind::kNumber, std::string_view(text, length), false);
  }
  bool String(const char* text, rapidjson::SizeType length, bool) {
    return Scalar(JsonValue::Kind::kString, std::string_view(text, length), false);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    if (depth_ == 1) {
      top_key_.assign(text, length);
      return true;
    }
    pending_key_.assign(text, length);
    return CheckSize();
  }
  bool StartObject() { return Open(JsonValue::Kind::kObject); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(JsonValue::Kind::kArray); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

  const absl::Status& status() const { return status_; }
  bool saw_top_object() const { return saw_top_object_; }

 private:
  bool Unexpected() { return Fail("internal: a number outside RawNumber"); }

  bool Fail(std::string_view message) {
    status_ = absl::InvalidArgumentError(
        Cat(source_, ":", stream_.line(), ":", stream_.column(), ": ", message));
    return false;
  }

  // Whether a value starting now is a streamed element (the root of a tree to build).
  bool AtElementLevel() const {
    return stack_.empty() && (depth_ == 1 || (depth_ == 2 && in_top_array_));
  }

  JsonValue* Place(JsonValue&& value) {
    if (stack_.empty()) {
      element_ = std::move(value);
      return &element_;
    }
    JsonValue* parent = stack_.back();
    if (parent->kind == JsonValue::Kind::kObject) {
      parent->keys.push_back(std::move(pending_key_));
      pending_key_.clear();
    }
    parent->items.push_back(std::move(value));
    return &parent->items.back();
  }

  bool Scalar(JsonValue::Kind kind, std::string_view text, bool boolean) {
    if (depth_ == 0) return Fail("the document is not a JSON object");
    bool root = AtElementLevel();
    if (root) element_start_ = stream_.offset();
    JsonValue value;
    value.kind = kind;
    value.text.assign(text);
    value.boolean = boolean;
    value.line = stream_.line();
    Place(std::move(value));
    if (!CheckSize()) return false;
    return root ? Deliver() : true;
  }

  bool Open(JsonValue::Kind kind) {
    if (depth_ == 0) {
      if (kind != JsonValue::Kind::kObject) return Fail("the document is not a JSON object");
      saw_top_object_ = true;
      depth_ = 1;
      return true;
    }
    if (depth_ >= limits_.max_depth) {
      return Fail(Cat("nesting deeper than ", limits_.max_depth, " levels"));
    }
    if (depth_ == 1 && kind == JsonValue::Kind::kArray) {
      in_top_array_ = true;
      index_ = 0;
      depth_ = 2;
      return true;
    }
    if (AtElementLevel()) element_start_ = stream_.offset();
    JsonValue value;
    value.kind = kind;
    value.line = stream_.line();
    stack_.push_back(Place(std::move(value)));
    ++depth_;
    return CheckSize();
  }

  bool Close() {
    --depth_;
    if (depth_ == 0) return true;  // the end of the document's object
    if (stack_.empty()) {          // the end of a streamed top-level array
      in_top_array_ = false;
      return true;
    }
    stack_.pop_back();
    if (!stack_.empty()) return true;
    return Deliver();
  }

  bool CheckSize() {
    if (!stack_.empty() && stream_.offset() - element_start_ > limits_.max_element_bytes) {
      return Fail(Cat("one element of \"", top_key_, "\" is larger than ",
                      limits_.max_element_bytes, " bytes"));
    }
    return true;
  }

  bool Deliver() {
    JsonElementPath path{top_key_, std::nullopt};
    if (in_top_array_) path.index = index_++;
    status_ = sink_(path, std::move(element_));
    element_ = JsonValue();
    return status_.ok();
  }

  const std::string& source_;
  const JsonStreamLimits& limits_;
  const JsonElementSink& sink_;
  const CountingStream& stream_;
  absl::Status status_;
  int depth_ = 0;
  bool saw_top_object_ = false;
  bool in_top_array_ = false;
  int64_t index_ = 0;
  std::string top_key_;
  std::string pending_key_;
  std::vector<JsonValue*> stack_;  // open containers of the element being built
  JsonValue element_;
  uint64_t element_start_ = 0;
};

absl::Status Parse(CountingStream& stream, const std::string& source,
                   const JsonStreamLimits& limits, const JsonElementSink& sink) {
  Builder builder(source, limits, sink, stream);
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                              rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseValidateEncodingFlag;
  rapidjson::ParseResult result = reader.Parse<kFlags>(stream, builder);
  if (!builder.status().ok()) return builder.status();
  if (stream.read_error()) {
    return absl::DataLossError(Cat(source, ": read error after ", stream.offset(), " bytes"));
  }
  if (stream.over_limit()) {
    return absl::InvalidArgumentError(
        Cat(source, ": the document is larger than ", limits.max_document_bytes, " bytes"));
  }
  if (result.IsError()) {
    return absl::InvalidArgumentError(
        Cat(source, ":", stream.line(), ":", stream.column(),
            ": malformed JSON: ", rapidjson::GetParseError_En(result.Code())));
  }
  if (!builder.saw_top_object()) {
    return absl::InvalidArgumentError(Cat(source, ": the document is not a JSON object"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status StreamJsonFile(const std::string& path, const JsonStreamLimits& limits,
                            const JsonElementSink& sink) {
  std::FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    int error = errno;
    std::string message = Cat(path, ": ", std::strerror(error));
    return error == ENOENT   ? absl::NotFoundError(message)
           : error == EACCES ? absl::PermissionDeniedError(message)
                             : absl::InvalidArgumentError(message);
  }
  auto stream = std::make_unique<CountingStream>(file, limits.max_document_bytes);
  absl::Status status = Parse(*stream, path == "-" ? "<stdin>" : path, limits, sink);
  if (file != stdin) std::fclose(file);
  return status;
}

absl::Status StreamJsonText(std::string_view text, const std::string& source_name,
                            const JsonStreamLimits& limits, const JsonElementSink& sink) {
  auto stream = std::make_unique<CountingStream>(text, limits.max_document_bytes);
  return Parse(*stream, source_name, limits, sink);
}

}  // namespace allocore::adapters::internal

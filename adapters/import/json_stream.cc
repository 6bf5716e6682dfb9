// RapidJSON's SAX reader drives a small builder: values below the streamed level are built
// into JsonValue trees and handed over one at a time.
#include "json_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "rapidjson_reader.h"
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

// The SAX handler. Each open container has a frame saying whether it is built (part of a
// tree to hand over), only walked through (the top-level object and its arrays), or skipped.
// Trees nest: a split list's item is a tree of its own while its element's tree is open.
class Builder {
 public:
  Builder(const std::string& source, const JsonStreamLimits& limits, const JsonElementSink& sink,
          const JsonStreamShape& shape, const CountingStream& stream)
      : source_(source), limits_(limits), sink_(sink), shape_(shape), stream_(stream) {}

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
    Frame& frame = frames_.back();
    if (frame.role == Role::kSkipped) return true;
    frame.pending_key.assign(text, length);
    if (frame.role == Role::kBuilt) return Count(*trees_[frame.tree], length);
    return true;
  }
  bool StartObject() { return Open(JsonValue::Kind::kObject); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(JsonValue::Kind::kArray); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

  const absl::Status& status() const { return status_; }
  bool saw_top_object() const { return saw_top_object_; }

 private:
  enum class Role : uint8_t { kWalked, kBuilt, kSkipped };
  struct Frame {
    JsonValue::Kind kind;
    Role role;
    std::string step;  // how the parent reached it: its key, or "[]"
    size_t tree = 0;   // kBuilt: the tree it belongs to
    int64_t next_index = 0;
    std::string pending_key;
  };
  struct Tree {
    JsonValue root;
    std::vector<JsonValue*> open;  // the open containers of this tree, root first
    uint64_t bytes = 0;
    std::string top;
    std::optional<int64_t> index;
    std::string member;
    std::optional<int64_t> member_index;
  };
  // What a value starting now becomes.
  enum class Fate : uint8_t { kWalk, kRoot, kSplitRoot, kAttach, kSkip };

  bool Unexpected() { return Fail("internal: a number outside RawNumber"); }

  bool Fail(std::string_view message) {
    status_ = absl::InvalidArgumentError(
        Cat(source_, ":", stream_.line(), ":", stream_.column(), ": ", message));
    return false;
  }

  bool Count(Tree& tree, size_t bytes) {
    tree.bytes += bytes + 16;
    if (tree.bytes <= limits_.max_element_bytes) return true;
    return Fail(Cat("one element of \"", tree.top, "\" holds more than ", limits_.max_element_bytes,
                    " bytes"));
  }

  // Whether `frames_` from the element of a top-level array down, then `step`, is `pattern`.
  bool Matches(const std::vector<std::string>& pattern, const std::string& step) const {
    // frames_[0] the document, [1] the top-level array, [2] its element.
    if (frames_.size() < 3 || pattern.size() != frames_.size() - 2) return false;
    for (size_t i = 0; i + 1 < pattern.size(); ++i) {
      const std::string& have = frames_[3 + i].step;
      if (pattern[i] != have) return false;
    }
    return pattern.back() == step;
  }

  bool UnderTopArray() const {
    return frames_.size() >= 2 && frames_[1].kind == JsonValue::Kind::kArray &&
           frames_[1].role == Role::kWalked;
  }

  // Decides the fate of a value starting now and takes its step in the parent.
  Fate Decide(JsonValue::Kind kind, std::string* step) {
    Frame& parent = frames_.back();
    *step = parent.kind == JsonValue::Kind::kObject ? parent.pending_key : "[]";
    if (parent.kind == JsonValue::Kind::kArray) ++parent.next_index;
    if (parent.role == Role::kSkipped) return Fate::kSkip;
    if (frames_.size() == 1) {  // a member of the document's object
      return kind == JsonValue::Kind::kArray ? Fate::kWalk : Fate::kRoot;
    }
    if (frames_.size() == 2 && UnderTopArray()) return Fate::kRoot;  // an element
    if (UnderTopArray()) {
      const std::string& top = frames_[1].step;
      for (const JsonStreamShape::Skip& skip : shape_.skip) {
        if (skip.top == top && Matches(skip.path, *step)) return Fate::kSkip;
      }
      if (frames_.size() == 4 && *step == "[]") {  // an item of a member of an element
        for (const JsonStreamShape::List& list : shape_.split) {
          if (list.top == top && list.member == frames_[3].step) return Fate::kSplitRoot;
        }
      }
    }
    return Fate::kAttach;
  }

  Tree& NewTree(JsonValue::Kind kind, bool split) {
    auto tree = std::make_unique<Tree>();
    tree->root.kind = kind;
    tree->root.line = stream_.line();
    tree->top = frames_.size() >= 2 ? frames_[1].step : frames_[0].pending_key;
    if (frames_.size() >= 2) tree->index = frames_[1].next_index - 1;
    if (split) {
      tree->member = frames_[3].step;
      tree->member_index = frames_[3].next_index - 1;
    }
    trees_.push_back(std::move(tree));
    return *trees_.back();
  }

  JsonValue* Attach(JsonValue::Kind kind, std::string_view text, bool boolean) {
    const Frame& parent = frames_.back();
    Tree& tree = *trees_[parent.tree];
    JsonValue* into = tree.open.back();
    if (into->kind == JsonValue::Kind::kObject) into->keys.push_back(parent.pending_key);
    JsonValue& value = into->items.emplace_back();
    value.kind = kind;
    value.text.assign(text);
    value.boolean = boolean;
    value.line = stream_.line();
    return &value;
  }

  bool Scalar(JsonValue::Kind kind, std::string_view text, bool boolean) {
    if (frames_.empty()) return Fail("the document is not a JSON object");
    std::string step;
    switch (Decide(kind, &step)) {
      case Fate::kSkip:
      case Fate::kWalk:
        return true;
      case Fate::kRoot:
      case Fate::kSplitRoot: {
        Tree& tree = NewTree(kind, false);
        tree.root.text.assign(text);
        tree.root.boolean = boolean;
        if (!Count(tree, text.size())) return false;
        return Deliver();
      }
      case Fate::kAttach:
        Attach(kind, text, boolean);
        return Count(*trees_[frames_.back().tree], text.size());
    }
    return true;
  }

  bool Open(JsonValue::Kind kind) {
    if (frames_.empty()) {
      if (kind != JsonValue::Kind::kObject) return Fail("the document is not a JSON object");
      saw_top_object_ = true;
      frames_.push_back(Frame{kind, Role::kWalked, "", 0, 0, {}});
      return true;
    }
    if (static_cast<int>(frames_.size()) > limits_.max_depth) {
      return Fail(Cat("nesting deeper than ", limits_.max_depth, " levels"));
    }
    std::string step;
    Fate fate = Decide(kind, &step);
    switch (fate) {
      case Fate::kSkip:
        frames_.push_back(Frame{kind, Role::kSkipped, std::move(step), 0, 0, {}});
        return true;
      case Fate::kWalk:
        frames_.push_back(Frame{kind, Role::kWalked, std::move(step), 0, 0, {}});
        return true;
      case Fate::kRoot:
      case Fate::kSplitRoot: {
        Tree& tree = NewTree(kind, fate == Fate::kSplitRoot);
        tree.open.push_back(&tree.root);
        frames_.push_back(Frame{kind, Role::kBuilt, std::move(step), trees_.size() - 1, 0, {}});
        return Count(tree, 0);
      }
      case Fate::kAttach: {
        size_t tree = frames_.back().tree;
        JsonValue* value = Attach(kind, {}, false);
        trees_[tree]->open.push_back(value);
        frames_.push_back(Frame{kind, Role::kBuilt, std::move(step), tree, 0, {}});
        return Count(*trees_[tree], 0);
      }
    }
    return true;
  }

  bool Close() {
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    if (frame.role != Role::kBuilt) return true;
    Tree& tree = *trees_[frame.tree];
    tree.open.pop_back();
    if (!tree.open.empty()) return true;
    return Deliver();
  }

  // Hands over the innermost tree, which is complete.
  bool Deliver() {
    std::unique_ptr<Tree> tree = std::move(trees_.back());
    trees_.pop_back();
    JsonElementPath path{tree->top, tree->index, tree->member, tree->member_index};
    status_ = sink_(path, std::move(tree->root));
    return status_.ok();
  }

  const std::string& source_;
  const JsonStreamLimits& limits_;
  const JsonElementSink& sink_;
  const JsonStreamShape& shape_;
  const CountingStream& stream_;
  absl::Status status_;
  bool saw_top_object_ = false;
  std::vector<Frame> frames_;
  std::vector<std::unique_ptr<Tree>> trees_;
};

absl::Status Parse(CountingStream& stream, const std::string& source,
                   const JsonStreamLimits& limits, const JsonElementSink& sink,
                   const JsonStreamShape& shape) {
  Builder builder(source, limits, sink, shape, stream);
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
                            const JsonElementSink& sink, const JsonStreamShape& shape) {
  std::FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    int error = errno;
    std::string message = Cat(path, ": ", std::strerror(error));
    return error == ENOENT   ? absl::NotFoundError(message)
           : error == EACCES ? absl::PermissionDeniedError(message)
                             : absl::InvalidArgumentError(message);
  }
  auto stream = std::make_unique<CountingStream>(file, limits.max_document_bytes);
  absl::Status status = Parse(*stream, path == "-" ? "<stdin>" : path, limits, sink, shape);
  if (file != stdin) std::fclose(file);
  return status;
}

absl::Status StreamJsonText(std::string_view text, const std::string& source_name,
                            const JsonStreamLimits& limits, const JsonElementSink& sink,
                            const JsonStreamShape& shape) {
  auto stream = std::make_unique<CountingStream>(text, limits.max_document_bytes);
  return Parse(*stream, source_name, limits, sink, shape);
}

}  // namespace allocore::adapters::internal

#include "allocore/adapters/scenario_stream.h"

#include <yaml.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/text_input.h"
#include "scenario_decode.h"
#include "str_util.h"
#include "yaml_tree.h"
#include "yaml_tree_builder.h"

namespace allocore::adapters {
namespace {

using internal::YamlTextIssue;
using internal::YamlTree;
using internal::YamlTreeBuilder;

// libyaml holds a scalar whole before it hands out its event; more than this many bytes read
// without an event (one huge scalar, or comments) ends the read, so memory stays bounded. The
// loader's own limit for a scalar (64 KiB) is far below it.
constexpr uint64_t kMaxBytesWithoutEvent = uint64_t{4} << 20;

// Why the stream gave up on a file: the loader is asked instead when it can take the file.
struct NeedsLoader {
  YamlTextIssue issue;  // what to report when the loader cannot take the file either
};

// One libyaml event, deleted when it goes.
class Event {
 public:
  Event() { std::memset(&raw_, 0, sizeof(raw_)); }
  ~Event() { yaml_event_delete(&raw_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  yaml_event_t* get() { return &raw_; }
  const yaml_event_t& operator*() const { return raw_; }
  yaml_event_type_t type() const { return raw_.type; }
  void Reset() {
    yaml_event_delete(&raw_);
    std::memset(&raw_, 0, sizeof(raw_));
  }

 private:
  yaml_event_t raw_;
};

YAML::Mark MarkOf(const yaml_mark_t& mark) {
  YAML::Mark out;
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int>::max());
  out.pos = static_cast<int>(std::min(mark.index, kMax));
  out.line = static_cast<int>(std::min(mark.line, kMax));
  out.column = static_cast<int>(std::min(mark.column, kMax));
  return out;
}

std::string_view Text(const yaml_char_t* text, size_t length) {
  return {reinterpret_cast<const char*>(text), length};
}

std::string_view Text(const yaml_char_t* text) {
  return text == nullptr ? std::string_view()
                         : std::string_view(reinterpret_cast<const char*>(text));
}

// The events of one file, pulled one at a time.
class EventReader {
 public:
  explicit EventReader(std::FILE* file) : file_(file) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input(&parser_, &EventReader::Read, this);
  }
  ~EventReader() { yaml_parser_delete(&parser_); }
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  // The next event into `event`; a syntax error, a read error or an overlong token ends the
  // stream with NeedsLoader.
  std::optional<NeedsLoader> Next(Event& event) {
    event.Reset();
    if (!yaml_parser_parse(&parser_, event.get())) {
      YamlTextIssue issue;
      issue.line = static_cast<int>(parser_.problem_mark.line) + 1;
      issue.column = static_cast<int>(parser_.problem_mark.column) + 1;
      if (overlong_) {
        issue.message = internal::Cat("more than ", kMaxBytesWithoutEvent,
                                      " bytes without a YAML node (one huge scalar or comment)");
      } else if (read_failed_) {
        issue.message = "read error";
      } else if (lone_carriage_return_) {
        // libyaml breaks the line there, yaml-cpp keeps the byte in the scalar.
        issue.message = "a carriage return without a line feed";
      } else {
        issue.message = internal::Cat(
            "YAML syntax error: ", parser_.problem != nullptr ? parser_.problem : "unknown",
            parser_.context != nullptr ? internal::Cat(" ", parser_.context) : std::string());
      }
      return NeedsLoader{std::move(issue)};
    }
    bytes_at_event_ = bytes_read_;
    return std::nullopt;
  }
  // Bytes of the file read up to the last event.
  uint64_t bytes_at_event() const { return bytes_at_event_; }

 private:
  static int Read(void* data, unsigned char* buffer, size_t size, size_t* size_read) {
    auto* self = static_cast<EventReader*>(data);
    if (self->bytes_read_ - self->bytes_at_event_ > kMaxBytesWithoutEvent) {
      self->overlong_ = true;
      return 0;
    }
    *size_read = std::fread(buffer, 1, size, self->file_);
    if (*size_read == 0 && std::ferror(self->file_)) {
      self->read_failed_ = true;
      return 0;
    }
    if (!self->CarriageReturnsEndLines(buffer, *size_read)) {
      self->lone_carriage_return_ = true;
      return 0;
    }
    self->bytes_read_ += *size_read;
    return 1;
  }

  // False at a '\r' not followed by '\n' (a chunk may end between the two; the end of the
  // file counts as not a '\n').
  bool CarriageReturnsEndLines(const unsigned char* data, size_t size) {
    if (size == 0) return !cr_pending_;
    size_t i = 0;
    if (cr_pending_) {
      if (data[0] != '\n') return false;
      cr_pending_ = false;
      i = 1;
    }
    for (;;) {
      const void* cr = std::memchr(data + i, '\r', size - i);
      if (cr == nullptr) return true;
      i = static_cast<size_t>(static_cast<const unsigned char*>(cr) - data) + 1;
      if (i == size) {
        cr_pending_ = true;
        return true;
      }
      if (data[i] != '\n') return false;
    }
  }

  std::FILE* file_;
  yaml_parser_t parser_;
  uint64_t bytes_read_ = 0;
  uint64_t bytes_at_event_ = 0;
  bool overlong_ = false;
  bool read_failed_ = false;
  bool lone_carriage_return_ = false;
  bool cr_pending_ = false;  // the last chunk ended with '\r'
};

// Feeds the node that starts with `first` (and the events that complete it) to `builder`, as
// yaml-cpp would have called it. Anchors, aliases and overlong scalars are left to the loader.
std::optional<NeedsLoader> FeedNode(EventReader& reader, Event& first, YamlTreeBuilder* builder) {
  int open = 0;
  Event next;
  Event* event = &first;
  for (;;) {
    const yaml_event_t& e = **event;
    const YAML::Mark mark = MarkOf(e.start_mark);
    auto refuse = [&](std::string message) {
      return NeedsLoader{YamlTextIssue{mark.line + 1, mark.column + 1, std::move(message), ""}};
    };
    switch (e.type) {
      case YAML_SCALAR_EVENT: {
        if (e.data.scalar.anchor != nullptr) return refuse("anchors are read by the loader");
        if (e.data.scalar.length > internal::kMaxYamlScalarBytes) {
          return refuse(
              internal::Cat("a scalar of more than ", internal::kMaxYamlScalarBytes, " bytes"));
        }
        std::string_view value = Text(e.data.scalar.value, e.data.scalar.length);
        std::string_view tag = Text(e.data.scalar.tag);
        const bool plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (tag.empty() && plain &&
            (value.empty() || value == "~" || value == "null" || value == "Null" ||
             value == "NULL")) {
          builder->OnNull(mark, YAML::NullAnchor);
        } else {
          builder->AddScalar(mark, !tag.empty() ? tag : plain ? "?" : "!", YAML::NullAnchor, value);
        }
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
        if (e.data.sequence_start.anchor != nullptr) {
          return refuse("anchors are read by the loader");
        }
        builder->OnSequenceStart(mark, "", YAML::NullAnchor, YAML::EmitterStyle::Default);
        ++open;
        break;
      case YAML_MAPPING_START_EVENT:
        if (e.data.mapping_start.anchor != nullptr) {
          return refuse("anchors are read by the loader");
        }
        builder->OnMapStart(mark, "", YAML::NullAnchor, YAML::EmitterStyle::Default);
        ++open;
        break;
      case YAML_SEQUENCE_END_EVENT:
        builder->OnSequenceEnd();
        --open;
        break;
      case YAML_MAPPING_END_EVENT:
        builder->OnMapEnd();
        --open;
        break;
      case YAML_ALIAS_EVENT:
        return refuse("aliases are read by the loader");
      default:
        return refuse("unexpected YAML event");
    }
    if (builder->issue()) return NeedsLoader{*builder->issue()};
    if (open == 0) return std::nullopt;
    if (auto problem = reader.Next(next)) return problem;
    event = &next;
  }
}

// Skips the node that starts with `first`.
std::optional<NeedsLoader> SkipNode(EventReader& reader, const Event& first) {
  int open = 0;
  Event next;
  yaml_event_type_t type = first.type();
  for (;;) {
    if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) ++open;
    if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) --open;
    if (open == 0) return std::nullopt;
    if (auto problem = reader.Next(next)) return problem;
    type = next.type();
  }
}

// Walks a scenario file's events: the top-level mapping's entries go to `on_entry` (key, first
// event of the value), except the items of a `steps:` list, which go to `on_step` one by one.
// Both get the reader to pull the rest of their node.
class ScenarioWalker {
 public:
  explicit ScenarioWalker(std::FILE* file) : reader_(file) {}

  // Up to the top-level mapping; `on_root` gets its first event. Anything but a mapping (an
  // empty file, a list, a scalar) is the loader's to report.
  template <typename OnRoot>
  std::optional<NeedsLoader> Begin(OnRoot&& on_root) {
    Event event;
    for (yaml_event_type_t expected : {YAML_STREAM_START_EVENT, YAML_DOCUMENT_START_EVENT}) {
      if (auto problem = reader_.Next(event)) return problem;
      if (event.type() != expected) return Refuse(event, "not a scenario mapping");
    }
    if (auto problem = reader_.Next(event)) return problem;
    if (event.type() != YAML_MAPPING_START_EVENT || (*event).data.mapping_start.anchor != nullptr)
      return Refuse(event, "not a scenario mapping");
    on_root(event);
    return std::nullopt;
  }

  // The next top-level entry: its key (a plain scalar) and the first event of its value.
  // Returns false after the mapping's end.
  std::optional<NeedsLoader> NextEntry(bool* done, Event& key, Event& value) {
    *done = false;
    if (auto problem = reader_.Next(key)) return problem;
    if (key.type() == YAML_MAPPING_END_EVENT) {
      *done = true;
      return std::nullopt;
    }
    if (key.type() != YAML_SCALAR_EVENT || (*key).data.scalar.anchor != nullptr ||
        (*key).data.scalar.tag != nullptr) {
      return Refuse(key, "a top-level key that is not a plain name");
    }
    return reader_.Next(value);
  }

  EventReader& reader() { return reader_; }

  static NeedsLoader Refuse(const Event& event, std::string message) {
    YAML::Mark mark = MarkOf((*event).start_mark);
    return NeedsLoader{YamlTextIssue{mark.line + 1, mark.column + 1, std::move(message), ""}};
  }

 private:
  EventReader reader_;
};

std::string_view KeyOf(const Event& key) {
  return Text((*key).data.scalar.value, (*key).data.scalar.length);
}

bool IsStepsList(std::string_view key, const Event& value, bool steps_seen) {
  return key == "steps" && !steps_seen && value.type() == YAML_SEQUENCE_START_EVENT &&
         (*value).data.sequence_start.anchor == nullptr;
}

// The second read: steps one at a time.
class StreamedSteps final : public StepSource {
 public:
  StreamedSteps(const TextFile& file, std::string source_name)
      : file_(file), source_name_(std::move(source_name)) {}

  void Restart() {
    walker_.reset();
    in_steps_ = false;
    finished_ = false;
    index_ = 0;
  }

  // The next step moved into `out`; false after the last one.
  absl::StatusOr<bool> NextInto(ScenarioStep* out) {
    absl::StatusOr<const ScenarioStep*> next = Next();
    if (!next.ok()) return next.status();
    if (*next == nullptr) return false;
    *out = std::move(holder_.steps.front());
    return true;
  }
  // How far into the file the steps read so far reach.
  uint64_t position() const { return walker_ ? walker_->reader().bytes_at_event() : 0; }

  absl::StatusOr<const ScenarioStep*> Next() override {
    if (finished_) return nullptr;
    if (!walker_) {
      if (!file_.Rewind()) return Changed("cannot read it again");
      walker_ = std::make_unique<ScenarioWalker>(file_.file());
      if (auto problem = walker_->Begin([](Event&) {})) return Changed(problem->issue.message);
    }
    Event key;
    Event value;
    while (!in_steps_) {
      bool done = false;
      if (auto problem = walker_->NextEntry(&done, key, value)) {
        return Changed(problem->issue.message);
      }
      if (done) {
        finished_ = true;
        return nullptr;
      }
      if (IsStepsList(KeyOf(key), value, false)) {
        in_steps_ = true;
      } else if (auto skipped = SkipNode(walker_->reader(), value)) {
        return Changed(skipped->issue.message);
      }
    }
    Event item;
    if (auto problem = walker_->reader().Next(item)) return Changed(problem->issue.message);
    if (item.type() == YAML_SEQUENCE_END_EVENT) {
      finished_ = true;  // one `steps:` list: the first read refused a second one
      return nullptr;
    }
    builder_.Reset();
    if (auto problem = FeedNode(walker_->reader(), item, &builder_)) {
      return Changed(problem->issue.message);
    }
    holder_.steps.clear();
    std::vector<std::string> errors;
    internal::DecodeScenarioStep(tree_, ++index_, source_name_, &holder_, &errors);
    if (!errors.empty() || holder_.steps.size() != 1) {
      return Changed(errors.empty() ? "a step no longer decodes" : errors.front());
    }
    return &holder_.steps.front();
  }

 private:
  absl::Status Changed(std::string_view why) const {
    return absl::DataLossError(
        internal::Cat(source_name_, ": the file changed while it was replayed (", why, ")"));
  }

  const TextFile& file_;
  std::string source_name_;
  std::unique_ptr<ScenarioWalker> walker_;
  Scenario holder_;  // the step Next handed out
  YamlTree tree_;    // the step being read (storage kept from step to step)
  YamlTreeBuilder builder_{&tree_};
  bool in_steps_ = false;
  bool finished_ = false;
  size_t index_ = 0;
};

// The second read on a thread of its own, started while the first read still checks the
// file: it decodes steps ahead into a queue that holds at most kMaxReadAheadBytes of the
// file's text, and Next hands them out in order. The kernel sees no step before the check has
// passed (the stream is only returned then), so a bad file still changes nothing; the two
// reads of a long replay just no longer take turns.
constexpr uint64_t kMaxReadAheadBytes = uint64_t{4} << 20;

class PrefetchedSteps final : public StepSource {
 public:
  PrefetchedSteps(const TextFile& file, std::string source_name)
      : reader_(file, std::move(source_name)) {
    thread_ = std::thread([this] { Produce(); });
  }
  ~PrefetchedSteps() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  PrefetchedSteps(const PrefetchedSteps&) = delete;
  PrefetchedSteps& operator=(const PrefetchedSteps&) = delete;

  absl::StatusOr<const ScenarioStep*> Next() override {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !queue_.empty() || done_; });
    if (queue_.empty()) {
      if (!status_.ok()) return status_;
      return nullptr;
    }
    current_ = std::move(queue_.front().step);
    consumed_up_to_ = queue_.front().end;
    queue_.pop_front();
    lock.unlock();
    changed_.notify_all();
    return &current_;
  }

 private:
  struct Ahead {
    ScenarioStep step;
    uint64_t end;  // file position after the step
  };

  void Produce() {
    for (;;) {
      Ahead ahead;
      absl::StatusOr<bool> got = reader_.NextInto(&ahead.step);
      ahead.end = reader_.position();
      std::unique_lock<std::mutex> lock(mutex_);
      if (!got.ok() || !*got) {
        if (!got.ok()) status_ = got.status();
        done_ = true;
        lock.unlock();
        changed_.notify_all();
        return;
      }
      changed_.wait(lock, [&] {
        return stop_ || queue_.empty() || ahead.end - consumed_up_to_ <= kMaxReadAheadBytes;
      });
      if (stop_) {
        done_ = true;
        return;
      }
      queue_.push_back(std::move(ahead));
      lock.unlock();
      changed_.notify_all();
    }
  }

  StreamedSteps reader_;  // used by the producer thread only
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Ahead> queue_;
  uint64_t consumed_up_to_ = 0;  // file position of the last step handed out
  bool done_ = false;
  bool stop_ = false;
  absl::Status status_;
  ScenarioStep current_;  // what Next handed out last (the consumer's)
};

class FileScenarioStream final : public ScenarioStream {
 public:
  FileScenarioStream(TextFile file, std::string source_name, ScenarioLoadOptions options)
      : file_(std::move(file)), options_(std::move(options)), steps_(file_, source_name) {
    header_.source_name = std::move(source_name);
  }

  // The first read. NeedsLoader when the loader must decide; errors of the steps otherwise.
  std::optional<NeedsLoader> Check(std::vector<std::string>* errors) {
    ScenarioWalker walker(file_.file());
    YamlTree header_tree;
    YamlTreeBuilder header(&header_tree);
    if (auto problem = walker.Begin([&](Event& root) {
          header.OnMapStart(MarkOf((*root).start_mark), "", YAML::NullAnchor,
                            YAML::EmitterStyle::Default);
        })) {
      return problem;
    }
    bool steps_seen = false;
    Event key;
    Event value;
    for (;;) {
      bool done = false;
      if (auto problem = walker.NextEntry(&done, key, value)) return problem;
      if (done) break;
      const std::string_view name = KeyOf(key);
      header.OnScalar(MarkOf((*key).start_mark),
                      (*key).data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "?" : "!",
                      YAML::NullAnchor, std::string(name));
      if (name == "partitions") return NeedsLoader{};  // a bare config: the loader's to judge
      if (!IsStepsList(name, value, steps_seen)) {
        steps_seen = steps_seen || name == "steps";
        if (auto problem = FeedNode(walker.reader(), value, &header)) return problem;
        continue;
      }
      steps_seen = true;
      // The header keeps an empty list where the steps were: its decoding sees the same keys.
      header.OnSequenceStart(MarkOf((*value).start_mark), "", YAML::NullAnchor,
                             YAML::EmitterStyle::Default);
      Scenario checked;
      YamlTree tree;  // one step at a time; the storage is kept from step to step
      YamlTreeBuilder builder(&tree);
      for (;;) {
        Event item;
        if (auto problem = walker.reader().Next(item)) return problem;
        if (item.type() == YAML_SEQUENCE_END_EVENT) break;
        builder.Reset();
        if (auto problem = FeedNode(walker.reader(), item, &builder)) return problem;
        ++step_count_;
        internal::DecodeScenarioStep(tree, static_cast<size_t>(step_count_), header_.source_name,
                                     &checked, errors);
        checked.steps.clear();
      }
      header.OnSequenceEnd();
    }
    header.OnMapEnd();
    if (header.issue()) return NeedsLoader{*header.issue()};
    internal::DecodeScenarioTree(header_tree, header_.source_name, options_, &header_, errors);
    return std::nullopt;
  }

  // The whole text, for the loader.
  absl::StatusOr<std::string> ReadAll() const {
    std::string text;
    if (!file_.Rewind()) return absl::DataLossError(header_.source_name + ": cannot read it again");
    char buffer[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_.file())) > 0) text.append(buffer, n);
    if (std::ferror(file_.file())) {
      return absl::DataLossError(header_.source_name + ": read error");
    }
    return text;
  }

  // Starts the second read on its own handle (when the file can be opened again), to run
  // while Check reads the first.
  void StartReadAhead() {
    absl::StatusOr<TextFile> second = file_.Reopen();
    if (!second.ok()) return;
    second_ = std::make_unique<TextFile>(*std::move(second));
    read_ahead_ = std::make_unique<PrefetchedSteps>(*second_, header_.source_name);
    read_ahead_fresh_ = true;
  }
  void StopReadAhead() { read_ahead_.reset(); }

  const Scenario& header() const override { return header_; }
  int64_t step_count() const override { return step_count_; }
  bool streamed() const override { return true; }
  StepSource& steps() override {
    if (read_ahead_ && read_ahead_fresh_) {
      read_ahead_fresh_ = false;
      return *read_ahead_;
    }
    if (second_) {  // started over: a new read ahead from the first step
      read_ahead_.reset();
      read_ahead_ = std::make_unique<PrefetchedSteps>(*second_, header_.source_name);
      return *read_ahead_;
    }
    steps_.Restart();
    return steps_;
  }

 private:
  TextFile file_;
  std::unique_ptr<TextFile> second_;  // the read ahead's handle (declared before it: outlives it)
  std::unique_ptr<PrefetchedSteps> read_ahead_;
  bool read_ahead_fresh_ = false;
  ScenarioLoadOptions options_;
  Scenario header_;
  int64_t step_count_ = 0;
  StreamedSteps steps_;
};

// A scenario the loader read whole.
class LoadedScenario final : public ScenarioStream, private StepSource {
 public:
  explicit LoadedScenario(Scenario scenario) : scenario_(std::move(scenario)) {}
  const Scenario& header() const override { return scenario_; }
  int64_t step_count() const override { return static_cast<int64_t>(scenario_.steps.size()); }
  bool streamed() const override { return false; }
  StepSource& steps() override {
    next_ = 0;
    return *this;
  }

 private:
  absl::StatusOr<const ScenarioStep*> Next() override {
    if (next_ >= scenario_.steps.size()) return nullptr;
    return &scenario_.steps[next_++];
  }

  Scenario scenario_;
  size_t next_ = 0;
};

absl::StatusOr<std::unique_ptr<ScenarioStream>> OpenFile(TextFile file, const std::string& name,
                                                         uint64_t stream_above_bytes,
                                                         const ScenarioLoadOptions& options) {
  const uint64_t size = file.size();
  auto stream = std::make_unique<FileScenarioStream>(std::move(file), name, options);
  std::vector<std::string> errors;
  std::optional<NeedsLoader> needs_loader;
  if (size > stream_above_bytes) {
    stream->StartReadAhead();
    needs_loader = stream->Check(&errors);
    if (!needs_loader && errors.empty()) return stream;
    stream->StopReadAhead();
  }
  if (size > kMaxTextInputBytes) {
    // Too large for the loader: the stream's own findings are the answer.
    if (needs_loader) {
      const YamlTextIssue& issue = needs_loader->issue;
      std::string where = name;
      if (issue.line > 0) internal::Append(&where, ":", issue.line, ":", issue.column);
      return absl::InvalidArgumentError(internal::Cat(
          where, ": ", issue.message.empty() ? "cannot be streamed" : issue.message,
          " (files over ", kMaxTextInputBytes >> 20, " MiB are only read as streams)"));
    }
    return absl::InvalidArgumentError(internal::Join(errors, "\n"));
  }
  // Within the loader's limit the loader decides, with its own words.
  absl::StatusOr<std::string> text = stream->ReadAll();
  if (!text.ok()) return text.status();
  absl::StatusOr<Scenario> loaded = LoadScenarioText(*text, name, options);
  if (!loaded.ok()) return loaded.status();
  return std::make_unique<LoadedScenario>(*std::move(loaded));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ScenarioStream>> ScenarioStream::Open(
    const std::string& path, uint64_t stream_above_bytes, const ScenarioLoadOptions& options) {
  // An event log (allocore pack) replays through the same runner; stdin is read as YAML only.
  if (path != "-") {
    if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
      std::string head(kEventLogMagic.size(), '\0');
      head.resize(std::fread(head.data(), 1, head.size(), file));
      std::fclose(file);
      if (LooksLikeEventLog(head)) return OpenEventLogStream(path, options, nullptr);
    }
  }
  const std::string name = TextInputName(path);
  absl::StatusOr<TextFile> file = TextFile::Open(path, kMaxStreamedBytes);
  if (!file.ok()) {
    return absl::Status(file.status().code(), FormatTextInputError(name, file.status()));
  }
  return OpenFile(*std::move(file), name, stream_above_bytes, options);
}

absl::StatusOr<std::unique_ptr<ScenarioStream>> ScenarioStream::OpenText(
    std::string text, const std::string& source_name, uint64_t stream_above_bytes,
    const ScenarioLoadOptions& options) {
  absl::StatusOr<TextFile> file = TextFile::FromText(std::move(text));
  if (!file.ok()) return file.status();
  return OpenFile(*std::move(file), source_name, stream_above_bytes, options);
}

}  // namespace allocore::adapters

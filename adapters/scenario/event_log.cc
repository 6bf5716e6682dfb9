#include "allocore/adapters/event_log.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "allocore/status_macros.h"
#include "event_log_codec.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

using internal::Crc32c;
using internal::LogDecoder;
using internal::LogEncoder;
using internal::LogHeader;
using internal::LogRecord;

// ---- framing -----------------------------------------------------------------------------------

using internal::kFileHeaderBytes;
using internal::kFrameHeaderBytes;
using internal::LogWriter;

uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

// ---- reading -----------------------------------------------------------------------------------

// Where a log's bytes come from: memory, or a file read front to back.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `n` bytes appended to `out`; fewer only at the end.
  virtual size_t Read(size_t n, std::string* out) = 0;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t Read(size_t n, std::string* out) override {
    const size_t take = std::min(n, bytes_.size() - at_);
    out->append(bytes_.substr(at_, take));
    at_ += take;
    return take;
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

// Reads the file in large blocks: a log is many small records, and one read call per record
// would cost more than decoding it.
class FileSource : public ByteSource {
 public:
  explicit FileSource(std::FILE* file) : file_(file) {}
  size_t Read(size_t n, std::string* out) override {
    size_t taken = 0;
    while (taken < n) {
      if (at_ == buffer_.size()) {
        buffer_.resize(kBlock);
        buffer_.resize(std::fread(buffer_.data(), 1, kBlock, file_));
        at_ = 0;
        if (buffer_.empty()) break;
      }
      const size_t take = std::min(n - taken, buffer_.size() - at_);
      out->append(buffer_, at_, take);
      at_ += take;
      taken += take;
    }
    return taken;
  }

 private:
  static constexpr size_t kBlock = size_t{1} << 20;
  std::FILE* file_;
  std::string buffer_;
  size_t at_ = 0;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads records one at a time and keeps what the log has said so far: the names, the header,
// the nodes and the expectations, and how many steps came. The same reader checks a log whole
// (the first pass) and hands its steps out (the second).
class LogReader {
 public:
  LogReader(ByteSource* source, std::string source_name, const ScenarioLoadOptions& options)
      : source_(source), source_name_(std::move(source_name)), options_(options) {}

  // Reads the file header. Errors name the source.
  absl::Status Start() {
    std::string head;
    if (source_->Read(kFileHeaderBytes, &head) < kFileHeaderBytes || !LooksLikeEventLog(head)) {
      return Error(0, "not an event log (it does not start with \"ALLOCLOG\" and its version)");
    }
    const uint32_t version = GetU32(head.data() + 8);
    if (version == 0 || version > kEventLogVersion) {
      return Error(8, internal::Cat("event log version ", version,
                                    " is not one this allocore reads (it reads 1 to ",
                                    kEventLogVersion, ")"));
    }
    version_ = version;
    const uint32_t flags = GetU32(head.data() + 12);
    const uint32_t defined = version >= 3 ? internal::kLogFlagDecisionDigests : 0;
    if ((flags & ~defined) != 0) {
      return Error(12, internal::Cat("flags ", flags, " are not defined in version ", version));
    }
    scenario_.decision_digests = (flags & internal::kLogFlagDecisionDigests) != 0;
    offset_ = kFileHeaderBytes;
    return absl::OkStatus();
  }

  // The next step into `*step`, or false at the end of the log (then `warnings` may say why it
  // ended early). Header, node and expectation records met on the way are kept.
  absl::StatusOr<bool> NextStep(ScenarioStep* step) {
    while (true) {
      const uint64_t at = offset_;
      std::string& payload = payload_;  // reused: one allocation for the whole log
      absl::StatusOr<bool> framed = NextFrame(&payload);
      if (!framed.ok()) return framed.status();
      if (!*framed) return false;
      if (payload.empty()) return Error(at, "an empty record");
      const auto type = static_cast<LogRecord>(payload[0]);
      LogDecoder decoder(std::string_view(payload).substr(1), &names_);
      if (end_seen_) return Error(at, "a record after the end record");
      if (type != LogRecord::kName && type != LogRecord::kHeader && !header_) {
        return Error(at, "a record before the header");
      }
      switch (type) {
        case LogRecord::kName: {
          const uint64_t length = decoder.Unsigned();
          if (!decoder.ok() || length != payload.size() - 1 - VarintBytes(length)) {
            return Error(at, "a name record whose length does not match its text");
          }
          names_.emplace_back(payload.substr(1 + VarintBytes(length)));
          continue;
        }
        case LogRecord::kHeader: {
          if (header_) return Error(at, "a second header");
          LogHeader header;
          if (version_ == 1) {
            internal::FieldsOfVersion1(decoder, header);
          } else {
            decoder(header);
          }
          ALLOCORE_RETURN_IF_ERROR(Finish(decoder, at, "header"));
          ALLOCORE_RETURN_IF_ERROR(TakeHeader(std::move(header), at));
          continue;
        }
        case LogRecord::kNode: {
          if (steps_ > 0) return Error(at, "a node record after the first step");
          AddNodeStep node;
          decoder(node);
          ALLOCORE_RETURN_IF_ERROR(Finish(decoder, at, "node"));
          scenario_.nodes.push_back(std::move(node));
          continue;
        }
        case LogRecord::kExpect: {
          if (scenario_.expect) return Error(at, "a second expectation record");
          ScenarioExpect expect;
          decoder(expect);
          ALLOCORE_RETURN_IF_ERROR(Finish(decoder, at, "expectation"));
          scenario_.expect = std::move(expect);
          continue;
        }
        case LogRecord::kStep: {
          const uint64_t kind = decoder.Unsigned();
          if (!decoder.ok() || kind >= kStepKindCount) {
            return Error(at, internal::Cat("a step of unknown kind ", kind));
          }
          DecodeAction(kind, decoder, step->action);
          decoder(step->location);
          ALLOCORE_RETURN_IF_ERROR(Finish(decoder, at, StepKindName(step->kind())));
          if (absl::Status bad = CheckEnums(*step); !bad.ok()) {
            return Error(at, std::string(bad.message()));
          }
          step->recorded_digest = pending_digest_;
          pending_digest_.reset();
          ++steps_;
          return true;
        }
        case LogRecord::kDigest: {
          ALLOCORE_RETURN_IF_ERROR(TakeDigest(decoder, at));
          continue;
        }
        case LogRecord::kEnd: {
          const uint64_t count = decoder.Unsigned();
          ALLOCORE_RETURN_IF_ERROR(Finish(decoder, at, "end"));
          if (pending_digest_) return Error(at, "a digest record without the step it precedes");
          if (count != static_cast<uint64_t>(steps_)) {
            return Error(
                at, internal::Cat("the end record counts ", count, " steps, the log has ", steps_));
          }
          end_seen_ = true;
          continue;
        }
      }
      return Error(at, internal::Cat("a record of unknown type ", static_cast<int>(payload[0])));
    }
  }

  // The second pass: the reader of a checked log picks up at its first step (or the digest
  // before it), knowing the header and the names written before that step.
  void Resume(std::vector<std::string> names, const Scenario& header, uint64_t offset) {
    names_ = std::move(names);
    version_ = kEventLogVersion;  // only the header's encoding differs, and it is read by now
    header_ = true;
    scenario_.source_name = header.source_name;
    scenario_.decision_digests = header.decision_digests;
    offset_ = offset;
  }

  absl::Status RequireHeader() const {
    return header_ ? absl::OkStatus() : Error(offset_, "the log ends before its header record");
  }
  int64_t steps() const { return steps_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  Scenario& scenario() { return scenario_; }
  // Where the first step record starts (the second pass starts reading there).
  uint64_t first_step_offset() const { return first_step_offset_; }
  // The names written before the first step.
  std::vector<std::string> names_before_steps() const {
    return std::vector<std::string>(
        names_.begin(), names_.begin() + static_cast<std::ptrdiff_t>(first_step_offset_ == 0
                                                                         ? names_.size()
                                                                         : names_at_first_step_));
  }

 private:
  static size_t VarintBytes(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
      v >>= 7;
      ++n;
    }
    return n;
  }

  // A digest record (kLogFlagDecisionDigests): kept for the step record that follows it.
  absl::Status TakeDigest(LogDecoder& decoder, uint64_t at) {
    if (!scenario_.decision_digests) {
      return Error(at, "a digest record in a log whose header does not announce digests");
    }
    const uint64_t step = decoder.Unsigned();
    const uint64_t decisions = decoder.Unsigned();
    const uint64_t digest = decoder.Unsigned();
    ALLOCORE_RETURN_IF_ERROR(Finish(decoder, at, "digest"));
    if (pending_digest_) return Error(at, "two digest records before one step");
    if (step != static_cast<uint64_t>(steps_) + 1) {
      return Error(at,
                   internal::Cat("a digest record for step ", step, " before step ", steps_ + 1));
    }
    if (decisions > uint64_t{1} << 62) {
      return Error(
          at, internal::Cat("a digest record counting ", decisions, " decisions (at most 2^62)"));
    }
    // Each digest follows a step that made at least one decision.
    if (decisions <= last_digest_decisions_) {
      return Error(at, internal::Cat("a digest record counting ", decisions,
                                     " decisions after one counting ", last_digest_decisions_));
    }
    if (digest > 0xffffffffu) return Error(at, "a digest record whose digest is over 32 bits");
    last_digest_decisions_ = decisions;
    pending_digest_ = RecordedDigest{.decisions = static_cast<int64_t>(decisions),
                                     .digest = static_cast<uint32_t>(digest),
                                     .offset = at};
    return absl::OkStatus();
  }

  absl::Status Error(uint64_t offset, std::string_view what) const {
    return absl::InvalidArgumentError(internal::Cat(source_name_, ": offset ", offset, ": ", what));
  }

  absl::Status Finish(const LogDecoder& decoder, uint64_t at, std::string_view what) const {
    if (!decoder.ok()) return Error(at, internal::Cat("the ", what, " record: ", decoder.error()));
    if (!decoder.AtEnd()) {
      return Error(at, internal::Cat("the ", what, " record has bytes past its last field"));
    }
    return absl::OkStatus();
  }

  // A frame's payload into `payload`; false at the end of the log. A frame cut short by the end
  // of the bytes ends the log with a warning; a damaged one is an error.
  absl::StatusOr<bool> NextFrame(std::string* payload) {
    const uint64_t at = offset_;
    std::string& head = head_;
    head.clear();
    const size_t got = source_->Read(kFrameHeaderBytes, &head);
    if (got == 0) {
      if (!end_seen_) {
        warnings_.push_back(internal::Cat(source_name_, ": the log ends without its end record (",
                                          steps_, " steps read): its writer did not finish"));
      }
      return false;
    }
    if (got < kFrameHeaderBytes) return CutShort(at);
    const uint32_t length = GetU32(head.data());
    const uint32_t crc = GetU32(head.data() + 4);
    if (length > kMaxEventLogFrameBytes) {
      return Error(at, internal::Cat("a record of ", length, " bytes (at most ",
                                     kMaxEventLogFrameBytes, ")"));
    }
    payload->clear();
    if (source_->Read(length, payload) < length) return CutShort(at);
    if (const uint32_t computed = Crc32c(*payload); computed != crc) {
      return Error(at, internal::Cat("the record's checksum does not match (stored ", crc,
                                     ", computed ", computed, "): the log is damaged"));
    }
    offset_ += kFrameHeaderBytes + length;
    if (payload->size() > 0 &&
        (static_cast<LogRecord>((*payload)[0]) == LogRecord::kStep ||
         static_cast<LogRecord>((*payload)[0]) == LogRecord::kDigest) &&
        first_step_offset_ == 0) {
      first_step_offset_ = at;
      names_at_first_step_ = names_.size();
    }
    return true;
  }

  absl::StatusOr<bool> CutShort(uint64_t at) {
    warnings_.push_back(internal::Cat(source_name_, ": offset ", at,
                                      ": the last record is cut short; read up to it (", steps_,
                                      " steps)"));
    return false;
  }

  absl::Status TakeHeader(LogHeader header, uint64_t at) {
    header_ = true;
    if (static_cast<uint8_t>(header.semantics) > static_cast<uint8_t>(Semantics::kYunikorn19)) {
      return Error(at, "the header names an unknown semantics profile");
    }
    if (header.clock != StepClock::kTickBeforeEachStep &&
        header.clock != StepClock::kAdvanceStepsOnly) {
      return Error(at, "the header names an unknown clock");
    }
    if (header.budgets.max_applications < 0 || header.budgets.max_asks < 0 ||
        header.budgets.max_live_allocations < 0) {
      return Error(at, "the header holds a negative kernel budget");
    }
    scenario_.clock = header.clock;
    scenario_.budgets = header.budgets;
    scenario_.name = std::move(header.name);
    scenario_.semantics = options_.semantics.value_or(header.semantics);
    scenario_.source_name = source_name_;
    scenario_.config_warnings = std::move(header.config_warnings);
    scenario_.config = std::move(header.config);
    // The config a scenario carries was validated when it was loaded; one from a log is checked
    // again, since anything may have written it.
    std::vector<ConfigError> problems = ValidateConfig(scenario_.config, scenario_.semantics);
    std::string errors;
    for (const ConfigError& e : problems) {
      if (!e.warning) errors += "\n" + e.ToString(scenario_.config.source_name);
    }
    if (!errors.empty()) return Error(at, "the header's config does not validate:" + errors);
    return absl::OkStatus();
  }

  // Decodes in place when `action` already holds the kind (the readers reuse one step), so that
  // its strings and lists keep their capacity: every field is written, none is kept.
  template <size_t I = 0>
  static void DecodeAction(uint64_t kind, LogDecoder& decoder, StepAction& action) {
    if constexpr (I + 1 < std::variant_size_v<StepAction>) {
      if (kind != I) {
        DecodeAction<I + 1>(kind, decoder, action);
        return;
      }
    }
    if (action.index() != I) action.template emplace<I>();
    decoder(std::get<I>(action));
  }

  // Enum fields hold values the kernel knows.
  static absl::Status CheckEnums(const ScenarioStep& step) {
    if (const auto* app = std::get_if<AppSpec>(&step.action);
        app && app->gang_style != GangStyle::kSoft && app->gang_style != GangStyle::kHard) {
      return absl::InvalidArgumentError("an add_app step with an unknown gang style");
    }
    if (const auto* foreign = std::get_if<AddForeignStep>(&step.action);
        foreign && foreign->kind != ForeignKind::kDefault &&
        foreign->kind != ForeignKind::kStatic) {
      return absl::InvalidArgumentError("an add_foreign step with an unknown kind");
    }
    return absl::OkStatus();
  }

  ByteSource* source_;
  std::string source_name_;
  ScenarioLoadOptions options_;
  uint32_t version_ = kEventLogVersion;
  uint64_t offset_ = 0;
  uint64_t first_step_offset_ = 0;
  size_t names_at_first_step_ = 0;
  std::vector<std::string> names_;
  std::string payload_;
  std::string head_;
  bool header_ = false;
  bool end_seen_ = false;
  int64_t steps_ = 0;
  std::optional<RecordedDigest> pending_digest_;
  uint64_t last_digest_decisions_ = 0;
  Scenario scenario_;
  std::vector<std::string> warnings_;
};

// The second pass over a checked log file: the steps again, one at a time.
class EventLogStream : public ScenarioStream, public StepSource {
 public:
  EventLogStream(std::string path, Scenario header, int64_t steps, uint64_t first_step,
                 std::vector<std::string> names, const ScenarioLoadOptions& options)
      : path_(std::move(path)),
        header_(std::move(header)),
        steps_(steps),
        first_step_(first_step),
        names_(std::move(names)),
        options_(options) {}

  const Scenario& header() const override { return header_; }
  int64_t step_count() const override { return steps_; }
  bool streamed() const override { return true; }
  StepSource& steps() override {
    file_.reset();
    reader_.reset();
    given_ = 0;
    return *this;
  }

  absl::StatusOr<const ScenarioStep*> Next() override {
    if (given_ >= steps_) return nullptr;
    if (!reader_) {
      // The names were all read in the first pass; the second starts at the first step.
      file_.reset(std::fopen(path_.c_str(), "rb"));
      if (!file_ || fseeko(file_.get(), static_cast<off_t>(first_step_), SEEK_SET) != 0) {
        return absl::NotFoundError(
            internal::Cat(path_, ": cannot read it again: ", std::strerror(errno)));
      }
      source_ = std::make_unique<FileSource>(file_.get());
      reader_ = std::make_unique<LogReader>(source_.get(), path_, options_);
      reader_->Resume(names_, header_, first_step_);
    }
    absl::StatusOr<bool> more = reader_->NextStep(&step_);
    if (!more.ok()) return more.status();
    if (!*more) {
      return absl::DataLossError(internal::Cat(path_, ": the log changed while it was replayed"));
    }
    ++given_;
    return &step_;
  }

 private:
  std::string path_;
  Scenario header_;
  int64_t steps_;
  uint64_t first_step_;
  std::vector<std::string> names_;
  ScenarioLoadOptions options_;
  File file_;
  std::unique_ptr<FileSource> source_;
  std::unique_ptr<LogReader> reader_;
  ScenarioStep step_;
  int64_t given_ = 0;
};

}  // namespace

namespace internal {

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace internal

bool LooksLikeEventLog(std::string_view head) {
  return head.size() >= kEventLogMagic.size() &&
         head.substr(0, kEventLogMagic.size()) == kEventLogMagic;
}

std::string PackScenario(const Scenario& scenario) {
  LogWriter writer(scenario.decision_digests ? internal::kLogFlagDecisionDigests : 0);
  const LogHeader header{.name = scenario.name,
                         .semantics = scenario.semantics,
                         .source_name = scenario.source_name,
                         .config = scenario.config,
                         .config_warnings = scenario.config_warnings,
                         .clock = scenario.clock,
                         .budgets = scenario.budgets};
  writer.Record(LogRecord::kHeader, header);
  for (const AddNodeStep& node : scenario.nodes) writer.Record(LogRecord::kNode, node);
  if (scenario.expect) writer.Record(LogRecord::kExpect, *scenario.expect);
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    const ScenarioStep& step = scenario.steps[i];
    // A read log's digests go with it (a scenario file has none to give).
    if (scenario.decision_digests && step.recorded_digest) {
      writer.Record(LogRecord::kDigest, static_cast<uint64_t>(i + 1),
                    static_cast<uint64_t>(step.recorded_digest->decisions),
                    static_cast<uint64_t>(step.recorded_digest->digest));
    }
    writer.Step(step);
  }
  writer.Record(LogRecord::kEnd, static_cast<uint64_t>(scenario.steps.size()));
  return writer.Take();
}

absl::StatusOr<EventLogContents> ReadEventLog(std::string_view bytes,
                                              const std::string& source_name,
                                              const ScenarioLoadOptions& options) {
  MemorySource source(bytes);
  LogReader reader(&source, source_name, options);
  ALLOCORE_RETURN_IF_ERROR(reader.Start());
  std::vector<ScenarioStep> steps;
  while (true) {
    ScenarioStep step;
    absl::StatusOr<bool> more = reader.NextStep(&step);
    if (!more.ok()) return more.status();
    if (!*more) break;
    steps.push_back(std::move(step));
  }
  ALLOCORE_RETURN_IF_ERROR(reader.RequireHeader());
  EventLogContents contents{.scenario = std::move(reader.scenario()),
                            .warnings = reader.warnings()};
  contents.scenario.steps = std::move(steps);
  return contents;
}

absl::StatusOr<std::unique_ptr<ScenarioStream>> OpenEventLogStream(
    const std::string& path, const ScenarioLoadOptions& options,
    std::vector<std::string>* warnings) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    return errno == EACCES
               ? absl::PermissionDeniedError(internal::Cat(path, ": ", std::strerror(errno)))
               : absl::NotFoundError(internal::Cat(path, ": ", std::strerror(errno)));
  }
  FileSource source(file.get());
  LogReader reader(&source, path, options);
  ALLOCORE_RETURN_IF_ERROR(reader.Start());
  ScenarioStep step;
  while (true) {
    absl::StatusOr<bool> more = reader.NextStep(&step);
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  ALLOCORE_RETURN_IF_ERROR(reader.RequireHeader());
  Scenario header = std::move(reader.scenario());
  if (warnings != nullptr) {
    *warnings = reader.warnings();
  } else {
    for (const std::string& w : reader.warnings()) header.config_warnings.push_back(w);
  }
  return std::make_unique<EventLogStream>(path, std::move(header), reader.steps(),
                                          reader.first_step_offset(), reader.names_before_steps(),
                                          options);
}

}  // namespace allocore::adapters

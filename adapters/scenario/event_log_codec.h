// adapters/scenario/event_log_codec.h — how an event log writes the values it carries.
//
// Each struct a log holds is described once, by a Fields(archive, value) function naming its
// fields in order; LogEncoder and LogDecoder both walk that list, so writing and reading cannot
// disagree, and a field added to a struct without being added here fails the build (the field
// counts below). Encoding (docs/event-log-format.md, "Values"): unsigned integers as LEB128
// varints, signed ones zigzagged first, bools and enum values as varints, doubles as their 8
// little-endian bytes, strings as the number of their name record, optionals as a presence
// flag then the value, lists as a count then the elements, structs as their fields in order.
#ifndef ALLOCORE_ADAPTERS_SCENARIO_EVENT_LOG_CODEC_H_
#define ALLOCORE_ADAPTERS_SCENARIO_EVENT_LOG_CODEC_H_

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "allocore/config.h"
#include "allocore/crc32c.h"
#include "allocore/kernel.h"

namespace allocore::adapters::internal {

// The record types of a log (the first byte of a frame's payload).
enum class LogRecord : uint8_t {
  kName = 1,    // a string, numbered in order of appearance from 0
  kHeader = 2,  // LogHeader
  kNode = 3,    // AddNodeStep, registered up front
  kExpect = 4,  // ScenarioExpect
  kStep = 5,    // ScenarioStep: the StepKind, then the step's fields, then its location
  kEnd = 6,     // the number of steps: a log without it was not finished
  // Version 3, with kLogFlagDecisionDigests: the step number it precedes, the decisions the
  // live kernel made up to and including that step, their running digest (decision_digest.h).
  kDigest = 7,
};

// The file header's flags (version 3 on): a digest record precedes every step that made a
// decision.
inline constexpr uint32_t kLogFlagDecisionDigests = 1;

// What a log says of its scenario besides nodes, steps and expectations.
struct LogHeader {
  std::string name;
  Semantics semantics = Semantics::kYunikorn12;
  std::string source_name;  // the scenario file the log was packed from
  SchedulerConfig config;
  std::vector<std::string> config_warnings;
  // Version 2: how the replay moves the clock, and the kernel's budgets (Scenario::clock,
  // Scenario::budgets).
  StepClock clock = StepClock::kTickBeforeEachStep;
  KernelBudgets budgets;
};

template <typename T, typename U>
concept Is = std::same_as<std::remove_const_t<T>, U>;

// ---- the fields of every struct, in order ----------------------------------------------------

template <typename A, Is<SourceLocation> T>
void Fields(A& a, T& v) {
  a(v.line, v.column);
}
template <typename A, Is<LimitConfig> T>
void Fields(A& a, T& v) {
  a(v.limit, v.users, v.groups, v.max_resources, v.max_applications, v.location, v.field_locations);
}
template <typename A, Is<FilterConfig> T>
void Fields(A& a, T& v) {
  a(v.type, v.users, v.groups);
}
template <typename A, Is<PlacementRuleConfig> T>
void Fields(A& a, T& v) {
  a(v.name, v.create, v.value, v.filter, v.parent, v.location, v.field_locations);
}
template <typename A, Is<ResourcesConfig> T>
void Fields(A& a, T& v) {
  a(v.guaranteed, v.max);
}
template <typename A, Is<ChildTemplateConfig> T>
void Fields(A& a, T& v) {
  a(v.max_applications, v.properties, v.resources, v.location);
}
template <typename A, Is<QueueConfig> T>
void Fields(A& a, T& v) {
  a(v.name, v.parent, v.max_applications, v.properties, v.admin_acl, v.submit_acl, v.resources,
    v.child_template, v.queues, v.limits, v.location, v.field_locations);
}
template <typename A, Is<NodeSortPolicyConfig> T>
void Fields(A& a, T& v) {
  a(v.type, v.resource_weights);
}
template <typename A, Is<PartitionConfig> T>
void Fields(A& a, T& v) {
  a(v.name, v.queues_present, v.queues, v.placement_rules, v.limits, v.preemption_enabled,
    v.node_sort_policy, v.state_dump_file_path, v.quota_preemption_enabled,
    v.user_group_resolver_type, v.location, v.field_locations);
}
template <typename A, Is<SchedulerConfig> T>
void Fields(A& a, T& v) {
  a(v.partitions, v.source_name);
}
template <typename A, Is<KernelBudgets> T>
void Fields(A& a, T& v) {
  a(v.max_applications, v.max_asks, v.max_live_allocations);
}
// The header of a version-1 log, which ends with the config warnings.
template <typename A, Is<LogHeader> T>
void FieldsOfVersion1(A& a, T& v) {
  a(v.name, v.semantics, v.source_name, v.config, v.config_warnings);
}
template <typename A, Is<LogHeader> T>
void Fields(A& a, T& v) {
  FieldsOfVersion1(a, v);
  a(v.clock, v.budgets);
}

template <typename A, Is<NodeSpec> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id, v.capacity, v.occupied, v.schedulable);
}
template <typename A, Is<AddNodeStep> T>
void Fields(A& a, T& v) {
  a(v.node, v.attributes);
}
template <typename A, Is<NodeUpdate> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id, v.capacity, v.occupied, v.schedulable);
}
template <typename A, Is<AppSpec> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id, v.queue, v.user, v.groups, v.tags, v.gang_style,
    v.placeholder_timeout_millis, v.placeholder_ask);
}
template <typename A, Is<AskSpec> T>
void Fields(A& a, T& v) {
  a(v.partition, v.app, v.id, v.resources, v.priority, v.count, v.task_group, v.placeholder,
    v.required_node, v.allow_preemption, v.originator, v.creation_time_millis);
}
template <typename A, Is<ScheduleEvent> T>
void Fields(A& a, T& v) {
  a(v.partition, v.max);
}
template <typename A, Is<ReleaseEvent> T>
void Fields(A& a, T& v) {
  a(v.partition, v.app, v.ask, v.node, v.seq);
}
template <typename A, Is<RemoveAskEvent> T>
void Fields(A& a, T& v) {
  a(v.partition, v.app, v.ask);
}
template <typename A, Is<RemoveApplicationEvent> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id);
}
template <typename A, Is<RemoveNodeEvent> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id);
}
template <typename A, Is<UpdateConfigEvent> T>
void Fields(A& a, T& v) {
  a(v.config);
}
template <typename A, Is<AdvanceEvent> T>
void Fields(A& a, T& v) {
  a(v.millis);
}
template <typename A, Is<ProbeStep> T>
void Fields(A& a, T& v) {
  a(v.ask);
}
template <typename A, Is<RecoverSpec> T>
void Fields(A& a, T& v) {
  a(v.ask, v.node);
}
template <typename A, Is<AllocationUpdate> T>
void Fields(A& a, T& v) {
  a(v.partition, v.app, v.ask, v.node, v.resources);
}
template <typename A, Is<AskUpdate> T>
void Fields(A& a, T& v) {
  a(v.partition, v.app, v.id, v.resources);
}
template <typename A, Is<ForeignAllocationSpec> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id, v.node, v.resources, v.kind);
}
template <typename A, Is<ForeignAllocationUpdate> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id, v.node, v.resources);
}
template <typename A, Is<RemoveForeignAllocationEvent> T>
void Fields(A& a, T& v) {
  a(v.partition, v.id);
}

template <typename A, Is<ExpectedAllocation> T>
void Fields(A& a, T& v) {
  a(v.partition, v.queue, v.app, v.ask, v.node, v.reason, v.from, v.to, v.step, v.seq, v.victims,
    v.location);
}
template <typename A, Is<ScenarioExpect> T>
void Fields(A& a, T& v) {
  a(v.allocations, v.releases, v.app_states, v.recovered, v.quota_preemptions, v.rejected_apps,
    v.errors);
}

template <typename A, typename T>
concept Described = requires(A& a, T& v) {
  Fields(a, v);
};

// ---- framing -----------------------------------------------------------------------------------

inline constexpr size_t kFileHeaderBytes = 16;  // magic, version (u32), flags (u32)
inline constexpr size_t kFrameHeaderBytes = 8;  // payload length (u32), CRC-32C of the payload

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the kernel's, which its snapshots use.
using ::allocore::Crc32c;
void PutU32(std::string* out, uint32_t v);

// ---- writing -----------------------------------------------------------------------------------

// A growing byte string for the writer. A recorder encodes every event as the kernel runs, in
// appends of a few bytes each, and std::string::append's out-of-line call costs more than the
// encoding itself; this appends inline and grows geometrically.
class LogBytes {
 public:
  // Room for `n` more bytes, to be written at the pointer and then kept with Commit.
  char* Reserve(size_t n) {
    if (size_ + n > storage_.size()) [[unlikely]]
      Grow(size_ + n);
    return storage_.data() + size_;
  }
  void Commit(size_t n) { size_ += n; }
  void Append(const char* bytes, size_t n) {
    std::memcpy(Reserve(n), bytes, n);
    size_ += n;
  }
  void Append(std::string_view bytes) { Append(bytes.data(), bytes.size()); }
  void Append(const LogBytes& bytes) { Append(bytes.view()); }
  void Push(char byte) { Append(&byte, 1); }
  void Clear() { size_ = 0; }
  size_t size() const { return size_; }
  const char* data() const { return storage_.data(); }
  std::string_view view() const { return {storage_.data(), size_}; }

 private:
  [[gnu::noinline]] void Grow(size_t at_least) {
    storage_.resize(std::max(2 * storage_.size(), at_least + 64));
  }

  std::string storage_;  // its size is the capacity; size_ bytes of it are written
  size_t size_ = 0;
};

// One frame: length, CRC-32C, payload.
inline void AppendFrame(LogBytes* out, std::string_view payload) {
  const uint32_t length = static_cast<uint32_t>(payload.size());
  const uint32_t crc = Crc32c(payload);
  char* head = out->Reserve(kFrameHeaderBytes + payload.size());
  for (size_t i = 0; i < 4; ++i) {
    head[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    head[4 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  }
  std::memcpy(head + kFrameHeaderBytes, payload.data(), payload.size());
  out->Commit(kFrameHeaderBytes + payload.size());
}

class LogEncoder;

// The names a log has written, by number. A string not written yet gets the next number and
// its name record, framed into `frames` at once (before the record that uses it, which is
// framed when it is complete).
class LogNames {
 public:
  // `max_remembered` > 0: once that many names are remembered they are all forgotten, and a
  // name used again is written again under a new number (a recorder's memory stays bounded
  // however many pod ids it sees; readers number name records in order, whatever their text).
  explicit LogNames(LogBytes* frames, size_t max_remembered = 0)
      : frames_(frames), max_remembered_(max_remembered) {}
  uint64_t Id(const std::string& s);
  void set_max_remembered(size_t max_remembered) { max_remembered_ = max_remembered; }

 private:
  // Recent strings by a cheap slot function, compared before any hash is computed: records
  // repeat the same names (the partition, resource types, applications, nodes, empty optional
  // names) record after record. An entry views the name's stable copy in `texts_`, so
  // refreshing one costs three stores.
  struct Recent {
    std::string_view text;
    uint64_t id = 0;
    bool set = false;
  };
  static size_t Slot(const std::string& s) {
    if (s.empty()) return 0;
    const auto back = static_cast<uint8_t>(s.back());
    const auto middle = static_cast<uint8_t>(s[s.size() / 2]);
    return (s.size() * 131 + back * 31 + middle) % kRecent;
  }
  static constexpr size_t kRecent = 256;
  uint64_t Add(const std::string& s);

  LogBytes* frames_;
  size_t max_remembered_;
  uint64_t next_id_ = 0;
  LogBytes name_payload_;
  std::array<Recent, kRecent> recent_{};
  std::deque<std::string> texts_;  // the names remembered; a deque never moves what it holds
  absl::flat_hash_map<std::string_view, uint64_t> ids_;  // views into texts_
};

// Appends values to `out`. Strings become name numbers (`names`, which writes the name records
// of new ones).
class LogEncoder {
 public:
  LogEncoder(LogBytes* out, LogNames* names) : out_(out), names_(names) {}

  template <typename... T>
  void operator()(const T&... values) {
    (Put(values), ...);
  }

  [[gnu::always_inline]] void Unsigned(uint64_t v) {
    // Written in place: a call per byte (or per number) costs more than the encoding. Most
    // numbers (counts, flags, enums, small ids) take one byte.
    char* bytes = out_->Reserve(10);
    if (v < 0x80) [[likely]] {
      bytes[0] = static_cast<char>(v);
      out_->Commit(1);
      return;
    }
    size_t n = 0;
    while (v >= 0x80) {
      bytes[n++] = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes[n++] = static_cast<char>(v);
    out_->Commit(n);
  }

 private:
  void Put(const std::string& s) { Unsigned(names_->Id(s)); }
  void Put(bool v) { Unsigned(v ? 1 : 0); }
  void Put(double v) {
    const auto bits = std::bit_cast<uint64_t>(v);
    char bytes[8];
    for (size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
    out_->Append(bytes, 8);
  }
  template <std::unsigned_integral T>
  void Put(T v) {
    Unsigned(v);
  }
  template <std::signed_integral T>
  void Put(T v) {
    const auto wide = static_cast<int64_t>(v);
    Unsigned((static_cast<uint64_t>(wide) << 1) ^ static_cast<uint64_t>(wide >> 63));
  }
  template <typename T>
  requires std::is_enum_v<T>
  void Put(T v) { Unsigned(static_cast<uint64_t>(v)); }
  template <typename T>
  void Put(const std::optional<T>& v) {
    Put(v.has_value());
    if (v) Put(*v);
  }
  template <typename T>
  void Put(const std::vector<T>& v) {
    Unsigned(v.size());
    for (const T& element : v) Put(element);
  }
  template <typename T, typename U>
  void Put(const std::pair<T, U>& v) {
    Put(v.first);
    Put(v.second);
  }
  template <typename T>
  requires Described<LogEncoder, const T>
  void Put(const T& v) { Fields(*this, v); }

  LogBytes* out_;
  LogNames* names_;
};

inline uint64_t LogNames::Id(const std::string& s) {
  Recent& recent = recent_[Slot(s)];
  if (recent.set && recent.text.size() == s.size() &&
      std::memcmp(recent.text.data(), s.data(), s.size()) == 0) {
    return recent.id;
  }
  auto found = ids_.find(std::string_view(s));
  if (found != ids_.end()) {
    recent = {.text = found->first, .id = found->second, .set = true};
    return found->second;
  }
  const uint64_t id = Add(s);  // may forget every name, `recent` included
  recent_[Slot(s)] = {.text = texts_.back(), .id = id, .set = true};
  return id;
}

inline uint64_t LogNames::Add(const std::string& s) {
  if (max_remembered_ > 0 && texts_.size() >= max_remembered_) {
    ids_.clear();
    texts_.clear();
    recent_.fill({});
  }
  const uint64_t id = next_id_++;
  ids_.emplace(std::string_view(texts_.emplace_back(s)), id);
  name_payload_.Clear();
  name_payload_.Push(static_cast<char>(LogRecord::kName));
  LogEncoder length(&name_payload_, nullptr);
  length.Unsigned(s.size());
  name_payload_.Append(s);
  AppendFrame(frames_, name_payload_.view());
  return id;
}

// Appends a log's bytes to a string: the file header, then one frame per record. A whole log
// (PackScenario) takes them at the end; a recorder (event_recorder.cc) takes them after every
// record or batch and keeps going, with the names it has written still known.
class LogWriter {
 public:
  explicit LogWriter(uint32_t flags = 0) {
    std::string head(kEventLogMagic);
    PutU32(&head, kEventLogVersion);
    PutU32(&head, flags);
    out_.Append(head);
  }
  // Writes one record: the name records for the strings it uses first, then itself.
  template <typename... T>
  void Record(LogRecord type, const T&... values) {
    payload_.Clear();
    payload_.Push(static_cast<char>(type));
    LogEncoder encoder(&payload_, &names_);  // frames the names it meets into out_
    encoder(values...);
    AppendFrame(&out_, payload_.view());
  }
  void Step(const ScenarioStep& step) {
    std::visit(
        [&](const auto& action) {
          Record(LogRecord::kStep, static_cast<uint64_t>(step.action.index()), action,
                 step.location);
        },
        step.action);
  }
  // See LogNames: 0 (the default, what pack does) writes every string once per log.
  void set_max_remembered_names(size_t max) { names_.set_max_remembered(max); }
  // The bytes written and not yet taken.
  LogBytes& pending() { return out_; }
  std::string Take() { return std::string(out_.view()); }

 private:
  LogBytes out_;
  LogBytes payload_;
  LogNames names_{&out_};
};

// ---- reading -----------------------------------------------------------------------------------

// Reads values from one record's payload. Every read is bounded by the payload; the first
// problem stops the decoding (later reads give defaults) and is kept in error().
class LogDecoder {
 public:
  LogDecoder(std::string_view payload, const std::vector<std::string>* names)
      : in_(payload), names_(names) {}

  template <typename... T>
  void operator()(T&... values) {
    (Get(values), ...);
  }

  uint64_t Unsigned() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= in_.size()) {
        Fail("the record ends inside a number");
        return 0;
      }
      const auto byte = static_cast<uint8_t>(in_[at_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        if (shift == 63 && byte > 1) Fail("a number past 64 bits");
        return v;
      }
    }
    Fail("a number of more than 10 bytes");
    return 0;
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool AtEnd() const { return at_ == in_.size(); }
  void Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

 private:
  // Nested lists (queues within queues, rules within rules) deeper than any valid config.
  static constexpr int kMaxNesting = 2 * kMaxQueueDepth;

  void Get(std::string& s) {
    const uint64_t id = Unsigned();
    if (!ok()) return;
    if (id >= names_->size()) {
      Fail("a reference to name " + std::to_string(id) + ", of " + std::to_string(names_->size()) +
           " defined so far");
      return;
    }
    s = (*names_)[id];
  }
  void Get(bool& v) {
    const uint64_t raw = Unsigned();
    if (raw > 1) Fail("a flag that is neither 0 nor 1");
    v = raw == 1;
  }
  void Get(double& v) {
    if (in_.size() - at_ < 8) {
      Fail("the record ends inside a number");
      return;
    }
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) {
      bits |= static_cast<uint64_t>(static_cast<uint8_t>(in_[at_ + static_cast<size_t>(i)]))
              << (8 * i);
    }
    at_ += 8;
    v = std::bit_cast<double>(bits);
  }
  template <std::unsigned_integral T>
  void Get(T& v) {
    const uint64_t raw = Unsigned();
    if (raw > std::numeric_limits<T>::max()) Fail("a number out of its field's range");
    v = static_cast<T>(raw);
  }
  template <std::signed_integral T>
  void Get(T& v) {
    const uint64_t raw = Unsigned();
    const auto wide = static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
    if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
      Fail("a number out of its field's range");
    }
    v = static_cast<T>(wide);
  }
  template <typename T>
  requires std::is_enum_v<T>
  void Get(T& v) {
    const uint64_t raw = Unsigned();
    if (raw > 255) Fail("an enum value out of range");
    v = static_cast<T>(raw);  // the caller checks the value names an enumerator
  }
  template <typename T>
  void Get(std::optional<T>& v) {
    bool present = false;
    Get(present);
    if (!present || !ok()) {
      v.reset();  // a value decoded in place of an earlier one keeps nothing of it
      return;
    }
    v.emplace();
    Get(*v);
  }
  template <typename T>
  void Get(std::vector<T>& v) {
    const uint64_t count = Unsigned();
    // Every element takes at least one byte: a count past what is left is a lie, refused before
    // it can size anything.
    if (!ok() || count > in_.size() - at_) {
      Fail("a list longer than its record");
      return;
    }
    if (++nesting_ > kMaxNesting) {
      Fail("lists nested deeper than " + std::to_string(kMaxNesting));
      return;
    }
    v.resize(count);
    for (T& element : v) {
      if (!ok()) break;
      Get(element);
    }
    --nesting_;
  }
  template <typename T, typename U>
  void Get(std::pair<T, U>& v) {
    Get(v.first);
    Get(v.second);
  }
  template <typename T>
  requires Described<LogDecoder, T>
  void Get(T& v) { Fields(*this, v); }

  std::string_view in_;
  size_t at_ = 0;
  const std::vector<std::string>* names_;
  int nesting_ = 0;
  std::string error_;
};

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_SCENARIO_EVENT_LOG_CODEC_H_

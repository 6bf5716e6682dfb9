// kernel/src/snapshot_archive.h — how a snapshot writes and reads the values of the kernel's
// tables (share/doc/allocore/docs/snapshot-format.md, "Values").
//
// Each record type is described once, by a Fields(archive, value) function naming its fields
// in order (snapshot_fields.h); SnapshotWriter and SnapshotReader both walk that list, so writing
// and reading cannot disagree. The writer visits const values and changes nothing.
//
// Values: integers as varints (signed ones zigzagged), enums as their value (checked against
// the largest one on reading), doubles as 8 little-endian bytes, names as a number into the
// snapshot's name list (a new name: the next number, then its bytes), optionals and pointers as
// a presence flag and the value, containers as a count and their elements — hash containers
// sorted by key, so that the same state always gives the same bytes.
#ifndef ALLOCORE_KERNEL_SRC_SNAPSHOT_ARCHIVE_H_
#define ALLOCORE_KERNEL_SRC_SNAPSHOT_ARCHIVE_H_

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "allocore/kernel_types.h"
#include "allocore/resource.h"
#include "allocore/semantics.h"
#include "byte_codec.h"
#include "names.h"
#include "partition_records.h"
#include "placement.h"
#include "queue_properties.h"
#include "stable_vector.h"

namespace allocore::internal {

// The largest value of every enum a snapshot holds, for the reader's range check (declared
// before the archives, so that the enums of namespace allocore are found too).

constexpr QueueState EnumLimit(QueueState) { return QueueState::kStopped; }
constexpr AppState EnumLimit(AppState) { return AppState::kResuming; }
constexpr TimerKind EnumLimit(TimerKind) { return TimerKind::kExpire; }
constexpr NodePolicy EnumLimit(NodePolicy) { return NodePolicy::kBinPacking; }
constexpr AppSortPolicy EnumLimit(AppSortPolicy) { return AppSortPolicy::kStateAware; }
constexpr PreemptionPolicy EnumLimit(PreemptionPolicy) { return PreemptionPolicy::kDisabled; }
constexpr PlacementRuleKind EnumLimit(PlacementRuleKind) { return PlacementRuleKind::kRecovery; }
constexpr Semantics EnumLimit(Semantics) { return Semantics::kYunikorn19; }

struct ChildTemplate;
// Exact order ranks (OrderKey::pending) travel as their two 64-bit halves.
__extension__ typedef unsigned __int128 WideBits;

template <typename T, typename U>
concept Is = std::same_as<std::remove_const_t<T>, U>;

template <typename A, typename T>
concept Described = requires(A& a, T& v) {
  Fields(a, v);
};

// The largest value of each enum a snapshot holds: EnumLimit(T{}) (snapshot_fields.h).
template <typename T>
concept LimitedEnum = std::is_enum_v<T> && requires(T v) {
  { EnumLimit(v) } -> std::same_as<T>;
};

class SnapshotWriter {
 public:
  explicit SnapshotWriter(std::string* out) : bytes_(out) {}

  template <typename... T>
  void operator()(const T&... values) {
    (Put(values), ...);
  }
  static constexpr bool kReading = false;

 private:
  void Put(bool v) { bytes_.Unsigned(v ? 1 : 0); }
  void Put(double v) { bytes_.Double(v); }
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) void Put(T v) { bytes_.Unsigned(v); }
  template <std::signed_integral T>
  void Put(T v) {
    bytes_.Signed(v);
  }
  void Put(WideInt v) {
    const auto bits = static_cast<WideBits>(v);
    bytes_.Fixed64(static_cast<uint64_t>(bits));
    bytes_.Fixed64(static_cast<uint64_t>(bits >> 64));
  }
  template <LimitedEnum T>
  void Put(T v) {
    bytes_.Unsigned(static_cast<uint64_t>(v));
  }
  void Put(std::string_view name) {
    auto [it, added] = names_.try_emplace(name, names_.size());
    bytes_.Unsigned(it->second);
    if (added) {
      bytes_.Unsigned(name.size());
      bytes_.Bytes(name);
    }
  }
  void Put(const std::string& s) { Put(std::string_view(s)); }
  void Put(const Resource& r) {
    bytes_.Unsigned(r.present);
    for (int64_t v : r.value) bytes_.Signed(v);
  }
  template <typename T>
  void Put(const std::optional<T>& v) {
    Put(v.has_value());
    if (v) Put(*v);
  }
  template <typename T>
  void Put(const std::unique_ptr<T>& v) {
    Put(v != nullptr);
    if (v) Put(*v);
  }
  // Shared records are written once; later references name the first.
  template <typename T>
  void Put(const std::shared_ptr<const T>& v) {
    if (!v) {
      bytes_.Unsigned(0);
      return;
    }
    auto [it, added] = shared_.try_emplace(v.get(), shared_.size() + 1);
    bytes_.Unsigned(it->second);
    if (added) Put(*v);
  }
  // Owned through a shared pointer but never shared (a placement rule's parent rule).
  template <typename T>
  requires(!std::is_const_v<T>) void Put(const std::shared_ptr<T>& v) {
    Put(v != nullptr);
    if (v) Put(*v);
  }
  template <typename T, typename U>
  void Put(const std::pair<T, U>& v) {
    Put(v.first);
    Put(v.second);
  }
  template <typename... T>
  void Put(const std::tuple<T...>& v) {
    std::apply([this](const auto&... e) { (this->Put(e), ...); }, v);
  }
  template <typename T, size_t N>
  void Put(const std::array<T, N>& v) {
    for (const T& e : v) Put(e);
  }
  template <typename C>
  void Sequence(const C& c) {
    bytes_.Unsigned(c.size());
    for (const auto& e : c) Put(e);
  }
  template <typename T>
  void Put(const std::vector<T>& v) {
    Sequence(v);
  }
  template <typename T>
  void Put(const std::deque<T>& v) {
    Sequence(v);
  }
  template <typename T, size_t kInline>
  void Put(const absl::InlinedVector<T, kInline>& v) {
    Sequence(v);
  }
  template <typename T, size_t kChunk>
  void Put(const StableVector<T, kChunk>& v) {
    Sequence(v);
  }
  template <typename T, typename C>
  void Put(const absl::btree_set<T, C>& v) {
    Sequence(v);
  }
  template <typename K, typename V>
  void Put(const absl::btree_map<K, V>& v) {
    Sequence(v);
  }
  template <typename C>
  void Sorted(const C& c) {
    std::vector<const typename C::value_type*> entries;
    entries.reserve(c.size());
    for (const auto& e : c) entries.push_back(&e);
    auto key = [](const auto* e) -> const auto& {
      if constexpr (requires { typename C::mapped_type; }) {
        return e->first;
      } else {
        return *e;
      }
    };
    std::sort(entries.begin(), entries.end(),
              [&](const auto* a, const auto* b) { return key(a) < key(b); });
    bytes_.Unsigned(entries.size());
    for (const auto* e : entries) Put(*e);
  }
  template <typename T>
  void Put(const absl::flat_hash_set<T>& v) {
    Sorted(v);
  }
  template <typename K, typename V, typename H>
  void Put(const absl::flat_hash_map<K, V, H>& v) {
    Sorted(v);
  }
  template <typename T>
  requires Described<SnapshotWriter, const T>
  void Put(const T& v) { Fields(*this, v); }

  ByteWriter bytes_;
  absl::flat_hash_map<std::string_view, uint64_t> names_;
  absl::flat_hash_map<const void*, uint64_t> shared_;
};

// Reads what SnapshotWriter wrote. Names are interned in `names` (the restored kernel's table).
// Counts are checked against the bytes left (every element takes at least one), so a damaged
// count cannot make the reader allocate more than the input's size.
class SnapshotReader {
 public:
  SnapshotReader(std::string_view in, NameTable* names) : bytes_(in), names_(names) {}

  template <typename... T>
  void operator()(T&... values) {
    (Get(values), ...);
  }
  static constexpr bool kReading = true;

  ByteReader& bytes() { return bytes_; }
  bool ok() const { return bytes_.ok(); }
  void Fail(std::string message) { bytes_.Fail(std::move(message)); }

 private:
  void Get(bool& v) {
    const uint64_t raw = bytes_.Unsigned();
    if (raw > 1) Fail("a flag that is neither 0 nor 1");
    v = raw == 1;
  }
  void Get(double& v) { v = bytes_.Double(); }
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) void Get(T& v) {
    const uint64_t raw = bytes_.Unsigned();
    if (raw > std::numeric_limits<T>::max()) Fail("a number out of its field's range");
    v = static_cast<T>(raw);
  }
  template <std::signed_integral T>
  void Get(T& v) {
    const int64_t raw = bytes_.Signed();
    if (raw < std::numeric_limits<T>::min() || raw > std::numeric_limits<T>::max()) {
      Fail("a number out of its field's range");
    }
    v = static_cast<T>(raw);
  }
  void Get(WideInt& v) {
    const uint64_t low = bytes_.Fixed64();
    const uint64_t high = bytes_.Fixed64();
    v = static_cast<WideInt>((static_cast<WideBits>(high) << 64) | low);
  }
  template <LimitedEnum T>
  void Get(T& v) {
    const uint64_t raw = bytes_.Unsigned();
    if (raw > static_cast<uint64_t>(EnumLimit(T{}))) Fail("an unknown enum value");
    v = ok() ? static_cast<T>(raw) : T{};
  }
  std::string_view Name() {
    const uint64_t id = bytes_.Unsigned();
    if (!ok()) return {};
    if (id < names_read_.size()) return names_read_[static_cast<size_t>(id)];
    if (id != names_read_.size()) {
      Fail("a reference to a name not defined yet");
      return {};
    }
    std::string_view text = bytes_.Bytes(bytes_.Unsigned());
    if (!ok()) return {};
    names_read_.push_back(names_->Intern(text));
    return names_read_.back();
  }
  void Get(std::string_view& v) { v = Name(); }
  void Get(std::string& v) { v = std::string(Name()); }
  void Get(Resource& r) {
    Get(r.present);
    if (r.present >= (ResourceMask{1} << kMaxResourceTypes)) Fail("a resource of unknown types");
    for (int64_t& v : r.value) Get(v);
    // Invariant 1 of allocore/resource.h, which the arithmetic relies on.
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (!r.Has(k) && r.Get(k) != 0) Fail("a quantity of a type the resource does not name");
    }
  }
  template <typename T>
  void Get(std::optional<T>& v) {
    bool present = false;
    Get(present);
    if (!present || !ok()) {
      v.reset();
      return;
    }
    Get(v.emplace());
  }
  template <typename T>
  void Get(std::unique_ptr<T>& v) {
    bool present = false;
    Get(present);
    v.reset();
    if (!present || !ok()) return;
    v = std::make_unique<T>();
    Get(*v);
  }
  template <typename T>
  void Get(std::shared_ptr<const T>& v) {
    const uint64_t id = bytes_.Unsigned();
    v.reset();
    if (id == 0 || !ok()) return;
    auto& table = SharedTable<T>();
    if (id <= table.size()) {
      v = table[static_cast<size_t>(id - 1)];
      return;
    }
    if (id != table.size() + 1) {
      Fail("a reference to a shared record not defined yet");
      return;
    }
    auto fresh = std::make_shared<T>();
    Get(*fresh);
    table.push_back(fresh);
    v = std::move(fresh);
  }
  template <typename T>
  requires(!std::is_const_v<T>) void Get(std::shared_ptr<T>& v) {
    bool present = false;
    Get(present);
    v.reset();
    if (!present || !ok()) return;
    // Chains of parent rules are as deep as a config writes them; a damaged snapshot could
    // nest them without end.
    if (++owned_depth_ > kMaxOwnedDepth) {
      Fail("records nested deeper than any config");
      return;
    }
    v = std::make_shared<T>();
    Get(*v);
    --owned_depth_;
  }
  template <typename T, typename U>
  void Get(std::pair<T, U>& v) {
    Get(v.first);
    Get(v.second);
  }
  template <typename... T>
  void Get(std::tuple<T...>& v) {
    std::apply([this](auto&... e) { (this->Get(e), ...); }, v);
  }
  template <typename T, size_t N>
  void Get(std::array<T, N>& v) {
    for (T& e : v) Get(e);
  }
  // The element count of a container, bounded by the bytes left.
  size_t Count() {
    const uint64_t n = bytes_.Unsigned();
    if (n > bytes_.remaining()) {
      Fail("a count larger than the bytes left");
      return 0;
    }
    return static_cast<size_t>(n);
  }
  template <typename C>
  void Sequence(C& c) {
    c.clear();
    const size_t n = Count();
    for (size_t i = 0; i < n && ok(); ++i) Get(c.emplace_back());
  }
  template <typename T>
  void Get(std::vector<T>& v) {
    Sequence(v);
  }
  template <typename T>
  void Get(std::deque<T>& v) {
    Sequence(v);
  }
  template <typename T, size_t kInline>
  void Get(absl::InlinedVector<T, kInline>& v) {
    Sequence(v);
  }
  template <typename T, size_t kChunk>
  void Get(StableVector<T, kChunk>& v) {
    Sequence(v);
  }
  // Sets and maps: elements are inserted as read; a repeated key is damage.
  template <typename C, typename E>
  void Insert(C& c, E&& e) {
    if (!c.insert(std::forward<E>(e)).second) Fail("a key repeated in a set or map");
  }
  template <typename C>
  void Associative(C& c) {
    c.clear();
    const size_t n = Count();
    for (size_t i = 0; i < n && ok(); ++i) {
      if constexpr (requires { typename C::mapped_type; }) {
        std::remove_const_t<typename C::key_type> key{};
        Get(key);
        typename C::mapped_type value{};
        Get(value);
        if (ok()) Insert(c, std::make_pair(std::move(key), std::move(value)));
      } else {
        typename C::value_type e{};
        Get(e);
        if (ok()) Insert(c, std::move(e));
      }
    }
  }
  template <typename T, typename C>
  void Get(absl::btree_set<T, C>& v) {
    Associative(v);
  }
  template <typename K, typename V>
  void Get(absl::btree_map<K, V>& v) {
    Associative(v);
  }
  template <typename T>
  void Get(absl::flat_hash_set<T>& v) {
    Associative(v);
  }
  template <typename K, typename V, typename H>
  void Get(absl::flat_hash_map<K, V, H>& v) {
    Associative(v);
  }
  template <typename T>
  requires Described<SnapshotReader, T>
  void Get(T& v) { Fields(*this, v); }

  template <typename T>
  std::vector<std::shared_ptr<const T>>& SharedTable() {
    static_assert(std::is_same_v<T, ChildTemplate>, "one shared record type: ChildTemplate");
    return shared_;
  }

  static constexpr int kMaxOwnedDepth = 64;
  int owned_depth_ = 0;
  ByteReader bytes_;
  NameTable* names_;
  std::vector<std::string_view> names_read_;
  // The only record kept behind a shared pointer: a queue's child template, which its
  // descendants inherit (the same object).
  std::vector<std::shared_ptr<const ChildTemplate>> shared_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_SNAPSHOT_ARCHIVE_H_

// Decisions in bulk (allocore_decisions_export) and decisions that own their names (a service's
// batches, a run's decisions): what lets a foreign caller read thousands of decisions in one
// call, and keep them after the kernel moved on.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "allocore/c.h"
#include "c_internal.h"

namespace allocore::c_abi {
namespace {

std::string_view Own(std::string_view name, allocore_decisions_t* out) {
  if (name.empty()) return {};
  auto found = out->owned_index.find(name);
  if (found != out->owned_index.end()) return found->second;
  std::string_view stored = out->owned_names.emplace_back(name);
  out->owned_index.emplace(stored, stored);
  return stored;
}

}  // namespace

void AppendOwned(std::span<const Decision> decisions, allocore_decisions_t* out) {
  out->decisions.reserve(out->decisions.size() + decisions.size());
  for (const Decision& decision : decisions) {
    Decision& copy = out->decisions.emplace_back(decision);
    copy.partition = Own(decision.partition, out);
    copy.queue = Own(decision.queue, out);
    copy.app = Own(decision.app, out);
    copy.ask = Own(decision.ask, out);
    copy.node = Own(decision.node, out);
    copy.replaces = Own(decision.replaces, out);
    copy.by_app = Own(decision.by_app, out);
    copy.by_ask = Own(decision.by_ask, out);
    if (decision.quota != nullptr) {
      auto quota = std::make_shared<QuotaPreemptionDetail>(*decision.quota);
      quota->queue = Own(decision.quota->queue, out);
      copy.quota = quota;
    }
  }
}

}  // namespace allocore::c_abi

namespace {

using allocore::Decision;

// As the per-decision accessors give them (an invalid handle's slot is ALLOCORE_NO_HANDLE).
template <typename Tag>
allocore_handle_t HandleOf(const allocore::EntityHandle<Tag>& handle) {
  return allocore::c_abi::ToC(handle);
}

// Where the next name goes; false when it does not fit.
class NameWriter {
 public:
  NameWriter(char* names, size_t capacity) : names_(names), capacity_(capacity) {}
  size_t used() const { return used_; }
  bool Put(std::string_view name, allocore_span_t* span) {
    span->offset = static_cast<uint32_t>(used_);
    span->len = static_cast<uint32_t>(name.size());
    if (name.empty()) return true;
    if (name.size() > capacity_ - used_) return false;
    std::memcpy(names_ + used_, name.data(), name.size());
    used_ += name.size();
    return true;
  }

 private:
  char* names_;
  size_t capacity_;
  size_t used_ = 0;
};

size_t NamesSize(const Decision& d) {
  return d.partition.size() + d.queue.size() + d.app.size() + d.ask.size() + d.node.size() +
         d.reason.size() + d.replaces.size() + d.by_app.size() + d.by_ask.size() +
         (d.quota != nullptr ? d.quota->queue.size() : 0);
}

void Fill(const Decision& d, NameWriter& names, allocore_decision_record_t* r) {
  *r = allocore_decision_record_t{};
  r->type = static_cast<int32_t>(d.type);
  r->priority = d.priority;
  r->seq = d.seq;
  r->count = d.count;
  r->placeholder = d.placeholder ? 1 : 0;
  r->release_reason = static_cast<uint8_t>(d.release_reason);
  r->from_state = static_cast<uint8_t>(d.from);
  r->to_state = static_cast<uint8_t>(d.to);
  r->app_handle = HandleOf(d.app_handle);
  r->ask_handle = HandleOf(d.ask_handle);
  r->node_handle = HandleOf(d.node_handle);
  // Sizes were checked before: every Put fits.
  (void)names.Put(d.partition, &r->partition);
  (void)names.Put(d.queue, &r->queue);
  (void)names.Put(d.app, &r->app);
  (void)names.Put(d.ask, &r->ask);
  (void)names.Put(d.node, &r->node);
  (void)names.Put(d.reason, &r->reason);
  (void)names.Put(d.replaces, &r->replaces);
  (void)names.Put(d.by_app, &r->by_app);
  (void)names.Put(d.by_ask, &r->by_ask);
  (void)names.Put(d.quota != nullptr ? d.quota->queue : std::string_view(), &r->by_queue);
}

}  // namespace

extern "C" {

const char* allocore_release_reason_name(int reason) {
  if (reason < 0 || reason > static_cast<int>(allocore::ReleaseReason::kQuota)) return "";
  return allocore::ReleaseReasonName(static_cast<allocore::ReleaseReason>(reason)).data();
}

const char* allocore_app_state_name(int state) {
  if (state < 0 || state > static_cast<int>(allocore::AppState::kResuming)) return "";
  return allocore::AppStateName(static_cast<allocore::AppState>(state)).data();
}

size_t allocore_decisions_export(const allocore_decisions_t* decisions, size_t first,
                                 allocore_decision_record_t* records, size_t max_records,
                                 char* names, size_t names_capacity, size_t* names_used,
                                 char** errptr) {
  if (names_used != nullptr) *names_used = 0;
  if (decisions == nullptr || first >= decisions->decisions.size() || max_records == 0) return 0;
  if (records == nullptr || (names == nullptr && names_capacity > 0)) {
    allocore::c_abi::InvalidArgument(errptr, "records and names must not be NULL");
    return 0;
  }
  // Spans hold 32-bit offsets.
  const size_t capacity = std::min<size_t>(names_capacity, std::numeric_limits<uint32_t>::max());
  NameWriter writer(names, capacity);
  size_t written = 0;
  for (size_t i = first; i < decisions->decisions.size() && written < max_records; ++i) {
    const Decision& d = decisions->decisions[i];
    const size_t size = NamesSize(d);
    if (size > capacity - writer.used()) {
      if (written == 0) {
        // What the first decision needs, so the caller can size the buffer and try again.
        if (names_used != nullptr) *names_used = size;
        allocore::c_abi::SetError(
            errptr, absl::StatusCode::kOutOfRange,
            absl::StrCat("decision ", i, " has ", size, " bytes of names; the names buffer holds ",
                         capacity));
      }
      break;
    }
    Fill(d, writer, &records[written]);
    ++written;
  }
  if (written > 0 && names_used != nullptr) *names_used = writer.used();
  return written;
}

}  // extern "C"

// The C numbers are the C++ enumerators' values.
static_assert(static_cast<int>(allocore::ReleaseReason::kReleased) == ALLOCORE_RELEASE_RELEASED);
static_assert(static_cast<int>(allocore::ReleaseReason::kTimeout) == ALLOCORE_RELEASE_TIMEOUT);
static_assert(static_cast<int>(allocore::ReleaseReason::kQuota) == ALLOCORE_RELEASE_QUOTA);
static_assert(static_cast<int>(allocore::AppState::kNew) == ALLOCORE_STATE_NEW);
static_assert(static_cast<int>(allocore::AppState::kRunning) == ALLOCORE_STATE_RUNNING);
static_assert(static_cast<int>(allocore::AppState::kRejected) == ALLOCORE_STATE_REJECTED);
static_assert(static_cast<int>(allocore::AppState::kResuming) == ALLOCORE_STATE_RESUMING);
static_assert(static_cast<int>(allocore::DecisionType::kQuotaPreemption) ==
              ALLOCORE_QUOTA_PREEMPTION);

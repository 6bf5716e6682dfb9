// The C ABI's objects and the helpers every part of it shares (adapters/c: c_api.cc, the
// service, scenarios and the bulk export). Internal: never installed.
#ifndef ALLOCORE_ADAPTERS_C_C_INTERNAL_H_
#define ALLOCORE_ADAPTERS_C_C_INTERNAL_H_

#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/event_recorder.h"
#include "allocore/c.h"
#include "allocore/events.h"
#include "allocore/kernel.h"

struct allocore_kernel_t {
  std::unique_ptr<allocore::Kernel> kernel;
  std::vector<std::string> partition_names;  // for allocore_partition_name
  // A log holds a kernel's whole history: recording starts before the first change, with the
  // config the kernel was created with.
  allocore::SchedulerConfig created_with;
  bool changed = false;                                         // a state-changing call was made
  std::unique_ptr<allocore::adapters::EventRecorder> recorder;  // null: not recording
};

struct allocore_decisions_t {
  std::vector<allocore::Decision> decisions;
  // Decisions that outlive the kernel's names (a service's batches, a run's decisions) point
  // into these copies instead (allocore::c_abi::AppendOwned); a kernel's own calls leave them
  // empty.
  std::deque<std::string> owned_names;
  absl::flat_hash_map<std::string_view, std::string_view> owned_index;
  std::vector<std::shared_ptr<const allocore::QuotaPreemptionDetail>> owned_quota;
};

struct allocore_node_t {
  allocore::NodeUpdate spec;  // the optional fields say what an update changes
};

// A node to add: what the update form leaves out takes the defaults of a new node.
inline allocore::NodeSpec NodeToAdd(const allocore_node_t& node) {
  allocore::NodeSpec spec;
  spec.partition = node.spec.partition;
  spec.id = node.spec.id;
  spec.capacity = node.spec.capacity.value_or(allocore::Quantities{});
  spec.occupied = node.spec.occupied.value_or(allocore::Quantities{});
  spec.schedulable = node.spec.schedulable.value_or(true);
  return spec;
}

struct allocore_app_t {
  allocore::AppSpec spec;
};

struct allocore_ask_t {
  allocore::AskSpec spec;
};

struct allocore_queues_t {
  std::vector<allocore::QueueInfo> queues;
  const allocore::ResourceTypes* types;
  std::shared_ptr<const void> keep_types;  // owns *types when they are not a kernel's
};

struct allocore_nodes_t {
  std::vector<allocore::NodeInfo> nodes;
  const allocore::ResourceTypes* types;
};

struct allocore_allocations_t {
  std::vector<allocore::AllocationInfo> allocations;
  const allocore::ResourceTypes* types;
};

struct allocore_apps_t {
  std::vector<allocore::AppInfo> apps;
  const allocore::ResourceTypes* types;
};

struct allocore_app_info_t {
  allocore::AppInfo info;
  const allocore::ResourceTypes* types;
};

struct allocore_explanations_t {
  std::vector<allocore::PendingExplanation> explanations;
};

struct allocore_probe_t {
  allocore::ProbeResult result;
};

namespace allocore::c_abi {

using allocore::Decision;

// Every message reads "CODE: call: text" (CODE as absl::StatusCodeToString spells it), so a
// caller can print it as it is or branch on allocore_error_code(). `call` defaults to the C
// function that reports (GCC and clang give the caller's name).
inline void SetError(char** errptr, absl::StatusCode code, std::string_view message,
                     const char* call = __builtin_FUNCTION()) {
  if (errptr == nullptr) return;
  // The kernel's messages start with the kernel call ("remove_app: ..."), which the C name
  // already says: "allocore_remove_app_n: remove_app: x" reads "allocore_remove_app_n: x".
  std::string_view c_call(call);
  if (c_call.substr(0, 9) == "allocore_") c_call.remove_prefix(9);
  size_t colon = message.find(": ");
  if (colon != std::string_view::npos && colon > 0 &&
      c_call.substr(0, colon) == message.substr(0, colon) &&
      message.substr(0, colon).find_first_not_of("abcdefghijklmnopqrstuvwxyz_") ==
          std::string_view::npos) {
    message.remove_prefix(colon + 2);
  }
  std::string text = absl::StatusCodeToString(code);
  text.append(": ").append(call).append(": ").append(message);
  std::free(*errptr);
  *errptr = static_cast<char*>(std::malloc(text.size() + 1));
  if (*errptr == nullptr) return;
  std::memcpy(*errptr, text.data(), text.size());
  (*errptr)[text.size()] = '\0';
}
inline void InvalidArgument(char** errptr, std::string_view message,
                            const char* call = __builtin_FUNCTION()) {
  SetError(errptr, absl::StatusCode::kInvalidArgument, message, call);
}

// True when `status` is OK; otherwise reports it.
inline bool Ok(const absl::Status& status, char** errptr, const char* call = __builtin_FUNCTION()) {
  if (status.ok()) return true;
  SetError(errptr, status.code(), std::string(status.message()), call);
  return false;
}

inline std::string Partition(const char* partition) {
  return partition == nullptr ? std::string(allocore::kDefaultPartition) : std::string(partition);
}

inline std::string_view Text(const char* s) { return s == nullptr ? std::string_view() : s; }
// A (pointer, length) string of the *_n calls (NULL with length 0 reads as "").
inline std::string_view Text(const char* s, size_t len) {
  return s == nullptr ? std::string_view() : std::string_view(s, len);
}

// Runs a kernel call that appends decisions, into the caller's list or a scratch one.
template <typename Call>
inline void WithOut(allocore_decisions_t* out, char** errptr, Call&& call,
                    const char* name = __builtin_FUNCTION()) {
  std::vector<Decision> scratch;
  std::vector<Decision>* target = out != nullptr ? &out->decisions : &scratch;
  (void)Ok(call(target), errptr, name);
}

// A state-changing call: while the kernel records, the call as an Event through the recorder
// (which records it when the kernel accepts it); otherwise `direct`, without building the value.
template <typename MakeEvent, typename Direct>
absl::Status Change(allocore_kernel_t* kernel, std::vector<Decision>* target,
                    MakeEvent&& make_event, Direct&& direct) {
  kernel->changed = true;
  if (kernel->recorder) return kernel->recorder->Apply(*kernel->kernel, make_event(), target);
  return direct();
}

// Change into the caller's decisions (WithOut), for the calls by name: `direct(target)` is the
// kernel call, `make_event()` the same call as an Event for the recorder.
template <typename MakeEvent, typename Direct>
void ChangeInto(allocore_kernel_t* kernel, allocore_decisions_t* out, char** errptr,
                const char* call, MakeEvent&& make_event, Direct&& direct) {
  WithOut(
      out, errptr,
      [&](std::vector<Decision>* target) {
        return Change(kernel, target, make_event, [&] { return direct(target); });
      },
      call);
}

// A state-changing call whose recorded event is `spec` itself: `call(kernel, target)` is the
// kernel call.
template <typename Spec, typename Call>
void ApplyInto(allocore_kernel_t* kernel, allocore_decisions_t* out, char** errptr,
               const Spec& spec, Call&& call, const char* name = __builtin_FUNCTION()) {
  ChangeInto(
      kernel, out, errptr, name, [&] { return allocore::Event(spec); },
      [&](std::vector<Decision>* target) { return call(*kernel->kernel, target); });
}

inline const Decision* At(const allocore_decisions_t* d, size_t i) {
  return d != nullptr && i < d->decisions.size() ? &d->decisions[i] : nullptr;
}

// A name as C sees it: interned names are whole std::strings, so their characters end in a
// NUL; an empty view may have no storage at all.
inline const char* Name(std::string_view name, size_t* len) {
  if (len != nullptr) *len = name.size();
  return name.empty() ? "" : name.data();
}

inline int64_t Quantity(const allocore::Resource* resource, const allocore::ResourceTypes* types,
                        const char* type, unsigned char* present) {
  if (present != nullptr) *present = 0;
  if (resource == nullptr || types == nullptr || type == nullptr) return 0;
  int id = types->Find(type);
  if (id < 0 || !resource->Has(id)) return 0;
  if (present != nullptr) *present = 1;
  return resource->Get(id);
}

inline absl::StatusOr<allocore::SchedulerConfig> ConfigFromYaml(const char* yaml, size_t len,
                                                                const char* source_name,
                                                                allocore::Semantics semantics) {
  std::string name = source_name != nullptr ? source_name : "queues.yaml";
  allocore::adapters::ConfigLoadResult loaded = allocore::adapters::LoadConfigText(
      yaml == nullptr ? std::string_view() : std::string_view(yaml, len), name, semantics);
  if (!loaded.config) {
    std::string message;
    for (const allocore::ConfigError& e : loaded.errors) {
      if (e.warning) continue;
      if (!message.empty()) message += "\n";
      message += e.ToString(name);
    }
    return absl::InvalidArgumentError(message);
  }
  return *std::move(loaded.config);
}

// A release a C caller names (NULL or "": the scenario's or the default); InvalidArgument
// naming the known ones otherwise.
inline absl::StatusOr<std::optional<allocore::Semantics>> SemanticsArg(const char* name) {
  if (name == nullptr || name[0] == '\0') return std::nullopt;
  std::optional<allocore::Semantics> semantics = allocore::ParseSemantics(name);
  if (!semantics) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown semantics '", name, "' (known: ", std::string(allocore::SemanticsNames()), ")"));
  }
  return semantics;
}

// The kernel's caps and release as allocore_options_t and allocore_service_options_t give them.
inline absl::StatusOr<allocore::KernelOptions> KernelOptionsOf(int64_t max_applications,
                                                               int64_t max_asks,
                                                               int64_t max_live_allocations,
                                                               const char* semantics) {
  absl::StatusOr<std::optional<allocore::Semantics>> release = SemanticsArg(semantics);
  if (!release.ok()) return release.status();
  allocore::KernelOptions options;
  options.max_applications = max_applications;
  options.max_asks = max_asks;
  options.max_live_allocations = max_live_allocations;
  if (*release) options.semantics = **release;
  return options;
}

inline constexpr allocore_handle_t kNoHandle = {0, 0, ALLOCORE_NO_HANDLE, 0};

template <typename Tag>
allocore_handle_t ToC(const allocore::EntityHandle<Tag>& h) {
  return {h.partition.index, h.partition.serial, h.slot, h.generation};
}

template <typename Handle>
Handle FromC(allocore_handle_t h) {
  Handle handle;
  handle.partition = {.index = h.partition_index, .serial = h.partition_serial};
  handle.slot = h.slot;
  handle.generation = h.generation;
  return handle;
}

template <typename Handle>
allocore_handle_t HandleOrError(const absl::StatusOr<Handle>& found, char** errptr,
                                const char* call = __builtin_FUNCTION()) {
  return Ok(found.status(), errptr, call) ? ToC(*found) : kNoHandle;
}

// `count` entries of parallel arrays; nullopt (with the error set) when the arrays are missing.
inline std::optional<allocore::Quantities> QuantityArrays(const char* const* types,
                                                          const int64_t* values, size_t count,
                                                          char** errptr,
                                                          const char* call = __builtin_FUNCTION()) {
  if (count > 0 && (types == nullptr || values == nullptr)) {
    InvalidArgument(errptr, "types and values must not be NULL when count > 0", call);
    return std::nullopt;
  }
  if (count > allocore::ApiLimits::kMaxQuantityEntries) {
    InvalidArgument(
        errptr,
        absl::StrCat(count, " resource entries is over the limit of ",
                     allocore::ApiLimits::kMaxQuantityEntries, " (ApiLimits::kMaxQuantityEntries)"),
        call);
    return std::nullopt;
  }
  allocore::Quantities quantities;
  quantities.reserve(count);
  for (size_t i = 0; i < count; ++i)
    quantities.emplace_back(std::string(Text(types[i])), values[i]);
  return quantities;
}

// A kernel made elsewhere (a restore, a fork, a scenario run) as the C ABI's object.
allocore_kernel_t* WrapKernel(std::unique_ptr<allocore::Kernel> kernel);

// Appends copies of `decisions` whose names `out` owns, so that they stay valid after the
// kernel that made them changes or goes.
void AppendOwned(std::span<const Decision> decisions, allocore_decisions_t* out);

}  // namespace allocore::c_abi

#endif  // ALLOCORE_ADAPTERS_C_C_INTERNAL_H_

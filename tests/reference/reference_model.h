// reference_model.h — a deliberately naive re-implementation of the allocore scheduler.
//
// The reference model answers the same calls as allocore::Kernel and must produce the same
// decisions. It exists to check the fast kernel (differential tests, fuzzers), so it is written
// to be obviously correct rather than fast:
//   - plain vectors of structs, names as strings, no caches of derived values;
//   - every priority, usage, pending, headroom, share and order is recomputed from scratch
//     whenever it is needed (std::stable_sort over the candidates, then the tie rules);
//   - the scheduling walk follows the pseudo-code of the YuniKorn v1.2.0 semantics document
//     (§6.3 TryAllocate/tryNodes/tryNode, §6.4 reservations) with the compatibility decisions
//     of kernel/README.md.
// Every choice the documents leave open is listed in tests/reference/README.md.
//
// Invariants:
//   1. Deterministic: the same calls give the same decisions.
//   2. A call that returns a non-OK status changed nothing.
//   3. Admission follows the placement rules when the partition has any (dynamic queues and
//      child templates included), else the named queue; user/group limits (the 1.4+
//      enforcement) gate Accepted applications and asks.
//
// Example:
//   auto model = allocore::reference::ReferenceModel::Create(config).value();
//   std::vector<allocore::reference::RefDecision> out;
//   model->AddNode({.id = "node-1", .capacity = {{"memory", 1000}}}, &out);
//   model->AddApplication({.id = "app-1", .queue = "root.a", .user = "alice"}, &out);
//   model->AddAsk({.app = "app-1", .id = "ask-1", .resources = {{"memory", 10}}}, &out);
//   model->Schedule(/*max=*/0, /*partition=*/"", &out);

#ifndef ALLOCORE_TESTS_REFERENCE_REFERENCE_MODEL_H_
#define ALLOCORE_TESTS_REFERENCE_REFERENCE_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "allocore/resource.h"

namespace allocore::reference {

// Resource quantities by type name. Used to compare resources of two implementations whose
// type ids may differ.
using NamedQuantities = std::map<std::string, int64_t>;

// Converts `r` to names. Entries equal to 0 are dropped unless `keep_zeros` (limits, where an
// explicit 0 matters).
NamedQuantities ToNamed(const Resource& r, const ResourceTypes& types, bool keep_zeros = false);
std::string ToString(const NamedQuantities& q);

std::string_view StateName(AppState state);

// One decision with owned strings. Equality ignores `reason` (free text) and the fields that
// are meaningless for the decision type (see Normalized()).
struct RefDecision {
  DecisionType type = DecisionType::kAllocation;
  std::string partition;
  std::string queue;
  std::string app;
  std::string ask;
  std::string node;
  int32_t priority = 0;
  int64_t seq = 0;
  AppState from = AppState::kNew;
  AppState to = AppState::kNew;
  std::string reason;
  ReleaseReason release_reason = ReleaseReason::kReleased;  // kRelease, kAskRemoved
  int64_t count = 0;                                        // kAskRemoved
  bool placeholder = false;                                 // kAllocation, kRelease
  std::string replaces;                                     // kAllocation
  std::string by_app;                                       // kRelease (preempted)
  std::string by_ask;
  std::string by_queue;  // kRelease (quota)
  // kQuotaPreemption: the max and the preemptable amount, by type name (FromKernelDecision
  // fills them only when given the kernel's types).
  std::optional<NamedQuantities> quota_max;
  NamedQuantities quota_preemptable;

  // Clears the fields that do not belong to the type: allocation keeps everything but
  // from/to/reason; release keeps partition/queue/app/ask/node; app_state keeps
  // partition/app/from/to; app_rejected keeps partition/app.
  RefDecision Normalized() const;
  std::string ToString() const;
};
bool operator==(const RefDecision& a, const RefDecision& b);

// Copies a kernel decision into the owned form.
RefDecision FromKernelDecision(const Decision& d, const ResourceTypes* types = nullptr);

struct RefQueueInfo {
  std::string path;
  bool is_leaf = false;
  int32_t priority = 0;  // effective priority presented to the parent
  bool has_pending_priority = false;
  int32_t offset = 0;
  bool fenced = false;
  bool priority_sort_enabled = true;
  std::string sort_policy;  // parents: fair
  std::optional<NamedQuantities> guaranteed;
  std::optional<NamedQuantities> max;
  NamedQuantities allocated;
  NamedQuantities pending;
  uint64_t max_applications = 0;
  uint64_t running_applications = 0;
};

struct RefAppInfo {
  std::string id;
  std::string queue;
  AppState state = AppState::kNew;
  int32_t priority = 0;  // MinInt32 when nothing is pending
  NamedQuantities allocated;
  NamedQuantities pending;
};

class ReferenceModel {
 public:
  // REQUIRES: `config` is valid and normalised (partition names, a `root` top queue).
  // `semantics`: the YuniKorn release to decide like, as KernelOptions::semantics.
  static absl::StatusOr<std::unique_ptr<ReferenceModel>> Create(
      const SchedulerConfig& config, Semantics semantics = Semantics::kYunikorn12);
  ~ReferenceModel();
  ReferenceModel(const ReferenceModel&) = delete;
  ReferenceModel& operator=(const ReferenceModel&) = delete;

  absl::Status AddNode(const NodeSpec& node, std::vector<RefDecision>* out);
  absl::Status UpdateNode(const NodeUpdate& update, std::vector<RefDecision>* out);
  absl::Status RemoveNode(std::string_view partition, std::string_view id,
                          std::vector<RefDecision>* out);
  absl::Status AddApplication(const AppSpec& app, std::vector<RefDecision>* out);
  absl::Status RemoveApplication(std::string_view partition, std::string_view id,
                                 std::vector<RefDecision>* out);
  absl::Status AddAsk(const AskSpec& ask, std::vector<RefDecision>* out);
  absl::Status RemoveAsk(std::string_view partition, std::string_view app, std::string_view ask,
                         std::vector<RefDecision>* out);
  absl::Status ReleaseAllocation(std::string_view partition, std::string_view app,
                                 std::string_view ask, std::string_view node, int64_t seq,
                                 std::vector<RefDecision>* out);
  absl::Status Advance(int64_t millis, std::vector<RefDecision>* out);
  absl::StatusOr<int64_t> Schedule(int64_t max, std::string_view partition,
                                   std::vector<RefDecision>* out);
  // A manager's lifecycle (RecoverAllocation, in-place resize, other schedulers' pods).
  absl::Status RecoverAllocation(const RecoverSpec& spec, std::vector<RefDecision>* out);
  absl::Status UpdateAllocation(const AllocationUpdate& update, std::vector<RefDecision>* out);
  absl::Status UpdateAsk(const AskUpdate& update, std::vector<RefDecision>* out);
  absl::Status AddForeignAllocation(const ForeignAllocationSpec& spec,
                                    std::vector<RefDecision>* out);
  absl::Status UpdateForeignAllocation(const ForeignAllocationUpdate& update,
                                       std::vector<RefDecision>* out);
  absl::Status RemoveForeignAllocation(std::string_view partition, std::string_view id,
                                       std::vector<RefDecision>* out);

  // --- Queries ------------------------------------------------------------------------
  int64_t now_millis() const;
  std::vector<std::string> PartitionNames() const;
  // Every queue path of the partition, depth-first in configuration order (root first).
  std::vector<std::string> QueuePaths(std::string_view partition) const;
  absl::StatusOr<RefQueueInfo> GetQueue(std::string_view partition, std::string_view path) const;
  // The active application with this id if there is one, else the latest admitted application
  // with this id that is Completed. Rejected, expired and removed ones are NotFound.
  absl::StatusOr<RefAppInfo> GetApplication(std::string_view partition, std::string_view id) const;
  // Ids of every application that GetApplication can answer for, in first-added order.
  std::vector<std::string> ApplicationIds(std::string_view partition) const;
  // Number of reservations currently held in the partition (diagnostics).
  int64_t ReservationCount(std::string_view partition) const;
  const ResourceTypes& resource_types() const;

  class Impl;

 private:
  explicit ReferenceModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The kernel's event vocabulary (allocore/events.h) applied to the model, as
// allocore::ApplyEvent applies it to the kernel. The model has no config reload and no
// handles: an UpdateConfigEvent or a by-handle event is Unimplemented.
absl::Status ApplyEvent(ReferenceModel& model, const Event& event, std::vector<RefDecision>* out,
                        int64_t* allocations = nullptr);

}  // namespace allocore::reference

#endif  // ALLOCORE_TESTS_REFERENCE_REFERENCE_MODEL_H_

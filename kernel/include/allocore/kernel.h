// allocore/kernel.h — the allocation kernel: YuniKorn's scheduling decisions, incrementally.
//
// A Kernel owns one or more partitions, each with a queue tree, applications, asks and nodes.
// Callers feed it events (nodes, applications, asks, releases, config reloads, clock ticks)
// and call Schedule(); every observable outcome is appended to a caller-supplied decision
// list in the order it happened.
//
// Guarantees:
//   1. Deterministic: the same calls produce the same decisions, byte for byte.
//   2. A call that returns a non-OK status changed nothing (no state, no decisions).
//   3. Not thread-safe: one caller at a time. No I/O, no wall clock, no globals.
//   4. Decision string views point into names the kernel interned; they stay valid until the
//      next ReleaseUnusedNames() call (for the kernel's lifetime if it is never called).
//
// Example:
//   auto kernel = allocore::Kernel::Create(config).value();
//   std::vector<allocore::Decision> out;
//   kernel->AddNode({.id = "node-1", .capacity = {{"memory", 1000}, {"vcore", 100}}}, &out);
//   kernel->AddApplication({.id = "app-1", .queue = "root.a", .user = "alice"}, &out);
//   kernel->AddAsk({.app = "app-1", .id = "ask-1", .resources = {{"memory", 10}}}, &out);
//   kernel->Schedule(/*max=*/0, /*partition=*/"", &out);   // out now holds the allocation
//
// Designated initializers that leave fields out, as above, are how these structs are meant to
// be filled (the fields left out keep their defaults); GCC's -Wextra warns on each
// (-Wmissing-field-initializers): build with -Wno-missing-field-initializers.
//
// The values the calls take and give (specs, decisions, query answers) are declared in
// allocore/kernel_types.h, which this header includes.
//
// Units: quantities are YuniKorn's, never converted: vcore in milli-cores (4 cores = 4000),
// memory in bytes, other types as the resource manager counts them.

#ifndef ALLOCORE_KERNEL_H_
#define ALLOCORE_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/config.h"
#include "allocore/export.h"
#include "allocore/handles.h"
#include "allocore/kernel_types.h"
#include "allocore/resource.h"
#include "allocore/semantics.h"

namespace allocore {

class ALLOCORE_EXPORT Kernel {
 public:
  // Validates and applies `config`. Errors carry every validation problem, one per line.
  static absl::StatusOr<std::unique_ptr<Kernel>> Create(SchedulerConfig config,
                                                        KernelOptions options = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Hot reload: validated against the running state and applied whole, or refused whole.
  [[nodiscard]] absl::Status UpdateConfig(SchedulerConfig config, std::vector<Decision>* out);

  [[nodiscard]] absl::Status AddNode(const NodeSpec& node, std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateNode(const NodeUpdate& update, std::vector<Decision>* out);
  // Releases (and reports) every allocation on the node, then removes it.
  [[nodiscard]] absl::Status RemoveNode(std::string_view partition, std::string_view id,
                                        std::vector<Decision>* out);

  // Admission: an application that is refused becomes a kAppRejected decision (OK status).
  // Non-OK only for malformed calls (unknown partition, empty id, over an ApiLimits limit) and
  // a full KernelOptions budget.
  [[nodiscard]] absl::Status AddApplication(const AppSpec& app, std::vector<Decision>* out);
  // Releases everything of the application and forgets it.
  [[nodiscard]] absl::Status RemoveApplication(std::string_view partition, std::string_view id,
                                               std::vector<Decision>* out);

  // An id the application knows: under yunikorn-1.2 the ask is replaced (new priority, creation
  // time, repeats); under yunikorn-1.9 it is the same pod, and only the resources of its pending
  // repeats (else of its oldest live allocation) change.
  [[nodiscard]] absl::Status AddAsk(const AskSpec& ask, std::vector<Decision>* out);
  // Drops the still-pending part of an ask; its live allocations stay.
  [[nodiscard]] absl::Status RemoveAsk(std::string_view partition, std::string_view app,
                                       std::string_view ask, std::vector<Decision>* out);
  // Releases the oldest live allocation of the ask (on `node` when given).
  [[nodiscard]] absl::Status ReleaseAllocation(std::string_view partition, std::string_view app,
                                               std::string_view ask, std::string_view node,
                                               std::vector<Decision>* out);
  // Releases exactly the live allocation of the ask whose Decision::seq is `seq` (> 0; on
  // `node` when given): NotFound, nothing changed, when the ask holds no such allocation.
  [[nodiscard]] absl::Status ReleaseAllocation(std::string_view partition, std::string_view app,
                                               std::string_view ask, std::string_view node,
                                               int64_t seq, std::vector<Decision>* out);

  // --- A manager's lifecycle: restart, in-place resize, other schedulers' pods -------------
  // What each call does differs by semantics profile (share/doc/allocore/kernel/README.md
  // "Recovery, resize and foreign pods"); a refused call changes nothing.
  //
  // Takes an allocation that already runs. Refused: unknown application (or one that has
  // finished) or node, count other than 1, zero or negative resources, a placeholder without a
  // task group, an id the application holds pending or live (yunikorn-1.2; under yunikorn-1.9
  // a pending ask is placed where reported and a live one is resized), a full
  // max_live_allocations budget.
  [[nodiscard]] absl::Status RecoverAllocation(const RecoverSpec& spec, std::vector<Decision>* out);
  // yunikorn-1.9 only (FailedPrecondition under yunikorn-1.2, which cannot resize). Refused:
  // unknown application or ask, no live allocation (on `node`), zero or negative resources.
  [[nodiscard]] absl::Status UpdateAllocation(const AllocationUpdate& update,
                                              std::vector<Decision>* out);
  // yunikorn-1.9 only. Refused: unknown application or ask, nothing pending, zero or negative
  // resources.
  [[nodiscard]] absl::Status UpdateAsk(const AskUpdate& update, std::vector<Decision>* out);
  // Refused: unknown node, negative resources. An id already known acts as an update.
  [[nodiscard]] absl::Status AddForeignAllocation(const ForeignAllocationSpec& spec,
                                                  std::vector<Decision>* out);
  // Refused: unknown id, a node other than the one the pod was added on, negative resources.
  [[nodiscard]] absl::Status UpdateForeignAllocation(const ForeignAllocationUpdate& update,
                                                     std::vector<Decision>* out);
  // Refused: unknown id (a pod whose node was removed went with it).
  [[nodiscard]] absl::Status RemoveForeignAllocation(std::string_view partition,
                                                     std::string_view id,
                                                     std::vector<Decision>* out);

  // --- By handle (allocore/handles.h): resolve once, then call without names --------------
  // The same calls as by name, with the same decisions and refusals; a handle whose entity is
  // gone (or a partition a reload replaced) is refused with FailedPrecondition, nothing changed.
  absl::StatusOr<PartitionHandle> FindPartition(std::string_view name) const;
  absl::StatusOr<AppHandle> FindApplication(PartitionHandle partition, std::string_view id) const;
  absl::StatusOr<AskHandle> FindAsk(AppHandle app, std::string_view id) const;
  absl::StatusOr<NodeHandle> FindNode(PartitionHandle partition, std::string_view id) const;
  absl::StatusOr<QueueHandle> FindQueue(PartitionHandle partition, std::string_view path) const;
  absl::StatusOr<QueueInfo> GetQueue(QueueHandle queue) const;
  // The node as ListNodes shows it; foreign_allocations costs O(foreign pods of the partition).
  absl::StatusOr<NodeInfo> GetNode(NodeHandle node) const;
  // The other way: the names of the entity a handle names, for a caller that must turn a call
  // by handle into the same call by name (a recorder writing a log of name-based steps).
  // FailedPrecondition for a stale handle, as the calls by handle refuse it.
  absl::StatusOr<HandleNames> NamesOf(AppHandle app) const;
  absl::StatusOr<HandleNames> NamesOf(AskHandle ask) const;
  absl::StatusOr<HandleNames> NamesOf(NodeHandle node) const;
  // The id of a resource type for AskArgs::resources, registered when new (as an AddAsk by
  // name registers the types it names; at most kMaxResourceTypes).
  absl::StatusOr<int> ResourceTypeId(std::string_view name);
  // Adds an ask (an id the application knows: as AddAsk by name); returns its handle.
  absl::StatusOr<AskHandle> AddAsk(AppHandle app, const AskArgs& ask, std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveAsk(AskHandle ask, std::vector<Decision>* out);
  // Releases the oldest live allocation of the ask, on `node` when it is valid().
  [[nodiscard]] absl::Status ReleaseAllocation(AskHandle ask, NodeHandle node,
                                               std::vector<Decision>* out);
  // Releases exactly the live allocation of the ask whose Decision::seq is `seq` (> 0), on
  // `node` when it is valid(): NotFound, nothing changed, when the ask holds no such allocation.
  [[nodiscard]] absl::Status ReleaseAllocation(AskHandle ask, NodeHandle node, int64_t seq,
                                               std::vector<Decision>* out);
  // RecoverAllocation, UpdateAllocation (the oldest live allocation, on `node` when it is
  // valid()) and UpdateAsk by handle; resources by type id.
  [[nodiscard]] absl::Status RecoverAllocation(AppHandle app, const AskArgs& ask, NodeHandle node,
                                               std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateAllocation(AskHandle ask, NodeHandle node,
                                              const Resource& resources,
                                              std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateAsk(AskHandle ask, const Resource& resources,
                                       std::vector<Decision>* out);
  // AddForeignAllocation on a node by handle (a foreign pod is known by its own id after that:
  // UpdateForeignAllocation and RemoveForeignAllocation take the id).
  [[nodiscard]] absl::Status AddForeignAllocation(NodeHandle node, std::string_view id,
                                                  const Resource& resources, ForeignKind kind,
                                                  std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveApplication(AppHandle app, std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveNode(NodeHandle node, std::vector<Decision>* out);

  // Moves the logical clock forward and fires the timers that became due.
  [[nodiscard]] absl::Status Advance(int64_t millis, std::vector<Decision>* out);
  int64_t now_millis() const;

  // What the kernel holds now, as KernelOptions caps it.
  struct Usage {
    int64_t applications = 0;
    int64_t asks = 0;
    int64_t live_allocations = 0;
  };
  Usage usage() const;
  const KernelOptions& options() const;
  // True when the live allocation budget is full while asks are pending: Schedule cannot
  // allocate until allocations are released.
  bool allocation_budget_blocks() const;

  // Forgets the names (ids, users, groups, task groups) nothing in the kernel refers to any
  // more, so that a manager that sees unique pod ids runs in bounded memory. Views in
  // decisions produced before the call may dangle after it: call it once those decisions have
  // been consumed. Costs O(names + entities); calling it when name_count() has doubled since
  // the last call keeps the cost amortised O(1) per name. Returns how many names went.
  int64_t ReleaseUnusedNames();
  // How many names the kernel holds interned.
  int64_t name_count() const;

  // Runs scheduling cycles until nothing more can be allocated or `max` allocations were made
  // (`max` <= 0: no limit). An empty `partition` schedules every partition in config order.
  // Returns the number of allocations made.
  absl::StatusOr<int64_t> Schedule(int64_t max, std::string_view partition,
                                   std::vector<Decision>* out);

  // --- Read-only queries ---------------------------------------------------------------
  std::vector<std::string> PartitionNames() const;
  // Every queue of the partition in depth-first configuration order (root first).
  absl::StatusOr<std::vector<QueueInfo>> ListQueues(std::string_view partition) const;
  absl::StatusOr<QueueInfo> GetQueue(std::string_view partition, std::string_view path) const;
  absl::StatusOr<AppInfo> GetApplication(std::string_view partition, std::string_view id) const;
  // Inventory, for a manager that reconciles its own records with the kernel's (after a
  // restart, say). Every node of the partition in id order; every application GetApplication
  // answers for, in submission order; the live allocations of the application `app` or on the
  // node `node` (an empty name: no filter), oldest first. NotFound for an unknown partition,
  // or an `app` or `node` the partition does not know. Each costs O(size of its answer), or
  // O(live allocations of the partition) unfiltered.
  absl::StatusOr<std::vector<NodeInfo>> ListNodes(std::string_view partition) const;
  absl::StatusOr<std::vector<AppInfo>> ListApplications(std::string_view partition) const;
  absl::StatusOr<std::vector<AllocationInfo>> ListAllocations(std::string_view partition,
                                                              std::string_view app,
                                                              std::string_view node) const;
  // One entry per ask with pending repeats, with the reason it is not allocated now.
  std::vector<PendingExplanation> ExplainPending() const;
  // ExplainPending's entry for one ask, at the cost of one verdict (not O(pending asks)): for a
  // caller that follows a few asks through a long run. NotFound: an unknown partition,
  // application or ask; FailedPrecondition: the ask has no pending repeats.
  absl::StatusOr<PendingExplanation> ExplainAsk(std::string_view partition, std::string_view app,
                                                std::string_view ask) const;
  // What-if, for an ask that is not submitted (its id is not needed): the node the next
  // scheduling attempt would give it, or the rule that stops it, judged by the gates the walk
  // and ExplainPending use (application admission, queue max and headroom, user/group limits,
  // placeholders, required node, node fit in policy order), as if it were the next ask the walk
  // tried: asks ahead of it in the walk's order are not played out first. Changes nothing and
  // registers no name or resource type. Errors: what AddAsk would refuse for the same spec
  // (unknown partition or application, a limit, count < 1, a zero or negative resource).
  absl::StatusOr<ProbeResult> Probe(const AskSpec& ask) const;
  const ResourceTypes& resource_types() const;

  // --- Snapshots and forks (share/doc/allocore/docs/snapshot-format.md) -------------------
  // The whole state as a versioned byte string: options, clock, the counters that decide
  // order, resource types, and every partition's config as applied, queues, applications,
  // asks, allocations, nodes, reservations, timers and foreign pods. Costs O(state); the same
  // state always gives the same bytes.
  std::string Snapshot() const;
  // A kernel that decides exactly as the one that wrote `snapshot` would from that point on
  // (handles issued before stay valid in it). A manager's restart: restore the last snapshot,
  // then replay what was recorded after it. Refused with InvalidArgument naming the byte
  // offset: not a snapshot, a version newer than kSnapshotVersion, cut short, a checksum that
  // does not match, a state that does not hold together (checked whole: every reference, then
  // every cached value recomputed from scratch). Names nothing refers to are not carried over,
  // so name_count() may be lower.
  static absl::StatusOr<std::unique_ptr<Kernel>> Restore(std::string_view snapshot);
  // A copy for what-if questions ("this node drains", "this config lands", "these pods arrive"):
  // an independent kernel in this one's state, cost O(state); nothing the copy does reaches this
  // kernel. Probe stays the cheap answer for one ask.
  absl::StatusOr<std::unique_ptr<Kernel>> Fork() const;

  // Recomputes every cached value (priorities, orders, usage, pending) from scratch and
  // compares; returns the first difference. For tests and fuzzers.
  [[nodiscard]] absl::Status CheckConsistency() const;

  class Impl;

 private:
  explicit Kernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace allocore

#endif  // ALLOCORE_KERNEL_H_

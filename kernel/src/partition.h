// kernel/src/partition.h — one partition: queue tree, applications, asks, nodes, and the
// scheduling walk over them.
//
// Entities live in flat vectors addressed by dense uint32 slots; removed slots go to a free
// list. What the walk reads (AskHot, App, Queue) is apart from what only calls and queries
// read (Ask, AppSide, QueueSide: side tables by the same slot; kernel/README decision 35). Every
// order the walk needs is kept in a btree and repaired by erase + insert when the key of one entity
// changes (never re-sorted):
//   - Queue::order of a parent: its children with pending > 0 (OrderEntry of OrderKey, §5.1);
//   - Queue::order of a leaf: its applications with pending > 0 (the same, §5.2);
//   - App::ask_order: asks with pending repeats (priority desc, creation order);
//   - Partition::node_index_: all nodes by (score, id), with per-block availability maxima.
// Invariants (checked from scratch by CheckConsistency):
//   1. Queue/app allocated and pending equal the sums of their parts.
//   2. Queue::child_priorities holds exactly the non-"nothing pending" priorities of the
//      children (parents) or applications (leaves); Queue::priority is derived from it.
//   3. Every btree holds exactly the members its rule admits, under their current keys.
//   4. Node allocated equals the sum of its live allocations; node_index_ keys, availability and
//      eligibility are current.
//   5. A node carries at most one reservation; reservation counts match on both sides.
#ifndef ALLOCORE_KERNEL_SRC_PARTITION_H_
#define ALLOCORE_KERNEL_SRC_PARTITION_H_

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "acl.h"
#include "allocore/config.h"
#include "allocore/handles.h"
#include "allocore/kernel.h"
#include "allocore/resource.h"
#include "name_rules.h"
#include "names.h"
#include "node_index.h"
#include "partition_records.h"
#include "placement.h"
#include "queue_order.h"
#include "queue_properties.h"
#include "resource_shapes.h"
#include "semantics_profile.h"
#include "stable_vector.h"

namespace allocore::internal {

class SnapshotReader;
class SnapshotWriter;

class Partition {
 public:
  friend class OrderEntryLess;

  Partition(KernelContext* context, std::string_view name);
  // The queue orders' comparators hold the partition's address: it never moves.
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;

  // Builds or reconciles the queue tree and policies from a validated partition config.
  // `dry_run` checks that the change can be applied to the running state without changing it.
  [[nodiscard]] absl::Status ApplyConfig(const PartitionConfig& config, bool dry_run,
                                         std::vector<Decision>* out);
  // Re-resolves the default node-sort weights (vcore, memory) against the known types.
  void ResolveDefaultNodeWeights();

  [[nodiscard]] absl::Status AddNode(const NodeSpec& spec, std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateNode(const NodeUpdate& update, std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveNode(std::string_view id, std::vector<Decision>* out);
  [[nodiscard]] absl::Status AddApplication(const AppSpec& spec, std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveApplication(std::string_view id, std::vector<Decision>* out);
  [[nodiscard]] absl::Status AddAsk(const AskSpec& spec, std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveAsk(std::string_view app, std::string_view ask,
                                       std::vector<Decision>* out);
  // seq > 0: exactly that allocation; 0: the oldest (on `node` when given).
  [[nodiscard]] absl::Status ReleaseAllocation(std::string_view app, std::string_view ask,
                                               std::string_view node, int64_t seq,
                                               std::vector<Decision>* out);

  // A manager's lifecycle (partition_recovery.cc, partition_resize.cc, partition_foreign.cc).
  [[nodiscard]] absl::Status RecoverAllocation(const RecoverSpec& spec, std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateAllocation(const AllocationUpdate& update,
                                              std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateAsk(const AskUpdate& update, std::vector<Decision>* out);
  [[nodiscard]] absl::Status AddForeignAllocation(const ForeignAllocationSpec& spec,
                                                  std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateForeignAllocation(const ForeignAllocationUpdate& update,
                                                     std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveForeignAllocation(std::string_view id,
                                                     std::vector<Decision>* out);
  // The same by slot (`args.resources` and `resource` hold registered type ids; `node` kNoSlot:
  // any node).
  [[nodiscard]] absl::Status RecoverAllocationAt(uint32_t app, const AskArgs& args, uint32_t node,
                                                 std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateAllocationAt(uint32_t ask, uint32_t node,
                                                const Resource& resource,
                                                std::vector<Decision>* out);
  [[nodiscard]] absl::Status UpdateAskAt(uint32_t ask, const Resource& resource,
                                         std::vector<Decision>* out);
  [[nodiscard]] absl::Status AddForeignAllocationAt(uint32_t node, std::string_view id,
                                                    const Resource& resource, ForeignKind kind,
                                                    std::vector<Decision>* out);

  // Fires every timer due at or before context->now, in due order.
  void FireTimers(std::vector<Decision>* out);
  // (due, start order) of the next timer, for firing timers of all partitions in order.
  std::optional<std::pair<int64_t, int64_t>> NextTimer() const;
  void FireNextTimer(std::vector<Decision>* out);
  // yunikorn-1.9 quota-change preemption (partition_quota_preemption.cc): the first check time
  // (a whole second) after `after` at which the check changes something (nullopt: none while
  // nothing else changes), and the check itself at context->now.
  std::optional<int64_t> NextQuotaCheck(int64_t after) const;
  void QuotaCheck(std::vector<Decision>* out);
  // One scheduling cycle (§6.2). Returns {allocations made, anything changed}.
  std::pair<int64_t, bool> Cycle(std::vector<Decision>* out);
  // Removes everything (partition dropped from the config): releases all allocations.
  void Shutdown(std::vector<Decision>* out);

  std::string_view name() const { return name_; }
  std::vector<QueueInfo> ListQueues() const;
  absl::StatusOr<QueueInfo> GetQueue(std::string_view path) const;
  absl::StatusOr<AppInfo> GetApplication(std::string_view id) const;
  std::vector<NodeInfo> ListNodes() const;
  NodeInfo NodeInfoOf(uint32_t node) const;
  std::vector<AppInfo> ListApplications() const;
  absl::StatusOr<std::vector<AllocationInfo>> ListAllocations(std::string_view app,
                                                              std::string_view node) const;
  void ExplainPending(std::vector<PendingExplanation>* out) const;
  // ExplainPending's entry for one ask; NotFound for an unknown application or ask,
  // FailedPrecondition for an ask without pending repeats.
  absl::StatusOr<PendingExplanation> ExplainAsk(std::string_view app, std::string_view ask) const;
  // Where `ask` (never submitted) would go now, or what stops it (partition_verdict.cc).
  absl::StatusOr<ProbeResult> Probe(const AskSpec& ask) const;

  // --- by slot: what the string calls do once they found their records, and what handles
  // (allocore/handles.h) call directly. A slot's generation moves on when it is freed.
  uint32_t serial() const { return serial_; }
  // The partition's position in the kernel, for the handles its decisions carry.
  void set_index(uint32_t index) { index_ = index; }
  PartitionHandle handle() const { return {.index = index_, .serial = serial_}; }
  AppHandle AppHandleOf(uint32_t app) const {
    return {.partition = handle(), .slot = app, .generation = AppGeneration(app)};
  }
  AskHandle AskHandleOf(uint32_t ask) const {
    return {.partition = handle(), .slot = ask, .generation = AskGeneration(ask)};
  }
  NodeHandle NodeHandleOf(uint32_t node) const {
    return {.partition = handle(), .slot = node, .generation = NodeGeneration(node)};
  }
  uint32_t FindApp(std::string_view id) const;
  uint32_t FindNode(std::string_view id) const;
  uint32_t FindAsk(uint32_t app, std::string_view id) const;
  uint32_t FindQueueSlot(std::string_view path) const { return FindQueue(path); }
  // The queue's description when the slot holds a queue still in the tree.
  std::optional<QueueInfo> LiveQueueInfo(uint32_t queue) const;
  uint32_t AppGeneration(uint32_t app) const { return GenerationOf(app_generations_, app); }
  uint32_t AskGeneration(uint32_t ask) const { return GenerationOf(ask_generations_, ask); }
  uint32_t NodeGeneration(uint32_t node) const { return GenerationOf(node_generations_, node); }
  // The slot when it still holds the record a handle of `generation` named (an application in
  // its queue, a live ask, a registered node), else kNoSlot.
  uint32_t LiveApp(uint32_t app, uint32_t generation) const;
  uint32_t LiveAsk(uint32_t ask, uint32_t generation) const;
  uint32_t LiveNode(uint32_t node, uint32_t generation) const;
  // The ids of live records by slot (the slot from LiveApp, LiveAsk, LiveNode).
  std::string_view AppId(uint32_t app) const { return app_side_[app].id; }
  std::string_view NodeId(uint32_t node) const { return nodes_[node].id; }
  std::string_view AskId(uint32_t ask) const { return asks_[ask].id; }
  uint32_t AskApp(uint32_t ask) const { return ask_hot_[ask].app; }
  [[nodiscard]] absl::Status CheckAskArgs(const AskArgs& args) const;
  // `args.resources` holds registered type ids.
  absl::StatusOr<uint32_t> AddAskTo(uint32_t app, const AskArgs& args, std::vector<Decision>* out);
  // Under asks_are_pods, a re-sent known key: its pending part, else its oldest live allocation,
  // takes `resource`. False when the key names nothing pending or live (it is then a new ask).
  absl::StatusOr<bool> UpdateKnownPod(uint32_t ask, const Resource& resource,
                                      std::vector<Decision>* out);
  [[nodiscard]] absl::Status RemoveAskAt(uint32_t ask, std::vector<Decision>* out);
  // The ask `ask_id` of application `app_id`, or NotFound naming which is unknown.
  absl::StatusOr<uint32_t> NamedAsk(std::string_view app_id, std::string_view ask_id) const;
  // `node`: kNoSlot for the oldest allocation anywhere; `node_id` names a node that is not
  // registered in the refusal.
  [[nodiscard]] absl::Status ReleaseAllocationAt(uint32_t ask, uint32_t node,
                                                 std::string_view node_id, int64_t seq,
                                                 std::vector<Decision>* out);
  void RemoveApplicationAt(uint32_t app, std::vector<Decision>* out);
  void RemoveNodeAt(uint32_t node, std::vector<Decision>* out);
  // Records in use (slots taken and not freed), for the kernel's memory budget.
  Kernel::Usage Usage() const;
  bool HasAsk(std::string_view app, std::string_view ask) const;
  bool HasPending() const;  // some ask has pending repeats
  // Marks every name the partition refers to (partition_names.cc).
  void MarkNames(NameMarks* marks) const;
  [[nodiscard]] absl::Status CheckConsistency() const;

  // Snapshots (snapshot.cc): SaveState writes every table but the caches; LoadState reads them
  // into a partition just constructed, checks every reference, rebuilds the caches and checks
  // the whole state from scratch (InvalidArgument when it does not hold together).
  void SaveState(SnapshotWriter& out) const;
  [[nodiscard]] absl::Status LoadState(SnapshotReader& in);

 private:
  // The tables a snapshot holds, in order (snapshot.cc), for `Self` const (writing) or not.
  template <typename A, typename Self>
  static void StateFields(A& a, Self& self);
  [[nodiscard]] absl::Status CheckRestoredReferences() const;

  // kBlocked: the walk ends without a change (a required-node ask whose reservation result
  // the node cannot take, decision 24).
  enum class Outcome : uint8_t { kNone, kAllocated, kReserved, kBlocked };

  // --- the walk's gates, in the walk's order (ask_gates.h) -------------------------------
  // Why the walk passes an application by, passes an ask by, or places the ask nowhere. The
  // walk skips (or stops) on a refusal; Judge (--explain, Probe) turns the first one into its
  // reason. One list for both, evaluated by the same functions (ask_gates.h, ask_gates.cc), so
  // the two cannot differ in which gates run or in what order.
  enum class Refusal : uint8_t {
    kNone,
    // 1. Application (AppRefusal), for an application that is not yet running (`accepted`):
    kStateAware,           // stateaware admits another application of the leaf first
    kMaxApplications,      // a queue of its path runs maxapplications already
    kUserMaxApplications,  // a user or group maxapplications limit on its path
    // For every application:
    kBackedOff,  // yunikorn-1.9 unschedulable-ask backoff
    // 2. Ask (AskRefusal):
    kAwaitsReplacement,  // a real ask of a task group while placeholders may still replace
    kUserHeadroom,       // a user or group maxresources limit leaves too little
    kQueueHeadroom,      // a queue max (the cluster at the root) leaves too little
    // 3. The walk (WalkRefusal): a required-node ask before this one in the walk can neither
    // be allocated nor reserve its node, and ends every regular walk there.
    kWalkEndsEarlier,
    // 4. Nodes (NodeRefusal; RoomRefusal from the level's max on):
    kRequiredNodeUnknown,  // the required node is not registered
    kRequiredNodeHeld,     // the required node is reserved for a required-node ask
    kQueueMax,             // a level's max (the cluster at the root) refuses the allocation
    kNoRoom,               // the required node, or every node, lacks the room
  };
  // `admitted`: the application stateaware admits in the leaf (AdmittedAcceptedApp).
  Refusal AppRefusal(uint32_t app, bool accepted, uint32_t admitted) const;
  static Refusal AskRefusal(bool awaits_replacement, const Resource& wanted,
                            const std::optional<Resource>& user_headroom,
                            const Resource& queue_headroom);
  // `required`: whether the ask names a node, `required_node` its slot (kNoSlot: not
  // registered). `*node`: the node that takes the ask when nothing refuses.
  [[gnu::always_inline]] Refusal NodeRefusal(uint32_t leaf, const Resource& wanted, bool required,
                                             uint32_t required_node, uint32_t* node) const;
  // NodeRefusal from the level's max on, for one node (`only_node`) or, with kNoSlot, the first
  // node in the index's order that fits (the reserved pass asks it for a reserved node).
  [[gnu::always_inline]] Refusal RoomRefusal(uint32_t leaf, const Resource& wanted,
                                             uint32_t only_node, uint32_t* node) const;
  // Whether a required-node ask the node refuses can reserve it instead (else the walk ends at
  // it: Outcome::kBlocked).
  bool RequiredNodeReservable(int64_t reservations, int64_t pending, const Resource& wanted,
                              uint32_t node) const {
    return reservations < pending && FitIn(nodes_[node].capacity, wanted);
  }
  // The lowest queue of the app's path whose maxapplications an application more would pass
  // (the app itself counted once, already allocating or not), or kNoSlot.
  uint32_t MaxApplicationsBlocker(uint32_t app) const;

  // --- consistency (partition_consistency.cc) ------------------------------------------
  // What the applications add up to per queue, recomputed by CheckApplications.
  struct RecomputedSums {
    std::vector<Resource> pending;
    std::vector<Resource> allocated;
    int64_t placeholders = 0;
  };
  [[nodiscard]] absl::Status CheckAskShapes() const;
  [[nodiscard]] absl::Status CheckTableSizes() const;
  [[nodiscard]] absl::Status CheckApplications(RecomputedSums* sums) const;
  [[nodiscard]] absl::Status CheckQueues(const RecomputedSums& sums) const;
  [[nodiscard]] absl::Status CheckNodes() const;
  [[nodiscard]] absl::Status CheckTimers() const;
  [[nodiscard]] absl::Status CheckReservationsAndIds(const RecomputedSums& sums) const;

  // --- queue tree ---------------------------------------------------------------------
  // REQUIRES: `parent` is a queue of this partition, or kNoSlot for the root alone.
  uint32_t NewQueue(std::string_view name, uint32_t parent, bool dynamic);
  // A fresh application record (a freed slot or a new one), its side record and order key
  // table in step with it.
  uint32_t NewAppSlot();
  // A fresh ask record, hot and cold halves in step (no shape yet).
  uint32_t NewAskSlot();
  // The ask's own fields from `args` (priority, gang membership, required node, preemption
  // flags), the same for an ask added and one recovered.
  void DescribeAsk(uint32_t ask, const AskArgs& args);
  // Gives the node in `slot`, just added to nodes_in_id_order_, its NodeKey::id_rank.
  void AssignIdRank(uint32_t slot);
  // The ask's resources; only for an ask that holds its shape (alive, or released with live
  // allocations left).
  const Resource& ResourceOf(const AskHot& ask) const { return shapes_.Get(ask.shape); }
  uint32_t FindQueue(std::string_view path) const;
  std::vector<uint32_t> PathToRoot(uint32_t queue) const;
  [[nodiscard]] absl::Status ApplyQueueConfig(const QueueConfig& config, uint32_t parent,
                                              const PropertyMap& parent_properties, int64_t order,
                                              absl::flat_hash_set<uint32_t>* seen);
  void RemoveDrainedQueues();
  // Creates the missing queues of `path` below its deepest existing ancestor (§3.3).
  absl::StatusOr<uint32_t> CreateDynamicQueues(std::string_view path);
  // root.@recovery@, created on first use (the yunikorn-1.9 profile's forced applications).
  absl::StatusOr<uint32_t> RecoveryQueue();
  // Placement may put an application in this existing queue: a leaf the user may submit to
  // (and, where the profile says so, not draining).
  bool PlacementTakes(uint32_t queue, std::string_view user,
                      const std::vector<std::string_view>& groups) const;
  // Runs the placement rules; returns the target path or the rejection reason (as error).
  absl::StatusOr<std::string> PlaceApplication(const AppSpec& spec, std::string_view user,
                                               const std::vector<std::string_view>& groups);
  bool SubmitAllowed(uint32_t queue, std::string_view user,
                     const std::vector<std::string_view>& groups) const;

  // --- caches -------------------------------------------------------------------------
  OrderKey ChildKey(uint32_t queue) const;
  // ChildKey and AppKey with other values than the queue's or the application's own: where a
  // probe would put them (ProbePosition). Inline in partition_caches.cc, where both callers are.
  // `pending`, `priority`: nullptr for the queue's own (read after the fair share: the walk's
  // call keeps nothing across it).
  [[gnu::always_inline]] OrderKey ChildKey(uint32_t queue, const Resource* pending,
                                           const int32_t* priority) const;
  // The cluster narrowed by the maxes on the queue's path (what a 1.6+ fair share is measured
  // against where the queue has no guarantee); nullopt without capacity.
  std::optional<Resource> FairMax(uint32_t queue) const;
  // Re-keys the child queues whose fair share reads the cluster's size (profiles that do).
  void ClusterCapacityChanged();
  OrderKey AppKey(uint32_t app) const;
  [[gnu::always_inline]] OrderKey AppKey(uint32_t app, int32_t priority,
                                         int64_t submission_time) const;
  // The full key of an order's member (what OrderEntryLess falls back to).
  const OrderKey& FullKey(const OrderEntry& entry) const {
    return entry.app ? *app_keys_[entry.slot] : *queue_keys_[entry.slot];
  }
  int32_t EffectivePriority(const Queue& queue) const;
  // The queue's effective priority once one child (or application) of priority `old_child`
  // has `new_child` instead (kNoPriority: nothing pending; ask_gates.cc).
  int32_t EffectivePriorityWith(const Queue& queue, int32_t old_child, int32_t new_child) const;
  // Re-derives the app's priority, leaf position and stateaware membership, then walks the
  // queue path up to the root repairing priorities and positions.
  void AppChanged(uint32_t app);
  void QueuePathChanged(uint32_t queue);
  // Moves a member of `order` from the key it holds (`held`, an element of app_keys_ or
  // queue_keys_: nullopt when it is not in the order) to `key` (nullopt: it leaves). When the
  // new key keeps the member between the same neighbours, its entry is rewritten in place
  // instead of erased and inserted.
  void Rekey(Order& order, std::optional<OrderKey>& held, const std::optional<OrderKey>& key,
             bool app);
  // Re-derives the node's score and its entry in the node index (availability, eligibility).
  void RefreshNode(uint32_t node);
  double NodeScore(const Node& node) const;
  double NodeScore(const Resource& capacity, const Resource& available) const;
  void RebuildCaches();

  // --- accounting ---------------------------------------------------------------------
  void AddToPath(uint32_t queue, Resource Queue::*field, const Resource& delta);
  void SubFromPath(uint32_t queue, Resource Queue::*field, const Resource& delta);
  // REQUIRES: `ask` holds its shape (alive, or removed with live allocations); pending >= 0.
  void SetPending(uint32_t ask, int64_t pending);
  // Keeps required_node_pending_ (out of line: SetPending runs for every allocation).
  [[gnu::noinline]] void ListRequiredNodeAsk(uint32_t ask, bool pending);
  // REQUIRES: `app` is a live application record (not freed).
  void Transition(uint32_t app, AppState to, std::vector<Decision>* out);
  // REQUIRES: due >= 0 when `kind` sets a timer (the clock never runs below 0).
  void SetTimer(uint32_t app, TimerKind kind, int64_t due);
  // After an ask removal (`ask_removal`) or a release: Completing when nothing is left.
  void CheckCompletion(uint32_t app, std::vector<Decision>* out, bool ask_removal);
  // Drops every ask of the app (placeholder timeout): pending repeats go, live allocations stay.
  void RemoveAllAsks(uint32_t app);
  // Drops the pending part of an ask and its reservations (RemoveAsk): the ask goes, or stays
  // marked removed while allocations of it live.
  void DropAsk(uint32_t ask);
  void Terminate(uint32_t app, AppState to, std::vector<Decision>* out);
  // REQUIRES: `allocation` is live (taken and not yet released).
  void ReleaseAllocationSlot(uint32_t allocation, ReleaseReason reason, std::vector<Decision>* out,
                             uint32_t by_ask = kNoSlot);
  void ReportRemovalStates(uint32_t app, bool held_allocations, std::vector<Decision>* out);
  void DetachApp(uint32_t app);
  // REQUIRES: the app was detached (DetachApp): no ask and no reservation refers to it.
  void FreeApp(uint32_t app);
  // REQUIRES: `ask` is alive.
  void RemoveAskSlot(uint32_t ask);
  // REQUIRES: index < apps_[app].reservations.size().
  void Unreserve(uint32_t app, size_t index);
  // yunikorn-1.9: whether the reserved pass cancels `r` when its ask does not fit the headroom.
  bool ReservationTimedOut(const Reservation& r) const;
  // For --explain: when yunikorn-1.9 will cancel the reservation of `ask` (the headroom refuses
  // it), as " (... after t=...ms)"; empty otherwise.
  std::string ReservationCancelNote(uint32_t app, uint32_t ask) const;
  void CancelReservationsOfAsk(uint32_t ask);
  void CancelReservationOnNode(uint32_t node);

  // --- recovery, resize, foreign pods ----------------------------------------------------
  // The quantities of a recovery or a resize as registered types: no negative, not all zero
  // (types it registered are taken back on a refusal).
  absl::StatusOr<Resource> PodResources(const Quantities& quantities, std::string_view call,
                                        std::string_view ask);
  // A pod's resources as a handle call gives them: registered types, no negative, not all zero.
  [[nodiscard]] absl::Status CheckPodResource(const Resource& resource, std::string_view call,
                                              std::string_view ask) const;
  // Records an allocation of `ask` on `node` that the scheduler did not decide (kRecovered, no
  // seq), with `resource`; the ask's pending repeats stay as they are.
  void PlaceRecovered(uint32_t ask, uint32_t node, const Resource& resource,
                      std::vector<Decision>* out);
  // The app's state and gang bookkeeping after an allocation joined it (YuniKorn's
  // AddAllocation: a placeholder counts toward the gang, a real one runs the app).
  void AllocationJoined(uint32_t app, bool placeholder, const Resource& resource,
                        std::vector<Decision>* out);
  // Takes `resource` for the allocation in place, everywhere it is counted.
  void ResizeAllocation(uint32_t allocation, const Resource& resource);
  // Takes `resource` for every pending repeat of the ask; its order and reservations stay.
  void ResizePending(uint32_t ask, const Resource& resource);
  // The node's free space changed from `available_before` by a change YuniKorn does not notify
  // the node order of (1.9: foreign pods, resizes): the index learns the new free space, the
  // score stays until the node's next notified change (RefreshNode).
  void NodeFreeSpaceChanged(uint32_t node, const Resource& available_before);
  // A known foreign pod takes `resource` (registered types, no negative).
  [[nodiscard]] absl::Status UpdateForeignAt(std::string_view call, std::string_view id,
                                             const Resource& resource);
  // The node's score as the order sees it: computed from the free space it had at its last
  // notified change.
  double SeenNodeScore(uint32_t node) const;
  // Overflow guards: the refusal when adding `resource` to the node's allocated or occupied
  // total, or to the partition's allocated total, would pass int64 (nothing changed).
  [[nodiscard]] absl::Status AllocationOverflow(std::string_view call, uint32_t node,
                                                const Resource& removed,
                                                const Resource& added) const;
  // The refusal when the ask's pending repeats at `resource` each would take the partition's
  // pending total past int64.
  [[nodiscard]] absl::Status PendingOverflow(std::string_view call, uint32_t ask,
                                             const Resource& resource) const;

  // --- namespace tags (partition_namespace_tags.cc) -------------------------------------
  // The limits an application's namespace tags set on the dynamic leaf it joins.
  void ApplyNamespaceTags(uint32_t queue, const Tags& tags, bool recovery_queue);
  // The tag's resource when it is valid and strictly positive (YuniKorn's rule), else nullopt.
  std::optional<Resource> TagResource(const Tags& tags, std::string_view key);

  // --- quota-change preemption (partition_quota_preemption.cc) --------------------------
  // What a leaf may give back in one run.
  struct QuotaTarget {
    uint32_t leaf;
    Resource preemptable;
  };
  // The max quota-change preemption enforces: the queue's, the cluster's at the root (null:
  // none).
  const Resource* QuotaMax(uint32_t queue) const;
  bool UsageWithinQuota(uint32_t queue) const;
  void SetQuotaStart(uint32_t queue, std::optional<int64_t> start);
  // A configuration set the queue's max and delay (old values given): the start time follows.
  void QuotaConfigChanged(uint32_t queue, const std::optional<Resource>& old_max,
                          int64_t old_delay);
  // A manager's report raised usage on the leaf's path (recovery, placement, resize): a queue
  // now above its max starts its delay.
  void QuotaUsageRaised(uint32_t leaf);
  std::vector<uint32_t> ChildrenInConfigOrder(uint32_t parent) const;
  Resource QuotaPathPreemptable(uint32_t queue) const;
  std::optional<Resource> QuotaPreemptable(uint32_t queue) const;
  void ShareQuotaAmongChildren(uint32_t parent, const Resource& amount,
                               std::vector<QuotaTarget>* targets) const;
  // The leaf's victims for `preemptable`, in the order they are taken.
  std::vector<uint32_t> QuotaVictims(uint32_t leaf, const Resource& preemptable) const;
  void RunQuotaPreemption(uint32_t queue, std::vector<Decision>* out);
  // For --explain: "; root.a is above its max: quota-change preemption at t=...ms", or empty.
  std::string QuotaPreemptionNote(uint32_t queue) const;

  // --- gang scheduling (partition_gang.cc) ------------------------------------------
  TaskGroup* FindTaskGroup(uint32_t app, std::string_view name);
  // A real ask of a task group whose placeholders still hold its place (YuniKorn canReplace).
  bool WaitsForReplacement(uint32_t ask) const;
  bool WaitsForReplacement(uint32_t app, std::string_view task_group, bool placeholder) const;
  void SetPlaceholderTimer(uint32_t app, bool on, int64_t due);
  void PlaceholderAllocated(uint32_t app, const Resource& resource, std::vector<Decision>* out);
  // The app's live placeholder allocations, oldest first.
  std::vector<uint32_t> PlaceholderAllocations(uint32_t app) const;
  // After a placeholder left (release or timeout): timer and state follow-ups.
  void PlaceholderGone(uint32_t app, std::vector<Decision>* out);
  // `released`: a placeholder smaller than its real ask was released (the pass stops there).
  Outcome TryPlaceholderAllocate(uint32_t queue, bool* released, std::vector<Decision>* out);
  Outcome TryPlaceholderAllocateApp(uint32_t app, bool* released, std::vector<Decision>* out);
  // Writes every field of `a` but its age: a new allocation of `ask` on `node`.
  void FillAllocation(Allocation* a, uint32_t ask, uint32_t node, const Resource& resource,
                      int64_t seq) const;
  // A decision about `ask` going to `node` (allocation, preemption): who, where, by handle.
  Decision PlacementDecision(DecisionType type, uint32_t ask, uint32_t node) const;
  void FillPlacement(Decision* out, DecisionType type, uint32_t ask, uint32_t node) const;
  // A live allocation of `ask` on `node` with `resource` and `seq`, counted on the node, the
  // application, the queue path and the user's limits; returns its slot. No decision.
  uint32_t AttachAllocation(uint32_t ask, uint32_t node, const Resource& resource, int64_t seq);
  // Records one allocation of `ask` on `node` (accounting, decision, one repeat less).
  void PlaceAllocation(uint32_t ask, uint32_t node, std::string_view replaces,
                       std::vector<Decision>* out);
  void RunApplication(uint32_t app, std::vector<Decision>* out);
  void ReplacePlaceholder(uint32_t ask, uint32_t placeholder, std::vector<Decision>* out);
  void PlaceholderTimeout(uint32_t app, std::vector<Decision>* out);

  // --- required nodes (partition_required_node.cc) ---------------------------------------
  // The required-node branch of the regular walk; kNone lets the walk go on to the next ask.
  Outcome TryRequiredNode(uint32_t ask, std::vector<Decision>* out);
  // Chooses victims on the reserved node (YuniKorn's required-node preemptor); they are
  // released at the end of the cycle. Returns true when victims were chosen.
  bool TryPreemption(uint32_t ask, uint32_t node);
  std::vector<uint32_t> PreemptionVictims(const Resource& wanted, int32_t priority,
                                          uint32_t node) const;
  void ReleasePreempted(std::vector<Decision>* out);

  // --- general preemption (partition_preemption.cc) ---------------------------------------
  class PreemptionUsage;
  struct VictimCandidate;
  class PreemptionSearch;  // PlanPreemption's phases (partition_preemption.cc)
  struct PreemptionPlan {
    uint32_t node = kNoSlot;                       // kNoSlot: no preemption (why_not says why)
    std::vector<uint32_t> victims;                 // allocation slots
    std::vector<uint32_t> cancel_reservations_on;  // nodes whose reservations the search drops
    std::string why_not;
    std::shared_ptr<PreemptionDetail> detail;
  };
  bool IsAncestorOrSelf(uint32_t queue, uint32_t of) const;
  std::optional<Resource> RemainingGuarantee(uint32_t queue, uint32_t ask_leaf,
                                             const PreemptionUsage& usage) const;
  // Why the ask may not try now (delay, attempt frequency, once only), or empty;
  // `retry_wait` when the attempt frequency is the only reason.
  std::string PreemptionPreconditions(uint32_t ask, bool* retry_wait) const;
  // The whole search for an ask of `app` (`ask_slot` kNoSlot for a probe), without the
  // preconditions; changes nothing.
  PreemptionPlan PlanPreemption(uint32_t app, uint32_t ask_slot, const Resource& ask,
                                int32_t priority, bool nodes_tried) const;
  // The walk's call: kReserved when victims were chosen (they go when the cycle ends).
  Outcome TryGeneralPreemption(uint32_t ask, bool nodes_tried, std::vector<Decision>* out);

  // --- the walk's verdict on one ask (partition_verdict.cc) --------------------------------
  // What the gates read of an ask: one of the partition's (ViewOf) or a probe's (slot kNoSlot).
  struct AskView {
    uint32_t app = kNoSlot;
    uint32_t slot = kNoSlot;
    Resource resource;
    int32_t priority = 0;
    std::string_view required_node;
    std::string_view task_group;
    bool placeholder = false;
    int64_t pending = 0;  // repeats (a probe's count)
    int64_t reservations = 0;
    bool preemption_triggered = false;
    std::optional<int64_t> creation_time;  // a probe's creation_time_millis
  };
  struct Verdict {
    uint32_t node = kNoSlot;  // the node the next scheduling attempt would give the ask
    int64_t victims = 0;      // required node: allocations the preemptor would release there
    std::string reason;       // without a node: the rule that stops it
  };
  // Where an ask sits in the regular walk: its queues below the root, top down, each with its key
  // in its parent's order, then its application's key in the leaf and its own in the
  // application. `reachable` is false when the walk never gets there (a stopped queue, an
  // application outside the orders).
  struct WalkPosition {
    bool reachable = true;
    absl::InlinedVector<std::pair<uint32_t, OrderKey>, 4> queues;
    uint32_t app = kNoSlot;
    OrderKey app_key;
    AskKey ask_key{};
    // Whether the walk visits this position before `other` (both reachable).
    bool VisitedBefore(const WalkPosition& other) const;
  };
  // Gate 3: the first ask of the regular walk (in walk order) that ends it every cycle without a
  // change: a required-node ask that neither fits nor can reserve its node (kNoSlot: none).
  struct WalkEnd {
    uint32_t ask = kNoSlot;
    WalkPosition at;
  };
  AskView ViewOf(uint32_t ask) const;
  // The verdict on a pending ask of `app` in ExplainPending's words; `end`: WalkEndOf(nullptr).
  PendingExplanation ExplainPendingAsk(uint32_t app, uint32_t ask, const WalkEnd& end) const;
  // The gates of the walk in the walk's order, as if `ask` were the next one it tried (asks
  // before it in the walk are not played out, except one that ends the walk: `end`), at
  // `position` (PositionOf, ProbePosition).
  Verdict Judge(const AskView& ask, const WalkEnd& end, const WalkPosition& position) const;
  Verdict JudgeRequiredNode(const AskView& ask, uint32_t node, std::string_view ends_walk) const;
  // "; not preempting: why" or "; preempting ..." for a verdict, empty when preemption is off.
  std::string ExplainPreemption(const AskView& k, bool nodes_tried) const;

  // --- gate 3, the walk's end (ask_gates.cc) ----------------------------------------------
  // The walk's end as it stands, or with the probe at `probe` added (its path's keys change).
  WalkEnd WalkEndOf(const WalkPosition* probe) const;
  // Whether the walk meets `end` before the ask at `position`.
  bool EndsBefore(const WalkEnd& end, const WalkPosition& position) const;
  // Gate 3 for an ask at `position` holding `reservations` (ask_gates.h).
  Refusal WalkRefusal(int64_t reservations, const WalkEnd& end, const WalkPosition& position) const;
  // The position of a pending ask, with the keys of `probe`'s path where it shares them.
  WalkPosition PositionOf(uint32_t ask, const WalkPosition* probe) const;
  // Where a probe would sit once submitted: its path's keys with its pending and priority added
  // (partition_caches.cc).
  WalkPosition ProbePosition(const AskView& probe) const;
  // Whether the walk reaches `ask` and ends there every cycle (see WalkEnd). `probe_app`: an
  // application a probe makes Accepted with pending asks (stateaware), or kNoSlot.
  bool EndsWalk(uint32_t ask, uint32_t probe_app) const;
  // yunikorn-1.9 backoff: the pending repeats before `before` in the app that the walk counts as
  // unschedulable once nothing before them can be placed (TryAllocateAppAsks' count).
  uint64_t UnschedulableBefore(uint32_t app, const AskKey& before) const;
  std::string WalkEndReason(uint32_t ask) const;
  // "; it cannot reserve N either (...)" when a required-node ask its node refuses cannot reserve
  // it instead (the walk ends at it), else empty.
  std::string EndsWalkNote(const AskView& k, uint32_t node) const;

  std::string HeadroomBlocker(uint32_t leaf, const Resource& wanted) const;
  std::string ClosestNode(const Resource& wanted) const;

  // --- scheduling ---------------------------------------------------------------------
  // The types of the root's max, YuniKorn's partition total: the cluster capacity's, without
  // those whose total is zero where the profile prunes them. A pruned type is unlimited in the
  // headroom, as one no node reports: an ask for it is tried on the nodes (and counts as
  // unschedulable for the backoff) instead of being skipped.
  ResourceMask RootMaxTypes() const;
  // Whether the root has a max, without which YuniKorn does not schedule the partition: no node
  // yet, or (pruning) no quantity above zero left.
  bool RootHasMax() const;
  Resource Headroom(uint32_t leaf) const;
  bool CanRunApp(uint32_t app) const { return MaxApplicationsBlocker(app) == kNoSlot; }
  // Whether one level's max (the cluster at the root) takes `delta`: the profile's rule.
  bool LevelMaxAllows(uint32_t queue, const Resource& delta) const;
  bool QueueMaxAllows(uint32_t leaf, const Resource& delta) const;
  // The highest level whose max the allocation would exceed, or kNoSlot.
  uint32_t OverMaxLevel(uint32_t leaf, const Resource& delta) const;
  // Calls fn(child) for the children of `parent` in scheduling order until fn returns true.
  template <typename Fn>
  bool ForEachChildInOrder(uint32_t parent, Fn&& fn) const;
  // The Accepted application a stateaware leaf lets allocate (kNoSlot: none, or another policy):
  // the oldest with pending asks, none while one is Starting. `candidate` counts as one of them
  // (an application Judge or Probe asks about, whose asks are not in the set).
  uint32_t AdmittedAcceptedApp(const Queue& leaf, uint32_t candidate = kNoSlot) const;
  Outcome TryAllocate(uint32_t queue, std::vector<Decision>* out);
  Outcome TryAllocateApp(uint32_t app, const Resource& headroom, std::vector<Decision>* out);
  template <bool kCountsUnschedulable>
  [[gnu::always_inline]] Outcome TryAllocateAppAsks(uint32_t app, const Resource& headroom,
                                                    uint64_t backoff, std::vector<Decision>* out);
  // The unschedulable-ask backoff (yunikorn-1.9): whether the walk skips the app now, and
  // whether an allocated pod of the app sorts after `last` (see TryAllocateApp).
  bool BackedOff(uint32_t app) const {
    // The partition's latest deadline keeps the app's cold record out of the walk when no app
    // can be backed off.
    return context_->now < latest_backoff_deadline_ &&
           context_->now < app_side_[app].backoff_deadline;
  }
  // Sets the app's backoff deadline (now + its leaf's delay); kNone. Out of line: the walk's
  // counting variant stays as small as the plain one.
  [[gnu::noinline]] Outcome BackOff(uint32_t app);
  bool RequestAfter(uint32_t app, const AskKey& last) const;
  Outcome TryNodes(uint32_t ask, std::vector<Decision>* out);
  void Allocate(uint32_t ask, uint32_t node, std::optional<uint32_t> reservation_node,
                std::vector<Decision>* out);
  // False when the node or the ask cannot take the reservation (nothing changed).
  bool Reserve(uint32_t ask, uint32_t node);
  Outcome TryReservedAllocate(uint32_t queue, bool* changed, std::vector<Decision>* out);
  Outcome TryReservedAllocateApp(uint32_t app, const Resource& headroom, bool* changed,
                                 std::vector<Decision>* out);
  void MarkAllocatingAccepted(uint32_t app);

  // --- user and group limits -----------------------------------------------------------
  [[nodiscard]] absl::Status ApplyLimits(const QueueConfig& config, uint32_t queue,
                                         const std::vector<LimitConfig>* partition_limits);
  std::string_view ChooseLimitGroup(uint32_t app) const;
  bool LimitsAllowNewApp(uint32_t app, std::string* why) const;
  // Remaining room under every user/group maxresources on the app's path (nullopt: none).
  std::optional<Resource> LimitHeadroom(uint32_t app) const;
  // Adds (or with `release`, removes) `amount` and `running_delta` running applications to the
  // user's and group's usage on every level of the app's path.
  void TrackLimitUsage(uint32_t app, const Resource& amount, bool release, int64_t running_delta);

  // --- helpers ------------------------------------------------------------------------
  // `what` and `what_id` name the quantities in a refusal (joined only then: this runs for
  // every ask).
  absl::StatusOr<Resource> ToResource(const Quantities& quantities, std::string_view what,
                                      std::string_view what_id = {});
  // The refusal of a node whose capacity would take the partition's total past int64.
  [[nodiscard]] absl::Status CapacityOverflow(std::string_view what, int type) const;
  absl::StatusOr<std::optional<Resource>> ToLimit(const std::optional<QuantityMap>& quantities);
  QueueInfo Info(uint32_t queue) const;
  AppInfo AppInfoOf(uint32_t app) const;
  static uint32_t GenerationOf(const std::vector<uint32_t>& generations, uint32_t slot) {
    return slot < generations.size() ? generations[slot] : 0;
  }
  // Returns the slot to its free list; handles issued for it go stale.
  static void FreeSlot(uint32_t slot, std::vector<uint32_t>* free,
                       std::vector<uint32_t>* generations) {
    if (generations->size() <= slot) generations->resize(slot + 1, 0);
    ++(*generations)[slot];
    free->push_back(slot);
  }
  void EmitState(uint32_t app, AppState from, AppState to, std::vector<Decision>* out) const;

  KernelContext* context_;
  std::string_view name_;
  uint32_t serial_;
  uint32_t index_ = 0;
  // Per slot, how often it was freed (cold: read by handle calls only).
  std::vector<uint32_t> app_generations_;
  std::vector<uint32_t> ask_generations_;
  std::vector<uint32_t> node_generations_;
  uint32_t root_ = kNoSlot;
  std::vector<Queue> queues_;
  std::vector<QueueSide> queue_side_;  // by the same slot
  // Every live queue by its lower-case path (FindQueue: one lookup instead of a walk).
  absl::flat_hash_map<std::string_view, uint32_t> queues_by_path_;
  // The full order key of every queue in its parent's order and every application in its
  // leaf's (nullopt: not a member), by slot, dense: what OrderEntryLess reads on a tie.
  // Sized with queues_ and apps_.
  std::vector<std::optional<OrderKey>> queue_keys_;
  std::vector<std::optional<OrderKey>> app_keys_;
  std::vector<App> apps_;
  std::vector<AppSide> app_side_;  // by the same slot
  std::vector<uint32_t> free_apps_;
  ResourceShapes shapes_;        // the resources of the asks, by AskHot::shape
  std::vector<AskHot> ask_hot_;  // the walk's part of each ask, by slot
  std::vector<Ask> asks_;        // the rest, by the same slot
  std::vector<uint32_t> free_asks_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  // Grows with every allocation; elements never move (references survive an allocation).
  StableVector<Allocation> allocations_;
  std::vector<uint32_t> free_allocations_;
  absl::flat_hash_map<std::string_view, uint32_t> apps_by_id_;
  absl::flat_hash_map<std::string_view, uint32_t> nodes_by_id_;
  // Registered nodes by id, byte-wise: the order in which the preemptor's node choice breaks
  // ties (cold: read by preemption attempts only).
  absl::btree_set<std::pair<std::string_view, uint32_t>> nodes_in_id_order_;
  NodeIndex node_index_;
  // Other schedulers' pods by id. Under yunikorn-1.2 they are part of the node's occupied total
  // (which update_node may also set); under yunikorn-1.9 the total is their sum.
  absl::flat_hash_map<std::string_view, ForeignPod> foreign_;
  // Per node whose free space changed without the node order being told (see
  // NodeFreeSpaceChanged): the free space its score was computed from. RefreshNode clears it.
  absl::flat_hash_map<uint32_t, Resource> score_basis_;
  // (due, start order, app): timers due at the same time fire in the order they were started.
  absl::btree_set<std::tuple<int64_t, int64_t, uint32_t>> timers_;
  std::vector<uint32_t> terminated_apps_;  // completed, awaiting expiry
  Resource cluster_capacity_;
  bool has_nodes_ever_ = false;
  int64_t total_reservations_ = 0;
  PlacementRules placement_;
  bool has_limits_ = false;
  int64_t live_placeholders_ = 0;  // the placeholder pass runs only when some exist
  // Set while a call applies several changes to one application (an allocation and the state
  // change it causes, an ask and the Accepted state, a removal's releases and transitions):
  // AppChanged then leaves the walk up the queue path to the call's last AppChanged or
  // QueuePathChanged, made outside the scope, so the path is walked once with every change
  // applied. Nothing inside such a scope reads the queue orders or priorities.
  // A scope may also name the one application whose AppChanged it makes right after: inside,
  // that application's AppChanged is skipped whole (its key, priority and membership are derived
  // once, with every change applied). A nested scope that names none keeps the outer one's.
  bool defer_path_walk_ = false;
  uint32_t deferred_app_ = kNoSlot;
  class DeferredPathWalk {
   public:
    explicit DeferredPathWalk(Partition* partition, uint32_t app_changed_after = kNoSlot)
        : partition_(partition),
          saved_(partition->defer_path_walk_),
          saved_app_(partition->deferred_app_) {
      partition->defer_path_walk_ = true;
      if (app_changed_after != kNoSlot) partition->deferred_app_ = app_changed_after;
    }
    ~DeferredPathWalk() {
      partition_->defer_path_walk_ = saved_;
      partition_->deferred_app_ = saved_app_;
    }
    DeferredPathWalk(const DeferredPathWalk&) = delete;
    DeferredPathWalk& operator=(const DeferredPathWalk&) = delete;

   private:
    Partition* partition_;
    bool saved_;
    uint32_t saved_app_;
  };
  // Victims chosen in this cycle, released (reason preempted) when it ends. The allocation's
  // age tells whether its slot still holds it (the cycle may release it and reuse the slot).
  struct Victim {
    uint32_t allocation;
    int64_t age;
    uint32_t by_ask;
  };
  std::vector<Victim> preempted_;
  bool preemption_enabled_ = false;   // the partition's preemption.enabled (decision 34.1)
  int preemption_attempts_left_ = 0;  // general preemption attempts left in this leaf visit
  // The latest backoff deadline any application got (yunikorn-1.9; 0: none yet).
  int64_t latest_backoff_deadline_ = 0;
  // preemption.quotapreemptionenabled under a profile that has quota-change preemption.
  bool quota_preemption_enabled_ = false;
  // (start, queue) of every queue with a quota_start: what NextQuotaCheck looks at, so that an
  // advance firing many timers does not scan every queue for each.
  absl::btree_set<std::pair<int64_t, uint32_t>> quota_starts_;
  // Alive asks with a required node and pending repeats: the asks that may end the walk (gate 3).
  // A cache: RebuildCaches derives it.
  absl::btree_set<uint32_t> required_node_pending_;
  bool walk_changed_ = false;  // the regular walk changed state without a result (cancellations)
  const std::vector<LimitConfig>* partition_limits_ = nullptr;  // during ApplyConfig only
  NodePolicy node_policy_ = NodePolicy::kFair;
  std::vector<std::pair<int, double>> node_weights_;  // (type, weight > 0)
  bool default_node_weights_ = false;  // no resourceweights: vcore and memory, resolved lazily
  int64_t next_sibling_order_ = 0;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_PARTITION_H_

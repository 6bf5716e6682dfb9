// allocore/kernel_types.h — the values the Kernel façade (allocore/kernel.h) takes and gives:
// what a call hands in (NodeSpec, AppSpec, AskSpec, the updates, the limits on them), what a
// call gives back (Decision and its details) and what a query answers (QueueInfo ... ProbeResult).
// Plain values: no behaviour beyond naming enum values. Units as in allocore/kernel.h.

#ifndef ALLOCORE_KERNEL_TYPES_H_
#define ALLOCORE_KERNEL_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocore/export.h"
#include "allocore/handles.h"
#include "allocore/resource.h"
#include "allocore/semantics.h"

namespace allocore {

using Quantities = std::vector<std::pair<std::string, int64_t>>;
using Tags = std::vector<std::pair<std::string, std::string>>;

inline constexpr char kDefaultPartition[] = "default";

// What one call may carry. The kernel takes names and numbers from a resource manager it does
// not control; a call over a limit is refused with InvalidArgument naming the limit and the
// value, and changes nothing. Kubernetes object names are at most 253 bytes, label values 63
// and YuniKorn's protocol carries an ask's count as int32: the limits leave ample room for any
// real manager while bounding the cost of a hostile call.
struct ApiLimits {
  // Partition, application, ask, node, task group, resource type, user and group names.
  static constexpr size_t kMaxNameBytes = 1024;
  // A queue path submitted with an application ("root.a.b").
  static constexpr size_t kMaxQueuePathBytes = 4096;
  static constexpr size_t kMaxGroupsPerApplication = 1024;
  static constexpr size_t kMaxTagsPerApplication = 1024;
  static constexpr size_t kMaxTagBytes = 4096;  // a tag's key or value
  // Entries of one Quantities list (there are at most kMaxResourceTypes distinct types).
  static constexpr size_t kMaxQuantityEntries = 64;
  static constexpr int64_t kMaxAskCount = 2147483647;  // int32, as YuniKorn's protocol
};

// A memory budget: caps on what the kernel holds at once, summed over partitions (0: no cap).
// A call that would pass a cap is refused with ResourceExhausted and changes nothing; with
// max_live_allocations reached, Schedule allocates nothing more (ExplainPending says so) until
// allocations are released.
// The snapshot format version this build writes, and the newest it restores (Kernel::Snapshot).
inline constexpr uint32_t kSnapshotVersion = 1;

struct KernelOptions {
  int64_t max_applications = 0;  // application records, including rejected and completed ones
                                 // still remembered until they expire
  int64_t max_asks = 0;          // ask records, including removed asks with live allocations
  int64_t max_live_allocations = 0;
  // Which YuniKorn release the kernel decides like (allocore/semantics.h); fixed for its life.
  Semantics semantics = Semantics::kYunikorn12;
};

enum class AppState : uint8_t {
  kNew,
  kAccepted,
  kStarting,
  kRunning,
  kCompleting,
  kCompleted,
  kFailing,
  kFailed,
  kRejected,
  kExpired,
  kResuming,  // a soft gang whose placeholders timed out, on its way back to Accepted
};
ALLOCORE_EXPORT std::string_view AppStateName(AppState state);

struct NodeSpec {
  std::string partition = kDefaultPartition;
  std::string id;
  Quantities capacity;
  Quantities occupied;  // used outside the scheduler; reduces what is available
  bool schedulable = true;
};

struct NodeUpdate {
  std::string partition = kDefaultPartition;
  std::string id;
  std::optional<Quantities> capacity;
  std::optional<Quantities> occupied;
  std::optional<bool> schedulable;
};

enum class GangStyle : uint8_t { kSoft, kHard };

struct AppSpec {
  std::string partition = kDefaultPartition;
  std::string id;
  std::string queue;  // fully qualified ("root.a.b"); empty when placement rules decide
  std::string user;
  std::vector<std::string> groups;
  Tags tags;  // keys compare case-insensitively; of repeated keys the last one counts
  // Gang scheduling (YuniKorn's AddApplicationRequest): what a placeholder timeout does, when
  // it fires, and the total of the app's placeholders (the app starts once they are allocated).
  GangStyle gang_style = GangStyle::kSoft;
  int64_t placeholder_timeout_millis = 0;  // 0: the default, 15 minutes
  Quantities placeholder_ask;
};

struct AskSpec {
  std::string partition = kDefaultPartition;
  std::string app;
  std::string id;
  Quantities resources;
  int32_t priority = 0;
  int64_t count = 1;
  std::string task_group;        // gang member: a real ask replaces a placeholder of its group
  bool placeholder = false;      // a placeholder of `task_group` (requires one)
  std::string required_node;     // may only run on this node (a DaemonSet pod); may preempt there
  bool allow_preemption = true;  // may this ask's allocations be preempted
  bool originator = false;       // the application's originating pod (preempted last)
  // The pod's creation time (ms on the logical clock, >= 0): see AskArgs::creation_time_millis.
  std::optional<int64_t> creation_time_millis;
};

// The spec as the arguments of the call by handle, with `resources` resolved by the caller
// (Kernel::ResourceTypeId); the views point into `spec`.
ALLOCORE_EXPORT AskArgs AskArgsOf(const AskSpec& spec, const Resource& resources = {});

// An allocation that already runs: a manager restarting with pods it knows are running, or
// one that placed a pending pod itself. The pod is described as an ask (`count` must be 1) with
// the node it runs on; the kernel takes it as reported, without the checks a new allocation
// passes (queue and user limits, node fit, admission), and reports it as a kRecovered decision.
struct RecoverSpec {
  AskSpec ask;
  std::string node;
};

// New resources for a live allocation of an ask, in place (a pod resized by Kubernetes'
// in-place vertical scaling): the oldest live allocation of the ask, the oldest on `node` when
// it is given. The new amount is taken as reported, even past a node's or a queue's limit.
struct AllocationUpdate {
  std::string partition = kDefaultPartition;
  std::string app;
  std::string ask;
  std::string node;
  Quantities resources;
};

// New resources for the pending part of an ask; its place in the order stays.
struct AskUpdate {
  std::string partition = kDefaultPartition;
  std::string app;
  std::string id;
  Quantities resources;
};

// A pod another scheduler placed on a node (YuniKorn's foreign allocation): it takes room on
// the node and counts against no queue, application or user. `static` pods are those a
// preemption could never move (mirror pods); the kind changes no decision, so the kernel does
// not keep it (YuniKorn 1.9 shows it on its REST API only).
enum class ForeignKind : uint8_t { kDefault, kStatic };
struct ForeignAllocationSpec {
  std::string partition = kDefaultPartition;
  std::string id;
  std::string node;
  Quantities resources;  // zero is allowed (a pod without requests)
  ForeignKind kind = ForeignKind::kDefault;
};
struct ForeignAllocationUpdate {
  std::string partition = kDefaultPartition;
  std::string id;
  std::string node;  // empty, or the node the pod was added on
  Quantities resources;
};

enum class DecisionType : uint8_t {
  kAllocation,
  kAppRejected,
  kAppState,
  kRelease,
  kAskRemoved,
  kPreemption,  // an ask chose victims (general preemption); their releases follow
  kRecovered,   // an allocation a manager reported running (RecoverAllocation); no seq
  // yunikorn-1.9: a queue above its max was brought back under it (`queue`, `count` victims,
  // `quota` the max and the amount it could take back); the victims' releases follow.
  kQuotaPreemption,
};
// The type as the decision stream writes it ("allocation", "app_rejected", ...).
ALLOCORE_EXPORT std::string_view DecisionTypeName(DecisionType type);

// Why an allocation was released (kRelease) or pending repeats dropped (kAskRemoved).
enum class ReleaseReason : uint8_t {
  kReleased,   // a release or remove_ask call
  kRemoved,    // its application or node was removed
  kReplaced,   // a placeholder a real ask of its task group replaced
  kPreempted,  // preempted for another ask (`by_app`/`by_ask`)
  kTimeout,    // a placeholder timeout, or a placeholder too small for the real ask
  kQuota,      // yunikorn-1.9 quota-change preemption (`quota`: which queue it enforced)
};
ALLOCORE_EXPORT std::string_view ReleaseReasonName(ReleaseReason reason);

// Why a general preemption took its victims: the queue the victim search was bounded by, the
// preemptor's remaining guarantee, and every victim queue's remaining guarantee, all as they
// were before the attempt (YuniKorn's "remaining guaranteed": guarantee minus usage, min over
// the ancestors that have one; nullopt: no guarantee applies).
struct PreemptionDetail {
  std::string_view fence;  // the fence root's path
  std::optional<Resource> remaining_guarantee;
  struct VictimQueue {
    std::string_view queue;
    std::optional<Resource> remaining_guarantee;
    int64_t victims = 0;
  };
  std::vector<VictimQueue> victim_queues;  // in path order
};

// A quota-change preemption (kQuotaPreemption, and the kRelease records of its victims): the
// queue brought back under its max, that max (the cluster's capacity at the root; nullopt:
// none) and the amount it could take back, in kernel units, as they were when it ran.
struct QuotaPreemptionDetail {
  std::string_view queue;
  std::optional<Resource> max;
  Resource preemptable;
};

struct Decision {
  DecisionType type = DecisionType::kAllocation;
  std::string_view partition;
  std::string_view queue;
  std::string_view app;
  std::string_view ask;
  std::string_view node;
  int32_t priority = 0;  // kAllocation: the ask's priority
  int64_t seq = 0;       // kAllocation: 1, 2, 3, ... over the kernel's lifetime; kRelease: the
                         // released allocation's (0: a recovered allocation, which has none)
  AppState from = AppState::kNew;                           // kAppState
  AppState to = AppState::kNew;                             // kAppState
  std::string reason;                                       // kAppRejected
  ReleaseReason release_reason = ReleaseReason::kReleased;  // kRelease, kAskRemoved
  bool placeholder = false;   // kAllocation, kRelease, kRecovered: a placeholder allocation
  std::string_view replaces;  // kAllocation: the placeholder ask whose place it took
  std::string_view by_app;    // kRelease (kPreempted): who needed the room
  std::string_view by_ask;
  // kAskRemoved: pending repeats dropped; kPreemption, kQuotaPreemption: victims
  int64_t count = 0;
  // kPreemption: which guarantees made the victims eligible (null on every other type).
  std::shared_ptr<const PreemptionDetail> preemption;
  // kQuotaPreemption and its victims' kRelease (kQuota): the run (null on every other record).
  std::shared_ptr<const QuotaPreemptionDetail> quota;
  // The same entities by handle (allocore/handles.h), for managers that keep their own records
  // by slot: the application on every type but kAppRejected, the ask on kAllocation, kRelease
  // and kAskRemoved, the node on kAllocation and kRelease (invalid() where not set). A handle
  // goes stale with its entity, like any handle.
  AppHandle app_handle;
  AskHandle ask_handle;
  NodeHandle node_handle;
};

struct QueueInfo {
  std::string path;
  bool is_leaf = false;
  bool dynamic = false;
  std::string state;                  // Active | Draining | Stopped
  int32_t priority = 0;               // effective priority presented to the parent
  bool has_pending_priority = false;  // false: "nothing pending" (MinInt32)
  int32_t offset = 0;
  bool fenced = false;
  bool priority_sort_enabled = true;
  std::string sort_policy;  // fifo | fair | stateaware (parents: fair)
  std::optional<Resource> guaranteed;
  std::optional<Resource> max;
  Resource allocated;
  Resource pending;
  uint64_t max_applications = 0;
  uint64_t running_applications = 0;
  int depth = 0;
};

struct AppInfo {
  std::string id;
  std::string queue;
  AppState state = AppState::kNew;
  int32_t priority = 0;  // max priority of pending asks (MinInt32 when none)
  Resource allocated;
  Resource pending;
};

// A node as the kernel holds it (Kernel::ListNodes).
struct NodeInfo {
  std::string id;
  Resource capacity;
  Resource allocated;  // the scheduler's allocations, recovered ones included
  Resource occupied;   // other schedulers' pods (and an occupied total a node update set)
  Resource available;  // capacity - allocated - occupied; negative where a pod ran over it
  bool schedulable = true;
  bool reserved = false;            // an ask holds a reservation on it
  int64_t allocations = 0;          // live allocations of the scheduler
  int64_t foreign_allocations = 0;  // other schedulers' pods known by id
};

// A live allocation (Kernel::ListAllocations).
struct AllocationInfo {
  std::string app;
  std::string ask;
  std::string node;
  int64_t seq = 0;  // the allocation record's seq; 0 for a recovered allocation, which has none
  Resource resources;
  int32_t priority = 0;
  bool placeholder = false;
  std::string task_group;
};

// Why an ask is still pending, as answered by Kernel::ExplainPending (no state change).
struct PendingExplanation {
  std::string partition;
  std::string queue;
  std::string app;
  std::string ask;
  int64_t pending_count = 0;
  std::string reason;
};

// Where an ask that was not submitted would go now, as answered by Kernel::Probe.
// The names a handle stands for (Kernel::NamesOf): what the same call by name would pass.
// Views into names the kernel interned, valid as Decision's views are.
struct HandleNames {
  std::string_view partition;
  std::string_view app;  // an ask's application; empty for application and node handles
  std::string_view id;   // the application's, the ask's or the node's id
};

struct ProbeResult {
  std::string partition;
  std::string queue;   // the application's leaf queue
  std::string node;    // the node the next scheduling attempt would give it; empty when stopped
  std::string reason;  // when stopped: the rule, in ExplainPending's words
  int64_t preemption_victims = 0;  // required node: allocations the preemptor would release
};

}  // namespace allocore

#endif  // ALLOCORE_KERNEL_TYPES_H_

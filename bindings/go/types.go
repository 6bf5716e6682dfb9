package allocore

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
)

// Resources are quantities by resource type name, in kernel units ("vcore" in milli-cores,
// "memory" in bytes).
type Resources map[string]int64

// Semantics names the YuniKorn release the kernel decides like.
type Semantics string

const (
	YuniKorn12 Semantics = "yunikorn-1.2" // the default
	YuniKorn19 Semantics = "yunikorn-1.9"
)

// Options of a kernel. The zero value is the default: yunikorn-1.2, no caps.
type Options struct {
	// Semantics: "" is yunikorn-1.2; a release the library does not know is refused
	// (ErrInvalidArgument).
	Semantics Semantics
	// SourceName names the configuration in messages ("queues.yaml:3:5: ..."); "" is
	// "queues.yaml".
	SourceName string
	// Caps on what the kernel holds (0: no cap); a call over one fails with
	// ErrResourceExhausted.
	MaxApplications    int64
	MaxAsks            int64
	MaxLiveAllocations int64
}

// Handle names an application, ask or node of one kernel without strings. A handle whose
// entity is gone is refused (ErrFailedPrecondition, "stale ... handle"), never reused. The
// zero Handle is "none". Handles are comparable and may be map keys.
type Handle struct {
	partitionIndex  uint32
	partitionSerial uint32
	slot            uint32 // the C slot + 1: 0 is ALLOCORE_NO_HANDLE
	generation      uint32
}

// Valid reports whether h names an entity (which may be gone since).
func (h Handle) Valid() bool { return h.slot != 0 }

func (h Handle) String() string {
	if !h.Valid() {
		return "handle(none)"
	}
	return fmt.Sprintf("handle(%d.%d:%d.%d)", h.partitionIndex, h.partitionSerial, h.slot-1, h.generation)
}

func handleOf(h C.allocore_handle_t) Handle {
	if uint32(h.slot) == noHandle {
		return Handle{} // "none", whatever the other fields say
	}
	return Handle{
		partitionIndex:  uint32(h.partition_index),
		partitionSerial: uint32(h.partition_serial),
		slot:            uint32(h.slot) + 1,
		generation:      uint32(h.generation),
	}
}

func (h Handle) c() C.allocore_handle_t {
	return C.allocore_handle_t{
		partition_index:  C.uint32_t(h.partitionIndex),
		partition_serial: C.uint32_t(h.partitionSerial),
		slot:             C.uint32_t(h.slot - 1),
		generation:       C.uint32_t(h.generation),
	}
}

// DecisionType is the kind of a Decision.
type DecisionType int32

// The decision types of allocore/c.h (ALLOCORE_ALLOCATION, ...).
const (
	DecisionAllocation      DecisionType = 0
	DecisionAppRejected     DecisionType = 1
	DecisionAppState        DecisionType = 2
	DecisionRelease         DecisionType = 3
	DecisionAskRemoved      DecisionType = 4
	DecisionPreemption      DecisionType = 5 // an ask chose victims: Node = the node it reserved, Count = victims
	DecisionRecovered       DecisionType = 6 // an allocation reported running; Seq 0
	DecisionQuotaPreemption DecisionType = 7 // yunikorn-1.9: Queue brought back under its max, Count = victims
)

var decisionTypeNames = [...]string{"allocation", "app_rejected", "app_state", "release",
	"ask_removed", "preemption", "recovered", "quota_preemption"}

// String is the type as the decision stream writes it ("allocation", "app_rejected", ...).
func (t DecisionType) String() string {
	if t >= 0 && int(t) < len(decisionTypeNames) {
		return decisionTypeNames[t]
	}
	return fmt.Sprintf("DecisionType(%d)", int32(t))
}

// ReleaseReason says why an allocation was released (DecisionRelease) or pending repeats were
// dropped (DecisionAskRemoved). Other decisions carry the zero value.
type ReleaseReason uint8

// The reasons of allocore/c.h (ALLOCORE_RELEASE_*).
const (
	ReleaseReleased  ReleaseReason = 0 // a release or remove-ask call
	ReleaseRemoved   ReleaseReason = 1 // its application or node was removed
	ReleaseReplaced  ReleaseReason = 2 // a placeholder a real ask of its task group replaced
	ReleasePreempted ReleaseReason = 3 // preempted for another ask (ByApp, ByAsk)
	ReleaseTimeout   ReleaseReason = 4 // a placeholder timeout
	ReleaseQuota     ReleaseReason = 5 // yunikorn-1.9 quota-change preemption (ByQueue)
)

var releaseReasonNames = [...]string{"released", "removed", "replaced", "preempted", "timeout", "quota"}

func (r ReleaseReason) String() string {
	if int(r) < len(releaseReasonNames) {
		return releaseReasonNames[r]
	}
	return fmt.Sprintf("ReleaseReason(%d)", uint8(r))
}

// AppState is an application's state (DecisionAppState's From and To).
type AppState uint8

// The states of allocore/c.h (ALLOCORE_STATE_*).
const (
	StateNew        AppState = 0
	StateAccepted   AppState = 1
	StateStarting   AppState = 2
	StateRunning    AppState = 3
	StateCompleting AppState = 4
	StateCompleted  AppState = 5
	StateFailing    AppState = 6
	StateFailed     AppState = 7
	StateRejected   AppState = 8
	StateExpired    AppState = 9
	StateResuming   AppState = 10
)

var appStateNames = [...]string{"New", "Accepted", "Starting", "Running", "Completing",
	"Completed", "Failing", "Failed", "Rejected", "Expired", "Resuming"}

// String is the state's name ("Accepted", ...), as YuniKorn spells it.
func (s AppState) String() string {
	if int(s) < len(appStateNames) {
		return appStateNames[s]
	}
	return fmt.Sprintf("AppState(%d)", uint8(s))
}

// Decision is one decision of the kernel. Which fields are set depends on Type (see
// allocore/kernel.h's Decision). Names are substrings of one string per chunk of decisions
// read: keeping one decision keeps its chunk's names.
type Decision struct {
	Type      DecisionType
	Partition string
	Queue     string
	App       string
	Ask       string
	Node      string
	Priority  int32 // DecisionAllocation: the ask's priority
	// DecisionAllocation: 1, 2, 3, ... over the kernel's lifetime; DecisionRelease: the released
	// allocation's (0: a recovered allocation).
	Seq   int64
	Count int64 // DecisionAskRemoved: pending repeats dropped; preemptions: victims
	// DecisionAllocation, DecisionRelease, DecisionRecovered: a placeholder allocation.
	Placeholder   bool
	ReleaseReason ReleaseReason // DecisionRelease, DecisionAskRemoved
	From, To      AppState      // DecisionAppState
	Reason        string        // DecisionAppRejected: why
	Replaces      string        // DecisionAllocation: the placeholder ask whose place it took
	ByApp, ByAsk  string        // DecisionRelease (preempted): who needed the room
	ByQueue       string        // DecisionQuotaPreemption and its releases: the queue
	// The application (every type but DecisionAppRejected), the ask (allocation, release, ask
	// removed) and the node (allocation, release) by handle; the zero Handle where none.
	AppHandle, AskHandle, NodeHandle Handle
	// Quota: DecisionQuotaPreemption read from a Kernel; nil otherwise.
	Quota *QuotaDetail
}

// QuotaDetail is a quota preemption's queue max and the amount it could take back, by resource
// type name, as they were when it ran.
type QuotaDetail struct {
	Max         Resources // nil: none
	Preemptable Resources
}

// ReleaseOf is the release of the allocation a DecisionAllocation made: exactly that one, by
// its seq.
func ReleaseOf(d *Decision) Release {
	return Release{Partition: d.Partition, App: d.App, Ask: d.Ask, Node: d.Node, Seq: d.Seq}
}

func (d Decision) String() string {
	switch d.Type {
	case DecisionAllocation, DecisionRelease, DecisionRecovered:
		return fmt.Sprintf("%v %s/%s on %s seq %d", d.Type, d.App, d.Ask, d.Node, d.Seq)
	case DecisionAppState:
		return fmt.Sprintf("%v %s %v -> %v", d.Type, d.App, d.From, d.To)
	case DecisionAppRejected:
		return fmt.Sprintf("%v %s: %s", d.Type, d.App, d.Reason)
	case DecisionAskRemoved:
		return fmt.Sprintf("%v %s/%s x%d (%v)", d.Type, d.App, d.Ask, d.Count, d.ReleaseReason)
	default:
		return fmt.Sprintf("%v %s %s/%s on %s x%d", d.Type, d.Queue, d.App, d.Ask, d.Node, d.Count)
	}
}

// Node describes a node for AddNode and UpdateNode.
type Node struct {
	ID        string
	Partition string // "": the default partition
	// Capacity and Occupied (other schedulers' pods): on AddNode nil is nothing; on UpdateNode
	// nil leaves the value as it is and a non-nil map (even empty) replaces it.
	Capacity Resources
	Occupied Resources
	// Schedulable: nil is schedulable on AddNode and unchanged on UpdateNode.
	Schedulable *bool
}

// App describes an application for AddApp.
type App struct {
	ID        string
	User      string
	Groups    []string
	Tags      map[string]string // keys compare case-insensitively
	Partition string            // "": the default partition
	Queue     string            // fully qualified ("root.a.b"); "": the placement rules decide
	// Gang scheduling: hard style (else soft), placeholder timeout (0: 15 minutes) and the
	// total of the application's placeholders.
	GangHard                 bool
	PlaceholderTimeoutMillis int64
	PlaceholderAsk           Resources
}

// Ask describes an ask (a request for Count allocations of Resources) for AddAsk.
type Ask struct {
	App       string
	ID        string
	Partition string // "": the default partition
	Resources Resources
	Priority  int32
	Count     int64  // 0 is 1
	TaskGroup string // gang member: a real ask replaces a placeholder of its group
	// Placeholder: a placeholder of TaskGroup.
	Placeholder bool
	// RequiredNode: may only run on this node (a DaemonSet pod); may preempt there.
	RequiredNode string
	// NoPreemption: this ask's allocations may not be preempted.
	NoPreemption bool
	// Originator: the application's originating pod (preempted last).
	Originator bool
	// The pod's creation time in ms on the kernel's clock (>= 0), when SetCreationTime is
	// true; otherwise the time the kernel receives the ask. yunikorn-1.9 orders asks of equal
	// priority by it.
	CreationTimeMillis int64
	SetCreationTime    bool
}

// Release names a live allocation to release: the ask's oldest (Seq 0) or exactly the one
// whose DecisionAllocation had Seq; on Node unless it is "".
type Release struct {
	Partition string
	App       string
	Ask       string
	Node      string
	Seq       int64
}

// Usage is what a kernel holds.
type Usage struct {
	Applications    int64
	Asks            int64
	LiveAllocations int64
}

// QueueInfo is one queue as ListQueues (or a service Snapshot) sees it.
type QueueInfo struct {
	Path     string
	Leaf     bool
	State    string // Active | Draining | Stopped
	Priority int32  // the effective priority; meaningful when HasPending
	// HasPending is false when nothing is pending in the queue.
	HasPending          bool
	RunningApplications uint64
	Allocated           Resources
	Pending             Resources
	Guaranteed          Resources // nil: none set
	Max                 Resources // nil: none set
}

// NodeInfo is one node as ListNodes sees it.
type NodeInfo struct {
	ID          string
	Capacity    Resources
	Allocated   Resources
	Occupied    Resources
	Available   Resources // capacity - allocated - occupied (negative where over)
	Schedulable bool
	Allocations int64
}

// AppInfo is one application as ListApps sees it.
type AppInfo struct {
	ID        string
	Queue     string
	State     string
	Allocated Resources
	Pending   Resources
}

// AllocationInfo is one live allocation as ListAllocations sees it.
type AllocationInfo struct {
	App         string
	Ask         string
	Node        string
	Seq         int64 // 0: a recovered allocation
	Resources   Resources
	Placeholder bool
}

// PendingExplanation says why an ask with pending repeats is not allocated now.
type PendingExplanation struct {
	App     string
	Ask     string
	Pending int64
	Reason  string
}

// Bool is a *bool for Node.Schedulable.
func Bool(v bool) *bool { return &v }

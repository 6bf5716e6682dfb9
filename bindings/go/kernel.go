package allocore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Kernel is an allocore kernel: deterministic, synchronous, decided like YuniKorn. Its methods
// are safe from many goroutines (they take a mutex: the C ABI allows calls from any OS
// thread, one at a time). Every call that changes the kernel returns the decisions it made,
// in order; a refused call returns an *Error and changes nothing.
type Kernel struct {
	mu  sync.Mutex
	k   *C.allocore_kernel_t // nil once closed
	f   *C.gocore_frame      // the decisions of the last call, and their export buffers
	enc encoder
}

// NewKernel creates a kernel from a YuniKorn queues.yaml ("" : the built-in default
// configuration). A configuration the kernel refuses, or an unknown Options.Semantics, is
// ErrInvalidArgument.
func NewKernel(queuesYAML string, opts Options) (*Kernel, error) {
	var e encoder
	e.reset()
	source := e.cstr("source name", opts.SourceName)
	semantics := e.cstr("semantics", string(opts.Semantics))
	if e.err != nil {
		return nil, withOp(e.err, "NewKernel")
	}
	yaml, n := goString(queuesYAML)
	r := C.gocore_kernel_create(yaml, n, e.bufPtr(), source, semantics,
		C.int64_t(opts.MaxApplications), C.int64_t(opts.MaxAsks), C.int64_t(opts.MaxLiveAllocations))
	runtime.KeepAlive(queuesYAML)
	return wrapKernel(made("NewKernel", r.kernel, r.err, destroyKernel))
}

// Restore makes a kernel from the bytes of Kernel.Snapshot; it decides exactly as the
// snapshotted kernel would from there on. Bytes it refuses are ErrInvalidArgument.
func Restore(snapshot []byte) (*Kernel, error) {
	var cerr *C.char
	p, n := goBytes(snapshot)
	k := C.allocore_kernel_restore(p, n, &cerr)
	runtime.KeepAlive(snapshot)
	return wrapKernel(made("Restore", k, cerr, destroyKernel))
}

// RestartInfo says what Restart recovered.
type RestartInfo struct {
	RecoveredSeq   int64 // the state is the one after this event
	SnapshotSeq    int64 // the snapshot it started from
	ReplayedEvents int64 // events replayed from the logs after it
	TornTailEvents int64 // 1 when the last log ended inside an event's write
}

// Restart makes the kernel a durable directory holds (a manager's snapshots and event logs).
// ErrNotFound: no snapshot there; ErrDataLoss: none restores.
func Restart(dir string) (*Kernel, RestartInfo, error) {
	var cerr *C.char
	var info C.allocore_restart_info_t
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	k := C.allocore_kernel_restart(cdir, &info, &cerr)
	kernel, err := wrapKernel(made("Restart", k, cerr, destroyKernel))
	if err != nil {
		return nil, RestartInfo{}, err
	}
	return kernel, RestartInfo{int64(info.recovered_seq), int64(info.snapshot_seq),
		int64(info.replayed_events), int64(info.torn_tail_events)}, nil
}

// wrapKernel is the Kernel of a C kernel a call made, or that call's error.
func wrapKernel(k *C.allocore_kernel_t, err error) (*Kernel, error) {
	if err != nil {
		return nil, err
	}
	kernel := &Kernel{k: k, f: newFrame()}
	runtime.SetFinalizer(kernel, (*Kernel).Close)
	return kernel, nil
}

func destroyKernel(k *C.allocore_kernel_t) { C.allocore_kernel_destroy(k) }

// Close destroys the kernel (stopping a recording as allocore_kernel_record_stop would). It is
// idempotent; every later call returns ErrClosed.
func (k *Kernel) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.k == nil {
		return nil
	}
	C.allocore_kernel_destroy(k.k)
	C.gocore_frame_destroy(k.f)
	k.k, k.f = nil, nil
	runtime.SetFinalizer(k, nil)
	return nil
}

// lock takes the kernel's mutex, or returns ErrClosed (without the mutex) when it is closed.
// The caller defers k.mu.Unlock(), which also keeps k (and its C kernel) alive through the
// call.
func (k *Kernel) lock(op string) error {
	return lockOpen(op, &k.mu, func() bool { return k.k != nil })
}

// acquire is lock, with the kernel's encoder: one call at a time uses both.
func (k *Kernel) acquire(op string) (*encoder, error) {
	if err := k.lock(op); err != nil {
		return nil, err
	}
	k.enc.reset()
	return &k.enc, nil
}

func (k *Kernel) release(*encoder) { k.mu.Unlock() }

// run makes the kernel call `code` (one cgo call) with the arguments pack puts in the encoder
// and appends its decisions to dst (returned as it was on an error); result is the call's
// integer result (Schedule's allocations). text is UpdateConfig's YAML.
func (k *Kernel) run(op string, code C.int, text string, dst []Decision, pack func(*encoder)) (ds []Decision, result int64, err error) {
	ds, err = invoke(k, op, pack, func(e *encoder) ([]Decision, error) {
		p, n := goString(text)
		cerr := C.gocore_kernel_call(code, cptr(unsafe.Pointer(k.k)), cptr(unsafe.Pointer(k.f)), e.bufPtr(), &e.call,
			e.strsPtr(), e.resPtr(), p, n)
		runtime.KeepAlive(text)
		if cerr != nil {
			return dst, errorFrom(op, cerr)
		}
		result = int64(k.f.ret)
		return k.decisions(op, dst)
	})
	if err != nil {
		return dst, 0, err
	}
	return ds, result, nil
}

// decide is run for the calls whose result is their decisions.
func (k *Kernel) decide(op string, code C.int, dst []Decision, pack func(*encoder)) ([]Decision, error) {
	ds, _, err := k.run(op, code, "", dst, pack)
	return ds, err
}

// decisions appends the decisions of the last call to dst (on an error dst is returned as it
// was).
func (k *Kernel) decisions(op string, dst []Decision) ([]Decision, error) {
	base := len(dst)
	ds, err := collect(op, k.f, k.f.out, dst)
	if err != nil {
		return dst, err
	}
	quotaDetails(k.k, k.f.out, ds[base:], 0)
	return ds, nil
}

// named packs the arguments of a call that names an application or a node.
func (e *encoder) named(partition, id string) {
	e.call.partition, e.call.id = e.cstr("partition", partition), e.str(id)
}

// askNamed packs the arguments of a call that names an ask.
func (e *encoder) askNamed(partition, app, ask string) {
	e.call.partition, e.call.app, e.call.ask = e.cstr("partition", partition), e.str(app), e.str(ask)
}

func (e *encoder) release(r *Release) {
	e.askNamed(r.Partition, r.App, r.Ask)
	e.call.node, e.call.seq = e.str(r.Node), C.int64_t(r.Seq)
}

func (e *encoder) node(n *Node) {
	c := &e.call.n
	c.partition = e.cstr("partition", n.Partition)
	c.id = e.str(n.ID)
	if n.Capacity != nil {
		c.set_capacity = 1
		c.capacity_first, c.capacity_count = e.resources(n.Capacity, false)
	}
	if n.Occupied != nil {
		c.set_occupied = 1
		c.occupied_first, c.occupied_count = e.resources(n.Occupied, true)
	}
	c.schedulable = -1
	if n.Schedulable != nil {
		c.schedulable = 0
		if *n.Schedulable {
			c.schedulable = 1
		}
	}
}

func (e *encoder) app(a *App) {
	c := &e.call.a
	c.partition = e.cstr("partition", a.Partition)
	c.id = e.str(a.ID)
	c.user = e.str(a.User)
	c.queue = e.str(a.Queue)
	c.groups_first = C.uint32_t(len(e.strs))
	for _, g := range a.Groups {
		e.strs = append(e.strs, e.cstr("group", g))
	}
	c.groups_count = C.uint32_t(len(a.Groups))
	c.tags_first = C.uint32_t(len(e.strs))
	for key, value := range a.Tags {
		e.strs = append(e.strs, e.cstr("tag key", key), e.cstr("tag value", value))
	}
	c.tags_count = C.uint32_t(len(a.Tags))
	if a.GangHard {
		c.gang_hard = 1
	}
	c.placeholder_timeout_millis = C.int64_t(a.PlaceholderTimeoutMillis)
	c.placeholder_first, c.placeholder_count = e.resources(a.PlaceholderAsk, true)
}

func (e *encoder) ask(a *Ask) {
	c := &e.call.k
	c.partition = e.cstr("partition", a.Partition)
	c.app = e.str(a.App)
	c.id = e.str(a.ID)
	c.task_group = e.cstr("task group", a.TaskGroup)
	c.required_node = e.cstr("required node", a.RequiredNode)
	c.resources_first, c.resources_count = e.resources(a.Resources, false)
	c.priority = C.int32_t(a.Priority)
	c.count = C.int64_t(a.Count)
	if a.SetCreationTime {
		c.has_creation_time = 1
		c.creation_time_millis = C.int64_t(a.CreationTimeMillis)
	}
	if a.Placeholder {
		c.placeholder = 1
	}
	if a.NoPreemption {
		c.no_preemption = 1
	}
	if a.Originator {
		c.originator = 1
	}
}

// AddNode adds a node.
func (k *Kernel) AddNode(n Node) ([]Decision, error) {
	return k.decide("Kernel.AddNode", C.GOCORE_ADD_NODE, nil, func(e *encoder) { e.node(&n) })
}

// UpdateNode changes what n sets of a known node (see Node).
func (k *Kernel) UpdateNode(n Node) ([]Decision, error) {
	return k.decide("Kernel.UpdateNode", C.GOCORE_UPDATE_NODE, nil, func(e *encoder) { e.node(&n) })
}

// RemoveNode removes a node ("" partition: the default one), releasing its allocations.
func (k *Kernel) RemoveNode(partition, id string) ([]Decision, error) {
	return k.decide("Kernel.RemoveNode", C.GOCORE_REMOVE_NODE, nil, func(e *encoder) { e.named(partition, id) })
}

// AddApp submits an application. A refused admission is a DecisionAppRejected, not an error.
func (k *Kernel) AddApp(a App) ([]Decision, error) {
	return k.decide("Kernel.AddApp", C.GOCORE_ADD_APP, nil, func(e *encoder) { e.app(&a) })
}

// RemoveApp removes an application with its asks and allocations.
func (k *Kernel) RemoveApp(partition, id string) ([]Decision, error) {
	return k.decide("Kernel.RemoveApp", C.GOCORE_REMOVE_APP, nil, func(e *encoder) { e.named(partition, id) })
}

// AddAsk adds an ask to an application.
func (k *Kernel) AddAsk(a Ask) ([]Decision, error) { return k.AppendAddAsk(nil, a) }

// AppendAddAsk is AddAsk appending the decisions to dst, which a caller may reuse from call
// to call so that reading decisions allocates nothing but one string of names per call.
func (k *Kernel) AppendAddAsk(dst []Decision, a Ask) ([]Decision, error) {
	return k.decide("Kernel.AddAsk", C.GOCORE_ADD_ASK, dst, func(e *encoder) { e.ask(&a) })
}

// RecoverAllocation reports an allocation that already runs on node (a manager restarting
// with pods it knows are running): the pod described as an ask of count 1. The kernel takes
// it as reported and answers with a DecisionRecovered.
func (k *Kernel) RecoverAllocation(a Ask, node string) ([]Decision, error) {
	return k.decide("Kernel.RecoverAllocation", C.GOCORE_RECOVER, nil, func(e *encoder) {
		e.ask(&a)
		e.call.node = e.cstr("node", node)
	})
}

// RemoveAsk drops the still-pending part of an ask; its live allocations stay.
func (k *Kernel) RemoveAsk(partition, app, ask string) ([]Decision, error) {
	return k.decide("Kernel.RemoveAsk", C.GOCORE_REMOVE_ASK, nil, func(e *encoder) { e.askNamed(partition, app, ask) })
}

// Release releases a live allocation (see Release); ErrNotFound, nothing changed, when the
// ask holds no such allocation.
func (k *Kernel) Release(r Release) ([]Decision, error) { return k.AppendRelease(nil, r) }

// AppendRelease is Release appending the decisions to dst (see AppendAddAsk).
func (k *Kernel) AppendRelease(dst []Decision, r Release) ([]Decision, error) {
	return k.decide("Kernel.Release", C.GOCORE_RELEASE, dst, func(e *encoder) { e.release(&r) })
}

// Advance moves the kernel's logical clock forward by millis (timeouts fire).
func (k *Kernel) Advance(millis int64) ([]Decision, error) {
	return k.decide("Kernel.Advance", C.GOCORE_ADVANCE, nil, func(e *encoder) { e.call.number = C.int64_t(millis) })
}

// NowMillis is the kernel's logical clock.
func (k *Kernel) NowMillis() (int64, error) {
	if err := k.lock("Kernel.NowMillis"); err != nil {
		return 0, err
	}
	defer k.mu.Unlock()
	return int64(C.allocore_now_millis(k.k)), nil
}

// Schedule runs scheduling cycles in every partition until nothing more is placed or max
// allocations are made (max <= 0: no limit). It returns the decisions and the number of
// allocations made.
func (k *Kernel) Schedule(max int64) ([]Decision, int64, error) {
	return k.AppendSchedule(nil, "", max)
}

// SchedulePartition is Schedule in one partition ("": every partition).
func (k *Kernel) SchedulePartition(partition string, max int64) ([]Decision, int64, error) {
	return k.AppendSchedule(nil, partition, max)
}

// AppendSchedule is SchedulePartition appending the decisions to dst (see AppendAddAsk).
func (k *Kernel) AppendSchedule(dst []Decision, partition string, max int64) ([]Decision, int64, error) {
	return k.run("Kernel.Schedule", C.GOCORE_SCHEDULE, "", dst, func(e *encoder) {
		e.call.partition, e.call.number = e.cstr("partition", partition), C.int64_t(max)
	})
}

// UpdateConfig replaces the queues configuration (a queues.yaml text).
func (k *Kernel) UpdateConfig(queuesYAML string) ([]Decision, error) {
	ds, _, err := k.run("Kernel.UpdateConfig", C.GOCORE_UPDATE_CONFIG, queuesYAML, nil, nil)
	return ds, err
}

// Snapshot is the kernel's whole state as bytes, for Restore.
func (k *Kernel) Snapshot() ([]byte, error) {
	const op = "Kernel.Snapshot"
	return invoke(k, op, nil, func(*encoder) ([]byte, error) {
		var cerr *C.char
		var n C.size_t
		p := C.allocore_kernel_snapshot(k.k, &n, &cerr)
		if _, err := made(op, p, cerr, freeBytes); err != nil {
			return nil, err
		}
		defer freeBytes(p)
		out := make([]byte, int(n)) // not C.GoBytes: its length is a C int
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)))
		return out, nil
	})
}

// Fork is an independent copy of the kernel in its current state, for what-if questions:
// nothing done to the copy reaches the original.
func (k *Kernel) Fork() (*Kernel, error) {
	const op = "Kernel.Fork"
	return invoke(k, op, nil, func(*encoder) (*Kernel, error) {
		var cerr *C.char
		fork := C.allocore_kernel_fork(k.k, &cerr)
		return wrapKernel(made(op, fork, cerr, destroyKernel))
	})
}

// Usage is what the kernel holds.
func (k *Kernel) Usage() (Usage, error) {
	return invoke(k, "Kernel.Usage", nil, func(*encoder) (Usage, error) {
		u := (*[3]C.int64_t)(C.malloc(3 * 8))
		defer C.free(unsafe.Pointer(u))
		C.allocore_usage(k.k, &u[0], &u[1], &u[2])
		return Usage{int64(u[0]), int64(u[1]), int64(u[2])}, nil
	})
}

// CheckConsistency compares every cache of the kernel against a recomputation (a test aid).
func (k *Kernel) CheckConsistency() error {
	return check(k, "Kernel.CheckConsistency", nil, func(_ *encoder, cerr **C.char) {
		C.allocore_check_consistency(k.k, cerr)
	})
}

// StartRecording writes every call the kernel accepts from now on to an event log at path,
// which `allocore run PATH` replays with the same decisions. It must come before the kernel's
// first change (ErrFailedPrecondition after). bufferBytes 0 writes each call as it is made.
func (k *Kernel) StartRecording(path string, bufferBytes int) error {
	var s C.gocore_str
	return check(k, "Kernel.StartRecording", func(e *encoder) { s = e.cstr("path", path) }, func(e *encoder, cerr **C.char) {
		C.allocore_kernel_record_start(k.k, e.at(s), C.size_t(bufferBytes), cerr)
	})
}

// StopRecording ends the event log (Close does too) and reports a write that failed.
func (k *Kernel) StopRecording() error {
	return check(k, "Kernel.StopRecording", nil, func(_ *encoder, cerr **C.char) {
		C.allocore_kernel_record_stop(k.k, cerr)
	})
}

// --- by handle ------------------------------------------------------------------------------

func (k *Kernel) find(op string, kind C.int, partition string, app Handle, id string) (Handle, error) {
	return invoke(k, op, func(e *encoder) {
		e.named(partition, id)
		e.call.h1 = app.c()
	}, func(e *encoder) (Handle, error) {
		return found(op, C.gocore_find(kind, cptr(unsafe.Pointer(k.k)), e.bufPtr(), &e.call))
	})
}

// FindApp is the handle of an application (ErrNotFound when unknown).
func (k *Kernel) FindApp(partition, id string) (Handle, error) {
	return k.find("Kernel.FindApp", 0, partition, Handle{}, id)
}

// FindNode is the handle of a node (ErrNotFound when unknown).
func (k *Kernel) FindNode(partition, id string) (Handle, error) {
	return k.find("Kernel.FindNode", 1, partition, Handle{}, id)
}

// FindAsk is the handle of an ask of an application given by handle.
func (k *Kernel) FindAsk(app Handle, id string) (Handle, error) {
	return k.find("Kernel.FindAsk", 2, "", app, id)
}

func (k *Kernel) byHandle(op string, code C.int, h1, h2 Handle, seq int64) ([]Decision, error) {
	return k.decide(op, code, nil, func(e *encoder) { e.call.h1, e.call.h2, e.call.seq = h1.c(), h2.c(), C.int64_t(seq) })
}

// RemoveAppByHandle is RemoveApp by handle; a stale handle is ErrFailedPrecondition.
func (k *Kernel) RemoveAppByHandle(app Handle) ([]Decision, error) {
	return k.byHandle("Kernel.RemoveAppByHandle", C.GOCORE_REMOVE_APP_BY_HANDLE, app, Handle{}, 0)
}

// RemoveAskByHandle is RemoveAsk by handle.
func (k *Kernel) RemoveAskByHandle(ask Handle) ([]Decision, error) {
	return k.byHandle("Kernel.RemoveAskByHandle", C.GOCORE_REMOVE_ASK_BY_HANDLE, ask, Handle{}, 0)
}

// RemoveNodeByHandle is RemoveNode by handle.
func (k *Kernel) RemoveNodeByHandle(node Handle) ([]Decision, error) {
	return k.byHandle("Kernel.RemoveNodeByHandle", C.GOCORE_REMOVE_NODE_BY_HANDLE, node, Handle{}, 0)
}

// ReleaseByHandle is Release by handle: the ask's allocation with seq (> 0), or its oldest
// (seq 0); on node unless it is the zero Handle.
func (k *Kernel) ReleaseByHandle(ask, node Handle, seq int64) ([]Decision, error) {
	return k.byHandle("Kernel.ReleaseByHandle", C.GOCORE_RELEASE_BY_HANDLE, ask, node, seq)
}

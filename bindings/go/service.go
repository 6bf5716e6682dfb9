package allocore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ServiceOptions configure a Service.
type ServiceOptions struct {
	Options // the kernel's semantics, source name and caps
	// MaxBatch: at most this many events per batch (0: everything queued).
	MaxBatch int
	// MaxQueued: at most this many events waiting (0: no cap); a submit beyond it is
	// ErrResourceExhausted.
	MaxQueued int
	// RecordPath: every applied event and each batch's schedule is recorded to an event log
	// there (`allocore run PATH` replays it with the same decisions).
	RecordPath string
	// DiscardBatches: applied batches are not kept for NextBatch (for callers that only wait
	// and read snapshots).
	DiscardBatches bool
	// SnapshotInventory: snapshots also hold every node, application and live allocation.
	SnapshotInventory bool
}

// Service is a kernel behind a scheduler thread of its own. Any goroutine submits events; each
// Submit* returns the event's sequence number at once (1, 2, 3, ...). The scheduler thread
// takes everything queued as one batch, applies the events in sequence order, schedules, and
// publishes the batch (NextBatch) and a snapshot (Snapshot, WaitApplied). Every method is safe
// from any goroutine at any time; the C service is thread-safe, so calls run concurrently.
//
// An event the kernel refuses is not an error of its Submit: its batch's Receipt says so.
type Service struct {
	mu      sync.RWMutex          // RLock: a call in C; Lock: destroying it
	s       *C.allocore_service_t // nil once closed
	closing int32                 // atomic: Shutdown or Close began

	readMu   sync.Mutex // batch reading: the frame and receipts buffer
	f        *C.gocore_frame
	receipts []C.allocore_receipt_t

	encoders sync.Pool // *encoder

	types sync.Map // string -> struct{}: resource type names submitted (for Snapshot.Queues)

	closeOnce sync.Once
}

// Batch is one applied batch: events FirstSeq..LastSeq, the decisions they and the schedule
// that ended the batch made, one Receipt per event.
type Batch struct {
	FirstSeq    uint64
	LastSeq     uint64
	Allocations int64
	Decisions   []Decision
	Receipts    []Receipt
}

// Receipt says what one applied event did.
type Receipt struct {
	Seq uint64
	// Err is nil when the kernel accepted the event, else an *Error with the kernel's code and
	// message (nothing changed).
	Err error
	// The handles of what the event added or named (the zero Handle where none).
	App, Ask, Node Handle
}

// NewService creates the kernel from a queues.yaml and starts the scheduler thread.
func NewService(queuesYAML string, opts ServiceOptions) (*Service, error) {
	var e encoder
	e.reset()
	source := e.cstr("source name", opts.SourceName)
	semantics := e.cstr("semantics", string(opts.Semantics))
	record := e.cstr("record path", opts.RecordPath)
	if e.err != nil {
		return nil, withOp(e.err, "NewService")
	}
	var numbers C.allocore_service_options_t
	numbers.max_applications = C.int64_t(opts.MaxApplications)
	numbers.max_asks = C.int64_t(opts.MaxAsks)
	numbers.max_live_allocations = C.int64_t(opts.MaxLiveAllocations)
	numbers.max_batch = C.size_t(opts.MaxBatch)
	numbers.max_queued = C.size_t(opts.MaxQueued)
	if opts.DiscardBatches {
		numbers.discard_batches = 1
	}
	if opts.SnapshotInventory {
		numbers.snapshot_inventory = 1
	}
	yaml, n := goString(queuesYAML)
	r := C.gocore_service_create(yaml, n, e.bufPtr(), source, semantics, record, numbers)
	runtime.KeepAlive(queuesYAML)
	service, err := made("NewService", r.service, r.err, func(s *C.allocore_service_t) { C.allocore_service_destroy(s) })
	if err != nil {
		return nil, err
	}
	s := &Service{s: service}
	s.encoders.New = func() any { return new(encoder) }
	runtime.SetFinalizer(s, (*Service).Close)
	return s, nil
}

// Shutdown stops accepting events (submits return ErrClosed) and lets the scheduler apply
// what is queued. Batches not yet taken stay available to NextBatch, which then returns an
// error matching ErrClosed. The Service still needs Close.
func (s *Service) Shutdown() {
	atomic.StoreInt32(&s.closing, 1)
	s.mu.RLock()
	if s.s != nil {
		C.allocore_service_close(s.s)
	}
	s.mu.RUnlock()
}

// Close shuts the service down (applying what is queued), ends waits with ErrClosed and frees
// it. Batches not taken are dropped. Idempotent.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		s.Shutdown() // wakes the waits, which then let go of the read lock
		s.mu.Lock()
		C.allocore_service_destroy(s.s)
		s.s = nil
		s.mu.Unlock()
		s.readMu.Lock()
		if s.f != nil {
			C.gocore_frame_destroy(s.f)
			s.f = nil
		}
		s.readMu.Unlock()
		runtime.SetFinalizer(s, nil)
	})
	return nil
}

// acquire takes the read lock for a call into C (ErrClosed, without it, once the service is
// closed) and an encoder from the pool: calls run concurrently, each with its own encoder.
func (s *Service) acquire(op string) (*encoder, error) {
	if err := lockOpen(op, s.mu.RLocker(), func() bool { return s.s != nil }); err != nil {
		return nil, err
	}
	e := s.encoders.Get().(*encoder)
	e.reset()
	return e, nil
}

func (s *Service) release(e *encoder) {
	if cap(e.buf) <= 64<<10 { // a large buffer of one large call is not kept
		s.encoders.Put(e)
	}
	s.mu.RUnlock()
}

func (s *Service) noteTypes(names []string) {
	for _, name := range names {
		if _, ok := s.types.Load(name); !ok {
			s.types.Store(name, struct{}{})
		}
	}
}

// submit makes the service call `code` (one cgo call) with the arguments pack puts in the
// encoder, and gives the event's sequence number. text is UpdateConfig's YAML.
func (s *Service) submit(op string, code C.int, text string, pack func(*encoder)) (uint64, error) {
	return invoke(s, op, pack, func(e *encoder) (uint64, error) {
		s.noteTypes(e.types)
		p, n := goString(text)
		r := C.gocore_service_call(code, cptr(unsafe.Pointer(s.s)), e.bufPtr(), &e.call, e.strsPtr(), e.resPtr(), p, n)
		runtime.KeepAlive(text)
		if r.err == nil {
			return uint64(r.seq), nil
		}
		err := errorFrom(op, r.err)
		if err.Code == CodeFailedPrecondition && atomic.LoadInt32(&s.closing) != 0 {
			err.closed = true
		}
		return 0, err
	})
}

// SubmitAddNode queues adding a node.
func (s *Service) SubmitAddNode(n Node) (uint64, error) {
	return s.submitNode("Service.SubmitAddNode", &n, C.GOCORE_ADD_NODE)
}

// SubmitUpdateNode queues a node update (see Node).
func (s *Service) SubmitUpdateNode(n Node) (uint64, error) {
	return s.submitNode("Service.SubmitUpdateNode", &n, C.GOCORE_UPDATE_NODE)
}

func (s *Service) submitNode(op string, n *Node, code C.int) (uint64, error) {
	return s.submit(op, code, "", func(e *encoder) { e.node(n) })
}

// SubmitRemoveNode queues removing a node.
func (s *Service) SubmitRemoveNode(partition, id string) (uint64, error) {
	return s.submit("Service.SubmitRemoveNode", C.GOCORE_REMOVE_NODE, "", func(e *encoder) { e.named(partition, id) })
}

// SubmitAddApp queues submitting an application.
func (s *Service) SubmitAddApp(a App) (uint64, error) {
	return s.submit("Service.SubmitAddApp", C.GOCORE_ADD_APP, "", func(e *encoder) { e.app(&a) })
}

// SubmitRemoveApp queues removing an application.
func (s *Service) SubmitRemoveApp(partition, id string) (uint64, error) {
	return s.submit("Service.SubmitRemoveApp", C.GOCORE_REMOVE_APP, "", func(e *encoder) { e.named(partition, id) })
}

// SubmitAddAsk queues adding an ask.
func (s *Service) SubmitAddAsk(a Ask) (uint64, error) {
	return s.submit("Service.SubmitAddAsk", C.GOCORE_ADD_ASK, "", func(e *encoder) { e.ask(&a) })
}

// SubmitRemoveAsk queues dropping the still-pending part of an ask (its live allocations
// stay).
func (s *Service) SubmitRemoveAsk(partition, app, ask string) (uint64, error) {
	return s.submit("Service.SubmitRemoveAsk", C.GOCORE_REMOVE_ASK, "", func(e *encoder) { e.askNamed(partition, app, ask) })
}

// SubmitRelease queues releasing a live allocation (see Release).
func (s *Service) SubmitRelease(r Release) (uint64, error) {
	return s.submit("Service.SubmitRelease", C.GOCORE_RELEASE, "", func(e *encoder) { e.release(&r) })
}

// SubmitAdvance queues moving the kernel's clock forward by millis.
func (s *Service) SubmitAdvance(millis int64) (uint64, error) {
	return s.submit("Service.SubmitAdvance", C.GOCORE_ADVANCE, "", func(e *encoder) { e.call.number = C.int64_t(millis) })
}

// SubmitUpdateConfig queues a new queues configuration.
func (s *Service) SubmitUpdateConfig(queuesYAML string) (uint64, error) {
	return s.submit("Service.SubmitUpdateConfig", C.GOCORE_UPDATE_CONFIG, queuesYAML, nil)
}

// FindApp is the handle of an application (between two batches).
func (s *Service) FindApp(partition, id string) (Handle, error) {
	return s.find("Service.FindApp", 0, partition, id)
}

// FindNode is the handle of a node (between two batches).
func (s *Service) FindNode(partition, id string) (Handle, error) {
	return s.find("Service.FindNode", 1, partition, id)
}

func (s *Service) find(op string, kind C.int, partition, id string) (Handle, error) {
	return invoke(s, op, func(e *encoder) { e.named(partition, id) }, func(e *encoder) (Handle, error) {
		return found(op, C.gocore_service_find(kind, s.s, e.bufPtr(), &e.call))
	})
}

// waitSlice is how long one C wait may block: short, so that a context is checked often.
func waitSlice(ctx context.Context) int64 {
	const slice = 20 * time.Millisecond
	if ctx.Done() == nil {
		return int64(time.Second / time.Millisecond) // nothing can end the wait but Close
	}
	d := slice
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline); left < d {
			d = left
		}
	}
	if d < time.Millisecond {
		return 1
	}
	return int64(d / time.Millisecond)
}

// waitFor repeats a short wait (once: one C wait of at most timeoutMillis, nil when it timed
// out) until it gives something or fails, or ctx ends (an error that matches ctx.Err() and
// ErrCancelled or ErrDeadlineExceeded).
func waitFor[T any](ctx context.Context, op string, once func(timeoutMillis int64) (*T, error)) (*T, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, contextError(op, err)
		}
		got, err := once(waitSlice(ctx))
		if got != nil || err != nil {
			return got, err
		}
	}
}

// waitOnce makes one C wait (kind and seq: see gocore_service_wait) of at most timeoutMillis
// and hands what it got to use, with the read lock still held; nil, nil when it timed out. A
// service closed while it waited gives an error matching ErrClosed.
func waitOnce[T any](s *Service, op string, kind C.int, seq uint64, timeoutMillis int64, use func(unsafe.Pointer) (*T, error)) (*T, error) {
	return invoke(s, op, nil, func(*encoder) (*T, error) {
		r := C.gocore_service_wait(kind, s.s, C.uint64_t(seq), C.int64_t(timeoutMillis))
		if r.object != nil {
			return use(r.object)
		}
		if r.err == nil {
			return nil, nil
		}
		err := errorFrom(op, r.err)
		if err.Code == CodeCancelled {
			err.closed = true
		}
		return nil, err
	})
}

// NextBatch takes the oldest applied batch not yet taken, waiting for one until ctx ends (an
// error that matches ctx.Err() and ErrCancelled or ErrDeadlineExceeded). Once the service is
// shut down and every batch was taken, it returns an error matching ErrClosed.
func (s *Service) NextBatch(ctx context.Context) (*Batch, error) {
	const op = "Service.NextBatch"
	return waitFor(ctx, op, func(timeoutMillis int64) (*Batch, error) { return s.takeBatch(op, timeoutMillis) })
}

// TryNextBatch takes the oldest applied batch without waiting; nil, nil when none is ready.
func (s *Service) TryNextBatch() (*Batch, error) {
	return s.takeBatch("Service.TryNextBatch", 0)
}

func (s *Service) takeBatch(op string, timeoutMillis int64) (*Batch, error) {
	return waitOnce(s, op, C.GOCORE_WAIT_BATCH, 0, timeoutMillis, func(p unsafe.Pointer) (*Batch, error) {
		b := (*C.allocore_batch_t)(p)
		defer C.allocore_batch_destroy(b)
		return s.readBatch(op, b)
	})
}

func (s *Service) readBatch(op string, b *C.allocore_batch_t) (*Batch, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if s.f == nil {
		s.f = newFrame()
	}
	var info C.gocore_batch_info
	C.gocore_batch_read(b, s.f, &info)
	batch := &Batch{
		FirstSeq:    uint64(info.first_seq),
		LastSeq:     uint64(info.last_seq),
		Allocations: int64(info.allocations),
	}
	var err error
	batch.Decisions, err = collect(op, s.f, C.allocore_batch_decisions(b), nil)
	if err != nil {
		return nil, err
	}
	n := int(info.receipts)
	if n > 0 {
		if cap(s.receipts) < n {
			s.receipts = make([]C.allocore_receipt_t, n)
		}
		rs := s.receipts[:n]
		C.gocore_batch_receipts(b, &rs[0], C.size_t(n))
		batch.Receipts = make([]Receipt, n)
		for i := range rs {
			r := &rs[i]
			batch.Receipts[i] = Receipt{Seq: uint64(r.seq), App: handleOf(r.app), Ask: handleOf(r.ask), Node: handleOf(r.node)}
			if code := Code(r.code); code != CodeOK {
				batch.Receipts[i].Err = &Error{Code: code, Op: op,
					Message: C.GoString(C.allocore_batch_receipt_message(b, C.size_t(i)))}
			}
		}
	}
	return batch, nil
}

// WaitApplied waits until event seq is applied and returns the snapshot taken after its
// batch. ctx ending gives an error matching ctx.Err(); a seq never handed out is
// ErrInvalidArgument; a service closed first, ErrClosed.
func (s *Service) WaitApplied(ctx context.Context, seq uint64) (*Snapshot, error) {
	const op = "Service.WaitApplied"
	return waitFor(ctx, op, func(timeoutMillis int64) (*Snapshot, error) {
		return waitOnce(s, op, C.GOCORE_WAIT_APPLIED, seq, timeoutMillis, func(p unsafe.Pointer) (*Snapshot, error) {
			return s.wrapSnapshot((*C.allocore_snapshot_t)(p)), nil
		})
	})
}

// Snapshot is the newest snapshot; it never waits for the scheduler.
func (s *Service) Snapshot() (*Snapshot, error) {
	const op = "Service.Snapshot"
	return invoke(s, op, nil, func(*encoder) (*Snapshot, error) {
		snap := C.allocore_service_snapshot(s.s)
		if snap == nil {
			return nil, &Error{Code: CodeResourceExhausted, Op: op, Message: "no snapshot"}
		}
		return s.wrapSnapshot(snap), nil
	})
}

// CheckRecording reports a recording write that failed (the recording stopped; the service
// goes on); nil while recording works or when not recording.
func (s *Service) CheckRecording() error {
	return check(s, "Service.CheckRecording", nil, func(_ *encoder, cerr **C.char) {
		C.allocore_service_record_check(s.s, cerr)
	})
}

// StopRecording ends the event log and closes it.
func (s *Service) StopRecording() error {
	return check(s, "Service.StopRecording", nil, func(_ *encoder, cerr **C.char) {
		C.allocore_service_record_stop(s.s, cerr)
	})
}

func (s *Service) typeNames() []string {
	var names []string
	s.types.Range(func(name, _ any) bool {
		names = append(names, name.(string))
		return true
	})
	sort.Strings(names)
	return names
}

// Snapshot is an immutable picture of a service's kernel after a batch. Its methods are safe
// from many goroutines. Close frees it (a finalizer does for one dropped).
type Snapshot struct {
	AppliedSeq uint64 // every event up to this one is applied (0: none yet)
	NowMillis  int64
	Usage      Usage

	mu    sync.Mutex
	s     *C.allocore_snapshot_t
	types []string
}

func (s *Service) wrapSnapshot(c *C.allocore_snapshot_t) *Snapshot {
	var info C.gocore_snapshot_info
	C.gocore_snapshot_read(c, &info)
	snap := &Snapshot{
		AppliedSeq: uint64(info.applied_seq),
		NowMillis:  int64(info.now_millis),
		Usage:      Usage{int64(info.applications), int64(info.asks), int64(info.live_allocations)},
		s:          c,
		types:      s.typeNames(),
	}
	runtime.SetFinalizer(snap, (*Snapshot).Close)
	return snap
}

// Close frees the snapshot; idempotent.
func (s *Snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.allocore_snapshot_destroy(s.s)
		s.s = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// acquire takes the snapshot's lock (ErrClosed, without it, once it is closed) and a new
// encoder: snapshot queries are rare, and a Snapshot keeps no buffers.
func (s *Snapshot) acquire(op string) (*encoder, error) {
	if err := lockOpen(op, &s.mu, func() bool { return s.s != nil }); err != nil {
		return nil, err
	}
	e := new(encoder)
	e.reset()
	return e, nil
}

func (s *Snapshot) release(*encoder) { s.mu.Unlock() }

// Queues is the partition's queues ("": the default) as the snapshot saw them, with the
// quantities of the resource types submitted to the service (the C ABI does not list a
// snapshot's types).
func (s *Snapshot) Queues(partition string) ([]QueueInfo, error) {
	const op = "Snapshot.Queues"
	var p C.gocore_str
	return invoke(s, op, func(e *encoder) { p = e.cstr("partition", partition) }, func(e *encoder) ([]QueueInfo, error) {
		var cerr *C.char
		q := C.allocore_snapshot_queues(s.s, e.optAt(p), &cerr)
		return listValues(op, q, cerr, destroyQueues, func() *typeSet { return namedTypes(s.types) }, queuesOf)
	})
}

// AppState is the last state of an application ("Running", ...); ErrNotFound when unknown.
func (s *Snapshot) AppState(partition, id string) (string, error) {
	const op = "Snapshot.AppState"
	var p C.gocore_str
	return invoke(s, op, func(e *encoder) { p = e.cstr("partition", partition) }, func(e *encoder) (string, error) {
		ptr, n := goString(id)
		var cerr *C.char
		state := C.allocore_snapshot_app_state(s.s, e.optAt(p), ptr, n, &cerr)
		runtime.KeepAlive(id)
		if state == nil || cerr != nil {
			return "", errorFrom(op, cerr)
		}
		return C.GoString(state), nil
	})
}

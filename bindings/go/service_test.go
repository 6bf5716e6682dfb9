package allocore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"allocore.dev/allocore"
)

// applied is the snapshot after event seq (the test fails when it takes 10 s).
func applied(t testing.TB, s *allocore.Service, seq uint64) *allocore.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, err := s.WaitApplied(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func newService(t testing.TB, opts allocore.ServiceOptions) *allocore.Service {
	t.Helper()
	s, err := allocore.NewService(queues, opts)
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Several goroutines submit; one reader takes batches until every event is applied. Every
// event has exactly one receipt, batches come in order, and the allocations are what the
// cluster holds.
func TestServiceProducersAndReader(t *testing.T) {
	s := newService(t, allocore.ServiceOptions{})
	const producers, asksEach = 4, 25
	seq, err := s.SubmitAddNode(allocore.Node{ID: "node-1", Capacity: allocore.Resources{"vcore": 100_000}})
	if err != nil || seq != 1 {
		t.Fatalf("first submit: seq %d, %v", seq, err)
	}
	var mu sync.Mutex
	var maxSeq uint64 = seq
	submitted := 1
	note := func(seq uint64, err error) error {
		if err != nil {
			return err
		}
		mu.Lock()
		if seq > maxSeq {
			maxSeq = seq
		}
		submitted++
		mu.Unlock()
		return nil
	}
	var badSeq uint64
	inParallel(t, producers+1, func(p int) error {
		if p == producers {
			// One event the kernel refuses, among the producers': its receipt says so, its
			// submit does not.
			var err error
			if badSeq, err = s.SubmitAddAsk(allocore.Ask{App: "no-such-app", ID: "x", Resources: allocore.Resources{"vcore": 1}}); err != nil {
				return fmt.Errorf("submit of an event the kernel will refuse: %w", err)
			}
			return nil
		}
		app := fmt.Sprintf("app-%d", p)
		if err := note(s.SubmitAddApp(allocore.App{ID: app, User: "u", Queue: "root.batch"})); err != nil {
			return err
		}
		for i := 0; i < asksEach; i++ {
			if err := note(s.SubmitAddAsk(allocore.Ask{App: app, ID: fmt.Sprint("ask-", i),
				Resources: allocore.Resources{"vcore": 1000}})); err != nil {
				return err
			}
		}
		return nil
	})
	mu.Lock()
	last := maxSeq
	if badSeq > last {
		last = badSeq
	}
	total := submitted + 1
	mu.Unlock()
	if uint64(total) != last {
		t.Fatalf("%d events submitted, last seq %d: seqs are not 1..n", total, last)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	receipts := map[uint64]allocore.Receipt{}
	var next uint64 = 1
	allocations := 0
	for next <= last {
		b, err := s.NextBatch(ctx)
		if err != nil {
			t.Fatalf("NextBatch after seq %d: %v", next-1, err)
		}
		if b.FirstSeq != next || b.LastSeq < b.FirstSeq || len(b.Receipts) != int(b.LastSeq-b.FirstSeq+1) {
			t.Fatalf("batch [%d, %d] with %d receipts, expected to start at %d", b.FirstSeq, b.LastSeq, len(b.Receipts), next)
		}
		for i, r := range b.Receipts {
			if r.Seq != b.FirstSeq+uint64(i) {
				t.Fatalf("receipt %d of batch [%d, %d] has seq %d", i, b.FirstSeq, b.LastSeq, r.Seq)
			}
			receipts[r.Seq] = r
		}
		n := 0
		for _, d := range b.Decisions {
			if d.Type == allocore.DecisionAllocation {
				n++
				if d.Node != "node-1" || !d.NodeHandle.Valid() {
					t.Fatalf("allocation %+v", d)
				}
			}
		}
		if int64(n) != b.Allocations {
			t.Fatalf("batch says %d allocations, its decisions %d", b.Allocations, n)
		}
		allocations += n
		next = b.LastSeq + 1
	}
	if allocations != producers*asksEach {
		t.Fatalf("%d allocations, want %d", allocations, producers*asksEach)
	}
	bad := receipts[badSeq]
	if !errors.Is(bad.Err, allocore.ErrNotFound) {
		t.Fatalf("receipt of the refused ask: %+v", bad)
	}
	for seq, r := range receipts {
		if seq != badSeq && r.Err != nil {
			t.Fatalf("receipt %d: %v", seq, r.Err)
		}
	}
	if r := receipts[1]; !r.Node.Valid() {
		t.Fatalf("the node's receipt has no node handle: %+v", r)
	}
	h, err := s.FindNode("", "node-1")
	if err != nil || h != receipts[1].Node {
		t.Fatalf("FindNode: %v %v, receipt %v", h, err, receipts[1].Node)
	}
	if _, err := s.FindApp("", "nope"); !errors.Is(err, allocore.ErrNotFound) {
		t.Fatalf("FindApp of an unknown app: %v", err)
	}

	// The newest snapshot may lag behind the batches taken (a batch is handed out before its
	// snapshot is published); WaitApplied gives the one after the last batch.
	newest, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if newest.AppliedSeq > last {
		t.Fatalf("newest snapshot at seq %d, beyond the last event %d", newest.AppliedSeq, last)
	}
	newest.Close()
	snap, err := s.WaitApplied(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if snap.AppliedSeq != last || snap.Usage.LiveAllocations != producers*asksEach || snap.Usage.Applications != producers {
		t.Fatalf("snapshot seq %d usage %+v", snap.AppliedSeq, snap.Usage)
	}
	qs, err := snap.Queues("")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 || qs[1].Path != "root.batch" || qs[1].Allocated["vcore"] != producers*asksEach*1000 {
		t.Fatalf("snapshot queues %+v", qs)
	}
	if state, err := snap.AppState("", "app-0"); err != nil || state != "Running" {
		t.Fatalf("app-0 state %q %v", state, err)
	}
	if _, err := snap.AppState("", "nope"); !errors.Is(err, allocore.ErrNotFound) {
		t.Fatalf("state of an unknown app: %v", err)
	}
}

func TestServiceWaitApplied(t *testing.T) {
	s := newService(t, allocore.ServiceOptions{DiscardBatches: true})
	if _, err := s.SubmitAddNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 4000}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SubmitAddApp(allocore.App{ID: "a", User: "u", Queue: "root.web"}); err != nil {
		t.Fatal(err)
	}
	seq := must(s.SubmitAddAsk(allocore.Ask{App: "a", ID: "x", Resources: allocore.Resources{"vcore": 1000}, Count: 2}))
	snap := applied(t, s, seq)
	if snap.AppliedSeq < seq || snap.Usage.LiveAllocations != 2 {
		t.Fatalf("snapshot after seq %d: applied %d, usage %+v", seq, snap.AppliedSeq, snap.Usage)
	}
	snap.Close()
	snap.Close() // idempotent
	if _, err := snap.Queues(""); !errors.Is(err, allocore.ErrClosed) {
		t.Fatalf("queues of a closed snapshot: %v", err)
	}

	// A context already cancelled: the wait returns at once with its error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.WaitApplied(ctx, seq)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, allocore.ErrCancelled) {
		t.Fatalf("wait with a cancelled context: %v", err)
	}
	// A seq never handed out: no event will ever apply it; a context that ends the wait.
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.WaitApplied(ctx, seq+1000)
	if err == nil {
		t.Fatal("wait for a seq never handed out returned no error")
	}
	if !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("wait for seq %d: %v", seq+1000, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the wait took %v", time.Since(start))
	}
	// This service keeps no batches: NextBatch is refused.
	if _, err := s.NextBatch(context.Background()); !errors.Is(err, allocore.ErrFailedPrecondition) {
		t.Fatalf("NextBatch of a service that discards its batches: %v", err)
	}
	// A cancel while waiting for a batch that never comes (nothing submitted).
	idle := newService(t, allocore.ServiceOptions{})
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		time.Sleep(30 * time.Millisecond)
		cancel()
	}()
	start = time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := idle.NextBatch(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !errors.Is(err, allocore.ErrCancelled) {
			t.Fatalf("NextBatch cancelled while waiting: %v", err)
		}
		if d := time.Since(start); d < 25*time.Millisecond {
			t.Fatalf("NextBatch returned after %v, before its context was cancelled", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("NextBatch outlived its cancelled context by 10 s")
	}
}

func TestServiceClose(t *testing.T) {
	s, err := allocore.NewService(queues, allocore.ServiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A wait in progress when the service closes ends with ErrClosed.
	waited := make(chan error, 1)
	go func() {
		_, err := s.NextBatch(context.Background())
		for err == nil { // batches applied before the close may come first
			_, err = s.NextBatch(context.Background())
		}
		waited <- err
	}()
	if _, err := s.SubmitAddNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 1}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if !errors.Is(err, allocore.ErrClosed) {
			t.Fatalf("wait ended by Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a wait outlived Close")
	}
	if err := s.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := s.SubmitAddNode(allocore.Node{ID: "m"}); !errors.Is(err, allocore.ErrClosed) {
		t.Fatalf("submit after Close: %v", err)
	}
	if _, err := s.WaitApplied(context.Background(), 1); !errors.Is(err, allocore.ErrClosed) {
		t.Fatalf("wait after Close: %v", err)
	}
	if _, err := s.Snapshot(); !errors.Is(err, allocore.ErrClosed) {
		t.Fatalf("snapshot after Close: %v", err)
	}
}

// Shutdown: no more submits; batches already applied can still be taken, then ErrClosed.
func TestServiceShutdownDrains(t *testing.T) {
	s := newService(t, allocore.ServiceOptions{})
	for i := 0; i < 10; i++ {
		if _, err := s.SubmitAddNode(allocore.Node{ID: fmt.Sprint("n", i), Capacity: allocore.Resources{"vcore": 1}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Shutdown()
	if _, err := s.SubmitAddNode(allocore.Node{ID: "late"}); !errors.Is(err, allocore.ErrClosed) ||
		!errors.Is(err, allocore.ErrFailedPrecondition) {
		t.Fatalf("submit after Shutdown: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var last uint64
	for {
		b, err := s.NextBatch(ctx)
		if err != nil {
			if !errors.Is(err, allocore.ErrClosed) {
				t.Fatalf("after the last batch: %v", err)
			}
			break
		}
		last = b.LastSeq
	}
	if last != 10 {
		t.Fatalf("the batches taken after Shutdown end at seq %d, want 10", last)
	}
}

func TestServiceErrors(t *testing.T) {
	if _, err := allocore.NewService("partitions: [", allocore.ServiceOptions{}); !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("bad config: %v", err)
	}
	if _, err := allocore.NewService(queues, allocore.ServiceOptions{Options: allocore.Options{Semantics: "nope"}}); !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("unknown semantics: %v", err)
	}
	// A full queue refuses the submit (the scheduler may take events at any time, so submit
	// until one is refused).
	s := newService(t, allocore.ServiceOptions{MaxQueued: 1})
	var err error
	for i := 0; i < 100000 && err == nil; i++ {
		_, err = s.SubmitAdvance(1)
	}
	if !errors.Is(err, allocore.ErrResourceExhausted) {
		t.Fatalf("submits to a queue of 1: %v", err)
	}
}

// Every kind of event through the service, each accepted, with the decisions it makes.
func TestServiceEverySubmit(t *testing.T) {
	s := newService(t, allocore.ServiceOptions{MaxBatch: 1}) // one event per batch
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var last uint64
	submit := func(seq uint64, err error) {
		t.Helper()
		if err != nil || seq != last+1 {
			t.Fatalf("submit: seq %d (after %d), %v", seq, last, err)
		}
		last = seq
	}
	// Each event's batch: its receipt must be OK; returns its decisions.
	batch := func(what string) []allocore.Decision {
		t.Helper()
		b, err := s.NextBatch(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if b.FirstSeq != last || b.LastSeq != last || len(b.Receipts) != 1 || b.Receipts[0].Err != nil {
			t.Fatalf("%s: batch [%d, %d] receipts %+v, want event %d accepted", what, b.FirstSeq, b.LastSeq, b.Receipts, last)
		}
		return b.Decisions
	}
	submit(s.SubmitAddNode(allocore.Node{ID: "n1", Capacity: allocore.Resources{"vcore": 2000}}))
	batch("add node")
	submit(s.SubmitAddApp(allocore.App{ID: "a", User: "u", Queue: "root.web", Tags: map[string]string{"k": "v"}, Groups: []string{"g"}}))
	batch("add app")
	submit(s.SubmitAddAsk(allocore.Ask{App: "a", ID: "x", Count: 3, Resources: allocore.Resources{"vcore": 1000}}))
	if ds := batch("add ask"); len(ofType(ds, allocore.DecisionAllocation)) != 2 {
		t.Fatalf("add ask: %v", ds)
	}
	submit(s.SubmitUpdateNode(allocore.Node{ID: "n1", Capacity: allocore.Resources{"vcore": 3000}}))
	if ds := batch("update node"); len(ofType(ds, allocore.DecisionAllocation)) != 1 {
		t.Fatalf("update node: %v", ds)
	}
	submit(s.SubmitRelease(allocore.Release{App: "a", Ask: "x", Seq: 2}))
	if ds := batch("release"); len(ds) < 1 || ds[0].Type != allocore.DecisionRelease || ds[0].Seq != 2 {
		t.Fatalf("release: %v", ds)
	}
	submit(s.SubmitAdvance(1000))
	batch("advance")
	submit(s.SubmitUpdateConfig(queues))
	batch("update config")
	submit(s.SubmitAddAsk(allocore.Ask{App: "a", ID: "y", Count: 5, Resources: allocore.Resources{"vcore": 1000}}))
	if ds := batch("add ask"); len(ofType(ds, allocore.DecisionAllocation)) != 1 {
		t.Fatalf("add ask y: %v", ds)
	}
	// Removing an ask drops its pending repeats; its live allocations stay.
	submit(s.SubmitRemoveAsk("", "a", "y"))
	if ds := batch("remove ask"); len(ofType(ds, allocore.DecisionRelease)) != 0 {
		t.Fatalf("remove ask: %v", ds)
	}
	submit(s.SubmitRemoveApp("", "a"))
	if ds := batch("remove app"); len(ofType(ds, allocore.DecisionRelease)) != 3 {
		t.Fatalf("remove app: %v", ds)
	}
	submit(s.SubmitRemoveNode("", "n1"))
	batch("remove node")
	snap, err := s.WaitApplied(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if snap.NowMillis != 1000 || snap.Usage.LiveAllocations != 0 {
		t.Fatalf("snapshot now %d usage %+v", snap.NowMillis, snap.Usage)
	}
	// A refused event: a receipt with the kernel's code, not a submit error.
	submit(s.SubmitRemoveNode("", "n1"))
	b, err := s.NextBatch(ctx)
	if err != nil || len(b.Receipts) != 1 || !errors.Is(b.Receipts[0].Err, allocore.ErrNotFound) {
		t.Fatalf("removing a node twice: %+v %v", b, err)
	}
}

func TestRecording(t *testing.T) {
	dir := t.TempDir()
	k := newKernel(t)
	path := dir + "/kernel.log"
	if err := k.StartRecording(path, 0); err != nil {
		t.Fatal(err)
	}
	cluster(t, k)
	must2(k.Schedule(0))
	if err := k.StopRecording(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("recorded log: %v %v", st, err)
	}
	// Recording starts before the first change.
	if err := k.StartRecording(dir+"/late.log", 0); !errors.Is(err, allocore.ErrFailedPrecondition) {
		t.Fatalf("recording after changes: %v", err)
	}
	k2 := newKernel(t)
	if err := k2.StartRecording(dir+"/no/such/dir/x.log", 0); err == nil {
		t.Fatal("recording into a missing directory worked")
	}

	spath := dir + "/service.log"
	s, err := allocore.NewService(queues, allocore.ServiceOptions{RecordPath: spath})
	if err != nil {
		t.Fatal(err)
	}
	applied(t, s, must(s.SubmitAddNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 1}}))).Close()
	if err := s.CheckRecording(); err != nil {
		t.Fatal(err)
	}
	if err := s.StopRecording(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if st, err := os.Stat(spath); err != nil || st.Size() == 0 {
		t.Fatalf("service log: %v %v", st, err)
	}
}

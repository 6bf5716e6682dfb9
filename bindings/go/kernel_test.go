package allocore_test

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"allocore.dev/allocore"
)

// queues is the tests' configuration: root.batch and root.web.
//
//go:embed testdata/queues.yaml
var queues string

// queuesWebMax is queues with a max on root.web.
//
//go:embed testdata/queues-web-max.yaml
var queuesWebMax string

const gi = int64(1) << 30

func newKernel(t testing.TB) *allocore.Kernel {
	t.Helper()
	k, err := allocore.NewKernel(queues, allocore.Options{})
	if err != nil {
		t.Fatalf("NewKernel: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// must and must2 give a call's results, panicking (which fails the test) on an error: Go
// cannot pass a call's results along with a *testing.T.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return a, b
}

// inParallel runs work(0), ..., work(n-1) in n goroutines and waits for them; the test fails
// with the errors they return.
func inParallel(t *testing.T, n int, work func(i int) error) {
	t.Helper()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- work(i)
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// cluster is embed.c's: two nodes of 4 cores and 8 GiB, two applications with three
// 1.5-core executors each.
func cluster(t testing.TB, k *allocore.Kernel) {
	t.Helper()
	for _, id := range []string{"node-1", "node-2"} {
		must(k.AddNode(allocore.Node{ID: id, Capacity: allocore.Resources{"vcore": 4000, "memory": 8 * gi}}))
	}
	for _, a := range [][2]string{{"spark-1", "root.batch"}, {"web-1", "root.web"}} {
		must(k.AddApp(allocore.App{ID: a[0], User: "alice", Queue: a[1]}))
		must(k.AddAsk(allocore.Ask{App: a[0], ID: "executors", Count: 3,
			Resources: allocore.Resources{"vcore": 1500, "memory": 2 * gi}}))
	}
}

func ofType(ds []allocore.Decision, typ allocore.DecisionType) []allocore.Decision {
	var out []allocore.Decision
	for _, d := range ds {
		if d.Type == typ {
			out = append(out, d)
		}
	}
	return out
}

func TestKernelRoundTrip(t *testing.T) {
	k := newKernel(t)
	cluster(t, k)
	ds, made, err := k.Schedule(0)
	if err != nil {
		t.Fatal(err)
	}
	allocs := ofType(ds, allocore.DecisionAllocation)
	// Two 4-core nodes take two 1.5-core executors each: four of the six.
	if made != 4 || len(allocs) != 4 {
		t.Fatalf("made %d, %d allocation decisions, want 4: %v", made, len(allocs), ds)
	}
	perNode := map[string]int{}
	perApp := map[string]int{}
	for i, d := range allocs {
		if d.Seq != int64(i+1) {
			t.Errorf("allocation %d has seq %d, want %d", i, d.Seq, i+1)
		}
		if d.Ask != "executors" || d.Partition != "default" {
			t.Errorf("allocation %v: ask %q partition %q", d, d.Ask, d.Partition)
		}
		wantQueue := map[string]string{"spark-1": "root.batch", "web-1": "root.web"}[d.App]
		if d.Queue != wantQueue {
			t.Errorf("allocation %v in queue %q, want %q", d, d.Queue, wantQueue)
		}
		if !d.AppHandle.Valid() || !d.AskHandle.Valid() || !d.NodeHandle.Valid() {
			t.Errorf("allocation %v lacks handles", d)
		}
		if d.Type.String() != "allocation" {
			t.Errorf("type name %q", d.Type.String())
		}
		perNode[d.Node]++
		perApp[d.App]++
	}
	if perNode["node-1"] != 2 || perNode["node-2"] != 2 || perApp["spark-1"] != 2 || perApp["web-1"] != 2 {
		t.Errorf("allocations per node %v, per app %v", perNode, perApp)
	}
	running := 0
	for _, d := range ofType(ds, allocore.DecisionAppState) {
		if d.To == allocore.StateRunning {
			running++
			if d.From != allocore.StateStarting || d.To.String() != "Running" {
				t.Errorf("state decision %v", d)
			}
		}
	}
	if running != 2 {
		t.Errorf("%d applications went Running, want 2: %v", running, ds)
	}

	// Handles: the decisions' are the lookups'; a release by handle frees exactly one.
	sparkH := must(k.FindApp("", "spark-1"))
	askH := must(k.FindAsk(sparkH, "executors"))
	for _, d := range allocs {
		if d.App == "spark-1" && (d.AppHandle != sparkH || d.AskHandle != askH) {
			t.Errorf("allocation %v has handles %v %v, lookups give %v %v", d, d.AppHandle, d.AskHandle, sparkH, askH)
		}
		if nodeH := must(k.FindNode("", d.Node)); d.NodeHandle != nodeH {
			t.Errorf("allocation %v on node handle %v, lookup gives %v", d, d.NodeHandle, nodeH)
		}
	}
	var web allocore.Decision
	for _, d := range allocs {
		if d.App == "web-1" {
			web = d
		}
	}
	byHandle := must(k.ReleaseByHandle(web.AskHandle, web.NodeHandle, web.Seq))
	if len(byHandle) < 1 || byHandle[0].Type != allocore.DecisionRelease || byHandle[0].Seq != web.Seq ||
		byHandle[0].App != "web-1" || byHandle[0].AskHandle != web.AskHandle {
		t.Fatalf("release by handle of seq %d: %v", web.Seq, byHandle)
	}
	if _, err := k.ReleaseByHandle(web.AskHandle, web.NodeHandle, web.Seq); !errors.Is(err, allocore.ErrNotFound) {
		t.Fatalf("second release by handle: %v, want ErrNotFound", err)
	}

	// Release exactly spark-1's newest allocation by its seq.
	var last allocore.Decision
	for _, d := range allocs {
		if d.App == "spark-1" {
			last = d
		}
	}
	rel := must(k.Release(allocore.ReleaseOf(&last)))
	if len(rel) < 1 || rel[0].Type != allocore.DecisionRelease || rel[0].Seq != last.Seq ||
		rel[0].ReleaseReason != allocore.ReleaseReleased || rel[0].Node != last.Node {
		t.Fatalf("release of seq %d: %v", last.Seq, rel)
	}
	// The same allocation again: NOT_FOUND, nothing changed.
	if _, err := k.Release(allocore.ReleaseOf(&last)); !errors.Is(err, allocore.ErrNotFound) {
		t.Fatalf("second release: %v, want ErrNotFound", err)
	}
	// The room the two releases left goes to the two pending executors.
	ds, made = must2(k.Schedule(0))
	if made != 2 || len(ofType(ds, allocore.DecisionAllocation)) != 2 {
		t.Fatalf("schedule after the releases made %d: %v", made, ds)
	}

	pending := must(k.ExplainPending())
	if len(pending) != 0 {
		t.Fatalf("pending explanations: %v", pending)
	}
	must(k.AddAsk(allocore.Ask{App: "web-1", ID: "big", Resources: allocore.Resources{"vcore": 3000}}))
	pending = must(k.ExplainPending())
	if len(pending) != 1 {
		t.Fatalf("pending explanations: %v", pending)
	}
	for _, p := range pending {
		if p.Ask != "big" || p.App != "web-1" || p.Pending != 1 || !strings.Contains(p.Reason, "lacks") {
			t.Errorf("explanation %+v", p)
		}
	}
	nodes := must(k.ListNodes(""))
	if len(nodes) != 2 || nodes[0].ID != "node-1" || nodes[0].Capacity["vcore"] != 4000 ||
		nodes[0].Allocated["vcore"]+nodes[1].Allocated["vcore"] != 4*1500 || !nodes[0].Schedulable {
		t.Fatalf("nodes: %+v", nodes)
	}
	qs := must(k.ListQueues(""))
	paths := []string{}
	for _, q := range qs {
		paths = append(paths, q.Path)
	}
	if strings.Join(paths, ",") != "root,root.batch,root.web" || qs[0].Allocated["vcore"] != 6000 ||
		!qs[1].Leaf || qs[0].Leaf {
		t.Fatalf("queues: %+v", qs)
	}
	apps := must(k.ListApps(""))
	if len(apps) != 2 || apps[0].ID != "spark-1" || apps[0].State != "Running" || apps[0].Queue != "root.batch" {
		t.Fatalf("apps: %+v", apps)
	}
	live := must(k.ListAllocations("", "spark-1", ""))
	if len(live) != 2 || live[0].Resources["vcore"] != 1500 || live[0].Seq != 1 {
		t.Fatalf("allocations of spark-1: %+v", live)
	}
	u := must(k.Usage())
	if u.Applications != 2 || u.LiveAllocations != 4 {
		t.Fatalf("usage %+v", u)
	}
	if err := k.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
}

func TestAskOptions(t *testing.T) {
	k, err := allocore.NewKernel(queues, allocore.Options{Semantics: allocore.YuniKorn19})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	must(k.AddNode(allocore.Node{ID: "n1", Capacity: allocore.Resources{"vcore": 1000}}))
	must(k.AddNode(allocore.Node{ID: "n2", Capacity: allocore.Resources{"vcore": 1000}}))
	must(k.AddApp(allocore.App{ID: "a", User: "u", Queue: "root.batch"}))
	// yunikorn-1.9 orders asks of equal priority by creation time: "late" is submitted first
	// but created after "early"; the higher priority goes before both.
	must(k.AddAsk(allocore.Ask{App: "a", ID: "late", Resources: allocore.Resources{"vcore": 1000},
		CreationTimeMillis: 50, SetCreationTime: true}))
	must(k.AddAsk(allocore.Ask{App: "a", ID: "early", Resources: allocore.Resources{"vcore": 1000},
		CreationTimeMillis: 10, SetCreationTime: true}))
	must(k.AddAsk(allocore.Ask{App: "a", ID: "urgent", Priority: 5, RequiredNode: "n2",
		Resources: allocore.Resources{"vcore": 1000}}))
	ds, made := must2(k.Schedule(0))
	allocs := ofType(ds, allocore.DecisionAllocation)
	if made != 2 || len(allocs) != 2 {
		t.Fatalf("made %d: %v", made, ds)
	}
	if allocs[0].Ask != "urgent" || allocs[0].Node != "n2" || allocs[0].Priority != 5 {
		t.Errorf("first allocation %+v, want urgent (priority 5) on its required node n2", allocs[0])
	}
	if allocs[1].Ask != "early" {
		t.Errorf("second allocation %v, want the ask created first", allocs[1])
	}
	// A creation time that is negative is refused.
	_, err = k.AddAsk(allocore.Ask{App: "a", ID: "bad", Resources: allocore.Resources{"vcore": 1},
		CreationTimeMillis: -1, SetCreationTime: true})
	if !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Errorf("negative creation time: %v, want ErrInvalidArgument", err)
	}
}

func TestErrors(t *testing.T) {
	t.Run("bad config", func(t *testing.T) {
		_, err := allocore.NewKernel("partitions: [", allocore.Options{})
		var e *allocore.Error
		if !errors.Is(err, allocore.ErrInvalidArgument) || !errors.As(err, &e) ||
			e.Code != allocore.CodeInvalidArgument || !strings.Contains(e.Message, "queues.yaml:1") {
			t.Fatalf("bad YAML: %#v", err)
		}
		if errors.Is(err, allocore.ErrNotFound) || errors.Is(err, allocore.ErrClosed) {
			t.Fatalf("bad YAML matches the wrong sentinels: %v", err)
		}
	})
	t.Run("unknown semantics", func(t *testing.T) {
		_, err := allocore.NewKernel(queues, allocore.Options{Semantics: "yunikorn-0.1"})
		if !errors.Is(err, allocore.ErrInvalidArgument) || !strings.Contains(err.Error(), "yunikorn-0.1") {
			t.Fatalf("unknown semantics: %v", err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		k := newKernel(t)
		_, err := k.RemoveApp("", "no-such-app")
		var e *allocore.Error
		if !errors.As(err, &e) || !errors.Is(err, allocore.ErrNotFound) || e.Op != "Kernel.RemoveApp" ||
			!strings.HasPrefix(e.Func, "allocore_remove_app") {
			t.Fatalf("unknown app: %#v", err)
		}
		if _, err := k.ListQueues("no-such-partition"); !errors.Is(err, allocore.ErrNotFound) {
			t.Fatalf("unknown partition: %v", err)
		}
		if _, err := k.FindNode("", "nope"); !errors.Is(err, allocore.ErrNotFound) {
			t.Fatalf("unknown node: %v", err)
		}
	})
	t.Run("already exists", func(t *testing.T) {
		k := newKernel(t)
		must(k.AddNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 1}}))
		if _, err := k.AddNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 1}}); !errors.Is(err, allocore.ErrAlreadyExists) {
			t.Fatalf("duplicate node: %v", err)
		}
	})
	t.Run("stale handle", func(t *testing.T) {
		k := newKernel(t)
		cluster(t, k)
		h := must(k.FindApp("", "web-1"))
		ask := must(k.FindAsk(h, "executors"))
		if !h.Valid() || !ask.Valid() {
			t.Fatalf("handles %v %v", h, ask)
		}
		ds := must(k.RemoveApp("", "web-1"))
		if len(ds) == 0 {
			t.Fatal("removing an app made no decision")
		}
		_, err := k.RemoveAppByHandle(h)
		if !errors.Is(err, allocore.ErrFailedPrecondition) || !strings.Contains(err.Error(), "stale") {
			t.Fatalf("stale app handle: %v", err)
		}
		if _, err := k.ReleaseByHandle(ask, allocore.Handle{}, 0); !errors.Is(err, allocore.ErrFailedPrecondition) {
			t.Fatalf("stale ask handle: %v", err)
		}
		// The other application's handle still works.
		other := must(k.FindApp("", "spark-1"))
		must(k.RemoveAppByHandle(other))
	})
	t.Run("closed kernel", func(t *testing.T) {
		k, err := allocore.NewKernel(queues, allocore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cluster(t, k)
		h := must(k.FindApp("", "web-1"))
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
		if err := k.Close(); err != nil { // idempotent
			t.Fatal(err)
		}
		calls := map[string]error{}
		_, calls["AddNode"] = k.AddNode(allocore.Node{ID: "x"})
		_, _, calls["Schedule"] = k.Schedule(0)
		_, calls["RemoveAppByHandle"] = k.RemoveAppByHandle(h)
		_, calls["Snapshot"] = k.Snapshot()
		_, calls["Fork"] = k.Fork()
		_, calls["ListQueues"] = k.ListQueues("")
		_, calls["ExplainPending"] = k.ExplainPending()
		_, calls["NowMillis"] = k.NowMillis()
		for name, err := range calls {
			if !errors.Is(err, allocore.ErrClosed) || !errors.Is(err, allocore.ErrFailedPrecondition) {
				t.Errorf("%s on a closed kernel: %v", name, err)
			}
		}
	})
	t.Run("zero values", func(t *testing.T) {
		// A Kernel, Service or Snapshot never made by the constructors is a closed one.
		var k allocore.Kernel
		if _, err := k.AddNode(allocore.Node{ID: "n"}); !errors.Is(err, allocore.ErrClosed) {
			t.Fatalf("zero Kernel: %v", err)
		}
		var s allocore.Service
		if _, err := s.SubmitAdvance(1); !errors.Is(err, allocore.ErrClosed) {
			t.Fatalf("zero Service: %v", err)
		}
		if _, err := s.NextBatch(context.Background()); !errors.Is(err, allocore.ErrClosed) {
			t.Fatalf("zero Service NextBatch: %v", err)
		}
		s.Close()
		var snap allocore.Snapshot
		if _, err := snap.AppState("", "a"); !errors.Is(err, allocore.ErrClosed) {
			t.Fatalf("zero Snapshot: %v", err)
		}
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("NUL in a C string", func(t *testing.T) {
		k := newKernel(t)
		_, err := k.AddNode(allocore.Node{ID: "n", Partition: "de\x00fault"})
		if !errors.Is(err, allocore.ErrInvalidArgument) {
			t.Fatalf("partition with a NUL: %v", err)
		}
	})
	t.Run("caps", func(t *testing.T) {
		k, err := allocore.NewKernel(queues, allocore.Options{MaxApplications: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer k.Close()
		must(k.AddApp(allocore.App{ID: "a1", User: "u", Queue: "root.web"}))
		if _, err := k.AddApp(allocore.App{ID: "a2", User: "u", Queue: "root.web"}); !errors.Is(err, allocore.ErrResourceExhausted) {
			t.Fatalf("over MaxApplications: %v", err)
		}
	})
	t.Run("sentinels", func(t *testing.T) {
		codes := map[*allocore.Error]allocore.Code{
			allocore.ErrCancelled: allocore.CodeCancelled, allocore.ErrUnknown: allocore.CodeUnknown,
			allocore.ErrInvalidArgument: allocore.CodeInvalidArgument, allocore.ErrDeadlineExceeded: allocore.CodeDeadlineExceeded,
			allocore.ErrNotFound: allocore.CodeNotFound, allocore.ErrAlreadyExists: allocore.CodeAlreadyExists,
			allocore.ErrPermissionDenied: allocore.CodePermissionDenied, allocore.ErrResourceExhausted: allocore.CodeResourceExhausted,
			allocore.ErrFailedPrecondition: allocore.CodeFailedPrecondition, allocore.ErrOutOfRange: allocore.CodeOutOfRange,
			allocore.ErrInternal: allocore.CodeInternal, allocore.ErrDataLoss: allocore.CodeDataLoss,
		}
		for sentinel, code := range codes {
			err := error(&allocore.Error{Code: code, Op: "x", Message: "y"})
			for other, otherCode := range codes {
				if errors.Is(err, other) != (code == otherCode) {
					t.Errorf("code %v matches %v: %v", code, other.Code, errors.Is(err, other))
				}
			}
			if errors.Is(err, allocore.ErrClosed) || sentinel.Code.String() == "" {
				t.Errorf("code %v", code)
			}
		}
		if allocore.CodeNotFound.String() != "NOT_FOUND" {
			t.Errorf("code name %q", allocore.CodeNotFound.String())
		}
	})
}

func TestForkIndependence(t *testing.T) {
	k := newKernel(t)
	cluster(t, k)
	must2(k.Schedule(0))
	fork := must(k.Fork())
	defer fork.Close()
	// What-if on the fork: remove a node there.
	ds := must(fork.RemoveNode("", "node-1"))
	if len(ofType(ds, allocore.DecisionRelease)) != 2 {
		t.Fatalf("removing node-1 in the fork: %v", ds)
	}
	if n := must(fork.ListNodes("")); len(n) != 1 {
		t.Fatalf("fork nodes %+v", n)
	}
	if n := must(k.ListNodes("")); len(n) != 2 || n[0].Allocations != 2 {
		t.Fatalf("the original changed with its fork: %+v", n)
	}
	// And the original goes on deciding on its own: its seq numbering is not the fork's.
	must(k.AddAsk(allocore.Ask{App: "spark-1", ID: "driver", Resources: allocore.Resources{"vcore": 500}}))
	must(fork.AddAsk(allocore.Ask{App: "spark-1", ID: "other", Resources: allocore.Resources{"vcore": 100}}))
	ds, _ = must2(k.Schedule(0))
	a := ofType(ds, allocore.DecisionAllocation)
	if len(a) != 1 || a[0].Ask != "driver" || a[0].Seq != 5 {
		t.Fatalf("original after fork: %v", ds)
	}
	fork.Close()
	// The original outlives its closed fork.
	must(k.ListQueues(""))
}

func TestSnapshotRestore(t *testing.T) {
	k := newKernel(t)
	cluster(t, k)
	must2(k.Schedule(2))
	must(k.Advance(1500))
	snap := must(k.Snapshot())
	if len(snap) == 0 {
		t.Fatal("empty snapshot")
	}
	restored := must(allocore.Restore(snap))
	defer restored.Close()
	if now := must(restored.NowMillis()); now != 1500 {
		t.Fatalf("restored clock %d, want 1500", now)
	}
	// The two decide the same from here.
	want, wantMade := must2(k.Schedule(0))
	got, gotMade := must2(restored.Schedule(0))
	if wantMade != gotMade || fmt.Sprint(want) != fmt.Sprint(got) || wantMade != 2 {
		t.Fatalf("restored decides differently:\n%v (%d)\n%v (%d)", got, gotMade, want, wantMade)
	}
	for i := range want {
		if want[i].Seq != got[i].Seq || want[i].Node != got[i].Node {
			t.Fatalf("decision %d: %+v vs %+v", i, got[i], want[i])
		}
	}
	// Bytes that are not a snapshot: ErrInvalidArgument.
	if _, err := allocore.Restore([]byte("not a snapshot")); !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("restore of garbage: %v", err)
	}
	if _, err := allocore.Restore(snap[:len(snap)/2]); !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("restore of half a snapshot: %v", err)
	}
	if _, err := allocore.Restore(nil); !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("restore of nothing: %v", err)
	}
}

// Many goroutines on one kernel: the mutex serialises them (run with -race).
func TestKernelConcurrentGoroutines(t *testing.T) {
	k := newKernel(t)
	must(k.AddNode(allocore.Node{ID: "big", Capacity: allocore.Resources{"vcore": 1 << 40}}))
	const workers, asks = 8, 50
	inParallel(t, workers, func(w int) error {
		app := fmt.Sprintf("app-%d", w)
		if _, err := k.AddApp(allocore.App{ID: app, User: "u", Queue: "root.batch"}); err != nil {
			return err
		}
		for i := 0; i < asks; i++ {
			if _, err := k.AddAsk(allocore.Ask{App: app, ID: fmt.Sprint("ask-", i), Resources: allocore.Resources{"vcore": 1}}); err != nil {
				return err
			}
			if _, _, err := k.Schedule(0); err != nil {
				return err
			}
		}
		return nil
	})
	if u := must(k.Usage()); u.LiveAllocations != workers*asks {
		t.Fatalf("usage %+v, want %d live allocations", u, workers*asks)
	}
}

func TestUpdateNodeAndConfig(t *testing.T) {
	k := newKernel(t)
	must(k.AddNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 1000}}))
	must(k.AddApp(allocore.App{ID: "a", User: "u", Queue: "root.web"}))
	must(k.AddAsk(allocore.Ask{App: "a", ID: "x", Resources: allocore.Resources{"vcore": 800}, Count: 2}))
	// Cordon the node: nothing is placed.
	must(k.UpdateNode(allocore.Node{ID: "n", Schedulable: allocore.Bool(false)}))
	if _, made := must2(k.Schedule(0)); made != 0 {
		t.Fatalf("a cordoned node took %d", made)
	}
	// Uncordon and grow it: both fit; the capacity update leaves schedulable alone.
	must(k.UpdateNode(allocore.Node{ID: "n", Schedulable: allocore.Bool(true)}))
	must(k.UpdateNode(allocore.Node{ID: "n", Capacity: allocore.Resources{"vcore": 2000}}))
	if _, made := must2(k.Schedule(0)); made != 2 {
		t.Fatalf("made %d after the update, want 2", made)
	}
	nodes := must(k.ListNodes(""))
	if !nodes[0].Schedulable || nodes[0].Capacity["vcore"] != 2000 {
		t.Fatalf("node %+v", nodes[0])
	}
	// A config with a max on root.web: the kernel takes it.
	must(k.UpdateConfig(queuesWebMax))
	qs := must(k.ListQueues(""))
	if qs[2].Path != "root.web" || qs[2].Max["vcore"] != 5000 {
		t.Fatalf("queues after the update: %+v", qs)
	}
	if _, err := k.UpdateConfig("partitions: ["); !errors.Is(err, allocore.ErrInvalidArgument) {
		t.Fatalf("bad config update: %v", err)
	}
}

// Resource maps are passed in name order, so the kernel registers new types deterministically.
func TestResourceTypeOrder(t *testing.T) {
	k := newKernel(t)
	capacity := allocore.Resources{}
	// Six: with vcore and memory, the kernel's 8 types.
	names := []string{"c.example/c", "f.example/f", "a.example/a", "b.example/b", "e.example/e", "d.example/d"}
	for _, name := range names {
		capacity[name] = 1
	}
	must(k.AddNode(allocore.Node{ID: "n", Capacity: capacity}))
	types := must(k.ResourceTypes())
	var added []string
	for _, typ := range types {
		if strings.HasSuffix(typ, ".example/"+typ[:1]) {
			added = append(added, typ)
		}
	}
	sort.Strings(names)
	if strings.Join(added, ",") != strings.Join(names, ",") {
		t.Fatalf("types registered as %v, want name order %v", types, names)
	}
}

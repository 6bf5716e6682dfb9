package allocore

import (
	_ "embed"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// internalQueues is the tests' configuration (kernel_test.go's queues).
//
//go:embed testdata/queues.yaml
var internalQueues string

const quotaQueues = `partitions:
  - name: default
    preemption: {quotapreemptionenabled: true}
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {max: {memory: 10}}
            properties: {quota.preemption.delay: 1s}
`

// preemption-ask-count.yaml of tests/scenarios: queue-2 preempts one pod of queue-1.
const preemptionQueues = `partitions:
  - name: default
    preemption: {enabled: true}
    queues:
      - name: root
        submitacl: "*"
        properties: {preemption.delay: 10s}
        queues:
          - name: normal
            resources: {max: {pods: 12}}
            queues:
              - name: queue-1
                resources: {max: {pods: 10}, guaranteed: {pods: 5}}
              - name: queue-2
                resources: {max: {pods: 10}, guaranteed: {pods: 5}}
`

// newTestKernel is a kernel of the configuration yaml, closed when the test ends.
func newTestKernel(tb testing.TB, yaml string, opts Options) *Kernel {
	tb.Helper()
	k, err := NewKernel(yaml, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Close() })
	return k
}

// smallFrames makes decision chunks tiny for the kernels a test creates: every list takes
// several export calls, and the names buffer has to grow.
func smallFrames(t *testing.T, records, names int) {
	oldRecords, oldNames := chunkRecords, chunkNames
	chunkRecords, chunkNames = records, names
	t.Cleanup(func() { chunkRecords, chunkNames = oldRecords, oldNames })
}

// compare checks a call's bulk-read decisions against the per-accessor reading of the same
// list, and records which types and reasons were seen.
type compare struct {
	t       *testing.T
	k       *Kernel
	types   map[DecisionType]int
	reasons map[ReleaseReason]int
	total   int
}

// newCompare is a compare on a new kernel of the configuration yaml.
func newCompare(t *testing.T, yaml string, opts Options) (*Kernel, *compare) {
	k := newTestKernel(t, yaml, opts)
	return k, &compare{t: t, k: k, types: map[DecisionType]int{}, reasons: map[ReleaseReason]int{}}
}

// on is a compare on a new kernel of the configuration yaml that counts into c's tallies.
func (c *compare) on(yaml string, opts Options) (*Kernel, *compare) {
	k, other := newCompare(c.t, yaml, opts)
	other.types, other.reasons = c.types, c.reasons
	return k, other
}

// check("Call")(k.Call(...)) compares the decisions of one call.
func (c *compare) check(call string) func([]Decision, error) []Decision {
	return func(ds []Decision, err error) []Decision { return c.compare(call, ds, err) }
}

// sched is check for Schedule's results.
func (c *compare) sched(call string) func([]Decision, int64, error) []Decision {
	return func(ds []Decision, _ int64, err error) []Decision { return c.compare(call, ds, err) }
}

func (c *compare) compare(call string, ds []Decision, err error) []Decision {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("%s: %v", call, err)
	}
	want := decisionsByAccessor(c.k.f.out)
	got := make([]Decision, len(ds))
	copy(got, ds)
	for i := range got {
		got[i].Quota = nil // not read by accessors
	}
	if len(want) == 0 {
		want = nil
	}
	if len(got) == 0 {
		got = nil
	}
	if !reflect.DeepEqual(got, want) {
		type plain Decision // without String, so that %+v shows every field
		for i := 0; i < len(got) || i < len(want); i++ {
			var g, w plain
			if i < len(got) {
				g = plain(got[i])
			}
			if i < len(want) {
				w = plain(want[i])
			}
			if !reflect.DeepEqual(g, w) {
				c.t.Errorf("%s: decision %d:\nbulk:      %+v %#v\naccessors: %+v %#v", call, i, g, [3]Handle{g.AppHandle, g.AskHandle, g.NodeHandle}, w, [3]Handle{w.AppHandle, w.AskHandle, w.NodeHandle})
			}
		}
		c.t.FailNow()
	}
	for _, d := range ds {
		c.types[d.Type]++
		if d.Type == DecisionRelease || d.Type == DecisionAskRemoved {
			c.reasons[d.ReleaseReason]++
		}
	}
	c.total += len(ds)
	return ds
}

func TestBulkDecisionsEqualAccessors(t *testing.T) {
	for _, size := range []struct{ records, names int }{{512, 32 << 10}, {3, 8}, {1, 1}} {
		t.Run(fmt.Sprintf("records=%d,names=%d", size.records, size.names), func(t *testing.T) {
			smallFrames(t, size.records, size.names)
			bulkScenario(t)
		})
	}
}

func bulkScenario(t *testing.T) {
	k, c := newCompare(t, internalQueues, Options{})
	long := strings.Repeat("x", 1000) // names near ApiLimits' 1024 bytes
	app := "app-" + long

	for _, n := range []string{"n1", "n2"} {
		c.check("AddNode")(k.AddNode(Node{ID: n, Capacity: Resources{"vcore": 2000, "memory": 1 << 30}}))
	}
	ds := c.check("AddApp rejected")(k.AddApp(App{ID: "lost", User: "u", Queue: "root.missing"}))
	if len(ds) != 1 || ds[0].Type != DecisionAppRejected || ds[0].Reason == "" {
		t.Fatalf("rejected app: %+v", ds)
	}
	c.check("AddApp")(k.AddApp(App{ID: app, User: "u", Queue: "root.batch", Groups: []string{"g1", "g2"},
		Tags: map[string]string{"namespace": "team"}}))
	c.check("AddAsk")(k.AddAsk(Ask{App: app, ID: "x-" + long, Resources: Resources{"vcore": 1000}, Count: 4, Priority: 3}))
	ds = c.sched("Schedule")(k.SchedulePartition("default", 0))
	if n := len(filter(ds, DecisionAllocation)); n != 4 {
		t.Fatalf("%d allocations, want 4", n)
	}
	// Removing an ask with pending repeats only: no decision (an empty list to compare).
	c.check("AddAsk")(k.AddAsk(Ask{App: app, ID: "y", Resources: Resources{"vcore": 500}, Count: 3}))
	c.check("RemoveAsk")(k.RemoveAsk("", app, "y"))

	// A DaemonSet pod on the full n2 preempts there.
	c.check("AddApp")(k.AddApp(App{ID: "ds", User: "u", Queue: "root.web"}))
	c.check("AddAsk")(k.AddAsk(Ask{App: "ds", ID: "daemon", RequiredNode: "n2", Priority: 10, Resources: Resources{"vcore": 1000}}))
	c.sched("Schedule")(k.Schedule(0))
	c.sched("Schedule")(k.Schedule(0))

	// Gang scheduling: a placeholder, then the real ask of its task group replaces it.
	c.check("AddNode")(k.AddNode(Node{ID: "n3", Capacity: Resources{"vcore": 4000, "memory": 1 << 30}}))
	c.check("AddApp")(k.AddApp(App{ID: "gang", User: "u", Queue: "root.web", PlaceholderAsk: Resources{"vcore": 500}}))
	c.check("AddAsk")(k.AddAsk(Ask{App: "gang", ID: "ph", TaskGroup: "tg", Placeholder: true, Resources: Resources{"vcore": 500}}))
	c.sched("Schedule")(k.Schedule(0))
	c.check("AddAsk")(k.AddAsk(Ask{App: "gang", ID: "real", TaskGroup: "tg", Resources: Resources{"vcore": 500}}))
	ds = c.sched("Schedule")(k.Schedule(0))
	replaced := false
	for _, d := range ds {
		if d.Type == DecisionAllocation && d.Replaces == "ph" {
			replaced = true
		}
	}
	if !replaced {
		t.Errorf("no allocation replaced the placeholder: %+v", ds)
	}

	// A gang that cannot start before its placeholder timeout: its pending placeholder is
	// dropped (ask_removed) and the allocated one released (timeout).
	c.check("AddApp")(k.AddApp(App{ID: "gang2", User: "u", Queue: "root.web", PlaceholderAsk: Resources{"vcore": 6000},
		PlaceholderTimeoutMillis: 1000}))
	c.check("AddAsk")(k.AddAsk(Ask{App: "gang2", ID: "ph", TaskGroup: "tg", Placeholder: true, Count: 2,
		Resources: Resources{"vcore": 3000}}))
	c.sched("Schedule")(k.Schedule(0))
	ds = c.check("Advance")(k.Advance(1000))
	if removed := filter(ds, DecisionAskRemoved); len(removed) != 1 || removed[0].Count != 1 ||
		removed[0].ReleaseReason != ReleaseTimeout || removed[0].App != "gang2" {
		t.Errorf("placeholder timeout: %+v", ds)
	}

	c.check("RemoveNode")(k.RemoveNode("", "n1"))
	live, err := k.ListAllocations("", app, "")
	if err != nil || len(live) == 0 {
		t.Fatalf("allocations of %s: %v %v", app[:8], live, err)
	}
	c.check("Release")(k.Release(Release{App: app, Ask: live[0].Ask, Seq: live[0].Seq}))
	c.check("RemoveApp")(k.RemoveApp("", "gang"))
	c.check("Advance")(k.Advance(3600_000))

	// yunikorn-1.9's quota preemption (and recovered allocations), on a second kernel.
	q, qc := c.on(quotaQueues, Options{Semantics: YuniKorn19})
	qc.check("AddNode")(q.AddNode(Node{ID: "node-1", Capacity: Resources{"memory": 100}}))
	qc.check("AddApp")(q.AddApp(App{ID: "app-1", User: "u", Queue: "root.a"}))
	qc.check("Recover")(q.RecoverAllocation(Ask{App: "app-1", ID: "big", Resources: Resources{"memory": 10}}, "node-1"))
	qc.check("Recover")(q.RecoverAllocation(Ask{App: "app-1", ID: "small", Resources: Resources{"memory": 2}}, "node-1"))
	ds = qc.check("Advance")(q.Advance(1000))
	runs := filter(ds, DecisionQuotaPreemption)
	if len(runs) != 1 || runs[0].Queue != "root.a" || runs[0].Count != 1 ||
		runs[0].Quota == nil || !reflect.DeepEqual(runs[0].Quota.Max, Resources{"memory": 10}) ||
		!reflect.DeepEqual(runs[0].Quota.Preemptable, Resources{"memory": 2}) {
		t.Fatalf("quota preemption: %+v", ds)
	}
	rel := filter(ds, DecisionRelease)
	if len(rel) != 1 || rel[0].ByQueue != "root.a" || rel[0].Ask != "small" || rel[0].ReleaseReason != ReleaseQuota {
		t.Fatalf("quota release: %+v", rel)
	}

	// General preemption, on a third kernel.
	p, pc := c.on(preemptionQueues, Options{})
	pc.check("AddNode")(p.AddNode(Node{ID: "node-1", Capacity: Resources{"pods": 20}}))
	pc.check("AddApp")(p.AddApp(App{ID: "app-1", User: "u1", Queue: "root.normal.queue-1"}))
	pc.check("AddAsk")(p.AddAsk(Ask{App: "app-1", ID: "pod", Resources: Resources{"pods": 1}, Count: 10}))
	pc.sched("Schedule")(p.Schedule(0))
	pc.check("AddApp")(p.AddApp(App{ID: "app-2", User: "u1", Queue: "root.normal.queue-2"}))
	pc.check("AddAsk")(p.AddAsk(Ask{App: "app-2", ID: "pod", Resources: Resources{"pods": 1}, Count: 10}))
	pc.sched("Schedule")(p.Schedule(0))
	pc.check("Advance")(p.Advance(10_000))
	ds = pc.sched("Schedule")(p.Schedule(0))
	if pre := filter(ds, DecisionPreemption); len(pre) != 1 || pre[0].App != "app-2" || pre[0].Count != 1 {
		t.Errorf("general preemption: %+v", ds)
	}

	// The scenario reached every decision type and the reasons it means to.
	for typ := DecisionAllocation; typ <= DecisionQuotaPreemption; typ++ {
		if c.types[typ] == 0 {
			t.Errorf("no %v decision was compared (seen: %v)", typ, c.types)
		}
	}
	for _, r := range []ReleaseReason{ReleaseReleased, ReleaseRemoved, ReleaseReplaced, ReleasePreempted,
		ReleaseTimeout, ReleaseQuota} {
		if c.reasons[r] == 0 {
			t.Errorf("no %v release was compared (seen: %v)", r, c.reasons)
		}
	}
}

func filter(ds []Decision, typ DecisionType) []Decision {
	var out []Decision
	for _, d := range ds {
		if d.Type == typ {
			out = append(out, d)
		}
	}
	return out
}

// Names of one chunk share one string: reading costs one allocation per chunk, not per name.
func TestBulkNamesShareOneString(t *testing.T) {
	k := newTestKernel(t, internalQueues, Options{})
	if _, err := k.AddNode(Node{ID: "n", Capacity: Resources{"vcore": 1 << 30}}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.AddApp(App{ID: "a", User: "u", Queue: "root.web"}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.AddAsk(Ask{App: "a", ID: "x", Resources: Resources{"vcore": 1}, Count: 100}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.Schedule(0); err != nil {
		t.Fatal(err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if C := int(k.f.total); C < 100 {
		t.Fatalf("%d decisions", C)
	}
	// Export again and count allocations of the reading alone.
	allocs := testing.AllocsPerRun(20, func() {
		if cerr := gocoreExportAgain(k); cerr != nil {
			t.Fatal(cerr)
		}
		ds, err := collect("test", k.f, k.f.out, make([]Decision, 0, 128))
		if err != nil || len(ds) < 100 {
			t.Fatal(err)
		}
	})
	// One for the names string (the destination slice is made inside the closure: +1).
	if allocs > 2 {
		t.Fatalf("reading %d decisions allocates %.0f times, want at most 2", k.f.total, allocs)
	}
}

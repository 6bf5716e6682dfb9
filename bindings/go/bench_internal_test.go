package allocore

import (
	"bytes"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"allocore.dev/allocore/internal/cbench"
)

// The churn workload (cbench.h), at a size a benchmark sets up in a few seconds.
const (
	churnNodes   = 500
	churnApps    = 100
	churnPending = 10_000
	churnLive    = 4_000
)

// goChurn is cbench's churn workload through the Go API: the same config, shapes, priorities
// and steps (release the oldest live allocation by seq, add an ask, Schedule(1)).
type goChurn struct {
	k      *Kernel
	apps   []string
	rng    *cbench.Rng
	next   int64
	ring   []Release // live allocations, oldest first (from head)
	head   int
	shapes [5]Resources // reused: the Go caller need not build a map per ask
	idBuf  []byte
	reuse  bool       // read decisions with the Append forms into buf
	buf    []Decision // reused by the Append forms
}

// newGoChurn builds the workload's steady state (its kernel is closed when the test ends).
func newGoChurn(tb testing.TB) *goChurn {
	k := newTestKernel(tb, cbench.Config, Options{SourceName: "churn.yaml"})
	g := &goChurn{k: k, rng: cbench.NewRng()}
	for s := int64(1); s <= 4; s++ {
		g.shapes[s] = Resources{"memory": 10 * s, "vcore": 1000 * s}
	}
	for i := 0; i < churnNodes; i++ {
		if _, err := k.AddNode(Node{ID: "node-" + strconv.Itoa(i), Capacity: Resources{"memory": 40 * 16, "vcore": 4000 * 16}}); err != nil {
			tb.Fatal(err)
		}
	}
	for a := 0; a < churnApps; a++ {
		id := "app-" + strconv.Itoa(a)
		g.apps = append(g.apps, id)
		if _, err := k.AddApp(App{ID: id, User: "user", Queue: "root.q" + strconv.Itoa(a%10)}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < churnPending; i++ {
		if err := g.addAsk(); err != nil {
			tb.Fatal(err)
		}
	}
	for len(g.ring)-g.head < churnLive {
		want := int64(churnLive - (len(g.ring) - g.head))
		if want > 1000 {
			want = 1000
		}
		ds, made, err := k.Schedule(want)
		if err != nil {
			tb.Fatal(err)
		}
		if made == 0 {
			break
		}
		g.take(ds)
		for i := int64(0); i < made; i++ {
			if err := g.addAsk(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return g
}

func (g *goChurn) addAsk() error {
	shape, priority := g.rng.Next()
	app := g.apps[g.next%int64(len(g.apps))]
	g.idBuf = strconv.AppendInt(append(g.idBuf[:0], "ask-"...), g.next, 10)
	g.next++
	ask := Ask{App: app, ID: string(g.idBuf), Resources: g.shapes[shape], Priority: priority}
	if g.reuse {
		var err error
		g.buf, err = g.k.AppendAddAsk(g.buf[:0], ask)
		return err
	}
	_, err := g.k.AddAsk(ask)
	return err
}

func (g *goChurn) take(ds []Decision) {
	for i := range ds {
		if ds[i].Type == DecisionAllocation {
			g.ring = append(g.ring, ReleaseOf(&ds[i]))
		}
	}
	if g.head > 4096 && g.head > len(g.ring)/2 { // drop the released prefix now and then
		g.ring = append(g.ring[:0], g.ring[g.head:]...)
		g.head = 0
	}
}

// steps runs n steps.
func (g *goChurn) steps(tb testing.TB, n int) {
	for i := 0; i < n; i++ {
		if err := g.step(); err != nil {
			tb.Fatal(err)
		}
	}
}

func (g *goChurn) step() error {
	if g.head < len(g.ring) {
		r := g.ring[g.head]
		g.ring[g.head] = Release{}
		g.head++
		var err error
		if g.reuse {
			g.buf, err = g.k.AppendRelease(g.buf[:0], r)
		} else {
			_, err = g.k.Release(r)
		}
		if err != nil {
			return err
		}
	}
	if err := g.addAsk(); err != nil {
		return err
	}
	var ds []Decision
	var err error
	if g.reuse {
		ds, _, err = g.k.AppendSchedule(g.buf[:0], "", 1)
		g.buf = ds
	} else {
		ds, _, err = g.k.Schedule(1)
	}
	if err != nil {
		return err
	}
	g.take(ds)
	return nil
}

// newCChurn is the C churn workload, closed when the test ends.
func newCChurn(tb testing.TB) *cbench.Churn {
	c, err := cbench.NewChurn(churnNodes, churnApps, churnPending, churnLive)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// BenchmarkChurn: one op is a churn step (release by seq + add ask + Schedule(1) + reading
// the allocation), from Go and from C in the same process.
func BenchmarkChurn(b *testing.B) {
	// fromC runs the C churn; scheduleOnly reports the time in allocore_schedule alone.
	fromC := func(scheduleOnly bool) func(b *testing.B) {
		return func(b *testing.B) {
			c := newCChurn(b)
			b.ResetTimer()
			ns, err := c.Run(b.N, scheduleOnly)
			if err != nil {
				b.Fatal(err)
			}
			if scheduleOnly {
				b.ReportMetric(float64(ns)/float64(b.N), "schedule-ns/op")
			}
		}
	}
	// fromGo runs the Go churn; reuse reads decisions with the Append forms.
	fromGo := func(reuse bool) func(b *testing.B) {
		return func(b *testing.B) {
			g := newGoChurn(b)
			g.reuse = reuse
			b.ReportAllocs()
			b.ResetTimer()
			g.steps(b, b.N)
		}
	}
	b.Run("C", fromC(false))
	b.Run("C/schedule-only", fromC(true))
	b.Run("Go", fromGo(false))
	b.Run("Go/append", fromGo(true))
}

// readList builds a kernel whose last call made n allocation decisions (and a few app state
// changes), for the reading benchmarks.
func readList(tb testing.TB, n int) *Kernel {
	k := newTestKernel(tb, cbench.Config, Options{})
	if _, err := k.AddNode(Node{ID: "node-0", Capacity: Resources{"vcore": 1 << 40}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := k.AddApp(App{ID: "app-0", User: "user", Queue: "root.q0"}); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := k.AddAsk(Ask{App: "app-0", ID: "ask-" + strconv.Itoa(i), Resources: Resources{"vcore": 1}}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, _, err := k.Schedule(0); err != nil {
		tb.Fatal(err)
	}
	return k
}

// BenchmarkReadDecisions: reading a list of decisions; one op reads the whole list
// (ns/decision is the figure to compare).
func BenchmarkReadDecisions(b *testing.B) {
	for _, n := range []int{1, 1000} {
		k := readList(b, n)
		list := k.f.out
		count := int(k.f.total)
		// ns/decision: the op's time over the list's length (b.Elapsed is Go 1.20).
		var start time.Time
		begin := func(b *testing.B) { b.ResetTimer(); start = time.Now() }
		perDecision := func(b *testing.B) {
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/float64(count), "ns/decision")
		}
		name := "n=" + strconv.Itoa(n)
		b.Run(name+"/Go-bulk", func(b *testing.B) {
			b.ReportAllocs()
			begin(b)
			for i := 0; i < b.N; i++ {
				if err := gocoreExportAgain(k); err != nil {
					b.Fatal(err)
				}
				ds, err := collect("bench", k.f, list, nil)
				if err != nil || len(ds) != count {
					b.Fatal(err)
				}
			}
			perDecision(b)
		})
		b.Run(name+"/Go-bulk-append", func(b *testing.B) {
			// Go-bulk into a slice reused from op to op (the Append forms).
			dst := make([]Decision, 0, count)
			b.ReportAllocs()
			begin(b)
			for i := 0; i < b.N; i++ {
				if err := gocoreExportAgain(k); err != nil {
					b.Fatal(err)
				}
				ds, err := collect("bench", k.f, list, dst[:0])
				if err != nil || len(ds) != count {
					b.Fatal(err)
				}
			}
			perDecision(b)
		})
		b.Run(name+"/Go-accessors", func(b *testing.B) {
			b.ReportAllocs()
			begin(b)
			for i := 0; i < b.N; i++ {
				if ds := decisionsByAccessor(list); len(ds) != count {
					b.Fatal(len(ds))
				}
			}
			perDecision(b)
		})
		b.Run(name+"/C-accessors", func(b *testing.B) {
			begin(b)
			cbench.ReadAccessors(unsafe.Pointer(list), b.N)
			perDecision(b)
		})
		b.Run(name+"/C-export", func(b *testing.B) {
			begin(b)
			cbench.ReadExport(unsafe.Pointer(list), b.N)
			perDecision(b)
		})
		k.Close()
	}
}

// BenchmarkCallFloor: the cheapest call (allocore_now_millis), from Go (mutex + cgo) and from
// C.
func BenchmarkCallFloor(b *testing.B) {
	k, err := NewKernel("", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	b.Run("Go", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := k.NowMillis(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("C", func(b *testing.B) {
		cbench.NowLoop(unsafe.Pointer(k.k), b.N)
	})
}

// The churn from Go makes the same decisions as from C (so that the benchmarks compare the
// same work), with fresh decision slices and with the Append forms.
func TestChurnGoMatchesC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds churn workloads")
	}
	const steps = 2000
	c := newCChurn(t)
	if _, err := c.Run(steps, false); err != nil {
		t.Fatal(err)
	}
	cSnap := c.Snapshot()
	for _, reuse := range []bool{false, true} {
		g := newGoChurn(t)
		g.reuse = reuse
		g.steps(t, steps)
		u, _ := g.k.Usage()
		if u.LiveAllocations != churnLive {
			t.Fatalf("reuse %v: the Go churn holds %d live allocations, want %d", reuse, u.LiveAllocations, churnLive)
		}
		goSnap, err := g.k.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if len(cSnap) == 0 || !bytes.Equal(goSnap, cSnap) {
			t.Fatalf("reuse %v: the Go and C churns end in different states (snapshots of %d and %d bytes)",
				reuse, len(goSnap), len(cSnap))
		}
		g.k.Close()
	}
}

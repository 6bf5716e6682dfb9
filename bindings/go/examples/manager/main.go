// A resource manager's loop around an allocore Service, fed from goroutines.
//
// Producers (goroutines, as informers would be) submit nodes, applications and their pods'
// asks to the service; the manager loop takes applied batches in order, "starts" every
// allocated pod and, since these pods finish at once, releases each allocation by the seq its
// decision carried. Releases free room for the asks still pending, which later batches place.
// When every pod has run, the loop prints a summary and exits 0.
//
// Build and run (PKG_CONFIG_PATH names the directory of allocore-c.pc when it is not in a
// standard place):
//
//	go run ./examples/manager
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"allocore.dev/allocore"
)

const queues = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: batch
            resources: {guaranteed: {vcore: 4}}
          - name: web
            resources: {guaranteed: {vcore: 4}}
`

const (
	nodes       = 4
	apps        = 6
	podsPerApp  = 200
	nodeVcore   = 4000 // milli-cores: 4 cores
	podVcore    = 500
	totalPods   = apps * podsPerApp
	runDeadline = 30 * time.Second
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
}

func run() error {
	start := time.Now()
	svc, err := allocore.NewService(queues, allocore.ServiceOptions{MaxQueued: 100_000})
	if err != nil {
		return err
	}
	defer svc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()

	// Producers: one for the nodes, one per application.
	var producers sync.WaitGroup
	produceErr := make(chan error, apps+1)
	producers.Add(1)
	go func() {
		defer producers.Done()
		for i := 0; i < nodes; i++ {
			_, err := svc.SubmitAddNode(allocore.Node{ID: fmt.Sprintf("node-%d", i),
				Capacity: allocore.Resources{"vcore": nodeVcore, "memory": 16 << 30}})
			if err != nil {
				produceErr <- err
				return
			}
		}
	}()
	for a := 0; a < apps; a++ {
		producers.Add(1)
		go func(a int) {
			defer producers.Done()
			app := fmt.Sprintf("app-%d", a)
			queue := []string{"root.batch", "root.web"}[a%2]
			if _, err := svc.SubmitAddApp(allocore.App{ID: app, User: "user", Queue: queue}); err != nil {
				produceErr <- err
				return
			}
			for p := 0; p < podsPerApp; p++ {
				_, err := svc.SubmitAddAsk(allocore.Ask{App: app, ID: fmt.Sprintf("pod-%d", p),
					Resources: allocore.Resources{"vcore": podVcore, "memory": 1 << 30}})
				if err != nil {
					produceErr <- err
					return
				}
			}
		}(a)
	}

	// The manager loop.
	var lastSeq uint64 // the last event the loop has seen applied
	var (
		batches, events, refused, allocated, released, live, maxLive int
		perApp                                                       = map[string]int{}
	)
	for released < totalPods {
		b, err := svc.NextBatch(ctx)
		if err != nil {
			return fmt.Errorf("after %d of %d pods: %w", released, totalPods, err)
		}
		batches++
		lastSeq = b.LastSeq
		events += len(b.Receipts)
		for _, r := range b.Receipts {
			if r.Err != nil {
				refused++
				fmt.Fprintf(os.Stderr, "event %d refused: %v\n", r.Seq, r.Err)
			}
		}
		for i := range b.Decisions {
			d := &b.Decisions[i]
			switch d.Type {
			case allocore.DecisionAllocation:
				allocated++
				live++
				perApp[d.App]++
				// The pod runs and finishes: release exactly this allocation.
				if _, err := svc.SubmitRelease(allocore.ReleaseOf(d)); err != nil {
					return err
				}
			case allocore.DecisionRelease:
				released++
				live--
			case allocore.DecisionAppRejected:
				return fmt.Errorf("application %s rejected: %s", d.App, d.Reason)
			}
		}
		if live > maxLive {
			maxLive = live
		}
		select {
		case err := <-produceErr:
			return err
		default:
		}
	}
	producers.Wait()

	// The snapshot after the last batch the loop took (Snapshot() may not show it yet: the
	// batch can be taken before its snapshot is published).
	snap, err := svc.WaitApplied(ctx, lastSeq)
	if err != nil {
		return err
	}
	defer snap.Close()
	qs, err := snap.Queues("")
	if err != nil {
		return err
	}
	fmt.Printf("allocore %s: %d pods of %d applications ran on %d nodes\n", allocore.Version(), allocated, apps, nodes)
	fmt.Printf("  %d events in %d batches (%d refused), at most %d pods running at once (capacity %d)\n",
		events, batches, refused, maxLive, nodes*nodeVcore/podVcore)
	names := make([]string, 0, len(perApp))
	for app := range perApp {
		names = append(names, app)
	}
	sort.Strings(names)
	for _, app := range names {
		fmt.Printf("  %s: %d pods\n", app, perApp[app])
	}
	for _, q := range qs {
		fmt.Printf("  queue %-10s allocated vcore %d, pending vcore %d\n", q.Path, q.Allocated["vcore"], q.Pending["vcore"])
	}
	fmt.Printf("  snapshot at seq %d: %d live allocations; %v\n", snap.AppliedSeq, snap.Usage.LiveAllocations,
		time.Since(start).Round(time.Millisecond))
	if allocated != totalPods || refused != 0 || snap.Usage.LiveAllocations != 0 {
		return errors.New("not every pod ran exactly once")
	}
	return nil
}

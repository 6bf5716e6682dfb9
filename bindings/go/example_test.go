package allocore_test

import (
	"context"
	"errors"
	"fmt"

	"allocore.dev/allocore"
)

func Example() {
	k, err := allocore.NewKernel(queues, allocore.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Close()
	k.AddNode(allocore.Node{ID: "node-1", Capacity: allocore.Resources{"vcore": 4000, "memory": 8 << 30}})
	k.AddApp(allocore.App{ID: "spark-1", User: "alice", Queue: "root.batch"})
	k.AddAsk(allocore.Ask{App: "spark-1", ID: "executors", Count: 3,
		Resources: allocore.Resources{"vcore": 1500, "memory": 2 << 30}})
	decisions, made, err := k.Schedule(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("made", made)
	for i := range decisions {
		if d := &decisions[i]; d.Type == allocore.DecisionAllocation {
			fmt.Printf("%s/%s on %s (seq %d)\n", d.App, d.Ask, d.Node, d.Seq)
		}
	}
	pending, _ := k.ExplainPending()
	for _, p := range pending {
		fmt.Printf("pending %s/%s x%d: %s\n", p.App, p.Ask, p.Pending, p.Reason)
	}
	// The first executor stops: release exactly its allocation, twice.
	released, _ := k.Release(allocore.ReleaseOf(&decisions[0]))
	fmt.Println(released[0].Type, released[0].Seq, released[0].ReleaseReason)
	_, err = k.Release(allocore.ReleaseOf(&decisions[0]))
	fmt.Println(errors.Is(err, allocore.ErrNotFound))
	// Output:
	// made 2
	// spark-1/executors on node-1 (seq 1)
	// spark-1/executors on node-1 (seq 2)
	// pending spark-1/executors x1: queue root headroom too small: lacks {vcore: 500m}
	// release 1 released
	// true
}

func ExampleService() {
	svc, err := allocore.NewService(queues, allocore.ServiceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer svc.Close()
	svc.SubmitAddNode(allocore.Node{ID: "node-1", Capacity: allocore.Resources{"vcore": 4000}})
	svc.SubmitAddApp(allocore.App{ID: "web-1", User: "bob", Queue: "root.web"})
	last, _ := svc.SubmitAddAsk(allocore.Ask{App: "web-1", ID: "pods", Count: 2,
		Resources: allocore.Resources{"vcore": 1000}})
	ctx := context.Background()
	for seen := uint64(0); seen < last; {
		b, err := svc.NextBatch(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, d := range b.Decisions {
			if d.Type == allocore.DecisionAllocation {
				fmt.Printf("%s/%s on %s\n", d.App, d.Ask, d.Node)
			}
		}
		seen = b.LastSeq
	}
	snap, _ := svc.WaitApplied(ctx, last)
	defer snap.Close()
	state, _ := snap.AppState("", "web-1")
	fmt.Println(snap.Usage.LiveAllocations, state)
	// Output:
	// web-1/pods on node-1
	// web-1/pods on node-1
	// 2 Running
}

// Package cbench holds the C side of the Go package's benchmarks: the same workloads as C
// loops against liballocore_c, called once per benchmark run, so that one process measures the
// per-call cost of Go and of C side by side. (cgo is not allowed in _test.go files.)
package cbench

/*
#cgo pkg-config: allocore-c
#include <stdlib.h>
#include "cbench.h"
*/
import "C"

import (
	_ "embed"
	"errors"
	"unsafe"
)

// Config is the churn workload's queues.yaml (both sides use it).
//
//go:embed churn.yaml
var Config string

// Rng is the churn workload's generator of ask shapes and priorities (both sides use it).
type Rng struct{ state uint64 }

// NewRng starts the sequence the C churn starts with.
func NewRng() *Rng { return &Rng{state: 42} }

// Next gives the next ask's shape (1..4) and priority (0..3).
func (r *Rng) Next() (shape int64, priority int32) {
	r.state = r.state*6364136223846793005 + 1442695040888963407
	return int64((r.state>>33)%4) + 1, int32((r.state >> 40) % 4)
}

// Churn is the C churn workload.
type Churn struct{ c *C.cbench_churn }

// NewChurn builds the workload's steady state.
func NewChurn(nodes, apps, pending, live int64) (*Churn, error) {
	config := C.CString(Config)
	defer C.free(unsafe.Pointer(config))
	c := C.cbench_churn_create(config, C.size_t(len(Config)), C.int64_t(nodes), C.int64_t(apps), C.int64_t(pending), C.int64_t(live))
	if c == nil {
		return nil, errors.New("cbench: the churn setup failed (see stderr)")
	}
	return &Churn{c}, nil
}

// Run runs n steps in one cgo call; with timeSchedule, it returns the time spent in
// allocore_schedule alone, in ns.
func (c *Churn) Run(n int, timeSchedule bool) (int64, error) {
	var ns C.int64_t
	flag := C.int(0)
	if timeSchedule {
		flag = 1
	}
	if C.cbench_churn_run(c.c, C.int64_t(n), flag, &ns) != 0 {
		return 0, errors.New("cbench: a churn step failed (see stderr)")
	}
	return int64(ns), nil
}

// Close frees the workload.
func (c *Churn) Close() {
	C.cbench_churn_destroy(c.c)
	c.c = nil
}

// ReadAccessors reads every field of every decision of list (an allocore_decisions_t*) rounds
// times, by accessor, in C.
func ReadAccessors(list unsafe.Pointer, rounds int) int64 {
	return int64(C.cbench_read_accessors((*C.allocore_decisions_t)(list), C.int64_t(rounds)))
}

// ReadExport reads list rounds times with allocore_decisions_export, in C.
func ReadExport(list unsafe.Pointer, rounds int) int64 {
	return int64(C.cbench_read_export((*C.allocore_decisions_t)(list), C.int64_t(rounds)))
}

// NowLoop calls allocore_now_millis n times on kernel (an allocore_kernel_t*), in C.
func NowLoop(kernel unsafe.Pointer, n int) int64 {
	return int64(C.cbench_now_loop((*C.allocore_kernel_t)(kernel), C.int64_t(n)))
}

// Snapshot is the C churn kernel's snapshot bytes.
func (c *Churn) Snapshot() []byte {
	var n C.size_t
	p := C.cbench_churn_snapshot(c.c, &n)
	if p == nil {
		return nil
	}
	defer C.allocore_free(unsafe.Pointer(p))
	return C.GoBytes(unsafe.Pointer(p), C.int(n))
}

package allocore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"unsafe"
)

// typeSet reads quantities by resource type name: the names as C strings (owned by the kernel,
// or by typeSet when it made them) and one C byte for the *present results.
type typeSet struct {
	c       []*C.char
	names   []string
	owned   bool
	present *C.uchar
}

func kernelTypes(k *C.allocore_kernel_t) *typeSet {
	n := int(C.allocore_resource_type_count(k))
	t := &typeSet{c: make([]*C.char, n), names: make([]string, n)}
	for i := 0; i < n; i++ {
		t.c[i] = C.allocore_resource_type_name(k, C.size_t(i))
		t.names[i] = C.GoString(t.c[i])
	}
	t.present = (*C.uchar)(C.malloc(1))
	return t
}

func namedTypes(names []string) *typeSet {
	t := &typeSet{c: make([]*C.char, len(names)), names: names, owned: true}
	for i, name := range names {
		t.c[i] = C.CString(name)
	}
	t.present = (*C.uchar)(C.malloc(1))
	return t
}

func (t *typeSet) free() {
	if t.owned {
		for _, p := range t.c {
			C.free(unsafe.Pointer(p))
		}
	}
	C.free(unsafe.Pointer(t.present))
}

// read gives the quantities get reports present; nil when none is (nilWhenEmpty) or an empty
// map.
func (t *typeSet) read(nilWhenEmpty bool, get func(typ *C.char, present *C.uchar) C.int64_t) Resources {
	var r Resources
	for i, typ := range t.c {
		v := get(typ, t.present)
		if *t.present != 0 {
			if r == nil {
				r = Resources{}
			}
			r[t.names[i]] = int64(v)
		}
	}
	if r == nil && !nilWhenEmpty {
		r = Resources{}
	}
	return r
}

func queuesOf(q *C.allocore_queues_t, t *typeSet) []QueueInfo {
	n := int(C.allocore_queues_count(q))
	out := make([]QueueInfo, n)
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		info := &out[i]
		info.Path = C.GoString(C.allocore_queue_path(q, idx))
		info.Leaf = C.allocore_queue_is_leaf(q, idx) != 0
		info.State = C.GoString(C.allocore_queue_state(q, idx))
		info.Priority = int32(C.allocore_queue_priority(q, idx, t.present))
		info.HasPending = *t.present != 0
		info.RunningApplications = uint64(C.allocore_queue_running_applications(q, idx))
		info.Allocated = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_allocated(q, idx, typ, p) })
		info.Pending = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_pending(q, idx, typ, p) })
		info.Guaranteed = t.read(true, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_guaranteed(q, idx, typ, p) })
		info.Max = t.read(true, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_max(q, idx, typ, p) })
	}
	return out
}

// ListQueues is every queue of a partition ("": the default), depth first in configuration
// order (root first).
func (k *Kernel) ListQueues(partition string) ([]QueueInfo, error) {
	const op = "Kernel.ListQueues"
	if err := k.lock(op); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	p := k.enc.cstr("partition", partition)
	if k.enc.err != nil {
		return nil, withOp(k.enc.err, op)
	}
	var cerr *C.char
	q := C.allocore_list_queues(k.k, k.enc.optAt(p), &cerr)
	if q == nil || cerr != nil {
		C.allocore_queues_destroy(q)
		return nil, errorFrom(op, cerr)
	}
	defer C.allocore_queues_destroy(q)
	t := kernelTypes(k.k)
	defer t.free()
	return queuesOf(q, t), nil
}

// ListNodes is every node of a partition in id order.
func (k *Kernel) ListNodes(partition string) ([]NodeInfo, error) {
	const op = "Kernel.ListNodes"
	if err := k.lock(op); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	p := k.enc.cstr("partition", partition)
	if k.enc.err != nil {
		return nil, withOp(k.enc.err, op)
	}
	var cerr *C.char
	nodes := C.allocore_list_nodes(k.k, k.enc.optAt(p), &cerr)
	if nodes == nil || cerr != nil {
		C.allocore_nodes_destroy(nodes)
		return nil, errorFrom(op, cerr)
	}
	defer C.allocore_nodes_destroy(nodes)
	t := kernelTypes(k.k)
	defer t.free()
	n := int(C.allocore_nodes_count(nodes))
	out := make([]NodeInfo, n)
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		info := &out[i]
		info.ID = C.GoString(C.allocore_nodes_id(nodes, idx))
		info.Capacity = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_capacity(nodes, idx, typ, p) })
		info.Allocated = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_allocated(nodes, idx, typ, p) })
		info.Occupied = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_occupied(nodes, idx, typ, p) })
		info.Available = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_available(nodes, idx, typ, p) })
		info.Schedulable = C.allocore_nodes_schedulable(nodes, idx) != 0
		info.Allocations = int64(C.allocore_nodes_allocation_count(nodes, idx))
	}
	return out, nil
}

// ListApps is every application of a partition the kernel answers for, in submission order.
func (k *Kernel) ListApps(partition string) ([]AppInfo, error) {
	const op = "Kernel.ListApps"
	if err := k.lock(op); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	p := k.enc.cstr("partition", partition)
	if k.enc.err != nil {
		return nil, withOp(k.enc.err, op)
	}
	var cerr *C.char
	apps := C.allocore_list_apps(k.k, k.enc.optAt(p), &cerr)
	if apps == nil || cerr != nil {
		C.allocore_apps_destroy(apps)
		return nil, errorFrom(op, cerr)
	}
	defer C.allocore_apps_destroy(apps)
	t := kernelTypes(k.k)
	defer t.free()
	n := int(C.allocore_apps_count(apps))
	out := make([]AppInfo, n)
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		out[i] = AppInfo{
			ID:        C.GoString(C.allocore_apps_id(apps, idx)),
			Queue:     C.GoString(C.allocore_apps_queue(apps, idx)),
			State:     C.GoString(C.allocore_apps_state(apps, idx)),
			Allocated: t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_apps_allocated(apps, idx, typ, p) }),
			Pending:   t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_apps_pending(apps, idx, typ, p) }),
		}
	}
	return out, nil
}

// ListAllocations is the live allocations of application app and/or on node ("": no
// filter), oldest first.
func (k *Kernel) ListAllocations(partition, app, node string) ([]AllocationInfo, error) {
	const op = "Kernel.ListAllocations"
	if err := k.lock(op); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	p, a, n := k.enc.cstr("partition", partition), k.enc.cstr("application", app), k.enc.cstr("node", node)
	if k.enc.err != nil {
		return nil, withOp(k.enc.err, op)
	}
	var cerr *C.char
	list := C.allocore_list_allocations(k.k, k.enc.optAt(p), k.enc.optAt(a), k.enc.optAt(n), &cerr)
	if list == nil || cerr != nil {
		C.allocore_allocations_destroy(list)
		return nil, errorFrom(op, cerr)
	}
	defer C.allocore_allocations_destroy(list)
	t := kernelTypes(k.k)
	defer t.free()
	count := int(C.allocore_allocations_count(list))
	out := make([]AllocationInfo, count)
	for i := 0; i < count; i++ {
		idx := C.size_t(i)
		out[i] = AllocationInfo{
			App:         C.GoString(C.allocore_allocations_app(list, idx)),
			Ask:         C.GoString(C.allocore_allocations_ask(list, idx)),
			Node:        C.GoString(C.allocore_allocations_node(list, idx)),
			Seq:         int64(C.allocore_allocations_seq(list, idx)),
			Resources:   t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_allocations_resource(list, idx, typ, p) }),
			Placeholder: C.allocore_allocations_placeholder(list, idx) != 0,
		}
	}
	return out, nil
}

// ExplainPending says, for each ask with pending repeats, why it is not allocated now.
func (k *Kernel) ExplainPending() ([]PendingExplanation, error) {
	const op = "Kernel.ExplainPending"
	if err := k.lock(op); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	e := C.allocore_explain_pending(k.k)
	if e == nil {
		return nil, &Error{Code: CodeResourceExhausted, Op: op, Message: "no explanations"}
	}
	defer C.allocore_explanations_destroy(e)
	n := int(C.allocore_explanations_count(e))
	out := make([]PendingExplanation, n)
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		out[i] = PendingExplanation{
			App:     C.GoString(C.allocore_explanation_app(e, idx)),
			Ask:     C.GoString(C.allocore_explanation_ask(e, idx)),
			Pending: int64(C.allocore_explanation_pending_count(e, idx)),
			Reason:  C.GoString(C.allocore_explanation_reason(e, idx)),
		}
	}
	return out, nil
}

// ResourceTypes is the kernel's resource type names, by type id.
func (k *Kernel) ResourceTypes() ([]string, error) {
	if err := k.lock("Kernel.ResourceTypes"); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	t := kernelTypes(k.k)
	defer t.free()
	return t.names, nil
}

// Partitions is the kernel's partition names.
func (k *Kernel) Partitions() ([]string, error) {
	if err := k.lock("Kernel.Partitions"); err != nil {
		return nil, err
	}
	defer k.mu.Unlock()
	n := int(C.allocore_partition_count(k.k))
	out := make([]string, n)
	for i := range out {
		out[i] = C.GoString(C.allocore_partition_name(k.k, C.size_t(i)))
	}
	return out, nil
}

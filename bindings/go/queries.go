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

// listValues makes the Go values of a C list a query returned (read, with the resource types of
// types) and destroys it; no list, or a message, is the query's error.
func listValues[L, R any](op string, list *L, cerr *C.char, destroy func(*L), types func() *typeSet, read func(*L, *typeSet) R) (R, error) {
	if _, err := made(op, list, cerr, destroy); err != nil {
		var none R
		return none, err
	}
	defer destroy(list)
	t := types()
	defer t.free()
	return read(list, t), nil
}

// listFilter is what a list query names; "" for no filter (and the default partition).
type listFilter struct{ partition, app, node string }

// cFilter is a listFilter's strings for the C query, NULL where empty.
type cFilter struct{ partition, app, node *C.char }

// listQuery is a kernel query of a C list of type L: list asks for it (one cgo call), read
// makes Go values of it with the kernel's resource types, destroy frees it.
func listQuery[L, R any](k *Kernel, op string, f listFilter, list func(f cFilter, cerr **C.char) *L, destroy func(*L), read func(*L, *typeSet) R) (R, error) {
	var p, a, n C.gocore_str
	return invoke(k, op, func(e *encoder) {
		p, a, n = e.cstr("partition", f.partition), e.cstr("application", f.app), e.cstr("node", f.node)
	}, func(e *encoder) (R, error) {
		var cerr *C.char
		l := list(cFilter{e.optAt(p), e.optAt(a), e.optAt(n)}, &cerr)
		return listValues(op, l, cerr, destroy, func() *typeSet { return kernelTypes(k.k) }, read)
	})
}

// rows makes the Go values of n rows of a C list: fill writes row i into its value.
func rows[T any](n C.size_t, fill func(v *T, i C.size_t)) []T {
	out := make([]T, int(n))
	for i := range out {
		fill(&out[i], C.size_t(i))
	}
	return out
}

func destroyQueues(q *C.allocore_queues_t) { C.allocore_queues_destroy(q) }

func queuesOf(q *C.allocore_queues_t, t *typeSet) []QueueInfo {
	return rows(C.allocore_queues_count(q), func(info *QueueInfo, i C.size_t) {
		info.Path = C.GoString(C.allocore_queue_path(q, i))
		info.Leaf = C.allocore_queue_is_leaf(q, i) != 0
		info.State = C.GoString(C.allocore_queue_state(q, i))
		info.Priority = int32(C.allocore_queue_priority(q, i, t.present))
		info.HasPending = *t.present != 0
		info.RunningApplications = uint64(C.allocore_queue_running_applications(q, i))
		info.Allocated = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_allocated(q, i, typ, p) })
		info.Pending = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_pending(q, i, typ, p) })
		info.Guaranteed = t.read(true, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_guaranteed(q, i, typ, p) })
		info.Max = t.read(true, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_queue_max(q, i, typ, p) })
	})
}

// ListQueues is every queue of a partition ("": the default), depth first in configuration
// order (root first).
func (k *Kernel) ListQueues(partition string) ([]QueueInfo, error) {
	return listQuery(k, "Kernel.ListQueues", listFilter{partition: partition},
		func(f cFilter, cerr **C.char) *C.allocore_queues_t {
			return C.allocore_list_queues(k.k, f.partition, cerr)
		},
		destroyQueues, queuesOf)
}

// ListNodes is every node of a partition in id order.
func (k *Kernel) ListNodes(partition string) ([]NodeInfo, error) {
	return listQuery(k, "Kernel.ListNodes", listFilter{partition: partition},
		func(f cFilter, cerr **C.char) *C.allocore_nodes_t {
			return C.allocore_list_nodes(k.k, f.partition, cerr)
		},
		func(nodes *C.allocore_nodes_t) { C.allocore_nodes_destroy(nodes) }, nodesOf)
}

func nodesOf(nodes *C.allocore_nodes_t, t *typeSet) []NodeInfo {
	return rows(C.allocore_nodes_count(nodes), func(info *NodeInfo, i C.size_t) {
		info.ID = C.GoString(C.allocore_nodes_id(nodes, i))
		info.Capacity = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_capacity(nodes, i, typ, p) })
		info.Allocated = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_allocated(nodes, i, typ, p) })
		info.Occupied = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_occupied(nodes, i, typ, p) })
		info.Available = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_nodes_available(nodes, i, typ, p) })
		info.Schedulable = C.allocore_nodes_schedulable(nodes, i) != 0
		info.Allocations = int64(C.allocore_nodes_allocation_count(nodes, i))
	})
}

// ListApps is every application of a partition the kernel answers for, in submission order.
func (k *Kernel) ListApps(partition string) ([]AppInfo, error) {
	return listQuery(k, "Kernel.ListApps", listFilter{partition: partition},
		func(f cFilter, cerr **C.char) *C.allocore_apps_t { return C.allocore_list_apps(k.k, f.partition, cerr) },
		func(apps *C.allocore_apps_t) { C.allocore_apps_destroy(apps) }, appsOf)
}

func appsOf(apps *C.allocore_apps_t, t *typeSet) []AppInfo {
	return rows(C.allocore_apps_count(apps), func(info *AppInfo, i C.size_t) {
		info.ID = C.GoString(C.allocore_apps_id(apps, i))
		info.Queue = C.GoString(C.allocore_apps_queue(apps, i))
		info.State = C.GoString(C.allocore_apps_state(apps, i))
		info.Allocated = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_apps_allocated(apps, i, typ, p) })
		info.Pending = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_apps_pending(apps, i, typ, p) })
	})
}

// ListAllocations is the live allocations of application app and/or on node ("": no
// filter), oldest first.
func (k *Kernel) ListAllocations(partition, app, node string) ([]AllocationInfo, error) {
	return listQuery(k, "Kernel.ListAllocations", listFilter{partition, app, node},
		func(f cFilter, cerr **C.char) *C.allocore_allocations_t {
			return C.allocore_list_allocations(k.k, f.partition, f.app, f.node, cerr)
		},
		func(list *C.allocore_allocations_t) { C.allocore_allocations_destroy(list) }, allocationsOf)
}

func allocationsOf(list *C.allocore_allocations_t, t *typeSet) []AllocationInfo {
	return rows(C.allocore_allocations_count(list), func(info *AllocationInfo, i C.size_t) {
		info.App = C.GoString(C.allocore_allocations_app(list, i))
		info.Ask = C.GoString(C.allocore_allocations_ask(list, i))
		info.Node = C.GoString(C.allocore_allocations_node(list, i))
		info.Seq = int64(C.allocore_allocations_seq(list, i))
		info.Resources = t.read(false, func(typ *C.char, p *C.uchar) C.int64_t { return C.allocore_allocations_resource(list, i, typ, p) })
		info.Placeholder = C.allocore_allocations_placeholder(list, i) != 0
	})
}

// ExplainPending says, for each ask with pending repeats, why it is not allocated now.
func (k *Kernel) ExplainPending() ([]PendingExplanation, error) {
	const op = "Kernel.ExplainPending"
	return invoke(k, op, nil, func(*encoder) ([]PendingExplanation, error) {
		e := C.allocore_explain_pending(k.k)
		if e == nil {
			return nil, &Error{Code: CodeResourceExhausted, Op: op, Message: "no explanations"}
		}
		defer C.allocore_explanations_destroy(e)
		return rows(C.allocore_explanations_count(e), func(x *PendingExplanation, i C.size_t) {
			x.App = C.GoString(C.allocore_explanation_app(e, i))
			x.Ask = C.GoString(C.allocore_explanation_ask(e, i))
			x.Pending = int64(C.allocore_explanation_pending_count(e, i))
			x.Reason = C.GoString(C.allocore_explanation_reason(e, i))
		}), nil
	})
}

// ResourceTypes is the kernel's resource type names, by type id.
func (k *Kernel) ResourceTypes() ([]string, error) {
	return invoke(k, "Kernel.ResourceTypes", nil, func(*encoder) ([]string, error) {
		t := kernelTypes(k.k)
		defer t.free()
		return t.names, nil
	})
}

// Partitions is the kernel's partition names.
func (k *Kernel) Partitions() ([]string, error) {
	return invoke(k, "Kernel.Partitions", nil, func(*encoder) ([]string, error) {
		return rows(C.allocore_partition_count(k.k), func(name *string, i C.size_t) {
			*name = C.GoString(C.allocore_partition_name(k.k, i))
		}), nil
	})
}

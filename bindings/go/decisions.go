package allocore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"unsafe"
)

// Decisions read per cgo call, and the names buffer a chunk starts with (it grows when one
// decision's names do not fit). Variables so that tests can make them small.
var (
	chunkRecords = 512
	chunkNames   = 32 << 10
)

// maxNamesBuffer bounds the growth: one decision's names are a few KiB (ApiLimits caps a name
// at 1 KiB), so a C side that keeps refusing a larger buffer is a bug, not a large decision.
const maxNamesBuffer = 64 << 20

// newFrame allocates the C buffers decisions are exported to (C memory: the frame holds
// pointers, which Go memory passed to C may not).
func newFrame() *C.gocore_frame {
	f := C.gocore_frame_create(C.size_t(chunkRecords), C.size_t(chunkNames))
	if f == nil {
		panic("allocore: out of memory")
	}
	return f
}

// collect appends the decisions of list (whose first chunk the last shim call exported into f)
// to dst: one cgo call per chunk, one Go string per chunk for all its names.
func collect(op string, f *C.gocore_frame, list *C.allocore_decisions_t, dst []Decision) ([]Decision, error) {
	total := int(f.total)
	if total == 0 {
		return dst, nil
	}
	first := 0
	// Every pass reads a chunk or doubles the names buffer: a C side that did neither would
	// loop for ever, so the passes are counted.
	for pass := 0; ; pass++ {
		if pass > total+64 {
			return dst, &Error{Code: CodeInternal, Op: op, Message: "allocore_decisions_export makes no progress"}
		}
		n := int(f.written)
		if n > 0 {
			names := ""
			if f.names_used > 0 {
				names = string(unsafe.Slice((*byte)(unsafe.Pointer(f.names)), int(f.names_used)))
			}
			records := unsafe.Slice(f.records, n)
			base := len(dst)
			if cap(dst)-base < n {
				grown := make([]Decision, base, base+n+(total-first-n))
				copy(grown, dst)
				dst = grown
			}
			dst = dst[:base+n]
			for i := range records {
				fillDecision(&dst[base+i], &records[i], names)
			}
			first += n
		}
		if first >= total {
			return dst, nil
		}
		if n == 0 {
			// The next decision's names do not fit in the buffer.
			if uint64(f.names_capacity) >= maxNamesBuffer {
				return dst, &Error{Code: CodeInternal, Op: op,
					Message: "allocore_decisions_export exports nothing into a names buffer of 64 MiB"}
			}
			if C.gocore_frame_grow_names(f, f.names_capacity*2) == 0 {
				return dst, &Error{Code: CodeResourceExhausted, Op: op, Message: "out of memory"}
			}
		}
		if cerr := C.gocore_export(f, list, C.size_t(first)); cerr != nil {
			err := errorFrom(op, cerr)
			if err.Code != CodeOutOfRange {
				return dst, err
			}
			f.written = 0 // grow and try again
		}
	}
}

func span(names string, s C.allocore_span_t) string {
	off, n := int(s.offset), int(s.len)
	if n == 0 || off+n > len(names) {
		return ""
	}
	return names[off : off+n]
}

// fillDecision writes a record into d in place (a Decision is large: building one and
// appending it would copy it twice, with write barriers while the GC runs).
func fillDecision(d *Decision, r *C.allocore_decision_record_t, names string) {
	d.Type = DecisionType(r._type)
	d.Partition = span(names, r.partition)
	d.Queue = span(names, r.queue)
	d.App = span(names, r.app)
	d.Ask = span(names, r.ask)
	d.Node = span(names, r.node)
	d.Priority = int32(r.priority)
	d.Seq = int64(r.seq)
	d.Count = int64(r.count)
	d.Placeholder = r.placeholder != 0
	d.ReleaseReason = ReleaseReason(r.release_reason)
	d.From = AppState(r.from_state)
	d.To = AppState(r.to_state)
	d.Reason = span(names, r.reason)
	d.Replaces = span(names, r.replaces)
	d.ByApp = span(names, r.by_app)
	d.ByAsk = span(names, r.by_ask)
	d.ByQueue = span(names, r.by_queue)
	d.AppHandle = handleOf(r.app_handle)
	d.AskHandle = handleOf(r.ask_handle)
	d.NodeHandle = handleOf(r.node_handle)
}

// quotaDetails fills QuotaMax and QuotaPreemptable of the quota preemptions among ds (the
// decisions of list, from index base), with the kernel's type names.
func quotaDetails(k *C.allocore_kernel_t, list *C.allocore_decisions_t, ds []Decision, base int) {
	types := -1
	present := (*C.uchar)(nil)
	for i := range ds {
		if ds[i].Type != DecisionQuotaPreemption {
			continue
		}
		if types < 0 {
			types = int(C.allocore_resource_type_count(k))
			present = (*C.uchar)(C.malloc(1))
			defer C.free(unsafe.Pointer(present))
		}
		q := &QuotaDetail{Preemptable: Resources{}}
		for t := 0; t < types; t++ {
			name := C.GoString(C.allocore_resource_type_name(k, C.size_t(t)))
			idx := C.size_t(base + i)
			if v := C.allocore_decision_quota_max(list, idx, C.int(t), present); *present != 0 {
				if q.Max == nil {
					q.Max = Resources{}
				}
				q.Max[name] = int64(v)
			}
			if v := C.allocore_decision_quota_preemptable(list, idx, C.int(t), present); *present != 0 {
				q.Preemptable[name] = int64(v)
			}
		}
		ds[i].Quota = q
	}
}

// decisionsByAccessor reads list with one C accessor call per field: what a caller without
// the bulk export does. Kept for the tests (the bulk reading must equal it) and benchmarks.
func decisionsByAccessor(list *C.allocore_decisions_t) []Decision {
	n := int(C.allocore_decisions_count(list))
	out := make([]Decision, n)
	length := (*C.size_t)(C.malloc(C.size_t(unsafe.Sizeof(C.size_t(0)))))
	defer C.free(unsafe.Pointer(length))
	name := func(p *C.char) string {
		if *length == 0 {
			return ""
		}
		return C.GoStringN(p, C.int(*length))
	}
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		d := &out[i]
		d.Type = DecisionType(C.allocore_decision_type(list, idx))
		d.Partition = name(C.allocore_decision_partition(list, idx, length))
		d.Queue = name(C.allocore_decision_queue(list, idx, length))
		d.App = name(C.allocore_decision_app(list, idx, length))
		d.Ask = name(C.allocore_decision_ask(list, idx, length))
		d.Node = name(C.allocore_decision_node(list, idx, length))
		d.Priority = int32(C.allocore_decision_priority(list, idx))
		d.Seq = int64(C.allocore_decision_seq(list, idx))
		d.Count = int64(C.allocore_decision_count(list, idx))
		d.Placeholder = C.allocore_decision_placeholder(list, idx) != 0
		d.ReleaseReason = releaseReasonNamed(C.GoString(C.allocore_decision_release_reason(list, idx)))
		d.From = appStateNamed(C.GoString(C.allocore_decision_from_state(list, idx)))
		d.To = appStateNamed(C.GoString(C.allocore_decision_to_state(list, idx)))
		d.Reason = name(C.allocore_decision_reason(list, idx, length))
		d.Replaces = name(C.allocore_decision_replaces(list, idx, length))
		d.ByApp = name(C.allocore_decision_by_app(list, idx, length))
		d.ByAsk = name(C.allocore_decision_by_ask(list, idx, length))
		d.ByQueue = name(C.allocore_decision_by_queue(list, idx, length))
		d.AppHandle = handleOf(C.allocore_decision_app_handle(list, idx))
		d.AskHandle = handleOf(C.allocore_decision_ask_handle(list, idx))
		d.NodeHandle = handleOf(C.allocore_decision_node_handle(list, idx))
	}
	return out
}

func releaseReasonNamed(name string) ReleaseReason {
	for i, n := range releaseReasonNames {
		if n == name {
			return ReleaseReason(i)
		}
	}
	return ReleaseReason(255)
}

func appStateNamed(name string) AppState {
	for i, n := range appStateNames {
		if n == name {
			return AppState(i)
		}
	}
	return AppState(255)
}

// gocoreExportAgain exports the first chunk of the kernel's last decisions again (tests).
func gocoreExportAgain(k *Kernel) error {
	if cerr := C.gocore_export(k.f, k.f.out, 0); cerr != nil {
		return errorFrom("export", cerr)
	}
	return nil
}

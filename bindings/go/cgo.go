package allocore

/*
#cgo pkg-config: allocore-c
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"strings"
	"sync"
	"unsafe"
)

// Version is the version of the linked liballocore_c ("MAJOR.MINOR.PATCH").
func Version() string { return C.GoString(C.allocore_version()) }

// owner is what a call's C object belongs to (a Kernel, a Service, a Snapshot): it holds the
// lock a call needs and an encoder for the call's strings.
type owner interface {
	// acquire takes the lock (ErrClosed, without it, once the C object is destroyed) and an
	// encoder; release lets both go. Holding the lock keeps the owner and its C object alive.
	acquire(op string) (*encoder, error)
	release(e *encoder)
}

// invoke runs call with o's lock held, after pack (nil: the call has no strings) put the call's
// strings in the encoder: a string the C ABI cannot take fails the call before it reaches C.
func invoke[R any](o owner, op string, pack func(*encoder), call func(*encoder) (R, error)) (R, error) {
	var none R
	e, err := o.acquire(op)
	if err != nil {
		return none, err
	}
	defer o.release(e)
	if pack != nil {
		pack(e)
		if e.err != nil {
			return none, withOp(e.err, op)
		}
	}
	return call(e)
}

// check is invoke for a C call that reports nothing but an error.
func check(o owner, op string, pack func(*encoder), call func(e *encoder, cerr **C.char)) error {
	_, err := invoke(o, op, pack, func(e *encoder) (struct{}, error) {
		var cerr *C.char
		call(e, &cerr)
		return struct{}{}, failed(op, cerr)
	})
	return err
}

// lockOpen takes l, or returns ErrClosed (without l) when open, asked with l held, says that
// the C object is destroyed.
func lockOpen(op string, l sync.Locker, open func() bool) error {
	l.Lock()
	if !open() {
		l.Unlock()
		return closedError(op)
	}
	return nil
}

func withOp(err error, op string) error {
	if e, ok := err.(*Error); ok {
		c := *e
		c.Op = op
		return &c
	}
	return err
}

// noHandle is ALLOCORE_NO_HANDLE.
const noHandle = ^uint32(0)

// encoder packs a call's strings into one byte buffer (each followed by a NUL) and its
// resource lists into an array, for one cgo call to a shim.c helper. Buffers are reused: a
// Kernel keeps one under its mutex, a Service takes them from a pool.
type encoder struct {
	call C.gocore_call // the call's arguments (passed by pointer: see shim.h)
	buf  []byte
	res  []C.gocore_res
	strs []C.gocore_str
	keys []string
	// The resource type names the call packs (a Service notes them for Snapshot.Queues).
	types []string
	err   error // the first string refused (a NUL where C wants a NUL-terminated string)
}

func (e *encoder) reset() {
	// Offset 0 holds a NUL: the empty string of every empty span.
	e.call = C.gocore_call{}
	e.buf = append(e.buf[:0], 0)
	e.res = e.res[:0]
	e.strs = e.strs[:0]
	for i := range e.types {
		e.types[i] = "" // keep no caller's strings alive
	}
	e.types = e.types[:0]
	e.err = nil
}

// str packs s for a (pointer, length) parameter: any byte is allowed.
func (e *encoder) str(s string) C.gocore_str {
	if len(s) == 0 {
		return C.gocore_str{}
	}
	off := len(e.buf)
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, 0)
	return C.gocore_str{off: C.size_t(off), len: C.size_t(len(s))}
}

// cstr packs s for a parameter the C ABI reads as a NUL-terminated string: a NUL inside s
// would cut it short, so it is refused (the call then fails with ErrInvalidArgument).
func (e *encoder) cstr(field, s string) C.gocore_str {
	if strings.IndexByte(s, 0) >= 0 && e.err == nil {
		e.err = &Error{Code: CodeInvalidArgument, Message: field + " " + quote(s) + " contains a NUL byte"}
	}
	return e.str(s)
}

// resources packs r in name order (the kernel registers new types in the order it meets
// them, so a map's random order would make runs differ); nulFree: the names go to a call that
// wants NUL-terminated strings.
func (e *encoder) resources(r Resources, nulFree bool) (first, count C.uint32_t) {
	first = C.uint32_t(len(e.res))
	keys := e.keys[:0]
	for name := range r {
		keys = append(keys, name)
	}
	// Insertion sort: resource lists are short, and sort.Strings would allocate.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	for _, name := range keys {
		var span C.gocore_str
		if nulFree {
			span = e.cstr("resource type", name)
		} else {
			span = e.str(name)
		}
		e.res = append(e.res, C.gocore_res{_type: span, value: C.int64_t(r[name])})
	}
	e.types = append(e.types, keys...)
	for i := range keys {
		keys[i] = "" // keep no caller's strings alive
	}
	e.keys = keys[:0]
	return first, C.uint32_t(len(keys))
}

// bufPtr is the packed strings, for the duration of one cgo call: Go memory holding no Go
// pointers, which cgo allows C to read during the call.
func (e *encoder) bufPtr() *C.char { return (*C.char)(unsafe.Pointer(&e.buf[0])) }

// at is the NUL-terminated string of a span, for C calls made from Go directly; valid until
// the next str.
func (e *encoder) at(s C.gocore_str) *C.char {
	return (*C.char)(unsafe.Pointer(&e.buf[s.off]))
}

// optAt is at, or NULL for an empty span (a partition: NULL means "default").
func (e *encoder) optAt(s C.gocore_str) *C.char {
	if s.len == 0 {
		return nil
	}
	return e.at(s)
}

func (e *encoder) resPtr() *C.gocore_res {
	if len(e.res) == 0 {
		return nil
	}
	return &e.res[0]
}

func (e *encoder) strsPtr() *C.gocore_str {
	if len(e.strs) == 0 {
		return nil
	}
	return &e.strs[0]
}

// goBytes is Go memory as a C pointer, for one call (NULL when empty).
func goBytes(b []byte) (*C.char, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b))
}

// goString is the bytes of s as a C pointer, for one call (NULL when empty). The bytes are
// Go memory without pointers; s keeps them alive while the caller holds it.
func goString(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.char)(*(*unsafe.Pointer)(unsafe.Pointer(&s))), C.size_t(len(s))
}

// cptr passes a pointer to C memory (never Go memory) as an integer, for the shim calls made
// on every operation: cgo checks each pointer argument whose type may hold pointers, and boxes
// a pointer to an opaque C type on the Go heap to do so.
func cptr(p unsafe.Pointer) C.uintptr_t { return C.uintptr_t(uintptr(p)) }

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return "\"" + strings.ReplaceAll(s, "\x00", "\\x00") + "\""
}

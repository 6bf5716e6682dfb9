package allocore

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"strconv"
	"strings"
	"unsafe"
)

// Code is the C ABI's allocore_error_code_t: absl's (and gRPC's) canonical status codes.
type Code int

// The codes of allocore/c.h.
const (
	CodeOK                 Code = 0
	CodeCancelled          Code = 1  // a service closed while the call waited; a cancelled context
	CodeUnknown            Code = 2  // a message allocore did not write
	CodeInvalidArgument    Code = 3  // a bad value: negative seq, zero resources, bad YAML
	CodeDeadlineExceeded   Code = 4  // a wait whose timeout passed first
	CodeNotFound           Code = 5  // unknown partition, application, ask, node, seq
	CodeAlreadyExists      Code = 6  // a node or application id already known
	CodePermissionDenied   Code = 7  // a file the call must read
	CodeResourceExhausted  Code = 8  // a cap of Options, a full service queue, out of memory
	CodeFailedPrecondition Code = 9  // a stale handle, a state that refuses the call, closed
	CodeOutOfRange         Code = 11 // a size or count over an ApiLimits bound
	CodeInternal           Code = 13 // a broken invariant (a bug: please report it)
	CodeDataLoss           Code = 15 // files that cannot be read back
)

var codeNames = map[Code]string{
	CodeOK:                 "OK",
	CodeCancelled:          "CANCELLED",
	CodeUnknown:            "UNKNOWN",
	CodeInvalidArgument:    "INVALID_ARGUMENT",
	CodeDeadlineExceeded:   "DEADLINE_EXCEEDED",
	CodeNotFound:           "NOT_FOUND",
	CodeAlreadyExists:      "ALREADY_EXISTS",
	CodePermissionDenied:   "PERMISSION_DENIED",
	CodeResourceExhausted:  "RESOURCE_EXHAUSTED",
	CodeFailedPrecondition: "FAILED_PRECONDITION",
	10:                     "ABORTED",
	CodeOutOfRange:         "OUT_OF_RANGE",
	12:                     "UNIMPLEMENTED",
	CodeInternal:           "INTERNAL",
	14:                     "UNAVAILABLE",
	CodeDataLoss:           "DATA_LOSS",
	16:                     "UNAUTHENTICATED",
}

// String is the code as messages spell it ("NOT_FOUND").
func (c Code) String() string {
	if name, ok := codeNames[c]; ok {
		return name
	}
	return "CODE_" + strconv.Itoa(int(c))
}

// Error is an error of allocore: a call the kernel, the service or this package refused.
type Error struct {
	Code Code
	// Op is the Go call ("Kernel.AddAsk"), Func the C function that reported the error
	// ("allocore_add_ask"; empty for errors of the Go side).
	Op   string
	Func string
	// Message is the error's text, without its code and function.
	Message string

	closed bool  // a closed Kernel or Service (ErrClosed)
	cause  error // a context's error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("allocore: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Code.String())
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Is matches the sentinels: ErrNotFound and the others by code, ErrClosed for a closed Kernel
// or Service (which also matches its code's sentinel).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t == ErrClosed {
		return e.closed
	}
	return t.Op == "" && t.Func == "" && t.Message == "" && t.cause == nil && e.Code == t.Code
}

// Unwrap gives the context error of a wait that a context ended (context.Canceled,
// context.DeadlineExceeded).
func (e *Error) Unwrap() error { return e.cause }

// Sentinels for errors.Is, one per code of allocore/c.h.
var (
	ErrCancelled          = &Error{Code: CodeCancelled}
	ErrUnknown            = &Error{Code: CodeUnknown}
	ErrInvalidArgument    = &Error{Code: CodeInvalidArgument}
	ErrDeadlineExceeded   = &Error{Code: CodeDeadlineExceeded}
	ErrNotFound           = &Error{Code: CodeNotFound}
	ErrAlreadyExists      = &Error{Code: CodeAlreadyExists}
	ErrPermissionDenied   = &Error{Code: CodePermissionDenied}
	ErrResourceExhausted  = &Error{Code: CodeResourceExhausted}
	ErrFailedPrecondition = &Error{Code: CodeFailedPrecondition}
	ErrOutOfRange         = &Error{Code: CodeOutOfRange}
	ErrInternal           = &Error{Code: CodeInternal}
	ErrDataLoss           = &Error{Code: CodeDataLoss}
	// ErrClosed: the Kernel, Service or Snapshot was closed. The error returned has code
	// FAILED_PRECONDITION (CANCELLED for a wait the closing ended), so it matches that
	// sentinel too.
	ErrClosed = &Error{Code: CodeFailedPrecondition, Message: "closed", closed: true}
)

// errorFrom turns a message of the C ABI ("CODE: function: text") into an *Error and frees it.
func errorFrom(op string, cerr *C.char) *Error {
	if cerr == nil { // a C call that failed without saying why
		return &Error{Code: CodeInternal, Op: op, Message: "the call failed without a message"}
	}
	code := Code(C.allocore_error_code(cerr))
	text := C.GoString(cerr)
	C.allocore_free(unsafe.Pointer(cerr))
	e := &Error{Code: code, Op: op, Message: text}
	if i := strings.Index(text, ": "); i >= 0 && code != CodeUnknown {
		rest := text[i+2:]
		if j := strings.Index(rest, ": "); j > 0 && strings.HasPrefix(rest, "allocore") &&
			!strings.ContainsAny(rest[:j], " \n") {
			e.Func, rest = rest[:j], rest[j+2:]
		}
		e.Message = rest
	}
	return e
}

// failed is the error of a C call that reports one through cerr, nil when it did not.
func failed(op string, cerr *C.char) error {
	if cerr != nil {
		return errorFrom(op, cerr)
	}
	return nil
}

// made is what a C call that makes an object returned: the object, or the call's error (an
// object returned along with an error is destroyed).
func made[T any](op string, p *T, cerr *C.char, destroy func(*T)) (*T, error) {
	if p == nil || cerr != nil {
		if p != nil {
			destroy(p)
		}
		return nil, errorFrom(op, cerr)
	}
	return p, nil
}

// found is the handle a lookup returned, or its error.
func found(op string, r C.gocore_find_result) (Handle, error) {
	if r.err != nil {
		return Handle{}, errorFrom(op, r.err)
	}
	return handleOf(r.handle), nil
}

// freeBytes frees what the C ABI allocated for the caller (allocore_free).
func freeBytes(p *C.char) { C.allocore_free(unsafe.Pointer(p)) }

func closedError(op string) error {
	return &Error{Code: CodeFailedPrecondition, Op: op, Message: "closed", closed: true}
}

func contextError(op string, err error) error {
	code := CodeCancelled
	if err == context.DeadlineExceeded {
		code = CodeDeadlineExceeded
	}
	return &Error{Code: code, Op: op, Message: err.Error(), cause: err}
}

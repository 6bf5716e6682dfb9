// Package allocore embeds the allocore allocation kernel, which decides like the Apache
// YuniKorn scheduler, in a Go resource manager.
//
// It calls liballocore_c.so, allocore's C ABI, through cgo: a program builds with plain
// `go build` once pkg-config finds allocore-c.pc (set PKG_CONFIG_PATH for a non-standard
// prefix; no CGO_LDFLAGS_ALLOW is needed).
//
// Two forms of the kernel are offered:
//
//   - Kernel: the kernel itself, deterministic and synchronous. Every call that changes the
//     kernel returns the decisions it made ([]Decision). Its methods are safe from many
//     goroutines: they take a mutex, as the C ABI wants (calls from different OS threads are
//     fine, one at a time).
//   - Service: the kernel behind a scheduler thread of its own. Any goroutine submits events
//     (the Submit* methods return a sequence number at once); the scheduler applies everything
//     queued as one batch and schedules; a manager loop takes applied batches with NextBatch,
//     waits for one event with WaitApplied, and reads snapshots without stopping the scheduler.
//
// Units are the kernel's, which are YuniKorn's: "vcore" in milli-cores (4 cores = 4000),
// "memory" in bytes, any other type as the resource manager counts it. The kernel's clock is
// logical, in milliseconds, moved by Advance.
//
// Errors are *Error values whose Code is the C ABI's allocore_error_code_t; errors.Is matches
// them against the sentinels (ErrNotFound, ErrInvalidArgument, ...). A closed Kernel or
// Service answers ErrClosed without reaching C. Close releases the C objects; a finalizer does
// it for values dropped without Close, as a safety net only.
package allocore

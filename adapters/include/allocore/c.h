/* allocore/c.h — the kernel from C (and from any language with a C FFI).
 *
 * Opaque types, plain C values, no C++ across the boundary. In liballocore_c.so (CMake target
 * allocore::c), a shared library that exports these functions alone and keeps its C++
 * dependencies inside. Link a C program with `cc prog.c $(pkg-config --cflags --libs
 * allocore-c)`; cgo takes the same flags (`#cgo pkg-config: allocore-c`). The Go and Python
 * packages on it: share/doc/allocore/bindings/go/README.md,
 * share/doc/allocore/bindings/python/README.md.
 *
 * Errors. A call that can fail takes `char** errptr`. On failure it stores a message allocated
 * with malloc in *errptr (freeing a message already there) and, as every refused call of the
 * kernel, changes nothing; on success *errptr is left as it was. Callers start with
 * `char* err = NULL;`, test `err != NULL` after a call and release it with allocore_free.
 * Every message reads "CODE: function: text", for example
 *   "NOT_FOUND: allocore_release_allocation_seq: ask a1 of application app-1 has no live
 *    allocation with seq 7"
 * and allocore_error_code(err) gives CODE as an allocore_error_code_t to branch on.
 *
 * Units. Quantities are int64 in the kernel's units, which are YuniKorn's: `vcore` in
 * milli-cores (4 cores = 4000), `memory` in bytes, any other type as the resource manager
 * counts it (`nvidia.com/gpu` = 1 per device). The kernel never converts: a caller passing 4
 * for four cores asks for four milli-cores.
 *
 * Strings and ownership. Strings passed in are NUL-terminated and copied; NULL for a partition
 * means "default", NULL for any other string reads as "". Every *_create and every call
 * returning a list (allocore_list_*, allocore_get_*, allocore_probe, allocore_explain_pending)
 * hands over an object the caller destroys with its *_destroy; *_destroy accepts NULL. Calls
 * returning a pointer return NULL on failure, with *errptr set. Strings handed out are valid
 * until the object they came from is cleared or destroyed; names in decisions are also
 * invalidated by allocore_release_unused_names. Names may contain any byte, so decision
 * accessors also give the length. Indexed accessors given an index out of range (or a NULL
 * list) return "" or 0 and *_count of NULL is 0; nothing here reads out of bounds. The kernel
 * and object arguments of the other calls must not be NULL.
 *
 * Threads. A kernel is not thread-safe, and it is not tied to a thread either: calls from
 * different OS threads are fine as long as they come one at a time (the caller serialises
 * them: a Go program whose goroutines move between threads, behind a mutex, is correct). Two
 * kernels share nothing and may be called at the same time. The objects a call hands out
 * (decision lists, query results) follow the same rule. allocore_service_t
 * (allocore/c_service.h) is the form for many threads at once.
 *
 * Strings with a length. Every *_n call takes (pointer, length) pairs instead of NUL-terminated
 * strings, so a caller whose strings are not NUL-terminated (Go, Rust, Python's bytes) passes
 * its own bytes without a copy; the pointer may be NULL when the length is 0.
 *
 * Example (designated initializers that leave fields out draw GCC's -Wextra warning
 * -Wmissing-field-initializers; the fields left out are zero, which is what they mean, so
 * build with -Wno-missing-field-initializers or set every field):
 *   char* err = NULL;
 *   allocore_kernel_t* k = allocore_kernel_create(yaml, strlen(yaml), "queues.yaml", NULL, &err);
 *   allocore_decisions_t* out = allocore_decisions_create();
 *   allocore_node_t* node = allocore_node_create("node-1");
 *   allocore_node_add_capacity(node, "memory", 1000);
 *   allocore_add_node(k, node, out, &err);
 *   ...
 *   int64_t made = allocore_schedule(k, 0, NULL, out, &err);
 *
 * Reference, installed with the headers: share/doc/allocore/README.md (embedding),
 * share/doc/allocore/kernel/README.md (the kernel's rules and compatibility decisions) and
 * share/doc/allocore/docs/scenario-format.md (decision and record names).
 */
#ifndef ALLOCORE_C_H_
#define ALLOCORE_C_H_

#include <stddef.h>
#include <stdint.h>

#include "allocore/export.h"
#include "allocore/version.h" /* allocore_version() */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct allocore_kernel_t allocore_kernel_t;
typedef struct allocore_decisions_t allocore_decisions_t;
typedef struct allocore_node_t allocore_node_t;
typedef struct allocore_app_t allocore_app_t;
typedef struct allocore_ask_t allocore_ask_t;
typedef struct allocore_queues_t allocore_queues_t;
typedef struct allocore_app_info_t allocore_app_info_t;
typedef struct allocore_explanations_t allocore_explanations_t;
typedef struct allocore_probe_t allocore_probe_t;
typedef struct allocore_nodes_t allocore_nodes_t;
typedef struct allocore_allocations_t allocore_allocations_t;
typedef struct allocore_apps_t allocore_apps_t;

/* Caps on what a kernel holds (0: no cap); see KernelOptions in allocore/kernel.h. */
/* A generational handle (allocore/handles.h): an application, ask or node found once and
 * then named without strings. A handle whose entity is gone is refused ("stale ... handle"),
 * never reused. `slot` is ALLOCORE_NO_HANDLE for "none" (allocore_release_by_handle: the
 * oldest allocation on any node). */
typedef struct allocore_handle_t {
  uint32_t partition_index;
  uint32_t partition_serial;
  uint32_t slot;
  uint32_t generation;
} allocore_handle_t;
#define ALLOCORE_NO_HANDLE 0xffffffffu

typedef struct allocore_options_t {
  int64_t max_applications;
  int64_t max_asks;
  int64_t max_live_allocations;
  /* Which YuniKorn release the kernel decides like: "yunikorn-1.2" (also NULL or "", the
   * default) or "yunikorn-1.9"; anything else is refused. See allocore/semantics.h. */
  const char* semantics;
} allocore_options_t;

enum {
  ALLOCORE_ALLOCATION = 0,
  ALLOCORE_APP_REJECTED = 1,
  ALLOCORE_APP_STATE = 2,
  ALLOCORE_RELEASE = 3,
  ALLOCORE_ASK_REMOVED = 4,
  ALLOCORE_PREEMPTION = 5, /* an ask chose victims: node = the node it reserved, count = victims */
  ALLOCORE_RECOVERED = 6,  /* an allocation reported running (allocore_recover_allocation); seq 0 */
  /* yunikorn-1.9: queue = the queue brought back under its max, count = victims (their
   * releases follow, release reason "quota", by_queue = that queue);
   * allocore_decision_quota_max / _preemptable give its max and the amount it could take back */
  ALLOCORE_QUOTA_PREEMPTION = 7
};

/* Kinds of other schedulers' pods (allocore_add_foreign); the kind changes no decision. */
enum { ALLOCORE_FOREIGN_DEFAULT = 0, ALLOCORE_FOREIGN_STATIC = 1 };

/* Error codes: absl's (and gRPC's) canonical status codes, whose values never change. */
typedef enum allocore_error_code_t {
  ALLOCORE_OK = 0,
  ALLOCORE_ERR_CANCELLED = 1,           /* a service closed while the call waited */
  ALLOCORE_ERR_UNKNOWN = 2,             /* a message allocore did not write */
  ALLOCORE_ERR_INVALID_ARGUMENT = 3,    /* a bad value: negative seq, zero resources, bad YAML */
  ALLOCORE_ERR_DEADLINE_EXCEEDED = 4,   /* a wait whose timeout passed first */
  ALLOCORE_ERR_NOT_FOUND = 5,           /* unknown partition, application, ask, node, seq */
  ALLOCORE_ERR_ALREADY_EXISTS = 6,      /* a node or application id already known */
  ALLOCORE_ERR_PERMISSION_DENIED = 7,   /* a file the call must read (allocore_kernel_restart) */
  ALLOCORE_ERR_RESOURCE_EXHAUSTED = 8,  /* a cap of allocore_options_t, out of memory */
  ALLOCORE_ERR_FAILED_PRECONDITION = 9, /* a stale handle, a state that refuses the call */
  ALLOCORE_ERR_OUT_OF_RANGE = 11,       /* a size or count over an ApiLimits bound */
  ALLOCORE_ERR_INTERNAL = 13,           /* a broken invariant (a bug: please report it) */
  ALLOCORE_ERR_DATA_LOSS = 15           /* files that cannot be read back (a durable directory) */
} allocore_error_code_t;

/* The code of a message from *errptr: ALLOCORE_OK for NULL, ALLOCORE_ERR_UNKNOWN for text
 * allocore did not write. */
ALLOCORE_EXPORT int allocore_error_code(const char* err);
/* Frees what allocore hands out with malloc (error messages). NULL is accepted. */
ALLOCORE_EXPORT void allocore_free(void* ptr);

/* --- kernel ------------------------------------------------------------------------------ */
/* `yaml` holds a queues.yaml (len 0: the built-in default configuration); `source_name`
 * names it in messages ("queues.yaml:3:5: ..."). `options` may be NULL. */
ALLOCORE_EXPORT allocore_kernel_t* allocore_kernel_create(const char* yaml, size_t len,
                                                          const char* source_name,
                                                          const allocore_options_t* options,
                                                          char** errptr);
ALLOCORE_EXPORT void allocore_kernel_destroy(allocore_kernel_t* kernel);

/* Recording (allocore/adapters/event_recorder.h): from now on every call the kernel accepts is
 * written to the event log at `path`, which `allocore run PATH` replays with the same
 * decisions (share/doc/allocore/docs/event-log-format.md, "Recorded logs"). Calls by handle are
 * written as the same calls by name; refused calls and queries are not written. Start before
 * the kernel's first change (FAILED_PRECONDITION after it: a log replays the whole history from
 * the kernel's config). `buffer_bytes` 0 writes every call's record as it is made (a crash of
 * the process loses nothing recorded); N > 0 writes in blocks of about N bytes. Errors: the
 * file cannot be created (the message names it). A write that fails later stops the recording
 * but not the kernel: allocore_kernel_record_check reports it, as allocore_kernel_record_stop
 * does. Stop writes the log's end record and closes it (allocore_kernel_destroy does too);
 * recording does not start again on the same kernel. */
ALLOCORE_EXPORT void allocore_kernel_record_start(allocore_kernel_t* kernel, const char* path,
                                                  size_t buffer_bytes, char** errptr);
ALLOCORE_EXPORT void allocore_kernel_record_check(const allocore_kernel_t* kernel, char** errptr);
ALLOCORE_EXPORT void allocore_kernel_record_stop(allocore_kernel_t* kernel, char** errptr);
ALLOCORE_EXPORT void allocore_update_config(allocore_kernel_t* kernel, const char* yaml, size_t len,
                                            const char* source_name, allocore_decisions_t* out,
                                            char** errptr);

/* --- snapshots and forks (share/doc/allocore/docs/snapshot-format.md) --------------------- */
/* The kernel's whole state as bytes, which allocore_kernel_restore turns back into a kernel
 * that decides exactly as this one would from here on. *len receives the size; the caller
 * frees the buffer with allocore_free. NULL (*errptr RESOURCE_EXHAUSTED) when memory runs
 * out. */
ALLOCORE_EXPORT char* allocore_kernel_snapshot(const allocore_kernel_t* kernel, size_t* len,
                                               char** errptr);
/* A kernel made from a snapshot, destroyed with allocore_kernel_destroy. NULL when the bytes
 * are refused: INVALID_ARGUMENT naming the byte offset (not a snapshot, a newer version, cut
 * short, a checksum that does not match, a state that does not hold together). */
ALLOCORE_EXPORT allocore_kernel_t* allocore_kernel_restore(const char* snapshot, size_t len,
                                                           char** errptr);
/* An independent copy of the kernel in its current state, for what-if questions: nothing
 * done to the copy reaches the original. Cost proportional to the state. */
ALLOCORE_EXPORT allocore_kernel_t* allocore_kernel_fork(const allocore_kernel_t* kernel,
                                                        char** errptr);

/* What allocore_kernel_restart recovered. */
typedef struct allocore_restart_info_t {
  int64_t recovered_seq;   /* the state is the one after this event */
  int64_t snapshot_seq;    /* the snapshot it started from */
  int64_t replayed_events; /* events replayed from the logs after it */
  /* 1 when the last log ended inside an event's write: that event was never acknowledged
   * under the every-event policy; 0 otherwise. */
  int64_t torn_tail_events;
} allocore_restart_info_t;
/* The kernel a durable directory holds (allocore/adapters/durable_kernel.h: a manager's
 * snapshots and event logs): the newest snapshot that restores, then the events logged after it
 * up to the last whole record. Nothing in the directory changes. Destroyed with
 * allocore_kernel_destroy; `info` (may be NULL) says what was recovered. NULL with NOT_FOUND
 * (the directory holds no snapshot) or DATA_LOSS (no snapshot restores, the logs after it do
 * not hold together), the message naming the file. */
ALLOCORE_EXPORT allocore_kernel_t* allocore_kernel_restart(const char* dir,
                                                           allocore_restart_info_t* info,
                                                           char** errptr);

/* --- nodes ------------------------------------------------------------------------------- */
/* A node description for allocore_add_node and allocore_update_node. For an update, only what
 * was set is changed (capacity or occupied once any quantity was added to it, or after the
 * matching *_clear call sets it to nothing). */
ALLOCORE_EXPORT allocore_node_t* allocore_node_create(const char* id);
ALLOCORE_EXPORT void allocore_node_destroy(allocore_node_t* node);
ALLOCORE_EXPORT void allocore_node_set_partition(allocore_node_t* node, const char* partition);
ALLOCORE_EXPORT void allocore_node_add_capacity(allocore_node_t* node, const char* type,
                                                int64_t value);
ALLOCORE_EXPORT void allocore_node_clear_capacity(allocore_node_t* node);
ALLOCORE_EXPORT void allocore_node_add_occupied(allocore_node_t* node, const char* type,
                                                int64_t value);
ALLOCORE_EXPORT void allocore_node_clear_occupied(allocore_node_t* node);
ALLOCORE_EXPORT void allocore_node_set_schedulable(allocore_node_t* node,
                                                   unsigned char schedulable);

ALLOCORE_EXPORT void allocore_add_node(allocore_kernel_t* kernel, const allocore_node_t* node,
                                       allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_update_node(allocore_kernel_t* kernel, const allocore_node_t* node,
                                          allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_remove_node(allocore_kernel_t* kernel, const char* partition,
                                          const char* id, allocore_decisions_t* out, char** errptr);

/* --- applications ------------------------------------------------------------------------ */
ALLOCORE_EXPORT allocore_app_t* allocore_app_create(const char* id, const char* user);
ALLOCORE_EXPORT void allocore_app_destroy(allocore_app_t* app);
ALLOCORE_EXPORT void allocore_app_set_partition(allocore_app_t* app, const char* partition);
/* Fully qualified ("root.a.b"); unset: the placement rules decide. */
ALLOCORE_EXPORT void allocore_app_set_queue(allocore_app_t* app, const char* queue);
ALLOCORE_EXPORT void allocore_app_add_group(allocore_app_t* app, const char* group);
ALLOCORE_EXPORT void allocore_app_add_tag(allocore_app_t* app, const char* key, const char* value);
/* Gang scheduling: hard (1) or soft (0) style, placeholder timeout (0: 15 minutes) and the
 * total of the application's placeholders. */
ALLOCORE_EXPORT void allocore_app_set_gang_hard(allocore_app_t* app, unsigned char hard);
ALLOCORE_EXPORT void allocore_app_set_placeholder_timeout(allocore_app_t* app, int64_t millis);
ALLOCORE_EXPORT void allocore_app_add_placeholder_ask(allocore_app_t* app, const char* type,
                                                      int64_t value);

/* A refused admission is an ALLOCORE_APP_REJECTED decision, not an error. */
ALLOCORE_EXPORT void allocore_add_app(allocore_kernel_t* kernel, const allocore_app_t* app,
                                      allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_remove_app(allocore_kernel_t* kernel, const char* partition,
                                         const char* id, allocore_decisions_t* out, char** errptr);

/* --- asks -------------------------------------------------------------------------------- */
ALLOCORE_EXPORT allocore_ask_t* allocore_ask_create(const char* app, const char* id);
ALLOCORE_EXPORT void allocore_ask_destroy(allocore_ask_t* ask);
ALLOCORE_EXPORT void allocore_ask_set_partition(allocore_ask_t* ask, const char* partition);
ALLOCORE_EXPORT void allocore_ask_add_resource(allocore_ask_t* ask, const char* type,
                                               int64_t value);
ALLOCORE_EXPORT void allocore_ask_set_priority(allocore_ask_t* ask, int32_t priority);
ALLOCORE_EXPORT void allocore_ask_set_count(allocore_ask_t* ask, int64_t count);
ALLOCORE_EXPORT void allocore_ask_set_task_group(allocore_ask_t* ask, const char* task_group);
ALLOCORE_EXPORT void allocore_ask_set_placeholder(allocore_ask_t* ask, unsigned char placeholder);
ALLOCORE_EXPORT void allocore_ask_set_required_node(allocore_ask_t* ask, const char* node);
ALLOCORE_EXPORT void allocore_ask_set_allow_preemption(allocore_ask_t* ask, unsigned char allow);
ALLOCORE_EXPORT void allocore_ask_set_originator(allocore_ask_t* ask, unsigned char originator);
/* The pod's creation time in ms on the kernel's logical clock (>= 0; unset: the time the kernel
 * receives the ask). yunikorn-1.9 orders asks of equal priority by it. */
ALLOCORE_EXPORT void allocore_ask_set_creation_time(allocore_ask_t* ask, int64_t millis);

ALLOCORE_EXPORT void allocore_add_ask(allocore_kernel_t* kernel, const allocore_ask_t* ask,
                                      allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_remove_ask(allocore_kernel_t* kernel, const char* partition,
                                         const char* app, const char* ask,
                                         allocore_decisions_t* out, char** errptr);
/* Releases the oldest live allocation of the ask (on `node` unless NULL). */
ALLOCORE_EXPORT void allocore_release_allocation(allocore_kernel_t* kernel, const char* partition,
                                                 const char* app, const char* ask, const char* node,
                                                 allocore_decisions_t* out, char** errptr);
/* Releases exactly the live allocation of the ask whose allocation decision had `seq`
 * (allocore_decision_seq; > 0), on `node` unless NULL. An error, nothing changed, when the
 * ask holds no such allocation. */
ALLOCORE_EXPORT void allocore_release_allocation_seq(allocore_kernel_t* kernel,
                                                     const char* partition, const char* app,
                                                     const char* ask, const char* node, int64_t seq,
                                                     allocore_decisions_t* out, char** errptr);

/* --- strings with a length (see "Strings with a length" above) ---------------------------- */
ALLOCORE_EXPORT allocore_node_t* allocore_node_create_n(const char* id, size_t id_len);
ALLOCORE_EXPORT allocore_app_t* allocore_app_create_n(const char* id, size_t id_len,
                                                      const char* user, size_t user_len);
ALLOCORE_EXPORT void allocore_app_set_queue_n(allocore_app_t* app, const char* queue,
                                              size_t queue_len);
ALLOCORE_EXPORT allocore_ask_t* allocore_ask_create_n(const char* app, size_t app_len,
                                                      const char* id, size_t id_len);
ALLOCORE_EXPORT void allocore_ask_add_resource_n(allocore_ask_t* ask, const char* type,
                                                 size_t type_len, int64_t value);
ALLOCORE_EXPORT void allocore_node_add_capacity_n(allocore_node_t* node, const char* type,
                                                  size_t type_len, int64_t value);
ALLOCORE_EXPORT void allocore_remove_node_n(allocore_kernel_t* kernel, const char* partition,
                                            const char* id, size_t id_len,
                                            allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_remove_app_n(allocore_kernel_t* kernel, const char* partition,
                                           const char* id, size_t id_len, allocore_decisions_t* out,
                                           char** errptr);
ALLOCORE_EXPORT void allocore_remove_ask_n(allocore_kernel_t* kernel, const char* partition,
                                           const char* app, size_t app_len, const char* ask,
                                           size_t ask_len, allocore_decisions_t* out,
                                           char** errptr);
/* seq 0: the oldest live allocation of the ask; node NULL (or length 0): on any node. */
ALLOCORE_EXPORT void allocore_release_allocation_n(allocore_kernel_t* kernel, const char* partition,
                                                   const char* app, size_t app_len, const char* ask,
                                                   size_t ask_len, const char* node,
                                                   size_t node_len, int64_t seq,
                                                   allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_find_app_n(const allocore_kernel_t* kernel,
                                                      const char* partition, const char* id,
                                                      size_t id_len, char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_find_ask_n(const allocore_kernel_t* kernel,
                                                      allocore_handle_t app, const char* id,
                                                      size_t id_len, char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_find_node_n(const allocore_kernel_t* kernel,
                                                       const char* partition, const char* id,
                                                       size_t id_len, char** errptr);

/* --- a manager's lifecycle: restart, in-place resize, other schedulers' pods --------------
 * Resources are given as `count` parallel entries of `types` and `values` (kernel units:
 * vcore in milli-cores, memory in bytes); both may be NULL when `count` is 0. Each call is
 * the kernel call of allocore/kernel.h with its refusals (an error, nothing changed). */

/* An allocation that already runs on `node`: the pod described as an ask (count 1). */
ALLOCORE_EXPORT void allocore_recover_allocation(allocore_kernel_t* kernel,
                                                 const allocore_ask_t* ask, const char* node,
                                                 allocore_decisions_t* out, char** errptr);
/* New resources for the oldest live allocation of the ask (on `node` unless NULL);
 * yunikorn-1.9 only. */
ALLOCORE_EXPORT void allocore_update_allocation(allocore_kernel_t* kernel, const char* partition,
                                                const char* app, const char* ask, const char* node,
                                                const char* const* types, const int64_t* values,
                                                size_t count, allocore_decisions_t* out,
                                                char** errptr);
/* New resources for the pending part of an ask; yunikorn-1.9 only. */
ALLOCORE_EXPORT void allocore_update_ask(allocore_kernel_t* kernel, const char* partition,
                                         const char* app, const char* ask, const char* const* types,
                                         const int64_t* values, size_t count,
                                         allocore_decisions_t* out, char** errptr);
/* A pod another scheduler placed on `node` (`kind`: ALLOCORE_FOREIGN_*); a known id updates. */
ALLOCORE_EXPORT void allocore_add_foreign(allocore_kernel_t* kernel, const char* partition,
                                          const char* id, const char* node,
                                          const char* const* types, const int64_t* values,
                                          size_t count, int kind, allocore_decisions_t* out,
                                          char** errptr);
/* `node` NULL, or the node the pod was added on. */
ALLOCORE_EXPORT void allocore_update_foreign(allocore_kernel_t* kernel, const char* partition,
                                             const char* id, const char* node,
                                             const char* const* types, const int64_t* values,
                                             size_t count, allocore_decisions_t* out,
                                             char** errptr);
ALLOCORE_EXPORT void allocore_remove_foreign(allocore_kernel_t* kernel, const char* partition,
                                             const char* id, allocore_decisions_t* out,
                                             char** errptr);

/* --- clock and scheduling ---------------------------------------------------------------- */
ALLOCORE_EXPORT void allocore_advance(allocore_kernel_t* kernel, int64_t millis,
                                      allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT int64_t allocore_now_millis(const allocore_kernel_t* kernel);
/* Allocations made (max <= 0: no limit; partition NULL: every partition), -1 on error. */
ALLOCORE_EXPORT int64_t allocore_schedule(allocore_kernel_t* kernel, int64_t max,
                                          const char* partition, allocore_decisions_t* out,
                                          char** errptr);
ALLOCORE_EXPORT int64_t allocore_release_unused_names(allocore_kernel_t* kernel);
ALLOCORE_EXPORT int64_t allocore_name_count(const allocore_kernel_t* kernel);
ALLOCORE_EXPORT void allocore_usage(const allocore_kernel_t* kernel, int64_t* applications,
                                    int64_t* asks, int64_t* live_allocations);
/* 1 when the live allocation budget (allocore_options_t) is full while asks are pending: a
 * schedule allocates nothing until allocations are released. */
ALLOCORE_EXPORT unsigned char allocore_allocation_budget_blocks(const allocore_kernel_t* kernel);
/* Every cache against a recomputation; sets *errptr on the first difference. */
ALLOCORE_EXPORT void allocore_check_consistency(const allocore_kernel_t* kernel, char** errptr);

/* --- decisions --------------------------------------------------------------------------- */
/* Calls append to `out` (it may be NULL when the caller does not want them). */
ALLOCORE_EXPORT allocore_decisions_t* allocore_decisions_create(void);
ALLOCORE_EXPORT void allocore_decisions_destroy(allocore_decisions_t* decisions);
ALLOCORE_EXPORT void allocore_decisions_clear(allocore_decisions_t* decisions);
ALLOCORE_EXPORT size_t allocore_decisions_count(const allocore_decisions_t* decisions);
ALLOCORE_EXPORT int allocore_decision_type(const allocore_decisions_t* decisions, size_t i);
ALLOCORE_EXPORT const char* allocore_decision_partition(const allocore_decisions_t* decisions,
                                                        size_t i, size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_queue(const allocore_decisions_t* decisions, size_t i,
                                                    size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_app(const allocore_decisions_t* decisions, size_t i,
                                                  size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_ask(const allocore_decisions_t* decisions, size_t i,
                                                  size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_node(const allocore_decisions_t* decisions, size_t i,
                                                   size_t* len);
ALLOCORE_EXPORT int32_t allocore_decision_priority(const allocore_decisions_t* decisions, size_t i);
ALLOCORE_EXPORT int64_t allocore_decision_seq(const allocore_decisions_t* decisions, size_t i);
/* ALLOCORE_APP_STATE: states as names ("Accepted", ...). */
ALLOCORE_EXPORT const char* allocore_decision_from_state(const allocore_decisions_t* decisions,
                                                         size_t i);
ALLOCORE_EXPORT const char* allocore_decision_to_state(const allocore_decisions_t* decisions,
                                                       size_t i);
/* ALLOCORE_APP_REJECTED: why. */
ALLOCORE_EXPORT const char* allocore_decision_reason(const allocore_decisions_t* decisions,
                                                     size_t i, size_t* len);
/* ALLOCORE_RELEASE, ALLOCORE_ASK_REMOVED: "released", "removed", "replaced", "preempted",
 * "timeout". */
ALLOCORE_EXPORT const char* allocore_decision_release_reason(const allocore_decisions_t* decisions,
                                                             size_t i);
ALLOCORE_EXPORT unsigned char allocore_decision_placeholder(const allocore_decisions_t* decisions,
                                                            size_t i);
ALLOCORE_EXPORT const char* allocore_decision_replaces(const allocore_decisions_t* decisions,
                                                       size_t i, size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_by_app(const allocore_decisions_t* decisions,
                                                     size_t i, size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_by_ask(const allocore_decisions_t* decisions,
                                                     size_t i, size_t* len);
ALLOCORE_EXPORT const char* allocore_decision_by_queue(const allocore_decisions_t* decisions,
                                                       size_t i, size_t* len);
ALLOCORE_EXPORT int64_t allocore_decision_count(const allocore_decisions_t* decisions, size_t i);
/* An ALLOCORE_QUOTA_PREEMPTION's max and preemptable quantity of resource type `type` (an id of
 * allocore_resource_type_id / the index of allocore_resource_type_name); *present (may be NULL)
 * tells whether the type is set. 0 and not present on any other decision. */
ALLOCORE_EXPORT int64_t allocore_decision_quota_max(const allocore_decisions_t* decisions, size_t i,
                                                    int type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_decision_quota_preemptable(const allocore_decisions_t* decisions,
                                                            size_t i, int type,
                                                            unsigned char* present);
/* The decision's application, ask and node by handle (slot ALLOCORE_NO_HANDLE where the
 * decision names none: see Decision in allocore/kernel.h). */
ALLOCORE_EXPORT allocore_handle_t
allocore_decision_app_handle(const allocore_decisions_t* decisions, size_t i);
ALLOCORE_EXPORT allocore_handle_t
allocore_decision_ask_handle(const allocore_decisions_t* decisions, size_t i);
ALLOCORE_EXPORT allocore_handle_t
allocore_decision_node_handle(const allocore_decisions_t* decisions, size_t i);

/* Decisions in bulk: one call copies a range of decisions into caller-owned records, their
 * names into one caller-owned byte buffer, for callers to whom every call costs (cgo, Python).
 * A name is a (offset, length) span of `names`; names are not NUL-terminated. */
typedef struct allocore_span_t {
  uint32_t offset;
  uint32_t len;
} allocore_span_t;

typedef struct allocore_decision_record_t {
  int32_t type;     /* ALLOCORE_ALLOCATION, ... */
  int32_t priority; /* as allocore_decision_priority */
  int64_t seq;      /* as allocore_decision_seq */
  int64_t count;    /* as allocore_decision_count */
  uint8_t placeholder;
  uint8_t release_reason; /* ALLOCORE_RELEASE_* (ALLOCORE_RELEASE, ALLOCORE_ASK_REMOVED) */
  uint8_t from_state;     /* ALLOCORE_STATE_* (ALLOCORE_APP_STATE) */
  uint8_t to_state;
  uint32_t reserved; /* 0 */
  allocore_handle_t app_handle;
  allocore_handle_t ask_handle;
  allocore_handle_t node_handle;
  allocore_span_t partition;
  allocore_span_t queue;
  allocore_span_t app;
  allocore_span_t ask;
  allocore_span_t node;
  allocore_span_t reason; /* ALLOCORE_APP_REJECTED */
  allocore_span_t replaces;
  allocore_span_t by_app;
  allocore_span_t by_ask;
  allocore_span_t by_queue;
} allocore_decision_record_t;

/* Release reasons and application states as numbers (their names: the *_name calls). */
enum {
  ALLOCORE_RELEASE_RELEASED = 0,
  ALLOCORE_RELEASE_REMOVED = 1,
  ALLOCORE_RELEASE_REPLACED = 2,
  ALLOCORE_RELEASE_PREEMPTED = 3,
  ALLOCORE_RELEASE_TIMEOUT = 4,
  ALLOCORE_RELEASE_QUOTA = 5
};
enum {
  ALLOCORE_STATE_NEW = 0,
  ALLOCORE_STATE_ACCEPTED = 1,
  ALLOCORE_STATE_STARTING = 2,
  ALLOCORE_STATE_RUNNING = 3,
  ALLOCORE_STATE_COMPLETING = 4,
  ALLOCORE_STATE_COMPLETED = 5,
  ALLOCORE_STATE_FAILING = 6,
  ALLOCORE_STATE_FAILED = 7,
  ALLOCORE_STATE_REJECTED = 8,
  ALLOCORE_STATE_EXPIRED = 9,
  ALLOCORE_STATE_RESUMING = 10
};
/* "released", ..., and "New", "Accepted", ...; "" out of range. */
ALLOCORE_EXPORT const char* allocore_release_reason_name(int reason);
ALLOCORE_EXPORT const char* allocore_app_state_name(int state);

/* Copies decisions first, first + 1, ... into records[0 .. max_records) and their names into
 * names[0 .. names_capacity), and returns how many records it wrote: it stops at the end of the
 * list, at max_records, or before the first decision whose names do not fit in what is left of
 * `names` (*names_used: the bytes written). A caller loops with first += the result. A
 * decision whose names alone exceed names_capacity (or 4 GiB) is an error: 0 records,
 * OUT_OF_RANGE in *errptr, and *names_used the size it needs. first past the end: 0, no
 * error. Handles read as allocore_decision_*_handle gives them. */
ALLOCORE_EXPORT size_t allocore_decisions_export(const allocore_decisions_t* decisions,
                                                 size_t first, allocore_decision_record_t* records,
                                                 size_t max_records, char* names,
                                                 size_t names_capacity, size_t* names_used,
                                                 char** errptr);

/* --- queries ----------------------------------------------------------------------------- */
ALLOCORE_EXPORT size_t allocore_partition_count(const allocore_kernel_t* kernel);
ALLOCORE_EXPORT const char* allocore_partition_name(const allocore_kernel_t* kernel, size_t i);
ALLOCORE_EXPORT size_t allocore_resource_type_count(const allocore_kernel_t* kernel);
ALLOCORE_EXPORT const char* allocore_resource_type_name(const allocore_kernel_t* kernel, size_t i);

/* Every queue of a partition, depth first in configuration order (root first). Quantities
 * are read by resource type name; *present (may be NULL) tells whether the type is set. */
ALLOCORE_EXPORT allocore_queues_t* allocore_list_queues(const allocore_kernel_t* kernel,
                                                        const char* partition, char** errptr);
/* One queue by path ("root.a"), or by handle (allocore_find_queue): a list of one entry. */
ALLOCORE_EXPORT allocore_queues_t* allocore_get_queue(const allocore_kernel_t* kernel,
                                                      const char* partition, const char* path,
                                                      char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_find_queue(const allocore_kernel_t* kernel,
                                                      const char* partition, const char* path,
                                                      char** errptr);
ALLOCORE_EXPORT allocore_queues_t* allocore_get_queue_by_handle(const allocore_kernel_t* kernel,
                                                                allocore_handle_t queue,
                                                                char** errptr);
ALLOCORE_EXPORT void allocore_queues_destroy(allocore_queues_t* queues);
ALLOCORE_EXPORT size_t allocore_queues_count(const allocore_queues_t* queues);
ALLOCORE_EXPORT const char* allocore_queue_path(const allocore_queues_t* queues, size_t i);
ALLOCORE_EXPORT unsigned char allocore_queue_is_leaf(const allocore_queues_t* queues, size_t i);
ALLOCORE_EXPORT const char* allocore_queue_state(const allocore_queues_t* queues, size_t i);
/* The effective priority; *has_pending (may be NULL) is 0 when nothing is pending. */
ALLOCORE_EXPORT int32_t allocore_queue_priority(const allocore_queues_t* queues, size_t i,
                                                unsigned char* has_pending);
ALLOCORE_EXPORT uint64_t allocore_queue_running_applications(const allocore_queues_t* queues,
                                                             size_t i);
ALLOCORE_EXPORT int64_t allocore_queue_allocated(const allocore_queues_t* queues, size_t i,
                                                 const char* type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_queue_pending(const allocore_queues_t* queues, size_t i,
                                               const char* type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_queue_guaranteed(const allocore_queues_t* queues, size_t i,
                                                  const char* type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_queue_max(const allocore_queues_t* queues, size_t i,
                                           const char* type, unsigned char* present);

/* Inventory (Kernel::ListNodes, ListAllocations): for a manager that reconciles its records
 * with the kernel's. Every node of a partition in id order; quantities by resource type name as
 * for queues (kernel units: vcore in milli-cores, memory in bytes). */
ALLOCORE_EXPORT allocore_nodes_t* allocore_list_nodes(const allocore_kernel_t* kernel,
                                                      const char* partition, char** errptr);
ALLOCORE_EXPORT void allocore_nodes_destroy(allocore_nodes_t* nodes);
ALLOCORE_EXPORT size_t allocore_nodes_count(const allocore_nodes_t* nodes);
ALLOCORE_EXPORT const char* allocore_nodes_id(const allocore_nodes_t* nodes, size_t i);
ALLOCORE_EXPORT int64_t allocore_nodes_capacity(const allocore_nodes_t* nodes, size_t i,
                                                const char* type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_nodes_allocated(const allocore_nodes_t* nodes, size_t i,
                                                 const char* type, unsigned char* present);
/* Other schedulers' pods (and an occupied total a node update set). */
ALLOCORE_EXPORT int64_t allocore_nodes_occupied(const allocore_nodes_t* nodes, size_t i,
                                                const char* type, unsigned char* present);
/* capacity - allocated - occupied: negative where recovered or foreign pods ran over it. */
ALLOCORE_EXPORT int64_t allocore_nodes_available(const allocore_nodes_t* nodes, size_t i,
                                                 const char* type, unsigned char* present);
ALLOCORE_EXPORT unsigned char allocore_nodes_schedulable(const allocore_nodes_t* nodes, size_t i);
ALLOCORE_EXPORT int64_t allocore_nodes_allocation_count(const allocore_nodes_t* nodes, size_t i);

/* The live allocations of application `app` and/or on node `node` (NULL or "": no filter),
 * oldest first. seq is the allocation record's (0: a recovered allocation, which has none);
 * allocore_release_allocation_seq releases exactly one by it. */
ALLOCORE_EXPORT allocore_allocations_t* allocore_list_allocations(const allocore_kernel_t* kernel,
                                                                  const char* partition,
                                                                  const char* app, const char* node,
                                                                  char** errptr);
ALLOCORE_EXPORT void allocore_allocations_destroy(allocore_allocations_t* allocations);
ALLOCORE_EXPORT size_t allocore_allocations_count(const allocore_allocations_t* allocations);
ALLOCORE_EXPORT const char* allocore_allocations_app(const allocore_allocations_t* allocations,
                                                     size_t i);
ALLOCORE_EXPORT const char* allocore_allocations_ask(const allocore_allocations_t* allocations,
                                                     size_t i);
ALLOCORE_EXPORT const char* allocore_allocations_node(const allocore_allocations_t* allocations,
                                                      size_t i);
ALLOCORE_EXPORT int64_t allocore_allocations_seq(const allocore_allocations_t* allocations,
                                                 size_t i);
ALLOCORE_EXPORT int64_t allocore_allocations_resource(const allocore_allocations_t* allocations,
                                                      size_t i, const char* type,
                                                      unsigned char* present);
ALLOCORE_EXPORT unsigned char allocore_allocations_placeholder(
    const allocore_allocations_t* allocations, size_t i);

/* Every application of a partition the kernel answers for, in submission order, with its
 * state ("New", "Accepted", "Running", ...) and usage by resource type name. */
ALLOCORE_EXPORT allocore_apps_t* allocore_list_apps(const allocore_kernel_t* kernel,
                                                    const char* partition, char** errptr);
ALLOCORE_EXPORT void allocore_apps_destroy(allocore_apps_t* apps);
ALLOCORE_EXPORT size_t allocore_apps_count(const allocore_apps_t* apps);
ALLOCORE_EXPORT const char* allocore_apps_id(const allocore_apps_t* apps, size_t i);
ALLOCORE_EXPORT const char* allocore_apps_queue(const allocore_apps_t* apps, size_t i);
ALLOCORE_EXPORT const char* allocore_apps_state(const allocore_apps_t* apps, size_t i);
ALLOCORE_EXPORT int64_t allocore_apps_allocated(const allocore_apps_t* apps, size_t i,
                                                const char* type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_apps_pending(const allocore_apps_t* apps, size_t i,
                                              const char* type, unsigned char* present);

/* One application; NULL (NOT_FOUND) when the partition does not know it. */
ALLOCORE_EXPORT allocore_app_info_t* allocore_get_app(const allocore_kernel_t* kernel,
                                                      const char* partition, const char* id,
                                                      char** errptr);
ALLOCORE_EXPORT void allocore_app_info_destroy(allocore_app_info_t* info);
ALLOCORE_EXPORT const char* allocore_app_info_queue(const allocore_app_info_t* info);
ALLOCORE_EXPORT const char* allocore_app_info_state(const allocore_app_info_t* info);
ALLOCORE_EXPORT int64_t allocore_app_info_allocated(const allocore_app_info_t* info,
                                                    const char* type, unsigned char* present);
ALLOCORE_EXPORT int64_t allocore_app_info_pending(const allocore_app_info_t* info, const char* type,
                                                  unsigned char* present);

/* Why each ask with pending repeats is not allocated now. */
ALLOCORE_EXPORT allocore_explanations_t* allocore_explain_pending(const allocore_kernel_t* kernel);
ALLOCORE_EXPORT void allocore_explanations_destroy(allocore_explanations_t* explanations);
ALLOCORE_EXPORT size_t allocore_explanations_count(const allocore_explanations_t* explanations);
ALLOCORE_EXPORT const char* allocore_explanation_app(const allocore_explanations_t* explanations,
                                                     size_t i);
ALLOCORE_EXPORT const char* allocore_explanation_ask(const allocore_explanations_t* explanations,
                                                     size_t i);
ALLOCORE_EXPORT int64_t
allocore_explanation_pending_count(const allocore_explanations_t* explanations, size_t i);
ALLOCORE_EXPORT const char* allocore_explanation_reason(const allocore_explanations_t* explanations,
                                                        size_t i);

/* --- by handle ------------------------------------------------------------------------- */
/* Lookups: on failure the handle's slot is ALLOCORE_NO_HANDLE and *errptr says why. */
ALLOCORE_EXPORT allocore_handle_t allocore_find_app(const allocore_kernel_t* kernel,
                                                    const char* partition, const char* id,
                                                    char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_find_ask(const allocore_kernel_t* kernel,
                                                    allocore_handle_t app, const char* id,
                                                    char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_find_node(const allocore_kernel_t* kernel,
                                                     const char* partition, const char* id,
                                                     char** errptr);
/* The id of a resource type (registered when new), for `quantities` below; -1 on failure. */
ALLOCORE_EXPORT int allocore_resource_type_id(allocore_kernel_t* kernel, const char* name,
                                              char** errptr);
/* Adds an ask to an application by handle. `quantities[i]` is the quantity of resource type
 * id i where bit i of `mask` is set (ids below 8). Returns the ask's handle. */
ALLOCORE_EXPORT allocore_handle_t allocore_add_ask_by_handle(
    allocore_kernel_t* kernel, allocore_handle_t app, const char* id, const int64_t* quantities,
    uint32_t mask, int32_t priority, int64_t count, allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_remove_ask_by_handle(allocore_kernel_t* kernel, allocore_handle_t ask,
                                                   allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_release_by_handle(allocore_kernel_t* kernel, allocore_handle_t ask,
                                                allocore_handle_t node, allocore_decisions_t* out,
                                                char** errptr);
/* Releases exactly the live allocation of the ask whose allocation decision had `seq` (> 0),
 * on `node` unless its slot is ALLOCORE_NO_HANDLE; NOT_FOUND, nothing changed, otherwise. */
ALLOCORE_EXPORT void allocore_release_by_handle_seq(allocore_kernel_t* kernel,
                                                    allocore_handle_t ask, allocore_handle_t node,
                                                    int64_t seq, allocore_decisions_t* out,
                                                    char** errptr);
ALLOCORE_EXPORT void allocore_remove_app_by_handle(allocore_kernel_t* kernel, allocore_handle_t app,
                                                   allocore_decisions_t* out, char** errptr);
ALLOCORE_EXPORT void allocore_remove_node_by_handle(allocore_kernel_t* kernel,
                                                    allocore_handle_t node,
                                                    allocore_decisions_t* out, char** errptr);

/* What-if: where `ask` (not submitted; its id may be empty) would be placed now, or the rule
 * that stops it (Kernel::Probe). Changes nothing. Fails as allocore_add_ask would (unknown
 * application, zero resources, ...). */
ALLOCORE_EXPORT allocore_probe_t* allocore_probe(const allocore_kernel_t* kernel,
                                                 const allocore_ask_t* ask, char** errptr);
ALLOCORE_EXPORT void allocore_probe_destroy(allocore_probe_t* probe);
ALLOCORE_EXPORT const char* allocore_probe_queue(const allocore_probe_t* probe);
/* The node the next scheduling attempt would give the ask; NULL when it would not be placed. */
ALLOCORE_EXPORT const char* allocore_probe_node(const allocore_probe_t* probe);
/* Why it would not be placed (ExplainPending's words); NULL when it would. */
ALLOCORE_EXPORT const char* allocore_probe_reason(const allocore_probe_t* probe);
/* An ask for a required node that does not fit: the allocations the preemptor would release. */
ALLOCORE_EXPORT int64_t allocore_probe_preemption_victims(const allocore_probe_t* probe);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCORE_C_H_ */

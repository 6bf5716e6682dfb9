/* shim.h — C helpers of the Go package (not part of allocore's C ABI).
 *
 * Every Go method makes one cgo call: these helpers build the C object a call needs from
 * strings the Go side packs into one byte buffer, make the kernel call, and export the first
 * chunk of its decisions. Strings are (offset, length) spans of that buffer, each followed by a
 * NUL, so one span serves the *_n calls (pointer, length) and the calls that want a
 * NUL-terminated string. The buffer is Go memory holding no pointers; nothing here keeps a
 * pointer into it after the call returns. */
#ifndef ALLOCORE_GO_SHIM_H_
#define ALLOCORE_GO_SHIM_H_

#include <stddef.h>
#include <stdint.h>

#include "allocore/c.h"
#include "allocore/c_service.h"

typedef struct gocore_str {
  size_t off;
  size_t len;
} gocore_str;

typedef struct gocore_res {
  gocore_str type;
  int64_t value;
} gocore_res;

/* Resource lists are [first, first + count) of the call's gocore_res array. */
typedef struct gocore_node {
  gocore_str partition, id;
  uint32_t capacity_first, capacity_count, occupied_first, occupied_count;
  uint8_t set_capacity, set_occupied; /* an update changes what is set */
  int8_t schedulable;                 /* -1: unset */
} gocore_node;

typedef struct gocore_app {
  gocore_str partition, id, user, queue;
  uint32_t groups_first, groups_count; /* spans in the call's gocore_str array */
  uint32_t tags_first, tags_count;     /* key, value pairs in the same array */
  uint32_t placeholder_first, placeholder_count;
  int64_t placeholder_timeout_millis;
  uint8_t gang_hard;
} gocore_app;

typedef struct gocore_ask {
  gocore_str partition, app, id, task_group, required_node;
  uint32_t resources_first, resources_count;
  int32_t priority;
  int64_t count; /* 0: unset (1) */
  int64_t creation_time_millis;
  uint8_t has_creation_time, placeholder, no_preemption, originator;
} gocore_ask;

/* A kernel's (or batch reader's) output: decisions and the C buffers they are exported to. */
typedef struct gocore_frame {
  allocore_decisions_t* out;
  allocore_decision_record_t* records;
  size_t max_records;
  char* names;
  size_t names_capacity;
  /* Results of the last call. */
  size_t total;      /* decisions in the list */
  size_t written;    /* records exported by the call (from first) */
  size_t names_used; /* bytes of `names` they use */
  int64_t ret;       /* the call's integer result (allocations made, ...) */
} gocore_frame;

gocore_frame* gocore_frame_create(size_t max_records, size_t names_capacity);
void gocore_frame_destroy(gocore_frame* f);
/* Grows the names buffer to at least `capacity` bytes; 0 when out of memory. */
int gocore_frame_grow_names(gocore_frame* f, size_t capacity);
/* Exports decisions [first, ...) of `d` into the frame; the error of the export, if any. */
char* gocore_export(gocore_frame* f, const allocore_decisions_t* d, size_t first);

/* One call's arguments. The Go side fills it in memory it owns (its encoder) and passes a
 * pointer: arguments passed by value would each be moved to the Go heap by cgo. */
typedef struct gocore_call {
  gocore_str partition, app, ask, node, id, source; /* id: a node's or an app's (removals) */
  int64_t seq;                                      /* release: the seq (0: the oldest) */
  int64_t number;                                   /* schedule: max; advance: millis */
  allocore_handle_t h1, h2;                         /* by handle: the entity, the node */
  gocore_node n;
  gocore_app a;
  gocore_ask k;
} gocore_call;

enum {
  GOCORE_ADD_NODE = 0,
  GOCORE_UPDATE_NODE,
  GOCORE_REMOVE_NODE,
  GOCORE_ADD_APP,
  GOCORE_REMOVE_APP,
  GOCORE_ADD_ASK,
  GOCORE_RECOVER,
  GOCORE_REMOVE_ASK,
  GOCORE_RELEASE,
  GOCORE_ADVANCE,
  GOCORE_SCHEDULE,
  GOCORE_UPDATE_CONFIG,
  GOCORE_REMOVE_APP_BY_HANDLE,
  GOCORE_REMOVE_ASK_BY_HANDLE,
  GOCORE_REMOVE_NODE_BY_HANDLE,
  GOCORE_RELEASE_BY_HANDLE
};

/* --- kernel ------------------------------------------------------------------------------- */
typedef struct gocore_kernel_result {
  allocore_kernel_t* kernel;
  char* err;
} gocore_kernel_result;
gocore_kernel_result gocore_kernel_create(const char* yaml, size_t yaml_len, const char* buf,
                                          gocore_str source, gocore_str semantics, int64_t max_apps,
                                          int64_t max_asks, int64_t max_allocs);
/* A kernel call (op: GOCORE_*): clears f->out, calls, exports the first chunk of its decisions
 * into f, and returns the call's error (NULL on success). `text` is the YAML of
 * GOCORE_UPDATE_CONFIG. */
/* The kernel and frame come as integers: cgo checks (and, for an opaque type, boxes on the Go
 * heap) every pointer argument whose type may hold pointers. */
char* gocore_kernel_call(int op, uintptr_t kernel, uintptr_t frame, const char* buf,
                         const gocore_call* c, const gocore_str* strs, const gocore_res* res,
                         const char* text, size_t text_len);

/* Results returned by value, so that the Go side passes no pointer to its stack. */
typedef struct gocore_find_result {
  allocore_handle_t handle;
  char* err;
} gocore_find_result;
typedef struct gocore_submit_result {
  uint64_t seq;
  char* err;
} gocore_submit_result;

/* Lookups. kind 0: application (c->id), 1: node (c->id), 2: ask c->id of application c->h1. */
gocore_find_result gocore_find(int kind, uintptr_t kernel, const char* buf, const gocore_call* c);

/* --- service ------------------------------------------------------------------------------ */
typedef struct gocore_service_result {
  allocore_service_t* service;
  char* err;
} gocore_service_result;
/* `numbers`: the options' numeric fields (its string fields are taken from the spans). */
gocore_service_result gocore_service_create(const char* yaml, size_t yaml_len, const char* buf,
                                            gocore_str source, gocore_str semantics,
                                            gocore_str record_path,
                                            allocore_service_options_t numbers);
/* A submit (op: GOCORE_ADD_NODE ... GOCORE_UPDATE_CONFIG, but not GOCORE_RECOVER). */
gocore_submit_result gocore_service_call(int op, uintptr_t service, const char* buf,
                                         const gocore_call* c, const gocore_str* strs,
                                         const gocore_res* res, const char* text, size_t text_len);
/* kind 0: application, 1: node. */
gocore_find_result gocore_service_find(int kind, const allocore_service_t* s, const char* buf,
                                       const gocore_call* c);

/* A wait of at most timeout_millis: GOCORE_WAIT_BATCH takes the next batch
 * (allocore_service_next_batch), GOCORE_WAIT_APPLIED the snapshot after event seq
 * (allocore_service_wait_applied). The object, or NULL with the error; NULL and no error when
 * the wait timed out. */
enum { GOCORE_WAIT_BATCH = 0, GOCORE_WAIT_APPLIED = 1 };
typedef struct gocore_wait_result {
  void* object; /* allocore_batch_t* or allocore_snapshot_t* */
  char* err;
} gocore_wait_result;
gocore_wait_result gocore_service_wait(int kind, allocore_service_t* s, uint64_t seq,
                                       int64_t timeout_millis);

/* A taken batch: its numbers, and its first chunk of decisions exported into the frame. */
typedef struct gocore_batch_info {
  uint64_t first_seq, last_seq;
  int64_t allocations;
  size_t receipts;
} gocore_batch_info;
void gocore_batch_read(const allocore_batch_t* b, gocore_frame* f, gocore_batch_info* info);
/* Receipts [0, n) into `out` (Go memory, no pointers). */
void gocore_batch_receipts(const allocore_batch_t* b, allocore_receipt_t* out, size_t n);

typedef struct gocore_snapshot_info {
  uint64_t applied_seq;
  int64_t now_millis, applications, asks, live_allocations;
} gocore_snapshot_info;
void gocore_snapshot_read(const allocore_snapshot_t* s, gocore_snapshot_info* info);

#endif /* ALLOCORE_GO_SHIM_H_ */

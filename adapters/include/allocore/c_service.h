/* allocore/c_service.h — the threaded kernel from C: many producer threads, one scheduler
 * thread, readers of snapshots, with no callbacks (KernelService of
 * allocore/adapters/kernel_service.h, in C).
 *
 * A service owns a kernel and a scheduler thread. Any thread submits events (the
 * allocore_service_* calls below that return a sequence number): each is queued with the next
 * number and returns at once. The scheduler thread takes everything queued as one batch,
 * applies the events in number order, schedules, and publishes the batch and a snapshot. A
 * caller takes applied batches in order with allocore_service_next_batch (polling, or waiting
 * with a timeout), waits for one event with allocore_service_wait_applied, and reads the
 * newest snapshot at any time without stopping the scheduler. Every call here is safe from any
 * thread at any time, and the objects it hands out (batches, snapshots) belong to the caller,
 * who may use them from any thread, one call at a time each.
 *
 * Errors, strings and ownership follow allocore/c.h. A submit returns 0, with *errptr set, when
 * the service is closed (FAILED_PRECONDITION) or max_queued events already wait
 * (RESOURCE_EXHAUSTED); nothing is queued then. An event the kernel refuses is not an error of
 * the submit: its batch lists it (allocore_batch_receipt) with the kernel's message.
 *
 * Batches are kept until taken, in order. A caller that wants only waits and snapshots sets
 * discard_batches, so that nothing accumulates.
 */
#ifndef ALLOCORE_C_SERVICE_H_
#define ALLOCORE_C_SERVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "allocore/c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct allocore_service_t allocore_service_t;
typedef struct allocore_batch_t allocore_batch_t;
typedef struct allocore_snapshot_t allocore_snapshot_t;

typedef struct allocore_service_options_t {
  /* The kernel's caps and release, as allocore_options_t. */
  int64_t max_applications;
  int64_t max_asks;
  int64_t max_live_allocations;
  const char* semantics;
  /* At most this many events per batch (0: everything queued). */
  size_t max_batch;
  /* At most this many events waiting (0: no cap); a submit beyond it is refused. */
  size_t max_queued;
  /* Non-NULL and non-empty: every applied event and each batch's schedule is recorded to an
   * event log at this path (`allocore run PATH` replays it with the same decisions). */
  const char* record_path;
  /* 1: applied batches are not kept for allocore_service_next_batch. */
  unsigned char discard_batches;
  /* 1: snapshots also hold every node, application and live allocation. */
  unsigned char snapshot_inventory;
} allocore_service_options_t;

/* Creates the kernel from a queues.yaml (as allocore_kernel_create; `options` may be NULL) and
 * starts the scheduler thread. Destroy stops it after applying what is queued. */
ALLOCORE_EXPORT allocore_service_t* allocore_service_create(
    const char* yaml, size_t len, const char* source_name,
    const allocore_service_options_t* options, char** errptr);
ALLOCORE_EXPORT void allocore_service_destroy(allocore_service_t* service);
/* Stops accepting events, applies what is queued, and stops the scheduler thread: submits fail
 * from then on, allocore_service_next_batch returns CANCELLED once every batch was taken, and
 * waits and snapshots still answer (every event was applied). Destroy closes a service that
 * is still open. */
ALLOCORE_EXPORT void allocore_service_close(allocore_service_t* service);

/* --- events: each returns its sequence number (> 0), or 0 with *errptr set --------------- */
ALLOCORE_EXPORT uint64_t allocore_service_add_node(allocore_service_t* service,
                                                   const allocore_node_t* node, char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_update_node(allocore_service_t* service,
                                                      const allocore_node_t* node, char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_remove_node(allocore_service_t* service,
                                                      const char* partition, const char* id,
                                                      size_t id_len, char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_add_app(allocore_service_t* service,
                                                  const allocore_app_t* app, char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_remove_app(allocore_service_t* service,
                                                     const char* partition, const char* id,
                                                     size_t id_len, char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_add_ask(allocore_service_t* service,
                                                  const allocore_ask_t* ask, char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_remove_ask(allocore_service_t* service,
                                                     const char* partition, const char* app,
                                                     size_t app_len, const char* ask,
                                                     size_t ask_len, char** errptr);
/* seq 0: the oldest live allocation of the ask; node NULL or length 0: on any node. */
ALLOCORE_EXPORT uint64_t allocore_service_release(allocore_service_t* service,
                                                  const char* partition, const char* app,
                                                  size_t app_len, const char* ask, size_t ask_len,
                                                  const char* node, size_t node_len, int64_t seq,
                                                  char** errptr);
/* A pod found running on `node` after a restart (allocore_recover_allocation of c.h). */
ALLOCORE_EXPORT uint64_t allocore_service_recover_allocation(allocore_service_t* service,
                                                             const allocore_ask_t* ask,
                                                             const char* node, size_t node_len,
                                                             char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_advance(allocore_service_t* service, int64_t millis,
                                                  char** errptr);
ALLOCORE_EXPORT uint64_t allocore_service_update_config(allocore_service_t* service,
                                                        const char* yaml, size_t len,
                                                        const char* source_name, char** errptr);

/* --- applied batches --------------------------------------------------------------------- */
/* The oldest applied batch not yet taken. timeout_millis 0: do not wait (NULL and no error when
 * none is ready); > 0: wait at most that long (NULL, DEADLINE_EXCEEDED); < 0: wait until one
 * is ready. NULL with CANCELLED once the service is closed and every batch was taken, and with
 * FAILED_PRECONDITION when the service discards its batches. A batch is handed out as soon as
 * it is applied, just before the snapshot that shows it is published: a reader that needs that
 * snapshot waits for it with allocore_service_wait_applied(last_seq). */
ALLOCORE_EXPORT allocore_batch_t* allocore_service_next_batch(allocore_service_t* service,
                                                              int64_t timeout_millis,
                                                              char** errptr);
ALLOCORE_EXPORT void allocore_batch_destroy(allocore_batch_t* batch);
/* The batch's events are the sequence numbers [first_seq, last_seq]. */
ALLOCORE_EXPORT uint64_t allocore_batch_first_seq(const allocore_batch_t* batch);
ALLOCORE_EXPORT uint64_t allocore_batch_last_seq(const allocore_batch_t* batch);
ALLOCORE_EXPORT int64_t allocore_batch_allocations(const allocore_batch_t* batch);
/* The batch's decisions, owned by the batch (read them with allocore/c.h's accessors or
 * allocore_decisions_export); valid until allocore_batch_destroy. */
ALLOCORE_EXPORT const allocore_decisions_t* allocore_batch_decisions(const allocore_batch_t* batch);

/* One receipt per event of the batch, in sequence order: accepted (code ALLOCORE_OK, message
 * "") or refused (the kernel's code and message), with the handles of what it added or named
 * (slot ALLOCORE_NO_HANDLE where none). */
typedef struct allocore_receipt_t {
  uint64_t seq;
  int32_t code; /* allocore_error_code_t */
  uint32_t reserved;
  allocore_handle_t app;
  allocore_handle_t ask;
  allocore_handle_t node;
} allocore_receipt_t;
ALLOCORE_EXPORT size_t allocore_batch_receipt_count(const allocore_batch_t* batch);
/* 0 when i is out of range (and *receipt untouched), 1 otherwise. */
ALLOCORE_EXPORT int allocore_batch_receipt(const allocore_batch_t* batch, size_t i,
                                           allocore_receipt_t* receipt);
ALLOCORE_EXPORT const char* allocore_batch_receipt_message(const allocore_batch_t* batch, size_t i);

/* Blocks until the event `seq` is applied (its batch published), then returns the snapshot
 * taken after its batch (or a later one), or NULL: DEADLINE_EXCEEDED after timeout_millis
 * (< 0: no timeout), INVALID_ARGUMENT for a seq never handed out. */
ALLOCORE_EXPORT allocore_snapshot_t* allocore_service_wait_applied(allocore_service_t* service,
                                                                   uint64_t seq,
                                                                   int64_t timeout_millis,
                                                                   char** errptr);

/* --- snapshots --------------------------------------------------------------------------- */
/* The newest snapshot (immutable; never waits). */
ALLOCORE_EXPORT allocore_snapshot_t* allocore_service_snapshot(const allocore_service_t* service);
ALLOCORE_EXPORT void allocore_snapshot_destroy(allocore_snapshot_t* snapshot);
ALLOCORE_EXPORT uint64_t allocore_snapshot_applied_seq(const allocore_snapshot_t* snapshot);
ALLOCORE_EXPORT int64_t allocore_snapshot_now_millis(const allocore_snapshot_t* snapshot);
ALLOCORE_EXPORT void allocore_snapshot_usage(const allocore_snapshot_t* snapshot,
                                             int64_t* applications, int64_t* asks,
                                             int64_t* live_allocations);
/* The partition's queues as the snapshot saw them (allocore_queues_* accessors of c.h); NULL,
 * NOT_FOUND, for an unknown partition. */
ALLOCORE_EXPORT allocore_queues_t* allocore_snapshot_queues(const allocore_snapshot_t* snapshot,
                                                            const char* partition, char** errptr);
/* The last state of an application ("Running", ...); NULL, NOT_FOUND, when unknown. */
/* The resource type names by type id, as the kernel knew them at the snapshot. */
ALLOCORE_EXPORT size_t allocore_snapshot_resource_type_count(const allocore_snapshot_t* snapshot);
ALLOCORE_EXPORT const char* allocore_snapshot_resource_type_name(
    const allocore_snapshot_t* snapshot, size_t i);
ALLOCORE_EXPORT const char* allocore_snapshot_app_state(const allocore_snapshot_t* snapshot,
                                                        const char* partition, const char* id,
                                                        size_t id_len, char** errptr);

/* --- lookups and recording --------------------------------------------------------------- */
/* Between two batches (they wait for the one being applied). */
ALLOCORE_EXPORT int allocore_service_resource_type_id(allocore_service_t* service, const char* name,
                                                      char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_service_find_app(const allocore_service_t* service,
                                                            const char* partition, const char* id,
                                                            size_t id_len, char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_service_find_ask(const allocore_service_t* service,
                                                            allocore_handle_t app, const char* id,
                                                            size_t id_len, char** errptr);
ALLOCORE_EXPORT allocore_handle_t allocore_service_find_node(const allocore_service_t* service,
                                                             const char* partition, const char* id,
                                                             size_t id_len, char** errptr);
/* With record_path: *errptr set when a write failed (the recording stopped; the service goes
 * on). Stop writes the log's end record and closes it. */
ALLOCORE_EXPORT void allocore_service_record_check(const allocore_service_t* service,
                                                   char** errptr);
ALLOCORE_EXPORT void allocore_service_record_stop(allocore_service_t* service, char** errptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCORE_C_SERVICE_H_ */

/* cbench.h — the benchmarks' workloads in C, against the same liballocore_c the Go package
 * calls, so that one process measures both side by side. */
#ifndef ALLOCORE_GO_CBENCH_H_
#define ALLOCORE_GO_CBENCH_H_

#include <stddef.h>
#include <stdint.h>

#include "allocore/c.h"

/* The churn workload: `nodes` nodes of 16 slots, `apps` applications over 10 leaf queues,
 * `pending` pending asks, `live` live allocations. One step releases the oldest live
 * allocation by its seq, adds a new ask and runs allocore_schedule(max 1), reading the
 * allocation it made with the per-field accessors. */
typedef struct cbench_churn cbench_churn;

/* Ask shapes and priorities of both sides: a deterministic generator. */
typedef struct cbench_rng {
  uint64_t state;
} cbench_rng;
void cbench_next_ask(cbench_rng* rng, int64_t* shape, int32_t* priority);

/* `config`: the queues.yaml both sides use (churn.yaml: ten leaf queues q0..q9). */
cbench_churn* cbench_churn_create(const char* config, size_t config_len, int64_t nodes,
                                  int64_t apps, int64_t pending, int64_t live);
void cbench_churn_destroy(cbench_churn* c);
/* Runs n steps; returns 0, or -1 when a call failed. With time_schedule, *schedule_ns gets the
 * time spent in allocore_schedule alone (two clock reads per step). */
int cbench_churn_run(cbench_churn* c, int64_t n, int time_schedule, int64_t* schedule_ns);

/* Reading a decision list `rounds` times in C: every field by accessor, or in bulk with
 * allocore_decisions_export. Returns a checksum (so that nothing is optimised away). */
int64_t cbench_read_accessors(const allocore_decisions_t* decisions, int64_t rounds);
int64_t cbench_read_export(const allocore_decisions_t* decisions, int64_t rounds);

/* The churn kernel's snapshot (allocore_kernel_snapshot; free with allocore_free). */
char* cbench_churn_snapshot(const cbench_churn* c, size_t* len);

/* The floor of a call: allocore_now_millis n times; returns the sum. */
int64_t cbench_now_loop(const allocore_kernel_t* kernel, int64_t n);

#endif /* ALLOCORE_GO_CBENCH_H_ */

/* allocore/c_scenario.h — scenario files and event logs from C: what `allocore run`, `allocore
 * pack` and `allocore report` do, as calls (share/doc/allocore/docs/scenario-format.md,
 * share/doc/allocore/docs/event-log-format.md, share/doc/allocore/docs/report-format.md).
 *
 * Errors, strings and ownership follow allocore/c.h. Files are named by path; a file that
 * cannot be read or parsed is INVALID_ARGUMENT (or NOT_FOUND), the message naming the file
 * and, where the parser knows them, the line and field.
 */
#ifndef ALLOCORE_C_SCENARIO_H_
#define ALLOCORE_C_SCENARIO_H_

#include <stddef.h>
#include <stdint.h>

#include "allocore/c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct allocore_run_t allocore_run_t;

typedef struct allocore_run_options_t {
  /* NULL or "": the scenario's own profile; otherwise "yunikorn-1.2" or "yunikorn-1.9". */
  const char* semantics;
  /* NULL or "": the scenario's config; otherwise a queues.yaml file that replaces it. */
  const char* config_path;
  /* 0: the scenario's own budget; > 0: the kernel's live allocation budget. */
  int64_t max_live_allocations;
} allocore_run_options_t;

/* Runs a scenario file or an event log to its end, as `allocore run` does: the same decisions,
 * in the same order. Refused steps are kept as errors of the run, not as a failure. NULL when
 * the file cannot be read or the kernel refuses its config. `options` may be NULL. */
ALLOCORE_EXPORT allocore_run_t* allocore_run_file(const char* path,
                                                  const allocore_run_options_t* options,
                                                  char** errptr);
ALLOCORE_EXPORT void allocore_run_destroy(allocore_run_t* run);
/* Every decision of the run, in order; owned by the run (names included). */
ALLOCORE_EXPORT const allocore_decisions_t* allocore_run_decisions(const allocore_run_t* run);
/* The 1-based step that produced decision i (0: the nodes registered up front). */
ALLOCORE_EXPORT int64_t allocore_run_decision_step(const allocore_run_t* run, size_t i);
ALLOCORE_EXPORT int64_t allocore_run_steps(const allocore_run_t* run);
/* Refused steps: their step number and the kernel's message. */
ALLOCORE_EXPORT size_t allocore_run_error_count(const allocore_run_t* run);
ALLOCORE_EXPORT int64_t allocore_run_error_step(const allocore_run_t* run, size_t i);
ALLOCORE_EXPORT const char* allocore_run_error_message(const allocore_run_t* run, size_t i);
/* The refusal's code (allocore_error_code_t), as the kernel call returned it. */
ALLOCORE_EXPORT int allocore_run_error_code(const allocore_run_t* run, size_t i);
/* The kernel in its final state, handed over to the caller (destroy it with
 * allocore_kernel_destroy); NULL when already taken. For queries: explain, list, fork. */
ALLOCORE_EXPORT allocore_kernel_t* allocore_run_take_kernel(allocore_run_t* run);

/* `allocore pack`: writes the scenario at `scenario_path` as an event log at `log_path`
 * (semantics NULL or "": the scenario's own). Nothing is written when reading fails. */
ALLOCORE_EXPORT void allocore_pack_file(const char* scenario_path, const char* log_path,
                                        const char* semantics, char** errptr);

/* `allocore report --format json`: the report of a run of the scenario or log at `path`, as
 * the JSON text docs/report-format.md describes (docs/report.schema.json). The caller frees
 * it with allocore_free; *len (may be NULL) receives its length. `options` may be NULL. */
ALLOCORE_EXPORT char* allocore_report_json(const char* path, const allocore_run_options_t* options,
                                           size_t* len, char** errptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCORE_C_SCENARIO_H_ */

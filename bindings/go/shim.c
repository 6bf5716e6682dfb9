/* shim.c — see shim.h. */
#include "shim.h"

#include <stdlib.h>
#include <string.h>

/* A span of the call's buffer: its characters (followed by a NUL), or NULL when empty. */
#define STR(buf, s) ((buf) + (s).off)
#define OPT(buf, s) ((s).len == 0 ? NULL : (buf) + (s).off)

gocore_frame* gocore_frame_create(size_t max_records, size_t names_capacity) {
  gocore_frame* f = (gocore_frame*)calloc(1, sizeof(gocore_frame));
  if (f == NULL) return NULL;
  f->out = allocore_decisions_create();
  f->records =
      (allocore_decision_record_t*)malloc(max_records * sizeof(allocore_decision_record_t));
  f->names = (char*)malloc(names_capacity);
  if (f->out == NULL || f->records == NULL || f->names == NULL) {
    gocore_frame_destroy(f);
    return NULL;
  }
  f->max_records = max_records;
  f->names_capacity = names_capacity;
  return f;
}

void gocore_frame_destroy(gocore_frame* f) {
  if (f == NULL) return;
  allocore_decisions_destroy(f->out);
  free(f->records);
  free(f->names);
  free(f);
}

int gocore_frame_grow_names(gocore_frame* f, size_t capacity) {
  if (capacity <= f->names_capacity) return 1;
  char* names = (char*)realloc(f->names, capacity);
  if (names == NULL) return 0;
  f->names = names;
  f->names_capacity = capacity;
  return 1;
}

char* gocore_export(gocore_frame* f, const allocore_decisions_t* d, size_t first) {
  char* err = NULL;
  f->total = allocore_decisions_count(d);
  f->names_used = 0;
  f->written = allocore_decisions_export(d, first, f->records, f->max_records, f->names,
                                         f->names_capacity, &f->names_used, &err);
  return err;
}

/* After a kernel call: its error, or the first chunk of its decisions (an export that does not
 * fit is left to the Go side, which grows the names buffer and exports again). */
static char* finish(gocore_frame* f, char* err) {
  if (err != NULL) {
    f->total = 0;
    f->written = 0;
    f->names_used = 0;
    return err;
  }
  char* export_err = gocore_export(f, f->out, 0);
  if (export_err != NULL) {
    allocore_free(export_err);
    f->written = 0;
    f->names_used = 0;
  }
  return NULL;
}

/* --- objects ------------------------------------------------------------------------------ */

static allocore_node_t* make_node(const char* buf, const gocore_node* n, const gocore_res* res) {
  allocore_node_t* node = allocore_node_create_n(STR(buf, n->id), n->id.len);
  if (node == NULL) return NULL;
  if (n->partition.len > 0) allocore_node_set_partition(node, STR(buf, n->partition));
  if (n->set_capacity) {
    allocore_node_clear_capacity(node);
    for (uint32_t i = n->capacity_first; i < n->capacity_first + n->capacity_count; ++i)
      allocore_node_add_capacity_n(node, STR(buf, res[i].type), res[i].type.len, res[i].value);
  }
  if (n->set_occupied) {
    allocore_node_clear_occupied(node);
    for (uint32_t i = n->occupied_first; i < n->occupied_first + n->occupied_count; ++i)
      allocore_node_add_occupied(node, STR(buf, res[i].type), res[i].value);
  }
  if (n->schedulable >= 0) allocore_node_set_schedulable(node, (unsigned char)n->schedulable);
  return node;
}

static allocore_app_t* make_app(const char* buf, const gocore_app* a, const gocore_str* strs,
                                const gocore_res* res) {
  allocore_app_t* app =
      allocore_app_create_n(STR(buf, a->id), a->id.len, STR(buf, a->user), a->user.len);
  if (app == NULL) return NULL;
  if (a->partition.len > 0) allocore_app_set_partition(app, STR(buf, a->partition));
  if (a->queue.len > 0) allocore_app_set_queue_n(app, STR(buf, a->queue), a->queue.len);
  for (uint32_t i = a->groups_first; i < a->groups_first + a->groups_count; ++i)
    allocore_app_add_group(app, STR(buf, strs[i]));
  for (uint32_t i = a->tags_first; i + 1 < a->tags_first + 2 * a->tags_count; i += 2)
    allocore_app_add_tag(app, STR(buf, strs[i]), STR(buf, strs[i + 1]));
  if (a->gang_hard) allocore_app_set_gang_hard(app, 1);
  if (a->placeholder_timeout_millis != 0)
    allocore_app_set_placeholder_timeout(app, a->placeholder_timeout_millis);
  for (uint32_t i = a->placeholder_first; i < a->placeholder_first + a->placeholder_count; ++i)
    allocore_app_add_placeholder_ask(app, STR(buf, res[i].type), res[i].value);
  return app;
}

static allocore_ask_t* make_ask(const char* buf, const gocore_ask* a, const gocore_res* res) {
  allocore_ask_t* ask =
      allocore_ask_create_n(STR(buf, a->app), a->app.len, STR(buf, a->id), a->id.len);
  if (ask == NULL) return NULL;
  if (a->partition.len > 0) allocore_ask_set_partition(ask, STR(buf, a->partition));
  for (uint32_t i = a->resources_first; i < a->resources_first + a->resources_count; ++i)
    allocore_ask_add_resource_n(ask, STR(buf, res[i].type), res[i].type.len, res[i].value);
  if (a->priority != 0) allocore_ask_set_priority(ask, a->priority);
  if (a->count != 0) allocore_ask_set_count(ask, a->count);
  if (a->task_group.len > 0) allocore_ask_set_task_group(ask, STR(buf, a->task_group));
  if (a->placeholder) allocore_ask_set_placeholder(ask, 1);
  if (a->required_node.len > 0) allocore_ask_set_required_node(ask, STR(buf, a->required_node));
  if (a->no_preemption) allocore_ask_set_allow_preemption(ask, 0);
  if (a->originator) allocore_ask_set_originator(ask, 1);
  if (a->has_creation_time) allocore_ask_set_creation_time(ask, a->creation_time_millis);
  return ask;
}

/* The object a call adds (a node, an application or an ask; none for the other calls). */
typedef struct call_object {
  allocore_node_t* node;
  allocore_app_t* app;
  allocore_ask_t* ask;
} call_object;

/* Makes the object of a call of `op`; 0 when out of memory. */
static int make_object(int op, const char* buf, const gocore_call* c, const gocore_str* strs,
                       const gocore_res* res, call_object* o) {
  memset(o, 0, sizeof *o);
  switch (op) {
    case GOCORE_ADD_NODE:
    case GOCORE_UPDATE_NODE:
      o->node = make_node(buf, &c->n, res);
      return o->node != NULL;
    case GOCORE_ADD_APP:
      o->app = make_app(buf, &c->a, strs, res);
      return o->app != NULL;
    case GOCORE_ADD_ASK:
    case GOCORE_RECOVER:
      o->ask = make_ask(buf, &c->k, res);
      return o->ask != NULL;
    default:
      return 1;
  }
}

static void destroy_object(call_object* o) {
  allocore_node_destroy(o->node);
  allocore_app_destroy(o->app);
  allocore_ask_destroy(o->ask);
}

/* Messages in the C ABI's own format, so that allocore_error_code reads them. */
static char* message(const char* text) {
  size_t n = strlen(text) + 1;
  char* err = (char*)malloc(n);
  if (err != NULL) memcpy(err, text, n);
  return err;
}
static char* out_of_memory(void) {
  return message("RESOURCE_EXHAUSTED: allocore-go: out of memory");
}
static char* invalid_op(void) { return message("INTERNAL: allocore-go: unknown call"); }

/* --- kernel calls --------------------------------------------------------------------------- */

gocore_kernel_result gocore_kernel_create(const char* yaml, size_t yaml_len, const char* buf,
                                          gocore_str source, gocore_str semantics, int64_t max_apps,
                                          int64_t max_asks, int64_t max_allocs) {
  gocore_kernel_result r = {NULL, NULL};
  allocore_options_t options = {max_apps, max_asks, max_allocs, OPT(buf, semantics)};
  r.kernel = allocore_kernel_create(yaml, yaml_len, OPT(buf, source), &options, &r.err);
  return r;
}

/* The removals by handle, in the order of their GOCORE_* ops. */
static void (*const kRemoveByHandle[])(allocore_kernel_t*, allocore_handle_t, allocore_decisions_t*,
                                       char**) = {
    allocore_remove_app_by_handle, allocore_remove_ask_by_handle, allocore_remove_node_by_handle};

char* gocore_kernel_call(int op, uintptr_t kernel, uintptr_t frame, const char* buf,
                         const gocore_call* c, const gocore_str* strs, const gocore_res* res,
                         const char* text, size_t text_len) {
  allocore_kernel_t* k = (allocore_kernel_t*)kernel;
  gocore_frame* f = (gocore_frame*)frame;
  char* err = NULL;
  allocore_decisions_t* out = f->out;
  allocore_decisions_clear(out);
  f->ret = 0;
  call_object o;
  if (!make_object(op, buf, c, strs, res, &o)) return finish(f, out_of_memory());
  switch (op) {
    case GOCORE_ADD_NODE:
    case GOCORE_UPDATE_NODE:
      (op == GOCORE_ADD_NODE ? allocore_add_node : allocore_update_node)(k, o.node, out, &err);
      break;
    case GOCORE_REMOVE_NODE:
    case GOCORE_REMOVE_APP:
      (op == GOCORE_REMOVE_NODE ? allocore_remove_node_n : allocore_remove_app_n)(
          k, OPT(buf, c->partition), STR(buf, c->id), c->id.len, out, &err);
      break;
    case GOCORE_ADD_APP:
      allocore_add_app(k, o.app, out, &err);
      break;
    case GOCORE_ADD_ASK:
      allocore_add_ask(k, o.ask, out, &err);
      break;
    case GOCORE_RECOVER:
      allocore_recover_allocation(k, o.ask, STR(buf, c->node), out, &err);
      break;
    case GOCORE_REMOVE_ASK:
      allocore_remove_ask_n(k, OPT(buf, c->partition), STR(buf, c->app), c->app.len,
                            STR(buf, c->ask), c->ask.len, out, &err);
      break;
    case GOCORE_RELEASE:
      allocore_release_allocation_n(k, OPT(buf, c->partition), STR(buf, c->app), c->app.len,
                                    STR(buf, c->ask), c->ask.len, OPT(buf, c->node), c->node.len,
                                    c->seq, out, &err);
      break;
    case GOCORE_ADVANCE:
      allocore_advance(k, c->number, out, &err);
      break;
    case GOCORE_SCHEDULE:
      f->ret = allocore_schedule(k, c->number, OPT(buf, c->partition), out, &err);
      break;
    case GOCORE_UPDATE_CONFIG:
      allocore_update_config(k, text, text_len, OPT(buf, c->source), out, &err);
      break;
    case GOCORE_REMOVE_APP_BY_HANDLE:
    case GOCORE_REMOVE_ASK_BY_HANDLE:
    case GOCORE_REMOVE_NODE_BY_HANDLE:
      kRemoveByHandle[op - GOCORE_REMOVE_APP_BY_HANDLE](k, c->h1, out, &err);
      break;
    case GOCORE_RELEASE_BY_HANDLE:
      if (c->seq > 0) {
        allocore_release_by_handle_seq(k, c->h1, c->h2, c->seq, out, &err);
      } else {
        allocore_release_by_handle(k, c->h1, c->h2, out, &err);
      }
      break;
    default:
      err = invalid_op();
      break;
  }
  destroy_object(&o);
  return finish(f, err);
}

gocore_find_result gocore_find(int kind, uintptr_t kernel, const char* buf, const gocore_call* c) {
  const allocore_kernel_t* k = (const allocore_kernel_t*)kernel;
  gocore_find_result r;
  r.err = NULL;
  switch (kind) {
    case 0:
      r.handle = allocore_find_app_n(k, OPT(buf, c->partition), STR(buf, c->id), c->id.len, &r.err);
      break;
    case 1:
      r.handle =
          allocore_find_node_n(k, OPT(buf, c->partition), STR(buf, c->id), c->id.len, &r.err);
      break;
    default:
      r.handle = allocore_find_ask_n(k, c->h1, STR(buf, c->id), c->id.len, &r.err);
      break;
  }
  return r;
}

/* --- service ------------------------------------------------------------------------------ */

gocore_service_result gocore_service_create(const char* yaml, size_t yaml_len, const char* buf,
                                            gocore_str source, gocore_str semantics,
                                            gocore_str record_path,
                                            allocore_service_options_t numbers) {
  gocore_service_result r = {NULL, NULL};
  numbers.semantics = OPT(buf, semantics);
  numbers.record_path = OPT(buf, record_path);
  r.service = allocore_service_create(yaml, yaml_len, OPT(buf, source), &numbers, &r.err);
  return r;
}

gocore_submit_result gocore_service_call(int op, uintptr_t service, const char* buf,
                                         const gocore_call* c, const gocore_str* strs,
                                         const gocore_res* res, const char* text, size_t text_len) {
  allocore_service_t* s = (allocore_service_t*)service;
  gocore_submit_result r = {0, NULL};
  const char* p = OPT(buf, c->partition);
  call_object o;
  if (!make_object(op, buf, c, strs, res, &o)) {
    r.err = out_of_memory();
    return r;
  }
  switch (op) {
    case GOCORE_ADD_NODE:
    case GOCORE_UPDATE_NODE:
      r.seq = (op == GOCORE_ADD_NODE ? allocore_service_add_node : allocore_service_update_node)(
          s, o.node, &r.err);
      break;
    case GOCORE_REMOVE_NODE:
    case GOCORE_REMOVE_APP:
      r.seq =
          (op == GOCORE_REMOVE_NODE ? allocore_service_remove_node : allocore_service_remove_app)(
              s, p, STR(buf, c->id), c->id.len, &r.err);
      break;
    case GOCORE_ADD_APP:
      r.seq = allocore_service_add_app(s, o.app, &r.err);
      break;
    case GOCORE_ADD_ASK:
      r.seq = allocore_service_add_ask(s, o.ask, &r.err);
      break;
    case GOCORE_REMOVE_ASK:
      r.seq = allocore_service_remove_ask(s, p, STR(buf, c->app), c->app.len, STR(buf, c->ask),
                                          c->ask.len, &r.err);
      break;
    case GOCORE_RELEASE:
      r.seq = allocore_service_release(s, p, STR(buf, c->app), c->app.len, STR(buf, c->ask),
                                       c->ask.len, OPT(buf, c->node), c->node.len, c->seq, &r.err);
      break;
    case GOCORE_ADVANCE:
      r.seq = allocore_service_advance(s, c->number, &r.err);
      break;
    case GOCORE_UPDATE_CONFIG:
      r.seq = allocore_service_update_config(s, text, text_len, OPT(buf, c->source), &r.err);
      break;
    default:
      r.err = invalid_op();
      break;
  }
  destroy_object(&o);
  return r;
}

gocore_find_result gocore_service_find(int kind, const allocore_service_t* s, const char* buf,
                                       const gocore_call* c) {
  gocore_find_result r;
  r.err = NULL;
  if (kind == 0) {
    r.handle =
        allocore_service_find_app(s, OPT(buf, c->partition), STR(buf, c->id), c->id.len, &r.err);
  } else {
    r.handle =
        allocore_service_find_node(s, OPT(buf, c->partition), STR(buf, c->id), c->id.len, &r.err);
  }
  return r;
}

gocore_wait_result gocore_service_wait(int kind, allocore_service_t* s, uint64_t seq,
                                       int64_t timeout_millis) {
  gocore_wait_result r = {NULL, NULL};
  if (kind == GOCORE_WAIT_BATCH) {
    allocore_batch_t* b = allocore_service_next_batch(s, timeout_millis, &r.err);
    if (r.err != NULL) {
      allocore_batch_destroy(b);
    } else {
      r.object = b;
    }
  } else {
    allocore_snapshot_t* snap = allocore_service_wait_applied(s, seq, timeout_millis, &r.err);
    if (r.err != NULL) {
      allocore_snapshot_destroy(snap);
    } else {
      r.object = snap;
    }
  }
  if (r.err != NULL && allocore_error_code(r.err) == ALLOCORE_ERR_DEADLINE_EXCEEDED) {
    allocore_free(r.err);
    r.err = NULL;
  }
  return r;
}

void gocore_batch_read(const allocore_batch_t* b, gocore_frame* f, gocore_batch_info* info) {
  info->first_seq = allocore_batch_first_seq(b);
  info->last_seq = allocore_batch_last_seq(b);
  info->allocations = allocore_batch_allocations(b);
  info->receipts = allocore_batch_receipt_count(b);
  f->ret = 0;
  char* err = gocore_export(f, allocore_batch_decisions(b), 0);
  if (err != NULL) { /* names that do not fit: the Go side grows the buffer */
    allocore_free(err);
    f->written = 0;
    f->names_used = 0;
  }
}

void gocore_batch_receipts(const allocore_batch_t* b, allocore_receipt_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!allocore_batch_receipt(b, i, &out[i])) break;
  }
}

void gocore_snapshot_read(const allocore_snapshot_t* s, gocore_snapshot_info* info) {
  info->applied_seq = allocore_snapshot_applied_seq(s);
  info->now_millis = allocore_snapshot_now_millis(s);
  allocore_snapshot_usage(s, &info->applications, &info->asks, &info->live_allocations);
}

/* allocore/c.h from C: compiled as C11, every kernel call and query through the C ABI, and
 * the error convention (a refused call sets errptr and changes nothing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocore/c.h"
#include "support/two_leaves_yaml.h"

static int failures = 0;

#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

#define EXPECT_OK(err)                                                             \
  do {                                                                             \
    if ((err) != NULL) {                                                           \
      fprintf(stderr, "%s:%d: unexpected error: %s\n", __FILE__, __LINE__, (err)); \
      ++failures;                                                                  \
      allocore_free(err);                                                          \
      (err) = NULL;                                                                \
    }                                                                              \
  } while (0)

/* The call before must have been refused; its message is freed. */
#define EXPECT_ERROR(err)  \
  do {                     \
    EXPECT((err) != NULL); \
    allocore_free(err);    \
    (err) = NULL;          \
  } while (0)

static const char kQueues[] = ALLOCORE_TEST_TWO_LEAVES_YAML;

/* The index of the first decision of `type` from `start` on, or -1. */
static long find_decision(const allocore_decisions_t* out, int type, size_t start) {
  size_t i;
  for (i = start; i < allocore_decisions_count(out); ++i) {
    if (allocore_decision_type(out, i) == type) return (long)i;
  }
  return -1;
}

/* Adds application `id` of `user` in `queue`; its decisions (a rejection) go to `out`. */
static void add_app(allocore_kernel_t* kernel, const char* id, const char* user, const char* queue,
                    allocore_decisions_t* out) {
  char* err = NULL;
  allocore_app_t* app = allocore_app_create(id, user);
  allocore_app_set_queue(app, queue);
  allocore_add_app(kernel, app, out, &err);
  EXPECT_OK(err);
  allocore_app_destroy(app);
}

/* Adds ask `id` of `app`: `count` repeats of `memory`. */
static void add_memory_ask(allocore_kernel_t* kernel, const char* app, const char* id,
                           int64_t memory, int64_t count) {
  char* err = NULL;
  allocore_ask_t* ask = allocore_ask_create(app, id);
  allocore_ask_add_resource(ask, "memory", memory);
  allocore_ask_set_count(ask, count);
  allocore_add_ask(kernel, ask, NULL, &err);
  EXPECT_OK(err);
  allocore_ask_destroy(ask);
}

/* Recovers allocation `id` of `app` (`memory`), found running on node-1. */
static void recover_on_node_1(allocore_kernel_t* kernel, const char* app, const char* id,
                              int64_t memory, allocore_decisions_t* out) {
  char* err = NULL;
  allocore_ask_t* ask = allocore_ask_create(app, id);
  allocore_ask_add_resource(ask, "memory", memory);
  allocore_recover_allocation(kernel, ask, "node-1", out, &err);
  EXPECT_OK(err);
  allocore_ask_destroy(ask);
}

/* A kernel of `yaml` with node-1 (memory 100) and app-1 (alice) in root.a; NULL on failure. */
static allocore_kernel_t* kernel_with_app(const char* yaml, const char* name,
                                          const allocore_options_t* options) {
  char* err = NULL;
  allocore_node_t* node;
  allocore_kernel_t* kernel = allocore_kernel_create(yaml, strlen(yaml), name, options, &err);
  EXPECT_OK(err);
  if (kernel == NULL) return NULL;
  node = allocore_node_create("node-1");
  allocore_node_add_capacity(node, "memory", 100);
  allocore_add_node(kernel, node, NULL, &err);
  EXPECT_OK(err);
  allocore_node_destroy(node);
  add_app(kernel, "app-1", "alice", "root.a", NULL);
  return kernel;
}

int main(void) {
  char* err = NULL;
  size_t len = 0;
  allocore_options_t options = {0, 0, 0, NULL};
  allocore_options_t v19 = {0, 0, 0, "yunikorn-1.9"};
  allocore_kernel_t* kernel;
  allocore_decisions_t* out;
  allocore_node_t* node;
  allocore_app_t* app;
  allocore_ask_t* ask;
  allocore_queues_t* queues;
  allocore_app_info_t* info;
  allocore_explanations_t* explanations;
  allocore_probe_t* probe;
  long i;
  size_t q;
  int64_t made;
  int found_a = 0;

  EXPECT(strcmp(allocore_version(), ALLOCORE_VERSION_STRING) == 0);

  /* A broken configuration names the file and line. */
  kernel = allocore_kernel_create("partitions: [", 13, "broken.yaml", NULL, &err);
  EXPECT(kernel == NULL);
  EXPECT(err != NULL && strstr(err, "broken.yaml") != NULL);
  allocore_free(err);
  err = NULL;

  /* The semantics profile: a queue name with ':' is valid under yunikorn-1.9 only, and an
   * unknown profile is refused with the known ones named. */
  {
    static const char kWide[] =
        "partitions:\n  - name: default\n    queues:\n      - name: root\n"
        "        queues:\n          - name: team:a\n";
    kernel = allocore_kernel_create(kWide, strlen(kWide), "wide.yaml", NULL, &err);
    EXPECT(kernel == NULL && err != NULL && strstr(err, "team:a") != NULL);
    allocore_free(err);
    err = NULL;
    kernel = allocore_kernel_create(kWide, strlen(kWide), "wide.yaml", &v19, &err);
    EXPECT_OK(err);
    EXPECT(kernel != NULL);
    allocore_kernel_destroy(kernel);
    v19.semantics = "yunikorn-3";
    kernel = allocore_kernel_create(kWide, strlen(kWide), "wide.yaml", &v19, &err);
    EXPECT(kernel == NULL && err != NULL && strstr(err, "yunikorn-1.9") != NULL);
    allocore_free(err);
    err = NULL;
  }

  options.max_applications = 10;
  kernel = allocore_kernel_create(kQueues, strlen(kQueues), "queues.yaml", &options, &err);
  EXPECT_OK(err);
  if (kernel == NULL) return 1;
  EXPECT(allocore_partition_count(kernel) == 1);
  EXPECT(strcmp(allocore_partition_name(kernel, 0), "default") == 0);

  out = allocore_decisions_create();
  node = allocore_node_create("node-1");
  allocore_node_add_capacity(node, "memory", 100);
  allocore_node_add_capacity(node, "vcore", 10);
  allocore_add_node(kernel, node, out, &err);
  EXPECT_OK(err);
  /* The same node again is refused. */
  allocore_add_node(kernel, node, out, &err);
  EXPECT_ERROR(err);
  allocore_node_destroy(node);
  EXPECT(allocore_resource_type_count(kernel) == 2);

  app = allocore_app_create("app-1", "alice");
  allocore_app_set_queue(app, "root.a");
  allocore_app_add_group(app, "dev");
  allocore_app_add_tag(app, "namespace", "team");
  allocore_add_app(kernel, app, out, &err);
  EXPECT_OK(err);
  allocore_app_destroy(app);

  /* An application for a queue that does not exist is rejected: a decision, not an error. */
  add_app(kernel, "app-2", "bob", "root.missing", out);
  i = find_decision(out, ALLOCORE_APP_REJECTED, 0);
  EXPECT(i >= 0);
  if (i >= 0) {
    EXPECT(strcmp(allocore_decision_app(out, (size_t)i, &len), "app-2") == 0 && len == 5);
    EXPECT(strlen(allocore_decision_reason(out, (size_t)i, &len)) > 0);
  }

  ask = allocore_ask_create("app-1", "ask-1");
  allocore_ask_add_resource(ask, "memory", 30);
  allocore_ask_add_resource(ask, "vcore", 1);
  allocore_ask_set_priority(ask, 5);
  allocore_ask_set_count(ask, 4);
  allocore_add_ask(kernel, ask, out, &err);
  EXPECT_OK(err);
  allocore_ask_destroy(ask);

  /* An ask of an unknown application: refused, nothing changes. */
  allocore_decisions_clear(out);
  ask = allocore_ask_create("no-such-app", "ask-x");
  allocore_add_ask(kernel, ask, out, &err);
  EXPECT_ERROR(err);
  allocore_ask_destroy(ask);
  EXPECT(allocore_decisions_count(out) == 0);

  allocore_advance(kernel, 1000, out, &err);
  EXPECT_OK(err);
  EXPECT(allocore_now_millis(kernel) == 1000);

  made = allocore_schedule(kernel, 0, NULL, out, &err);
  EXPECT_OK(err);
  EXPECT(made == 3); /* 3 x 30 memory fit in 100 */
  i = find_decision(out, ALLOCORE_ALLOCATION, 0);
  EXPECT(i >= 0);
  if (i >= 0) {
    EXPECT(strcmp(allocore_decision_node(out, (size_t)i, &len), "node-1") == 0);
    EXPECT(strcmp(allocore_decision_queue(out, (size_t)i, &len), "root.a") == 0);
    EXPECT(strcmp(allocore_decision_ask(out, (size_t)i, &len), "ask-1") == 0);
    EXPECT(allocore_decision_priority(out, (size_t)i) == 5);
    EXPECT(allocore_decision_seq(out, (size_t)i) == 1);
    EXPECT(allocore_decision_placeholder(out, (size_t)i) == 0);
  }
  i = find_decision(out, ALLOCORE_APP_STATE, 0);
  EXPECT(i >= 0);
  if (i >= 0) EXPECT(strcmp(allocore_decision_to_state(out, (size_t)i), "") != 0);
  /* Out of range reads as empty. */
  EXPECT(allocore_decision_type(out, 1000) == -1);
  EXPECT(strcmp(allocore_decision_app(out, 1000, &len), "") == 0 && len == 0);
  /* An unknown partition: -1 and a message. */
  EXPECT(allocore_schedule(kernel, 0, "no-such-partition", out, &err) == -1);
  EXPECT(err != NULL && strstr(err, "no-such-partition") != NULL);
  allocore_free(err);
  err = NULL;

  queues = allocore_list_queues(kernel, NULL, &err);
  EXPECT_OK(err);
  EXPECT(queues != NULL);
  if (queues != NULL) {
    EXPECT(allocore_queues_count(queues) == 3);
    for (q = 0; q < allocore_queues_count(queues); ++q) {
      unsigned char present = 0;
      if (strcmp(allocore_queue_path(queues, q), "root.a") != 0) continue;
      found_a = 1;
      EXPECT(allocore_queue_is_leaf(queues, q) == 1);
      EXPECT(allocore_queue_allocated(queues, q, "memory", &present) == 90 && present == 1);
      EXPECT(allocore_queue_pending(queues, q, "memory", &present) == 30);
      EXPECT(allocore_queue_allocated(queues, q, "gpu", &present) == 0 && present == 0);
      EXPECT(strcmp(allocore_queue_state(queues, q), "Active") == 0);
    }
    EXPECT(found_a);
    allocore_queues_destroy(queues);
  }

  info = allocore_get_app(kernel, NULL, "app-1", &err);
  EXPECT_OK(err);
  if (info != NULL) {
    EXPECT(strcmp(allocore_app_info_queue(info), "root.a") == 0);
    EXPECT(allocore_app_info_allocated(info, "vcore", NULL) == 3);
    EXPECT(strlen(allocore_app_info_state(info)) > 0);
    allocore_app_info_destroy(info);
  }
  EXPECT(allocore_get_app(kernel, NULL, "nobody", &err) == NULL);
  EXPECT_ERROR(err);

  explanations = allocore_explain_pending(kernel);
  EXPECT(allocore_explanations_count(explanations) == 1);
  EXPECT(strcmp(allocore_explanation_ask(explanations, 0), "ask-1") == 0);
  EXPECT(allocore_explanation_pending_count(explanations, 0) == 1);
  EXPECT(strlen(allocore_explanation_reason(explanations, 0)) > 0);
  allocore_explanations_destroy(explanations);

  /* The pending repeat's twin, asked about without submitting it: the same reason. */
  ask = allocore_ask_create("app-1", NULL);
  allocore_ask_add_resource(ask, "memory", 30);
  allocore_ask_add_resource(ask, "vcore", 1);
  probe = allocore_probe(kernel, ask, &err);
  EXPECT_OK(err);
  if (probe != NULL) {
    EXPECT(strcmp(allocore_probe_queue(probe), "root.a") == 0);
    EXPECT(allocore_probe_node(probe) == NULL);
    explanations = allocore_explain_pending(kernel);
    EXPECT(allocore_probe_reason(probe) != NULL &&
           strcmp(allocore_probe_reason(probe), allocore_explanation_reason(explanations, 0)) == 0);
    EXPECT(allocore_probe_preemption_victims(probe) == 0);
    allocore_explanations_destroy(explanations);
    allocore_probe_destroy(probe);
  }
  allocore_ask_destroy(ask);
  ask = allocore_ask_create("nobody", NULL);
  allocore_ask_add_resource(ask, "vcore", 1);
  EXPECT(allocore_probe(kernel, ask, &err) == NULL);
  EXPECT(err != NULL && strstr(err, "nobody") != NULL);
  allocore_free(err);
  err = NULL;
  allocore_ask_destroy(ask);

  /* Release one allocation: the last repeat then fits. */
  allocore_decisions_clear(out);
  allocore_release_allocation(kernel, NULL, "app-1", "ask-1", NULL, out, &err);
  EXPECT_OK(err);
  i = find_decision(out, ALLOCORE_RELEASE, 0);
  EXPECT(i >= 0);
  if (i >= 0) {
    int64_t released_seq = allocore_decision_seq(out, (size_t)i);
    EXPECT(strcmp(allocore_decision_release_reason(out, (size_t)i), "released") == 0);
    /* The release names the allocation it released; that one is gone, so releasing it by its
     * seq again is refused, and so is a seq of 0. */
    EXPECT(released_seq > 0);
    allocore_release_allocation_seq(kernel, NULL, "app-1", "ask-1", NULL, released_seq, out, &err);
    EXPECT(err != NULL && strstr(err, "no live allocation with seq") != NULL);
    /* Every message is "CODE: function: text", and the code is there to branch on. */
    EXPECT(err != NULL && strncmp(err, "NOT_FOUND: allocore_release_allocation_seq: ", 44) == 0);
    EXPECT(allocore_error_code(err) == ALLOCORE_ERR_NOT_FOUND);
    allocore_free(err);
    err = NULL;
    allocore_release_allocation_seq(kernel, NULL, "app-1", "ask-1", NULL, 0, out, &err);
    EXPECT(err != NULL &&
           strncmp(err, "INVALID_ARGUMENT: allocore_release_allocation_seq: ", 51) == 0);
    EXPECT(allocore_error_code(err) == ALLOCORE_ERR_INVALID_ARGUMENT);
    allocore_free(err);
    err = NULL;
  }
  ask = allocore_ask_create("app-1", NULL);
  allocore_ask_add_resource(ask, "memory", 30);
  allocore_ask_add_resource(ask, "vcore", 1);
  probe = allocore_probe(kernel, ask, &err);
  EXPECT_OK(err);
  if (probe != NULL) {
    EXPECT(allocore_probe_node(probe) != NULL && strcmp(allocore_probe_node(probe), "node-1") == 0);
    EXPECT(allocore_probe_reason(probe) == NULL);
    allocore_probe_destroy(probe);
  }
  allocore_ask_destroy(ask);
  EXPECT(allocore_schedule(kernel, 0, NULL, out, &err) == 1);
  EXPECT_OK(err);

  node = allocore_node_create("node-1");
  allocore_node_set_schedulable(node, 0);
  allocore_update_node(kernel, node, out, &err);
  EXPECT_OK(err);
  allocore_node_destroy(node);

  {
    int64_t apps = 0, asks = 0, live = 0;
    allocore_usage(kernel, &apps, &asks, &live);
    EXPECT(live == 3);
    EXPECT(asks == 1);
  }
  /* One queue, by path and by handle. */
  {
    allocore_handle_t queue_h = allocore_find_queue(kernel, NULL, "root.a", &err);
    EXPECT_OK(err);
    queues = allocore_get_queue_by_handle(kernel, queue_h, &err);
    EXPECT_OK(err);
    if (queues != NULL) {
      EXPECT(allocore_queues_count(queues) == 1);
      EXPECT(strcmp(allocore_queue_path(queues, 0), "root.a") == 0);
      allocore_queues_destroy(queues);
    }
    queues = allocore_get_queue(kernel, NULL, "root.a", &err);
    EXPECT_OK(err);
    if (queues != NULL) {
      EXPECT(allocore_queue_allocated(queues, 0, "memory", NULL) > 0);
      allocore_queues_destroy(queues);
    }
    EXPECT(allocore_get_queue(kernel, NULL, "root.nowhere", &err) == NULL);
    EXPECT_ERROR(err);
  }

  /* By handle: found once, then no names; a handle whose ask is gone is stale. */
  {
    int64_t quantities[8] = {0};
    allocore_handle_t app_h = allocore_find_app(kernel, NULL, "app-1", &err);
    EXPECT_OK(err);
    allocore_handle_t node_h = allocore_find_node(kernel, NULL, "node-1", &err);
    EXPECT_OK(err);
    allocore_handle_t ask_h = allocore_find_ask(kernel, app_h, "ask-1", &err);
    EXPECT_OK(err);
    int memory = allocore_resource_type_id(kernel, "memory", &err);
    EXPECT_OK(err);
    EXPECT(memory >= 0 && memory < 8);
    if (memory >= 0 && memory < 8) quantities[memory] = 5;
    allocore_handle_t extra = allocore_add_ask_by_handle(kernel, app_h, "extra", quantities,
                                                         1u << memory, 0, 2, out, &err);
    EXPECT_OK(err);
    EXPECT(extra.slot != ALLOCORE_NO_HANDLE);
    allocore_handle_t found = allocore_find_ask(kernel, app_h, "extra", &err);
    EXPECT_OK(err);
    EXPECT(found.slot == extra.slot && found.generation == extra.generation);
    allocore_remove_ask_by_handle(kernel, extra, out, &err);
    EXPECT_OK(err);
    allocore_remove_ask_by_handle(kernel, extra, out, &err);
    EXPECT(err != NULL && strstr(err, "stale") != NULL);
    allocore_free(err);
    err = NULL;
    allocore_decisions_clear(out);
    allocore_release_by_handle(kernel, ask_h, node_h, out, &err);
    EXPECT_OK(err);
    i = find_decision(out, ALLOCORE_RELEASE, 0);
    EXPECT(i >= 0);
    if (i >= 0) {
      allocore_handle_t released = allocore_decision_ask_handle(out, (size_t)i);
      allocore_handle_t on = allocore_decision_node_handle(out, (size_t)i);
      EXPECT(released.slot == ask_h.slot && released.generation == ask_h.generation);
      EXPECT(on.slot == node_h.slot && on.generation == node_h.generation);
      EXPECT(allocore_decision_app_handle(out, (size_t)i).slot == app_h.slot);
    }
    EXPECT(allocore_decision_ask_handle(out, 1000).slot == ALLOCORE_NO_HANDLE);
    allocore_add_ask_by_handle(kernel, app_h, "zero", quantities, 0, 0, 1, out, &err);
    EXPECT(err != NULL && strstr(err, "zero") != NULL);
    allocore_free(err);
    err = NULL;
    /* A type id of 8 or more, and a mask without quantities: refused, nothing added. */
    allocore_add_ask_by_handle(kernel, app_h, "wide", quantities, 1u << 8, 0, 1, out, &err);
    EXPECT(err != NULL && strstr(err, "type id") != NULL);
    allocore_free(err);
    err = NULL;
    allocore_add_ask_by_handle(kernel, app_h, "bare", NULL, 1u, 0, 1, out, &err);
    EXPECT(err != NULL && strstr(err, "without quantities") != NULL);
    allocore_free(err);
    err = NULL;
    EXPECT(allocore_find_ask(kernel, app_h, "wide", &err).slot == ALLOCORE_NO_HANDLE);
    allocore_free(err);
    err = NULL;
    EXPECT(allocore_find_app(kernel, NULL, "nobody", &err).slot == ALLOCORE_NO_HANDLE);
    EXPECT_ERROR(err);
  }

  allocore_remove_ask(kernel, NULL, "app-1", "ask-1", out, &err);
  EXPECT_OK(err);
  allocore_remove_app(kernel, NULL, "app-1", out, &err);
  EXPECT_OK(err);
  allocore_remove_node(kernel, NULL, "node-1", out, &err);
  EXPECT_OK(err);
  allocore_update_config(kernel, kQueues, strlen(kQueues), "queues.yaml", out, &err);
  EXPECT_OK(err);
  allocore_decisions_clear(out);
  EXPECT(allocore_release_unused_names(kernel) > 0);
  EXPECT(allocore_name_count(kernel) > 0);
  allocore_check_consistency(kernel, &err);
  EXPECT_OK(err);

  /* Decisions may be dropped by passing NULL. */
  allocore_advance(kernel, 1, NULL, &err);
  EXPECT_OK(err);

  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);

  /* A full live allocation budget blocks scheduling while asks are pending. */
  options.max_applications = 0;
  options.max_live_allocations = 1;
  kernel = kernel_with_app(kQueues, "queues.yaml", &options);
  if (kernel == NULL) return 1;
  add_memory_ask(kernel, "app-1", "ask-1", 10, 2);
  EXPECT(allocore_allocation_budget_blocks(kernel) == 0);
  EXPECT(allocore_schedule(kernel, 0, NULL, NULL, &err) == 1);
  EXPECT_OK(err);
  EXPECT(allocore_allocation_budget_blocks(kernel) == 1);
  allocore_kernel_destroy(kernel);

  /* A manager's lifecycle under yunikorn-1.9: a pod found running is recovered (no seq), then
   * resized; another scheduler's pod takes room on the node; refusals change nothing. */
  v19.semantics = "yunikorn-1.9";
  kernel = kernel_with_app(kQueues, "queues.yaml", &v19);
  if (kernel == NULL) return 1;
  out = allocore_decisions_create();
  recover_on_node_1(kernel, "app-1", "running-1", 40, out);
  {
    long recovered = find_decision(out, ALLOCORE_RECOVERED, 0);
    EXPECT(recovered >= 0);
    if (recovered >= 0) {
      EXPECT(allocore_decision_seq(out, (size_t)recovered) == 0);
      EXPECT(strcmp(allocore_decision_node(out, (size_t)recovered, NULL), "node-1") == 0);
    }
  }
  {
    const char* types[] = {"memory"};
    int64_t bigger[] = {60};
    int64_t foreign[] = {30};
    int64_t negative[] = {-1};
    allocore_update_allocation(kernel, NULL, "app-1", "running-1", NULL, types, bigger, 1, out,
                               &err);
    EXPECT_OK(err);
    allocore_add_foreign(kernel, NULL, "other-pod", "node-1", types, foreign, 1,
                         ALLOCORE_FOREIGN_STATIC, out, &err);
    EXPECT_OK(err);
    allocore_update_foreign(kernel, NULL, "other-pod", NULL, types, negative, 1, out, &err);
    EXPECT(err != NULL && strstr(err, "negative") != NULL);
    allocore_free(err);
    err = NULL;
    allocore_update_ask(kernel, NULL, "app-1", "running-1", NULL, NULL, 1, out, &err);
    EXPECT(err != NULL && strstr(err, "must not be NULL") != NULL);
    allocore_free(err);
    err = NULL;
    allocore_add_foreign(kernel, NULL, "x", "node-1", types, foreign, 1, 7, out, &err);
    EXPECT(err != NULL && strstr(err, "kind") != NULL);
    allocore_free(err);
    err = NULL;
  }
  queues = allocore_get_queue(kernel, NULL, "root.a", &err);
  EXPECT_OK(err);
  if (queues != NULL) {
    EXPECT(allocore_queue_allocated(queues, 0, "memory", NULL) == 60); /* foreign not counted */
    allocore_queues_destroy(queues);
  }
  /* 60 + 30 of 100 are taken: an ask of 20 has no node. */
  ask = allocore_ask_create("app-1", NULL);
  allocore_ask_add_resource(ask, "memory", 20);
  {
    allocore_probe_t* answer = allocore_probe(kernel, ask, &err);
    EXPECT_OK(err);
    if (answer != NULL) {
      EXPECT(allocore_probe_node(answer) == NULL);
      allocore_probe_destroy(answer);
    }
  }
  allocore_remove_foreign(kernel, NULL, "other-pod", out, &err);
  EXPECT_OK(err);
  {
    allocore_probe_t* answer = allocore_probe(kernel, ask, &err);
    EXPECT_OK(err);
    if (answer != NULL) {
      EXPECT(allocore_probe_node(answer) != NULL);
      allocore_probe_destroy(answer);
    }
  }
  allocore_ask_destroy(ask);
  /* Inventory: the node and the recovered pod, as the kernel holds them. */
  {
    allocore_nodes_t* nodes = allocore_list_nodes(kernel, NULL, &err);
    allocore_allocations_t* live;
    EXPECT_OK(err);
    EXPECT(allocore_nodes_count(nodes) == 1);
    EXPECT(strcmp(allocore_nodes_id(nodes, 0), "node-1") == 0);
    EXPECT(allocore_nodes_allocated(nodes, 0, "memory", NULL) == 60);
    EXPECT(allocore_nodes_available(nodes, 0, "memory", NULL) == 40);
    EXPECT(allocore_nodes_allocation_count(nodes, 0) == 1);
    EXPECT(allocore_nodes_schedulable(nodes, 0) == 1);
    allocore_nodes_destroy(nodes);
    live = allocore_list_allocations(kernel, NULL, "app-1", NULL, &err);
    EXPECT_OK(err);
    EXPECT(allocore_allocations_count(live) == 1);
    EXPECT(strcmp(allocore_allocations_ask(live, 0), "running-1") == 0);
    EXPECT(allocore_allocations_seq(live, 0) == 0);
    EXPECT(allocore_allocations_resource(live, 0, "memory", NULL) == 60);
    EXPECT(allocore_allocations_placeholder(live, 0) == 0);
    EXPECT(strcmp(allocore_allocations_node(live, 5), "") == 0); /* out of range: empty */
    allocore_allocations_destroy(live);
    EXPECT(allocore_list_allocations(kernel, NULL, "ghost", NULL, &err) == NULL);
    EXPECT_ERROR(err);
  }
  /* Applications with state and usage. */
  {
    allocore_apps_t* apps = allocore_list_apps(kernel, NULL, &err);
    EXPECT_OK(err);
    EXPECT(allocore_apps_count(apps) == 1);
    EXPECT(strcmp(allocore_apps_id(apps, 0), "app-1") == 0);
    EXPECT(strcmp(allocore_apps_queue(apps, 0), "root.a") == 0);
    EXPECT(strcmp(allocore_apps_state(apps, 0), "Running") == 0);
    EXPECT(allocore_apps_allocated(apps, 0, "memory", NULL) == 60);
    EXPECT(strcmp(allocore_apps_id(apps, 1), "") == 0); /* out of range: empty */
    allocore_apps_destroy(apps);
    EXPECT(allocore_list_apps(kernel, "nowhere", &err) == NULL);
    EXPECT(allocore_error_code(err) == ALLOCORE_ERR_NOT_FOUND);
    allocore_free(err);
    err = NULL;
    EXPECT(allocore_apps_count(NULL) == 0);
  }
  /* Release by handle and seq: exactly the allocation named, not the oldest. */
  add_memory_ask(kernel, "app-1", "ask-2", 10, 2);
  allocore_decisions_clear(out);
  EXPECT(allocore_schedule(kernel, 0, NULL, out, &err) == 2);
  {
    long first = find_decision(out, ALLOCORE_ALLOCATION, 0);
    long second = first < 0 ? -1 : find_decision(out, ALLOCORE_ALLOCATION, (size_t)first + 1);
    allocore_handle_t app_handle = allocore_find_app(kernel, NULL, "app-1", &err);
    allocore_handle_t ask_handle = allocore_find_ask(kernel, app_handle, "ask-2", &err);
    allocore_handle_t any_node = {0, 0, ALLOCORE_NO_HANDLE, 0};
    allocore_allocations_t* live;
    EXPECT_OK(err);
    EXPECT(second >= 0);
    if (second >= 0) {
      int64_t older = allocore_decision_seq(out, (size_t)first);
      int64_t newer = allocore_decision_seq(out, (size_t)second);
      allocore_decisions_clear(out);
      allocore_release_by_handle_seq(kernel, ask_handle, any_node, newer + 100, out, &err);
      EXPECT(allocore_error_code(err) == ALLOCORE_ERR_NOT_FOUND);
      allocore_free(err);
      err = NULL;
      EXPECT(allocore_decisions_count(out) == 0); /* refused: nothing changed */
      allocore_release_by_handle_seq(kernel, ask_handle, any_node, -3, out, &err);
      EXPECT(allocore_error_code(err) == ALLOCORE_ERR_INVALID_ARGUMENT);
      allocore_free(err);
      err = NULL;
      allocore_release_by_handle_seq(kernel, ask_handle, any_node, newer, out, &err);
      EXPECT_OK(err);
      EXPECT(allocore_decisions_count(out) == 1);
      EXPECT(allocore_decision_type(out, 0) == ALLOCORE_RELEASE);
      EXPECT(allocore_decision_seq(out, 0) == newer);
      live = allocore_list_allocations(kernel, NULL, "app-1", NULL, &err);
      EXPECT_OK(err);
      EXPECT(allocore_allocations_count(live) == 2);
      EXPECT(allocore_allocations_seq(live, 1) == older);
      allocore_allocations_destroy(live);
    }
    /* A handle whose application is gone is stale. */
    allocore_remove_app(kernel, NULL, "app-1", NULL, &err);
    EXPECT_OK(err);
    allocore_release_by_handle_seq(kernel, ask_handle, any_node, 1, out, &err);
    EXPECT(allocore_error_code(err) == ALLOCORE_ERR_FAILED_PRECONDITION);
    allocore_free(err);
    err = NULL;
  }
  allocore_check_consistency(kernel, &err);
  EXPECT_OK(err);
  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);

  /* Quota-change preemption under yunikorn-1.9: a manager reports 12 running in root.a (max 10,
   * delay 1s); the check at t = 1 s takes the smaller pod back (2 of the 12). */
  {
    static const char kQuota[] =
        "partitions:\n"
        "  - name: default\n"
        "    preemption: {quotapreemptionenabled: true}\n"
        "    queues:\n"
        "      - name: root\n"
        "        submitacl: '*'\n"
        "        queues:\n"
        "          - name: a\n"
        "            resources: {max: {memory: 10}}\n"
        "            properties: {quota.preemption.delay: 1s}\n";
    long run;
    long release;
    unsigned char present = 0;
    int memory;
    kernel = kernel_with_app(kQuota, "quota.yaml", &v19);
    if (kernel == NULL) return 1;
    out = allocore_decisions_create();
    recover_on_node_1(kernel, "app-1", "big", 10, NULL);
    recover_on_node_1(kernel, "app-1", "small", 2, NULL);
    allocore_advance(kernel, 999, out, &err);
    EXPECT_OK(err);
    EXPECT(find_decision(out, ALLOCORE_QUOTA_PREEMPTION, 0) < 0);
    allocore_advance(kernel, 1, out, &err);
    EXPECT_OK(err);
    run = find_decision(out, ALLOCORE_QUOTA_PREEMPTION, 0);
    release = find_decision(out, ALLOCORE_RELEASE, 0);
    memory = allocore_resource_type_id(kernel, "memory", &err);
    EXPECT_OK(err);
    EXPECT(run >= 0 && release > run);
    if (run >= 0 && release > run) {
      EXPECT(strcmp(allocore_decision_queue(out, (size_t)run, NULL), "root.a") == 0);
      EXPECT(allocore_decision_count(out, (size_t)run) == 1);
      EXPECT(allocore_decision_quota_max(out, (size_t)run, memory, &present) == 10 && present);
      EXPECT(allocore_decision_quota_preemptable(out, (size_t)run, memory, NULL) == 2);
      EXPECT(allocore_decision_quota_max(out, (size_t)release, memory, &present) == 10);
      EXPECT(strcmp(allocore_decision_release_reason(out, (size_t)release), "quota") == 0);
      EXPECT(strcmp(allocore_decision_by_queue(out, (size_t)release, NULL), "root.a") == 0);
      EXPECT(strcmp(allocore_decision_ask(out, (size_t)release, NULL), "small") == 0);
      /* No such record, or no such type: nothing there. */
      EXPECT(allocore_decision_quota_max(out, 99, memory, &present) == 0 && !present);
      EXPECT(allocore_decision_quota_max(out, (size_t)run, 7, &present) == 0 && !present);
      EXPECT(strcmp(allocore_decision_by_queue(out, 99, NULL), "") == 0);
    }
    EXPECT(allocore_decision_quota_max(NULL, 0, memory, &present) == 0 && !present);
    allocore_decisions_destroy(out);
    allocore_kernel_destroy(kernel);
  }

  /* A configuration error names the call, the file and the line, with its code. */
  kernel = allocore_kernel_create("partitions: [", 13, "bad.yaml", NULL, &err);
  EXPECT(kernel == NULL);
  EXPECT(err != NULL &&
         strncmp(err, "INVALID_ARGUMENT: allocore_kernel_create: bad.yaml:", 51) == 0);
  EXPECT(allocore_error_code(err) == ALLOCORE_ERR_INVALID_ARGUMENT);
  allocore_free(err);
  err = NULL;
  EXPECT(allocore_error_code(NULL) == ALLOCORE_OK);
  EXPECT(allocore_error_code("something else") == ALLOCORE_ERR_UNKNOWN);
  EXPECT(allocore_error_code("NOT_A_CODE: x") == ALLOCORE_ERR_UNKNOWN);

  /* Snapshot, restore and fork: the restored kernel and the fork go on as the original would;
   * what the fork does stays in the fork; damaged bytes are refused with the offset. */
  {
    allocore_kernel_t* original = kernel_with_app(kQueues, "queues.yaml", NULL);
    allocore_kernel_t* restored;
    allocore_kernel_t* fork;
    allocore_decisions_t* a = allocore_decisions_create();
    allocore_decisions_t* b = allocore_decisions_create();
    size_t len = 0;
    char* snapshot;
    add_memory_ask(original, "app-1", "k", 30, 5);
    snapshot = allocore_kernel_snapshot(original, &len, &err);
    EXPECT_OK(err);
    EXPECT(snapshot != NULL && len > 24 && memcmp(snapshot, "ALLOCSNP", 8) == 0);
    restored = allocore_kernel_restore(snapshot, len, &err);
    EXPECT_OK(err);
    fork = allocore_kernel_fork(original, &err);
    EXPECT_OK(err);
    if (restored != NULL && fork != NULL) {
      allocore_remove_node(fork, NULL, "node-1", NULL, &err);
      EXPECT_OK(err);
      EXPECT(allocore_schedule(fork, 0, NULL, NULL, &err) == 0);
      EXPECT(allocore_schedule(original, 0, NULL, a, &err) == 3);
      EXPECT(allocore_schedule(restored, 0, NULL, b, &err) == 3);
      EXPECT_OK(err);
      EXPECT(allocore_decisions_count(a) == allocore_decisions_count(b));
      EXPECT(strcmp(allocore_decision_node(b, 2, NULL), "node-1") == 0);
      EXPECT(allocore_decision_seq(a, 2) == allocore_decision_seq(b, 2));
    }
    snapshot[len - 1] ^= 1;
    EXPECT(allocore_kernel_restore(snapshot, len, &err) == NULL);
    EXPECT(err != NULL &&
           strncmp(err, "INVALID_ARGUMENT: allocore_kernel_restore: snapshot: byte 12:", 61) == 0);
    allocore_free(err);
    err = NULL;
    EXPECT(allocore_kernel_restore("ALLOC", 5, &err) == NULL);
    EXPECT(allocore_error_code(err) == ALLOCORE_ERR_INVALID_ARGUMENT);
    allocore_free(err);
    err = NULL;
    allocore_free(snapshot);
    allocore_decisions_destroy(a);
    allocore_decisions_destroy(b);
    allocore_kernel_destroy(fork);
    allocore_kernel_destroy(restored);
    allocore_kernel_destroy(original);
  }

  if (failures == 0) printf("c_api_test: OK\n");
  return failures == 0 ? 0 : 1;
}

/* allocore from C: the queues.yaml of a small cluster, two nodes, two applications in two
 * queues; schedule and print the allocations, why the rest is still pending, and where a
 * smaller executor would go (a probe: a question that changes nothing). Then one specific
 * executor stops: its allocation is released by the seq its decision carried, and the
 * release record names that seq.
 * Build: cc embed.c $(pkg-config --cflags --libs allocore-c) */
#include <stdio.h>
#include <string.h>

#include "allocore/c.h"

static const char kQueues[] =
    "partitions:\n"
    "  - name: default\n"
    "    queues:\n"
    "      - name: root\n"
    "        submitacl: '*'\n"
    "        queues:\n"
    "          - name: batch\n"
    "          - name: web\n";

static int Fail(char* err) {
  fprintf(stderr, "error: %s\n", err);
  allocore_free(err);
  return 1;
}

int main(void) {
  char* err = NULL;
  allocore_kernel_t* kernel =
      allocore_kernel_create(kQueues, strlen(kQueues), "queues.yaml", NULL, &err);
  if (err != NULL) return Fail(err);
  allocore_decisions_t* out = allocore_decisions_create();

  const char* nodes[] = {"node-1", "node-2"};
  for (int i = 0; i < 2 && err == NULL; ++i) {
    allocore_node_t* node = allocore_node_create(nodes[i]);
    allocore_node_add_capacity(node, "vcore", 4000);
    allocore_node_add_capacity(node, "memory", 8LL << 30);
    allocore_add_node(kernel, node, out, &err);
    allocore_node_destroy(node);
  }
  const char* apps[][2] = {{"spark-1", "root.batch"}, {"web-1", "root.web"}};
  for (int i = 0; i < 2 && err == NULL; ++i) {
    allocore_app_t* app = allocore_app_create(apps[i][0], "alice");
    allocore_app_set_queue(app, apps[i][1]);
    allocore_add_app(kernel, app, out, &err);
    allocore_app_destroy(app);
    if (err != NULL) break;
    allocore_ask_t* ask = allocore_ask_create(apps[i][0], "executors");
    allocore_ask_add_resource(ask, "vcore", 1500);
    allocore_ask_add_resource(ask, "memory", 2LL << 30);
    allocore_ask_set_count(ask, 3);
    allocore_add_ask(kernel, ask, out, &err);
    allocore_ask_destroy(ask);
  }
  if (err != NULL) return Fail(err);
  int64_t made = allocore_schedule(kernel, 0, NULL, out, &err);
  if (err != NULL) return Fail(err);

  printf("allocore %s: %lld allocations\n", allocore_version(), (long long)made);
  for (size_t i = 0; i < allocore_decisions_count(out); ++i) {
    if (allocore_decision_type(out, i) != ALLOCORE_ALLOCATION) continue;
    size_t app_len, ask_len, node_len;
    const char* app = allocore_decision_app(out, i, &app_len);
    const char* ask = allocore_decision_ask(out, i, &ask_len);
    const char* node = allocore_decision_node(out, i, &node_len);
    printf("allocation %lld: %.*s/%.*s on %.*s\n", (long long)allocore_decision_seq(out, i),
           (int)app_len, app, (int)ask_len, ask, (int)node_len, node);
  }
  allocore_explanations_t* pending = allocore_explain_pending(kernel);
  for (size_t i = 0; i < allocore_explanations_count(pending); ++i) {
    printf("pending %s/%s x%lld: %s\n", allocore_explanation_app(pending, i),
           allocore_explanation_ask(pending, i),
           (long long)allocore_explanation_pending_count(pending, i),
           allocore_explanation_reason(pending, i));
  }
  allocore_explanations_destroy(pending);

  allocore_ask_t* what_if = allocore_ask_create("web-1", NULL);
  allocore_ask_add_resource(what_if, "vcore", 1000);
  allocore_ask_add_resource(what_if, "memory", 1LL << 30);
  allocore_probe_t* probe = allocore_probe(kernel, what_if, &err);
  allocore_ask_destroy(what_if);
  if (err != NULL) return Fail(err);
  const char* node = allocore_probe_node(probe);
  printf("probe web-1 {vcore: 1, memory: 1Gi}: %s%s\n", node != NULL ? "would run on " : "",
         node != NULL ? node : allocore_probe_reason(probe));
  const int placed = node != NULL;
  allocore_probe_destroy(probe);

  /* Stop spark-1's newest executor (a release without a seq takes the oldest). */
  int64_t stop = 0;
  for (size_t i = 0; i < allocore_decisions_count(out); ++i) {
    const char* app = allocore_decision_app(out, i, NULL);
    if (allocore_decision_type(out, i) == ALLOCORE_ALLOCATION && strcmp(app, "spark-1") == 0) {
      stop = allocore_decision_seq(out, i);
    }
  }
  allocore_decisions_clear(out);
  allocore_release_allocation_seq(kernel, NULL, "spark-1", "executors", NULL, stop, out, &err);
  if (err != NULL) return Fail(err);
  const int released = allocore_decisions_count(out) >= 1 &&
                       allocore_decision_type(out, 0) == ALLOCORE_RELEASE &&
                       allocore_decision_seq(out, 0) == stop;
  printf("released allocation %lld\n", (long long)stop);
  /* The same allocation again: NOT_FOUND, nothing changed. */
  allocore_release_allocation_seq(kernel, NULL, "spark-1", "executors", NULL, stop, out, &err);
  const int refused = allocore_error_code(err) == ALLOCORE_ERR_NOT_FOUND;
  allocore_free(err);
  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);
  /* Two nodes of 4 cores take two 1.5-core executors each: four of the six; one core is left
   * on each node. */
  return made == 4 && placed && released && refused ? 0 : 1;
}

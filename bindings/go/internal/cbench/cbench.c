/* cbench.c — see cbench.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include "cbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cbench_next_ask(cbench_rng* rng, int64_t* shape, int32_t* priority) {
  rng->state = rng->state * 6364136223846793005ULL + 1442695040888963407ULL;
  *shape = (int64_t)((rng->state >> 33) % 4) + 1;
  *priority = (int32_t)((rng->state >> 40) % 4);
}

typedef struct live_alloc {
  int64_t app;
  char ask[32];
  char node[32];
  int64_t seq;
} live_alloc;

/* One block: the state, then the ring, then the application names. */
struct cbench_churn {
  allocore_kernel_t* kernel;
  allocore_decisions_t* out;
  int64_t apps;
  int64_t next_ask;
  cbench_rng rng;
  char (*app_names)[16];
  live_alloc* ring; /* a FIFO of live allocations */
  size_t cap, head, len;
};

static int failed(char* err) {
  fprintf(stderr, "cbench: %s\n", err);
  allocore_free(err);
  return -1;
}

static int add_ask(cbench_churn* c) {
  char* err = NULL;
  int64_t shape;
  int32_t priority;
  char id[32];
  cbench_next_ask(&c->rng, &shape, &priority);
  int64_t app = c->next_ask % c->apps;
  int n = snprintf(id, sizeof id, "ask-%lld", (long long)c->next_ask++);
  const char* app_name = c->app_names[app];
  allocore_ask_t* ask = allocore_ask_create_n(app_name, strlen(app_name), id, (size_t)n);
  allocore_ask_add_resource_n(ask, "memory", 6, 10 * shape);
  allocore_ask_add_resource_n(ask, "vcore", 5, 1000 * shape);
  if (priority != 0) allocore_ask_set_priority(ask, priority);
  allocore_decisions_clear(c->out);
  allocore_add_ask(c->kernel, ask, c->out, &err);
  allocore_ask_destroy(ask);
  return err != NULL ? failed(err) : 0;
}

/* Reads the allocations of c->out by accessor into the ring (what a C manager does). */
static void take_allocations(cbench_churn* c) {
  size_t count = allocore_decisions_count(c->out);
  for (size_t i = 0; i < count; ++i) {
    if (allocore_decision_type(c->out, i) != ALLOCORE_ALLOCATION) continue;
    size_t app_len, ask_len, node_len;
    const char* app = allocore_decision_app(c->out, i, &app_len);
    const char* ask = allocore_decision_ask(c->out, i, &ask_len);
    const char* node = allocore_decision_node(c->out, i, &node_len);
    if (c->len == c->cap) continue; /* full: cannot happen with the ring sized for `live` */
    live_alloc* l = &c->ring[(c->head + c->len++) % c->cap];
    l->app = strtoll(app + 4, NULL, 10); /* "app-N" */
    (void)app_len;
    memcpy(l->ask, ask, ask_len < 31 ? ask_len : 31);
    l->ask[ask_len < 31 ? ask_len : 31] = '\0';
    memcpy(l->node, node, node_len < 31 ? node_len : 31);
    l->node[node_len < 31 ? node_len : 31] = '\0';
    l->seq = allocore_decision_seq(c->out, i);
  }
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void cbench_churn_destroy(cbench_churn* c) {
  if (c == NULL) return;
  allocore_decisions_destroy(c->out);
  allocore_kernel_destroy(c->kernel);
  free(c);
}

cbench_churn* cbench_churn_create(const char* config, size_t config_len, int64_t nodes,
                                  int64_t apps, int64_t pending, int64_t live) {
  char* err = NULL;
  const size_t cap = (size_t)live + 16;
  cbench_churn* c = (cbench_churn*)calloc(
      1, sizeof *c + cap * sizeof(live_alloc) + (size_t)apps * sizeof *c->app_names);
  if (c == NULL) return NULL;
  c->cap = cap;
  c->ring = (live_alloc*)(c + 1);
  c->app_names = (char(*)[16])(c->ring + cap);
  c->kernel = allocore_kernel_create(config, config_len, "churn.yaml", NULL, &err);
  if (c->kernel == NULL) {
    failed(err);
    free(c);
    return NULL;
  }
  c->out = allocore_decisions_create();
  c->apps = apps;
  c->rng.state = 42;
  for (int64_t i = 0; i < nodes && err == NULL; ++i) {
    char id[32];
    snprintf(id, sizeof id, "node-%lld", (long long)i);
    allocore_node_t* node = allocore_node_create(id);
    allocore_node_add_capacity(node, "memory", 40 * 16);
    allocore_node_add_capacity(node, "vcore", 4000 * 16);
    allocore_add_node(c->kernel, node, NULL, &err);
    allocore_node_destroy(node);
  }
  for (int64_t a = 0; a < apps && err == NULL; ++a) {
    char queue[16];
    snprintf(c->app_names[a], sizeof c->app_names[a], "app-%lld", (long long)a);
    snprintf(queue, sizeof queue, "root.q%lld", (long long)(a % 10));
    allocore_app_t* app = allocore_app_create(c->app_names[a], "user");
    allocore_app_set_queue(app, queue);
    allocore_add_app(c->kernel, app, NULL, &err);
    allocore_app_destroy(app);
  }
  if (err != NULL) {
    failed(err);
    cbench_churn_destroy(c);
    return NULL;
  }
  for (int64_t i = 0; i < pending; ++i) {
    if (add_ask(c) != 0) {
      cbench_churn_destroy(c);
      return NULL;
    }
  }
  /* Warm up: allocate until `live` are held, replacing every allocated ask by a new one. */
  while ((int64_t)c->len < live) {
    allocore_decisions_clear(c->out);
    int64_t want = live - (int64_t)c->len;
    int64_t made = allocore_schedule(c->kernel, want < 1000 ? want : 1000, NULL, c->out, &err);
    if (err != NULL) {
      failed(err);
      cbench_churn_destroy(c);
      return NULL;
    }
    if (made <= 0) break;
    take_allocations(c);
    for (int64_t i = 0; i < made; ++i) {
      if (add_ask(c) != 0) {
        cbench_churn_destroy(c);
        return NULL;
      }
    }
  }
  return c;
}

int cbench_churn_run(cbench_churn* c, int64_t n, int time_schedule, int64_t* schedule_ns) {
  char* err = NULL;
  int64_t in_schedule = 0;
  for (int64_t step = 0; step < n; ++step) {
    if (c->len > 0) {
      live_alloc* oldest = &c->ring[c->head];
      c->head = (c->head + 1) % c->cap;
      c->len--;
      const char* app = c->app_names[oldest->app];
      allocore_decisions_clear(c->out);
      allocore_release_allocation_n(c->kernel, NULL, app, strlen(app), oldest->ask,
                                    strlen(oldest->ask), oldest->node, strlen(oldest->node),
                                    oldest->seq, c->out, &err);
      if (err != NULL) return failed(err);
    }
    if (add_ask(c) != 0) return -1;
    allocore_decisions_clear(c->out);
    int64_t start = time_schedule ? now_ns() : 0;
    allocore_schedule(c->kernel, 1, NULL, c->out, &err);
    if (time_schedule) in_schedule += now_ns() - start;
    if (err != NULL) return failed(err);
    take_allocations(c);
  }
  if (schedule_ns != NULL) *schedule_ns = in_schedule;
  return 0;
}

/* The name accessors: one signature, so one loop reads them (an indirect call, as a call
 * into the shared library through its PLT is anyway). */
static const char* (*const kNameAccessors[])(const allocore_decisions_t*, size_t, size_t*) = {
    allocore_decision_partition, allocore_decision_queue,  allocore_decision_app,
    allocore_decision_ask,       allocore_decision_node,   allocore_decision_reason,
    allocore_decision_replaces,  allocore_decision_by_app, allocore_decision_by_ask,
    allocore_decision_by_queue};

int64_t cbench_read_accessors(const allocore_decisions_t* d, int64_t rounds) {
  int64_t sum = 0;
  for (int64_t r = 0; r < rounds; ++r) {
    size_t count = allocore_decisions_count(d);
    for (size_t i = 0; i < count; ++i) {
      sum += allocore_decision_type(d, i);
      for (size_t f = 0; f < sizeof kNameAccessors / sizeof kNameAccessors[0]; ++f) {
        size_t len = 0;
        (void)kNameAccessors[f](d, i, &len);
        sum += (int64_t)len;
      }
      sum += allocore_decision_priority(d, i) + allocore_decision_seq(d, i) +
             allocore_decision_count(d, i) + allocore_decision_placeholder(d, i);
      sum += (int64_t)strlen(allocore_decision_release_reason(d, i));
      sum += (int64_t)strlen(allocore_decision_from_state(d, i));
      sum += (int64_t)strlen(allocore_decision_to_state(d, i));
      sum += allocore_decision_app_handle(d, i).slot + allocore_decision_ask_handle(d, i).slot +
             allocore_decision_node_handle(d, i).slot;
    }
  }
  return sum;
}

int64_t cbench_read_export(const allocore_decisions_t* d, int64_t rounds) {
  enum { kRecords = 512, kNames = 32 << 10 };
  static allocore_decision_record_t records[kRecords];
  static char names[kNames];
  int64_t sum = 0;
  for (int64_t r = 0; r < rounds; ++r) {
    size_t count = allocore_decisions_count(d);
    for (size_t first = 0; first < count;) {
      char* err = NULL;
      size_t used = 0;
      size_t n = allocore_decisions_export(d, first, records, kRecords, names, kNames, &used, &err);
      if (err != NULL) {
        failed(err);
        return -1;
      }
      if (n == 0) break;
      for (size_t i = 0; i < n; ++i) sum += records[i].seq + records[i].app.len;
      first += n;
    }
  }
  return sum;
}

int64_t cbench_now_loop(const allocore_kernel_t* kernel, int64_t n) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += allocore_now_millis(kernel);
  return sum;
}

char* cbench_churn_snapshot(const cbench_churn* c, size_t* len) {
  char* err = NULL;
  char* bytes = allocore_kernel_snapshot(c->kernel, len, &err);
  if (err != NULL) {
    failed(err);
    return NULL;
  }
  return bytes;
}

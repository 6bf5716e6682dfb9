// The C ABI (allocore/c.h) over the C++ kernel: opaque structs own the C++ values, every
// status becomes an errptr message, and nothing C++ (exceptions included) crosses the
// boundary. Out-of-range indexes read as empty values rather than undefined behaviour.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/durable_kernel.h"
#include "allocore/adapters/event_recorder.h"
#include "allocore/c.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "c_internal.h"

using namespace allocore::c_abi;  // NOLINT(google-build-using-namespace): the ABI's own helpers

extern "C" {

void allocore_free(void* ptr) { std::free(ptr); }

int allocore_error_code(const char* err) {
  if (err == nullptr) return ALLOCORE_OK;
  std::string_view text(err);
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return ALLOCORE_ERR_UNKNOWN;
  std::string_view name = text.substr(0, colon);
  // Codes 1..16 are absl's (gRPC's) canonical codes, which never change.
  for (int code = 1; code <= 16; ++code) {
    if (absl::StatusCodeToString(static_cast<absl::StatusCode>(code)) == name) return code;
  }
  return ALLOCORE_ERR_UNKNOWN;
}

// --- kernel --------------------------------------------------------------------------------

allocore_kernel_t* allocore_kernel_create(const char* yaml, size_t len, const char* source_name,
                                          const allocore_options_t* options, char** errptr) {
  try {
    const allocore_options_t none{};
    const allocore_options_t& given = options != nullptr ? *options : none;
    absl::StatusOr<allocore::KernelOptions> kernel_options = KernelOptionsOf(
        given.max_applications, given.max_asks, given.max_live_allocations, given.semantics);
    if (!Ok(kernel_options.status(), errptr)) return nullptr;
    absl::StatusOr<allocore::SchedulerConfig> config =
        ConfigFromYaml(yaml, len, source_name, kernel_options->semantics);
    if (!Ok(config.status(), errptr)) return nullptr;
    std::optional<allocore::SchedulerConfig> config_copy = *config;
    auto kernel = allocore::Kernel::Create(*std::move(config), *kernel_options);
    if (!Ok(kernel.status(), errptr)) return nullptr;
    auto* handle = new allocore_kernel_t;
    handle->kernel = *std::move(kernel);
    handle->partition_names = handle->kernel->PartitionNames();
    handle->created_with = *std::move(config_copy);
    return handle;
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

void allocore_kernel_destroy(allocore_kernel_t* kernel) { delete kernel; }

void allocore_kernel_record_start(allocore_kernel_t* kernel, const char* path, size_t buffer_bytes,
                                  char** errptr) {
  if (kernel->recorder) {
    SetError(errptr, absl::StatusCode::kFailedPrecondition,
             absl::StrCat("the kernel already records to ", kernel->recorder->path()));
    return;
  }
  if (kernel->changed) {
    SetError(errptr, absl::StatusCode::kFailedPrecondition,
             "recording starts before the kernel's first change (a log replays a kernel's "
             "whole history from its config)");
    return;
  }
  if (path == nullptr || path[0] == '\0') {
    InvalidArgument(errptr, "a path is required");
    return;
  }
  absl::StatusOr<std::unique_ptr<allocore::adapters::EventRecorder>> recorder =
      allocore::adapters::EventRecorder::Create(
          path, kernel->created_with, kernel->kernel->options(), {.buffer_bytes = buffer_bytes});
  if (!Ok(recorder.status(), errptr)) return;
  kernel->recorder = *std::move(recorder);
}

void allocore_kernel_record_check(const allocore_kernel_t* kernel, char** errptr) {
  if (kernel->recorder) (void)Ok(kernel->recorder->status(), errptr);
}

void allocore_kernel_record_stop(allocore_kernel_t* kernel, char** errptr) {
  if (!kernel->recorder) return;
  (void)Ok(kernel->recorder->Close(), errptr);
  kernel->recorder.reset();
}

void allocore_update_config(allocore_kernel_t* kernel, const char* yaml, size_t len,
                            const char* source_name, allocore_decisions_t* out, char** errptr) {
  absl::StatusOr<allocore::SchedulerConfig> config =
      ConfigFromYaml(yaml, len, source_name, kernel->kernel->options().semantics);
  if (!Ok(config.status(), errptr)) return;
  WithOut(out, errptr, [&](std::vector<Decision>* target) {
    return Change(
        kernel, target, [&] { return allocore::Event(allocore::UpdateConfigEvent{*config}); },
        [&] { return kernel->kernel->UpdateConfig(*std::move(config), target); });
  });
  kernel->partition_names = kernel->kernel->PartitionNames();
}

// --- snapshots and forks -----------------------------------------------------------------

}  // extern "C"

allocore_kernel_t* allocore::c_abi::WrapKernel(std::unique_ptr<allocore::Kernel> kernel) {
  auto* handle = new allocore_kernel_t;
  handle->kernel = std::move(kernel);
  handle->partition_names = handle->kernel->PartitionNames();
  return handle;
}

extern "C" {

char* allocore_kernel_snapshot(const allocore_kernel_t* kernel, size_t* len, char** errptr) {
  try {
    const std::string snapshot = kernel->kernel->Snapshot();
    auto* bytes = static_cast<char*>(std::malloc(snapshot.empty() ? 1 : snapshot.size()));
    if (bytes == nullptr) throw std::bad_alloc();
    std::memcpy(bytes, snapshot.data(), snapshot.size());
    if (len != nullptr) *len = snapshot.size();
    return bytes;
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

allocore_kernel_t* allocore_kernel_restore(const char* snapshot, size_t len, char** errptr) {
  try {
    if (snapshot == nullptr && len > 0) {
      InvalidArgument(errptr, "a NULL snapshot of non-zero length");
      return nullptr;
    }
    auto kernel = allocore::Kernel::Restore(
        std::string_view(snapshot == nullptr ? "" : snapshot, snapshot == nullptr ? 0 : len));
    if (!Ok(kernel.status(), errptr)) return nullptr;
    return WrapKernel(*std::move(kernel));
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

allocore_kernel_t* allocore_kernel_restart(const char* dir, allocore_restart_info_t* info,
                                           char** errptr) {
  try {
    if (dir == nullptr) {
      InvalidArgument(errptr, "a NULL directory");
      return nullptr;
    }
    allocore::adapters::RestartReport report;
    auto kernel = allocore::adapters::DurableKernel::Recover(dir, &report);
    if (!Ok(kernel.status(), errptr)) return nullptr;
    if (info != nullptr) {
      *info = {.recovered_seq = report.recovered_seq,
               .snapshot_seq = report.snapshot_seq,
               .replayed_events = report.replayed_events,
               .torn_tail_events = report.torn_tail_events};
    }
    return WrapKernel(*std::move(kernel));
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

allocore_kernel_t* allocore_kernel_fork(const allocore_kernel_t* kernel, char** errptr) {
  try {
    auto fork = kernel->kernel->Fork();
    if (!Ok(fork.status(), errptr)) return nullptr;
    return WrapKernel(*std::move(fork));
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

// --- nodes ---------------------------------------------------------------------------------

allocore_node_t* allocore_node_create(const char* id) {
  return allocore_node_create_n(id, id == nullptr ? 0 : std::strlen(id));
}
allocore_node_t* allocore_node_create_n(const char* id, size_t id_len) {
  auto* node = new allocore_node_t;
  node->spec.id = std::string(Text(id, id_len));
  return node;
}
void allocore_node_destroy(allocore_node_t* node) { delete node; }
void allocore_node_set_partition(allocore_node_t* node, const char* partition) {
  node->spec.partition = Partition(partition);
}
void allocore_node_add_capacity(allocore_node_t* node, const char* type, int64_t value) {
  allocore_node_add_capacity_n(node, type, type == nullptr ? 0 : std::strlen(type), value);
}
void allocore_node_add_capacity_n(allocore_node_t* node, const char* type, size_t type_len,
                                  int64_t value) {
  if (!node->spec.capacity) node->spec.capacity.emplace();
  node->spec.capacity->emplace_back(std::string(Text(type, type_len)), value);
}
void allocore_node_clear_capacity(allocore_node_t* node) { node->spec.capacity.emplace(); }
void allocore_node_add_occupied(allocore_node_t* node, const char* type, int64_t value) {
  if (!node->spec.occupied) node->spec.occupied.emplace();
  node->spec.occupied->emplace_back(std::string(Text(type)), value);
}
void allocore_node_clear_occupied(allocore_node_t* node) { node->spec.occupied.emplace(); }
void allocore_node_set_schedulable(allocore_node_t* node, unsigned char schedulable) {
  node->spec.schedulable = schedulable != 0;
}

void allocore_add_node(allocore_kernel_t* kernel, const allocore_node_t* node,
                       allocore_decisions_t* out, char** errptr) {
  const allocore::NodeSpec spec = NodeToAdd(*node);
  ApplyInto(kernel, out, errptr, spec, [&](allocore::Kernel& k, std::vector<Decision>* target) {
    return k.AddNode(spec, target);
  });
}

void allocore_update_node(allocore_kernel_t* kernel, const allocore_node_t* node,
                          allocore_decisions_t* out, char** errptr) {
  ApplyInto(kernel, out, errptr, node->spec,
            [&](allocore::Kernel& k, std::vector<Decision>* target) {
              return k.UpdateNode(node->spec, target);
            });
}

namespace {
void RemoveNode(allocore_kernel_t* kernel, const char* partition, std::string_view id,
                allocore_decisions_t* out, char** errptr, const char* call) {
  ChangeInto(
      kernel, out, errptr, call,
      [&] {
        return allocore::Event(
            allocore::RemoveNodeEvent{.partition = Partition(partition), .id = std::string(id)});
      },
      [&](std::vector<Decision>* target) {
        return kernel->kernel->RemoveNode(Partition(partition), id, target);
      });
}
}  // namespace

void allocore_remove_node(allocore_kernel_t* kernel, const char* partition, const char* id,
                          allocore_decisions_t* out, char** errptr) {
  RemoveNode(kernel, partition, Text(id), out, errptr, __func__);
}
void allocore_remove_node_n(allocore_kernel_t* kernel, const char* partition, const char* id,
                            size_t id_len, allocore_decisions_t* out, char** errptr) {
  RemoveNode(kernel, partition, Text(id, id_len), out, errptr, __func__);
}

// --- applications --------------------------------------------------------------------------

allocore_app_t* allocore_app_create(const char* id, const char* user) {
  return allocore_app_create_n(id, id == nullptr ? 0 : std::strlen(id), user,
                               user == nullptr ? 0 : std::strlen(user));
}
allocore_app_t* allocore_app_create_n(const char* id, size_t id_len, const char* user,
                                      size_t user_len) {
  auto* app = new allocore_app_t;
  app->spec.id = std::string(Text(id, id_len));
  app->spec.user = std::string(Text(user, user_len));
  return app;
}
void allocore_app_destroy(allocore_app_t* app) { delete app; }
void allocore_app_set_partition(allocore_app_t* app, const char* partition) {
  app->spec.partition = Partition(partition);
}
void allocore_app_set_queue(allocore_app_t* app, const char* queue) {
  app->spec.queue = std::string(Text(queue));
}
void allocore_app_set_queue_n(allocore_app_t* app, const char* queue, size_t queue_len) {
  app->spec.queue = std::string(Text(queue, queue_len));
}
void allocore_app_add_group(allocore_app_t* app, const char* group) {
  app->spec.groups.emplace_back(Text(group));
}
void allocore_app_add_tag(allocore_app_t* app, const char* key, const char* value) {
  app->spec.tags.emplace_back(std::string(Text(key)), std::string(Text(value)));
}
void allocore_app_set_gang_hard(allocore_app_t* app, unsigned char hard) {
  app->spec.gang_style = hard != 0 ? allocore::GangStyle::kHard : allocore::GangStyle::kSoft;
}
void allocore_app_set_placeholder_timeout(allocore_app_t* app, int64_t millis) {
  app->spec.placeholder_timeout_millis = millis;
}
void allocore_app_add_placeholder_ask(allocore_app_t* app, const char* type, int64_t value) {
  app->spec.placeholder_ask.emplace_back(std::string(Text(type)), value);
}

void allocore_add_app(allocore_kernel_t* kernel, const allocore_app_t* app,
                      allocore_decisions_t* out, char** errptr) {
  ApplyInto(kernel, out, errptr, app->spec,
            [&](allocore::Kernel& k, std::vector<Decision>* target) {
              return k.AddApplication(app->spec, target);
            });
}

namespace {
void RemoveApp(allocore_kernel_t* kernel, const char* partition, std::string_view id,
               allocore_decisions_t* out, char** errptr, const char* call) {
  ChangeInto(
      kernel, out, errptr, call,
      [&] {
        return allocore::Event(allocore::RemoveApplicationEvent{.partition = Partition(partition),
                                                                .id = std::string(id)});
      },
      [&](std::vector<Decision>* target) {
        return kernel->kernel->RemoveApplication(Partition(partition), id, target);
      });
}
}  // namespace

void allocore_remove_app(allocore_kernel_t* kernel, const char* partition, const char* id,
                         allocore_decisions_t* out, char** errptr) {
  RemoveApp(kernel, partition, Text(id), out, errptr, __func__);
}
void allocore_remove_app_n(allocore_kernel_t* kernel, const char* partition, const char* id,
                           size_t id_len, allocore_decisions_t* out, char** errptr) {
  RemoveApp(kernel, partition, Text(id, id_len), out, errptr, __func__);
}

// --- asks ----------------------------------------------------------------------------------

allocore_ask_t* allocore_ask_create(const char* app, const char* id) {
  return allocore_ask_create_n(app, app == nullptr ? 0 : std::strlen(app), id,
                               id == nullptr ? 0 : std::strlen(id));
}
allocore_ask_t* allocore_ask_create_n(const char* app, size_t app_len, const char* id,
                                      size_t id_len) {
  auto* ask = new allocore_ask_t;
  ask->spec.app = std::string(Text(app, app_len));
  ask->spec.id = std::string(Text(id, id_len));
  return ask;
}
void allocore_ask_destroy(allocore_ask_t* ask) { delete ask; }
void allocore_ask_set_partition(allocore_ask_t* ask, const char* partition) {
  ask->spec.partition = Partition(partition);
}
void allocore_ask_add_resource(allocore_ask_t* ask, const char* type, int64_t value) {
  ask->spec.resources.emplace_back(std::string(Text(type)), value);
}
void allocore_ask_add_resource_n(allocore_ask_t* ask, const char* type, size_t type_len,
                                 int64_t value) {
  ask->spec.resources.emplace_back(std::string(Text(type, type_len)), value);
}
void allocore_ask_set_priority(allocore_ask_t* ask, int32_t priority) {
  ask->spec.priority = priority;
}
void allocore_ask_set_count(allocore_ask_t* ask, int64_t count) { ask->spec.count = count; }
void allocore_ask_set_task_group(allocore_ask_t* ask, const char* task_group) {
  ask->spec.task_group = std::string(Text(task_group));
}
void allocore_ask_set_placeholder(allocore_ask_t* ask, unsigned char placeholder) {
  ask->spec.placeholder = placeholder != 0;
}
void allocore_ask_set_required_node(allocore_ask_t* ask, const char* node) {
  ask->spec.required_node = std::string(Text(node));
}
void allocore_ask_set_allow_preemption(allocore_ask_t* ask, unsigned char allow) {
  ask->spec.allow_preemption = allow != 0;
}
void allocore_ask_set_originator(allocore_ask_t* ask, unsigned char originator) {
  ask->spec.originator = originator != 0;
}
void allocore_ask_set_creation_time(allocore_ask_t* ask, int64_t millis) {
  ask->spec.creation_time_millis = millis;
}

void allocore_add_ask(allocore_kernel_t* kernel, const allocore_ask_t* ask,
                      allocore_decisions_t* out, char** errptr) {
  ApplyInto(kernel, out, errptr, ask->spec,
            [&](allocore::Kernel& k, std::vector<Decision>* target) {
              return k.AddAsk(ask->spec, target);
            });
}

namespace {
void RemoveAsk(allocore_kernel_t* kernel, const char* partition, std::string_view app,
               std::string_view ask, allocore_decisions_t* out, char** errptr, const char* call) {
  ChangeInto(
      kernel, out, errptr, call,
      [&] {
        return allocore::Event(allocore::RemoveAskEvent{
            .partition = Partition(partition), .app = std::string(app), .ask = std::string(ask)});
      },
      [&](std::vector<Decision>* target) {
        return kernel->kernel->RemoveAsk(Partition(partition), app, ask, target);
      });
}

// seq 0: the oldest live allocation of the ask.
void Release(allocore_kernel_t* kernel, const char* partition, std::string_view app,
             std::string_view ask, std::string_view node, int64_t seq, allocore_decisions_t* out,
             char** errptr, const char* call) {
  ChangeInto(
      kernel, out, errptr, call,
      [&] {
        return allocore::Event(allocore::ReleaseEvent{.partition = Partition(partition),
                                                      .app = std::string(app),
                                                      .ask = std::string(ask),
                                                      .node = std::string(node),
                                                      .seq = seq});
      },
      [&](std::vector<Decision>* target) {
        return seq > 0 ? kernel->kernel->ReleaseAllocation(Partition(partition), app, ask, node,
                                                           seq, target)
                       : kernel->kernel->ReleaseAllocation(Partition(partition), app, ask, node,
                                                           target);
      });
}
}  // namespace

void allocore_remove_ask(allocore_kernel_t* kernel, const char* partition, const char* app,
                         const char* ask, allocore_decisions_t* out, char** errptr) {
  RemoveAsk(kernel, partition, Text(app), Text(ask), out, errptr, __func__);
}
void allocore_remove_ask_n(allocore_kernel_t* kernel, const char* partition, const char* app,
                           size_t app_len, const char* ask, size_t ask_len,
                           allocore_decisions_t* out, char** errptr) {
  RemoveAsk(kernel, partition, Text(app, app_len), Text(ask, ask_len), out, errptr, __func__);
}
void allocore_release_allocation_n(allocore_kernel_t* kernel, const char* partition,
                                   const char* app, size_t app_len, const char* ask, size_t ask_len,
                                   const char* node, size_t node_len, int64_t seq,
                                   allocore_decisions_t* out, char** errptr) {
  if (seq < 0) {
    InvalidArgument(errptr, absl::StrCat("seq must be >= 0 (0: the oldest allocation), got ", seq));
    return;
  }
  Release(kernel, partition, Text(app, app_len), Text(ask, ask_len), Text(node, node_len), seq, out,
          errptr, __func__);
}

void allocore_release_allocation(allocore_kernel_t* kernel, const char* partition, const char* app,
                                 const char* ask, const char* node, allocore_decisions_t* out,
                                 char** errptr) {
  Release(kernel, partition, Text(app), Text(ask), Text(node), /*seq=*/0, out, errptr, __func__);
}

void allocore_release_allocation_seq(allocore_kernel_t* kernel, const char* partition,
                                     const char* app, const char* ask, const char* node,
                                     int64_t seq, allocore_decisions_t* out, char** errptr) {
  if (seq <= 0) {
    InvalidArgument(errptr, absl::StrCat("seq must be > 0, got ", seq));
    return;
  }
  Release(kernel, partition, Text(app), Text(ask), Text(node), seq, out, errptr, __func__);
}

// --- a manager's lifecycle -----------------------------------------------------------------

void allocore_recover_allocation(allocore_kernel_t* kernel, const allocore_ask_t* ask,
                                 const char* node, allocore_decisions_t* out, char** errptr) {
  const allocore::RecoverSpec spec{.ask = ask->spec, .node = std::string(Text(node))};
  ApplyInto(kernel, out, errptr, spec, [&](allocore::Kernel& k, std::vector<Decision>* target) {
    return k.RecoverAllocation(spec, target);
  });
}

void allocore_update_allocation(allocore_kernel_t* kernel, const char* partition, const char* app,
                                const char* ask, const char* node, const char* const* types,
                                const int64_t* values, size_t count, allocore_decisions_t* out,
                                char** errptr) {
  std::optional<allocore::Quantities> resources = QuantityArrays(types, values, count, errptr);
  if (!resources) return;
  const allocore::AllocationUpdate update{.partition = Partition(partition),
                                          .app = std::string(Text(app)),
                                          .ask = std::string(Text(ask)),
                                          .node = std::string(Text(node)),
                                          .resources = *std::move(resources)};
  ApplyInto(kernel, out, errptr, update, [&](allocore::Kernel& k, std::vector<Decision>* target) {
    return k.UpdateAllocation(update, target);
  });
}

void allocore_update_ask(allocore_kernel_t* kernel, const char* partition, const char* app,
                         const char* ask, const char* const* types, const int64_t* values,
                         size_t count, allocore_decisions_t* out, char** errptr) {
  std::optional<allocore::Quantities> resources = QuantityArrays(types, values, count, errptr);
  if (!resources) return;
  const allocore::AskUpdate update{.partition = Partition(partition),
                                   .app = std::string(Text(app)),
                                   .id = std::string(Text(ask)),
                                   .resources = *std::move(resources)};
  ApplyInto(kernel, out, errptr, update, [&](allocore::Kernel& k, std::vector<Decision>* target) {
    return k.UpdateAsk(update, target);
  });
}

void allocore_add_foreign(allocore_kernel_t* kernel, const char* partition, const char* id,
                          const char* node, const char* const* types, const int64_t* values,
                          size_t count, int kind, allocore_decisions_t* out, char** errptr) {
  if (kind != ALLOCORE_FOREIGN_DEFAULT && kind != ALLOCORE_FOREIGN_STATIC) {
    InvalidArgument(errptr, absl::StrCat("kind must be ALLOCORE_FOREIGN_DEFAULT or "
                                         "ALLOCORE_FOREIGN_STATIC, got ",
                                         kind));
    return;
  }
  std::optional<allocore::Quantities> resources = QuantityArrays(types, values, count, errptr);
  if (!resources) return;
  const allocore::ForeignAllocationSpec spec{.partition = Partition(partition),
                                             .id = std::string(Text(id)),
                                             .node = std::string(Text(node)),
                                             .resources = *std::move(resources),
                                             .kind = kind == ALLOCORE_FOREIGN_STATIC
                                                         ? allocore::ForeignKind::kStatic
                                                         : allocore::ForeignKind::kDefault};
  ApplyInto(kernel, out, errptr, spec, [&](allocore::Kernel& k, std::vector<Decision>* target) {
    return k.AddForeignAllocation(spec, target);
  });
}

void allocore_update_foreign(allocore_kernel_t* kernel, const char* partition, const char* id,
                             const char* node, const char* const* types, const int64_t* values,
                             size_t count, allocore_decisions_t* out, char** errptr) {
  std::optional<allocore::Quantities> resources = QuantityArrays(types, values, count, errptr);
  if (!resources) return;
  const allocore::ForeignAllocationUpdate update{.partition = Partition(partition),
                                                 .id = std::string(Text(id)),
                                                 .node = std::string(Text(node)),
                                                 .resources = *std::move(resources)};
  ApplyInto(kernel, out, errptr, update, [&](allocore::Kernel& k, std::vector<Decision>* target) {
    return k.UpdateForeignAllocation(update, target);
  });
}

void allocore_remove_foreign(allocore_kernel_t* kernel, const char* partition, const char* id,
                             allocore_decisions_t* out, char** errptr) {
  ChangeInto(
      kernel, out, errptr, __func__,
      [&] {
        return allocore::Event(allocore::RemoveForeignAllocationEvent{
            .partition = Partition(partition), .id = std::string(Text(id))});
      },
      [&](std::vector<Decision>* target) {
        return kernel->kernel->RemoveForeignAllocation(Partition(partition), Text(id), target);
      });
}

// --- clock and scheduling ------------------------------------------------------------------

void allocore_advance(allocore_kernel_t* kernel, int64_t millis, allocore_decisions_t* out,
                      char** errptr) {
  ApplyInto(kernel, out, errptr, allocore::AdvanceEvent{millis},
            [&](allocore::Kernel& k, std::vector<Decision>* target) {
              return k.Advance(millis, target);
            });
}

int64_t allocore_now_millis(const allocore_kernel_t* kernel) {
  return kernel->kernel->now_millis();
}

int64_t allocore_schedule(allocore_kernel_t* kernel, int64_t max, const char* partition,
                          allocore_decisions_t* out, char** errptr) {
  int64_t made = -1;
  WithOut(out, errptr, [&](std::vector<Decision>* target) {
    kernel->changed = true;
    if (kernel->recorder) {
      int64_t allocations = 0;
      absl::Status status = kernel->recorder->Apply(
          *kernel->kernel,
          allocore::ScheduleEvent{.partition = partition == nullptr ? "" : partition, .max = max},
          target, &allocations);
      if (status.ok()) made = allocations;
      return status;
    }
    absl::StatusOr<int64_t> result =
        kernel->kernel->Schedule(max, partition == nullptr ? "" : partition, target);
    if (result.ok()) made = *result;
    return result.status();
  });
  return made;
}

int64_t allocore_release_unused_names(allocore_kernel_t* kernel) {
  return kernel->kernel->ReleaseUnusedNames();
}

int64_t allocore_name_count(const allocore_kernel_t* kernel) {
  return kernel->kernel->name_count();
}

void allocore_usage(const allocore_kernel_t* kernel, int64_t* applications, int64_t* asks,
                    int64_t* live_allocations) {
  allocore::Kernel::Usage usage = kernel->kernel->usage();
  if (applications != nullptr) *applications = usage.applications;
  if (asks != nullptr) *asks = usage.asks;
  if (live_allocations != nullptr) *live_allocations = usage.live_allocations;
}

unsigned char allocore_allocation_budget_blocks(const allocore_kernel_t* kernel) {
  return kernel->kernel->allocation_budget_blocks() ? 1 : 0;
}

void allocore_check_consistency(const allocore_kernel_t* kernel, char** errptr) {
  (void)Ok(kernel->kernel->CheckConsistency(), errptr);
}

// --- decisions -----------------------------------------------------------------------------

allocore_decisions_t* allocore_decisions_create(void) { return new allocore_decisions_t; }
void allocore_decisions_destroy(allocore_decisions_t* decisions) { delete decisions; }
void allocore_decisions_clear(allocore_decisions_t* decisions) {
  decisions->decisions.clear();
  decisions->owned_index.clear();
  decisions->owned_names.clear();
  decisions->owned_quota.clear();
}
size_t allocore_decisions_count(const allocore_decisions_t* decisions) {
  return decisions == nullptr ? 0 : decisions->decisions.size();
}

// The C values are the kernel's DecisionType values.
static_assert(ALLOCORE_ALLOCATION == static_cast<int>(allocore::DecisionType::kAllocation));
static_assert(ALLOCORE_ASK_REMOVED == static_cast<int>(allocore::DecisionType::kAskRemoved));
static_assert(ALLOCORE_PREEMPTION == static_cast<int>(allocore::DecisionType::kPreemption));
static_assert(ALLOCORE_RECOVERED == static_cast<int>(allocore::DecisionType::kRecovered));
static_assert(ALLOCORE_QUOTA_PREEMPTION ==
              static_cast<int>(allocore::DecisionType::kQuotaPreemption));

int allocore_decision_type(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? -1 : static_cast<int>(d->type);
}

#define ALLOCORE_DECISION_NAME(field)                                                    \
  const char* allocore_decision_##field(const allocore_decisions_t* decisions, size_t i, \
                                        size_t* len) {                                   \
    const Decision* d = At(decisions, i);                                                \
    return Name(d == nullptr ? std::string_view() : std::string_view(d->field), len);    \
  }
ALLOCORE_DECISION_NAME(partition)
ALLOCORE_DECISION_NAME(queue)
ALLOCORE_DECISION_NAME(app)
ALLOCORE_DECISION_NAME(ask)
ALLOCORE_DECISION_NAME(node)
ALLOCORE_DECISION_NAME(reason)
ALLOCORE_DECISION_NAME(replaces)
ALLOCORE_DECISION_NAME(by_app)
ALLOCORE_DECISION_NAME(by_ask)
#undef ALLOCORE_DECISION_NAME

int32_t allocore_decision_priority(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? 0 : d->priority;
}
int64_t allocore_decision_seq(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? 0 : d->seq;
}
// The state and reason names are string literals: NUL-terminated and never freed.
const char* allocore_decision_from_state(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? "" : allocore::AppStateName(d->from).data();
}
const char* allocore_decision_to_state(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? "" : allocore::AppStateName(d->to).data();
}
const char* allocore_decision_release_reason(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? "" : allocore::ReleaseReasonName(d->release_reason).data();
}
unsigned char allocore_decision_placeholder(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d != nullptr && d->placeholder ? 1 : 0;
}
int64_t allocore_decision_count(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? 0 : d->count;
}

const char* allocore_decision_by_queue(const allocore_decisions_t* decisions, size_t i,
                                       size_t* len) {
  const Decision* d = At(decisions, i);
  return Name(d != nullptr && d->quota != nullptr ? d->quota->queue : std::string_view(), len);
}

static int64_t QuantityOf(const allocore::Resource* r, int type, unsigned char* present) {
  const bool set = r != nullptr && type >= 0 && type < allocore::kMaxResourceTypes && r->Has(type);
  if (present != nullptr) *present = set ? 1 : 0;
  return set ? r->Get(type) : 0;
}
int64_t allocore_decision_quota_max(const allocore_decisions_t* decisions, size_t i, int type,
                                    unsigned char* present) {
  const Decision* d = At(decisions, i);
  const allocore::Resource* max =
      d != nullptr && d->quota != nullptr && d->quota->max ? &*d->quota->max : nullptr;
  return QuantityOf(max, type, present);
}
int64_t allocore_decision_quota_preemptable(const allocore_decisions_t* decisions, size_t i,
                                            int type, unsigned char* present) {
  const Decision* d = At(decisions, i);
  return QuantityOf(d != nullptr && d->quota != nullptr ? &d->quota->preemptable : nullptr, type,
                    present);
}
allocore_handle_t allocore_decision_app_handle(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? kNoHandle : ToC(d->app_handle);
}
allocore_handle_t allocore_decision_ask_handle(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? kNoHandle : ToC(d->ask_handle);
}
allocore_handle_t allocore_decision_node_handle(const allocore_decisions_t* decisions, size_t i) {
  const Decision* d = At(decisions, i);
  return d == nullptr ? kNoHandle : ToC(d->node_handle);
}

// --- queries -------------------------------------------------------------------------------

size_t allocore_partition_count(const allocore_kernel_t* kernel) {
  return kernel->partition_names.size();
}
const char* allocore_partition_name(const allocore_kernel_t* kernel, size_t i) {
  return i < kernel->partition_names.size() ? kernel->partition_names[i].c_str() : "";
}
size_t allocore_resource_type_count(const allocore_kernel_t* kernel) {
  return static_cast<size_t>(kernel->kernel->resource_types().size());
}
const char* allocore_resource_type_name(const allocore_kernel_t* kernel, size_t i) {
  const allocore::ResourceTypes& types = kernel->kernel->resource_types();
  return i < static_cast<size_t>(types.size()) ? types.Name(static_cast<int>(i)).c_str() : "";
}

allocore_queues_t* allocore_list_queues(const allocore_kernel_t* kernel, const char* partition,
                                        char** errptr) {
  absl::StatusOr<std::vector<allocore::QueueInfo>> queues =
      kernel->kernel->ListQueues(Partition(partition));
  if (!Ok(queues.status(), errptr)) return nullptr;
  return new allocore_queues_t{*std::move(queues), &kernel->kernel->resource_types()};
}
allocore_queues_t* allocore_get_queue(const allocore_kernel_t* kernel, const char* partition,
                                      const char* path, char** errptr) {
  absl::StatusOr<allocore::QueueInfo> queue =
      kernel->kernel->GetQueue(Partition(partition), Text(path));
  if (!Ok(queue.status(), errptr)) return nullptr;
  return new allocore_queues_t{{*std::move(queue)}, &kernel->kernel->resource_types()};
}
allocore_handle_t allocore_find_queue(const allocore_kernel_t* kernel, const char* partition,
                                      const char* path, char** errptr) {
  auto p = kernel->kernel->FindPartition(Partition(partition));
  if (!Ok(p.status(), errptr)) return kNoHandle;
  return HandleOrError(kernel->kernel->FindQueue(*p, Text(path)), errptr);
}
allocore_queues_t* allocore_get_queue_by_handle(const allocore_kernel_t* kernel,
                                                allocore_handle_t queue, char** errptr) {
  absl::StatusOr<allocore::QueueInfo> info =
      kernel->kernel->GetQueue(FromC<allocore::QueueHandle>(queue));
  if (!Ok(info.status(), errptr)) return nullptr;
  return new allocore_queues_t{{*std::move(info)}, &kernel->kernel->resource_types()};
}
allocore_nodes_t* allocore_list_nodes(const allocore_kernel_t* kernel, const char* partition,
                                      char** errptr) {
  absl::StatusOr<std::vector<allocore::NodeInfo>> nodes =
      kernel->kernel->ListNodes(Partition(partition));
  if (!Ok(nodes.status(), errptr)) return nullptr;
  return new allocore_nodes_t{*std::move(nodes), &kernel->kernel->resource_types()};
}
void allocore_nodes_destroy(allocore_nodes_t* nodes) { delete nodes; }
size_t allocore_nodes_count(const allocore_nodes_t* nodes) {
  return nodes == nullptr ? 0 : nodes->nodes.size();
}

allocore_allocations_t* allocore_list_allocations(const allocore_kernel_t* kernel,
                                                  const char* partition, const char* app,
                                                  const char* node, char** errptr) {
  absl::StatusOr<std::vector<allocore::AllocationInfo>> allocations =
      kernel->kernel->ListAllocations(Partition(partition), Text(app), Text(node));
  if (!Ok(allocations.status(), errptr)) return nullptr;
  return new allocore_allocations_t{*std::move(allocations), &kernel->kernel->resource_types()};
}
void allocore_allocations_destroy(allocore_allocations_t* allocations) { delete allocations; }
size_t allocore_allocations_count(const allocore_allocations_t* allocations) {
  return allocations == nullptr ? 0 : allocations->allocations.size();
}

void allocore_queues_destroy(allocore_queues_t* queues) { delete queues; }
size_t allocore_queues_count(const allocore_queues_t* queues) {
  return queues == nullptr ? 0 : queues->queues.size();
}

namespace {
const allocore::QueueInfo* QueueAt(const allocore_queues_t* queues, size_t i) {
  return queues != nullptr && i < queues->queues.size() ? &queues->queues[i] : nullptr;
}
}  // namespace

namespace {
const allocore::NodeInfo* NodeAt(const allocore_nodes_t* nodes, size_t i) {
  return nodes != nullptr && i < nodes->nodes.size() ? &nodes->nodes[i] : nullptr;
}
const allocore::AllocationInfo* AllocationAt(const allocore_allocations_t* allocations, size_t i) {
  return allocations != nullptr && i < allocations->allocations.size()
             ? &allocations->allocations[i]
             : nullptr;
}
}  // namespace

const char* allocore_nodes_id(const allocore_nodes_t* nodes, size_t i) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return n == nullptr ? "" : n->id.c_str();
}
int64_t allocore_nodes_capacity(const allocore_nodes_t* nodes, size_t i, const char* type,
                                unsigned char* present) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return Quantity(n == nullptr ? nullptr : &n->capacity, nodes->types, type, present);
}
int64_t allocore_nodes_allocated(const allocore_nodes_t* nodes, size_t i, const char* type,
                                 unsigned char* present) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return Quantity(n == nullptr ? nullptr : &n->allocated, nodes->types, type, present);
}
int64_t allocore_nodes_occupied(const allocore_nodes_t* nodes, size_t i, const char* type,
                                unsigned char* present) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return Quantity(n == nullptr ? nullptr : &n->occupied, nodes->types, type, present);
}
int64_t allocore_nodes_available(const allocore_nodes_t* nodes, size_t i, const char* type,
                                 unsigned char* present) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return Quantity(n == nullptr ? nullptr : &n->available, nodes->types, type, present);
}
unsigned char allocore_nodes_schedulable(const allocore_nodes_t* nodes, size_t i) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return n != nullptr && n->schedulable ? 1 : 0;
}
int64_t allocore_nodes_allocation_count(const allocore_nodes_t* nodes, size_t i) {
  const allocore::NodeInfo* n = NodeAt(nodes, i);
  return n == nullptr ? 0 : n->allocations;
}
const char* allocore_allocations_app(const allocore_allocations_t* allocations, size_t i) {
  const allocore::AllocationInfo* a = AllocationAt(allocations, i);
  return a == nullptr ? "" : a->app.c_str();
}
const char* allocore_allocations_ask(const allocore_allocations_t* allocations, size_t i) {
  const allocore::AllocationInfo* a = AllocationAt(allocations, i);
  return a == nullptr ? "" : a->ask.c_str();
}
const char* allocore_allocations_node(const allocore_allocations_t* allocations, size_t i) {
  const allocore::AllocationInfo* a = AllocationAt(allocations, i);
  return a == nullptr ? "" : a->node.c_str();
}
int64_t allocore_allocations_seq(const allocore_allocations_t* allocations, size_t i) {
  const allocore::AllocationInfo* a = AllocationAt(allocations, i);
  return a == nullptr ? 0 : a->seq;
}
int64_t allocore_allocations_resource(const allocore_allocations_t* allocations, size_t i,
                                      const char* type, unsigned char* present) {
  const allocore::AllocationInfo* a = AllocationAt(allocations, i);
  return Quantity(a == nullptr ? nullptr : &a->resources, allocations->types, type, present);
}
unsigned char allocore_allocations_placeholder(const allocore_allocations_t* allocations,
                                               size_t i) {
  const allocore::AllocationInfo* a = AllocationAt(allocations, i);
  return a != nullptr && a->placeholder ? 1 : 0;
}

const char* allocore_queue_path(const allocore_queues_t* queues, size_t i) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return q == nullptr ? "" : q->path.c_str();
}
unsigned char allocore_queue_is_leaf(const allocore_queues_t* queues, size_t i) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return q != nullptr && q->is_leaf ? 1 : 0;
}
const char* allocore_queue_state(const allocore_queues_t* queues, size_t i) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return q == nullptr ? "" : q->state.c_str();
}
int32_t allocore_queue_priority(const allocore_queues_t* queues, size_t i,
                                unsigned char* has_pending) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  if (has_pending != nullptr) *has_pending = q != nullptr && q->has_pending_priority ? 1 : 0;
  return q == nullptr ? 0 : q->priority;
}
uint64_t allocore_queue_running_applications(const allocore_queues_t* queues, size_t i) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return q == nullptr ? 0 : q->running_applications;
}
int64_t allocore_queue_allocated(const allocore_queues_t* queues, size_t i, const char* type,
                                 unsigned char* present) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return Quantity(q == nullptr ? nullptr : &q->allocated, queues->types, type, present);
}
int64_t allocore_queue_pending(const allocore_queues_t* queues, size_t i, const char* type,
                               unsigned char* present) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return Quantity(q == nullptr ? nullptr : &q->pending, queues->types, type, present);
}
int64_t allocore_queue_guaranteed(const allocore_queues_t* queues, size_t i, const char* type,
                                  unsigned char* present) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return Quantity(q == nullptr || !q->guaranteed ? nullptr : &*q->guaranteed, queues->types, type,
                  present);
}
int64_t allocore_queue_max(const allocore_queues_t* queues, size_t i, const char* type,
                           unsigned char* present) {
  const allocore::QueueInfo* q = QueueAt(queues, i);
  return Quantity(q == nullptr || !q->max ? nullptr : &*q->max, queues->types, type, present);
}

allocore_app_info_t* allocore_get_app(const allocore_kernel_t* kernel, const char* partition,
                                      const char* id, char** errptr) {
  absl::StatusOr<allocore::AppInfo> info =
      kernel->kernel->GetApplication(Partition(partition), Text(id));
  if (!Ok(info.status(), errptr)) return nullptr;
  return new allocore_app_info_t{*std::move(info), &kernel->kernel->resource_types()};
}
void allocore_app_info_destroy(allocore_app_info_t* info) { delete info; }
const char* allocore_app_info_queue(const allocore_app_info_t* info) {
  return info == nullptr ? "" : info->info.queue.c_str();
}
const char* allocore_app_info_state(const allocore_app_info_t* info) {
  return info == nullptr ? "" : allocore::AppStateName(info->info.state).data();
}
int64_t allocore_app_info_allocated(const allocore_app_info_t* info, const char* type,
                                    unsigned char* present) {
  return Quantity(info == nullptr ? nullptr : &info->info.allocated,
                  info == nullptr ? nullptr : info->types, type, present);
}
int64_t allocore_app_info_pending(const allocore_app_info_t* info, const char* type,
                                  unsigned char* present) {
  return Quantity(info == nullptr ? nullptr : &info->info.pending,
                  info == nullptr ? nullptr : info->types, type, present);
}

allocore_apps_t* allocore_list_apps(const allocore_kernel_t* kernel, const char* partition,
                                    char** errptr) {
  absl::StatusOr<std::vector<allocore::AppInfo>> apps =
      kernel->kernel->ListApplications(Partition(partition));
  if (!Ok(apps.status(), errptr)) return nullptr;
  return new allocore_apps_t{*std::move(apps), &kernel->kernel->resource_types()};
}
void allocore_apps_destroy(allocore_apps_t* apps) { delete apps; }
size_t allocore_apps_count(const allocore_apps_t* apps) {
  return apps == nullptr ? 0 : apps->apps.size();
}

namespace {
const allocore::AppInfo* AppAt(const allocore_apps_t* apps, size_t i) {
  return apps != nullptr && i < apps->apps.size() ? &apps->apps[i] : nullptr;
}
}  // namespace

const char* allocore_apps_id(const allocore_apps_t* apps, size_t i) {
  const allocore::AppInfo* a = AppAt(apps, i);
  return a == nullptr ? "" : a->id.c_str();
}
const char* allocore_apps_queue(const allocore_apps_t* apps, size_t i) {
  const allocore::AppInfo* a = AppAt(apps, i);
  return a == nullptr ? "" : a->queue.c_str();
}
const char* allocore_apps_state(const allocore_apps_t* apps, size_t i) {
  const allocore::AppInfo* a = AppAt(apps, i);
  return a == nullptr ? "" : allocore::AppStateName(a->state).data();
}
int64_t allocore_apps_allocated(const allocore_apps_t* apps, size_t i, const char* type,
                                unsigned char* present) {
  const allocore::AppInfo* a = AppAt(apps, i);
  return Quantity(a == nullptr ? nullptr : &a->allocated, apps == nullptr ? nullptr : apps->types,
                  type, present);
}
int64_t allocore_apps_pending(const allocore_apps_t* apps, size_t i, const char* type,
                              unsigned char* present) {
  const allocore::AppInfo* a = AppAt(apps, i);
  return Quantity(a == nullptr ? nullptr : &a->pending, apps == nullptr ? nullptr : apps->types,
                  type, present);
}

allocore_handle_t allocore_find_app(const allocore_kernel_t* kernel, const char* partition,
                                    const char* id, char** errptr) {
  auto p = kernel->kernel->FindPartition(Partition(partition));
  if (!Ok(p.status(), errptr)) return kNoHandle;
  return HandleOrError(kernel->kernel->FindApplication(*p, Text(id)), errptr);
}
allocore_handle_t allocore_find_ask(const allocore_kernel_t* kernel, allocore_handle_t app,
                                    const char* id, char** errptr) {
  return HandleOrError(kernel->kernel->FindAsk(FromC<allocore::AppHandle>(app), Text(id)), errptr);
}
allocore_handle_t allocore_find_node(const allocore_kernel_t* kernel, const char* partition,
                                     const char* id, char** errptr) {
  auto p = kernel->kernel->FindPartition(Partition(partition));
  if (!Ok(p.status(), errptr)) return kNoHandle;
  return HandleOrError(kernel->kernel->FindNode(*p, Text(id)), errptr);
}
allocore_handle_t allocore_find_app_n(const allocore_kernel_t* kernel, const char* partition,
                                      const char* id, size_t id_len, char** errptr) {
  auto p = kernel->kernel->FindPartition(Partition(partition));
  if (!Ok(p.status(), errptr)) return kNoHandle;
  return HandleOrError(kernel->kernel->FindApplication(*p, Text(id, id_len)), errptr);
}
allocore_handle_t allocore_find_ask_n(const allocore_kernel_t* kernel, allocore_handle_t app,
                                      const char* id, size_t id_len, char** errptr) {
  return HandleOrError(kernel->kernel->FindAsk(FromC<allocore::AppHandle>(app), Text(id, id_len)),
                       errptr);
}
allocore_handle_t allocore_find_node_n(const allocore_kernel_t* kernel, const char* partition,
                                       const char* id, size_t id_len, char** errptr) {
  auto p = kernel->kernel->FindPartition(Partition(partition));
  if (!Ok(p.status(), errptr)) return kNoHandle;
  return HandleOrError(kernel->kernel->FindNode(*p, Text(id, id_len)), errptr);
}
int allocore_resource_type_id(allocore_kernel_t* kernel, const char* name, char** errptr) {
  absl::StatusOr<int> id = kernel->kernel->ResourceTypeId(Text(name));
  return Ok(id.status(), errptr) ? *id : -1;
}
allocore_handle_t allocore_add_ask_by_handle(allocore_kernel_t* kernel, allocore_handle_t app,
                                             const char* id, const int64_t* quantities,
                                             uint32_t mask, int32_t priority, int64_t count,
                                             allocore_decisions_t* out, char** errptr) {
  allocore::AskArgs args{.id = Text(id), .priority = priority, .count = count};
  if ((mask >> allocore::kMaxResourceTypes) != 0) {
    InvalidArgument(errptr, "the quantity mask names a type id of 8 or more");
    return kNoHandle;
  }
  for (int t = 0; t < allocore::kMaxResourceTypes; ++t) {
    if ((mask >> t) & 1u) {
      if (quantities == nullptr) {
        InvalidArgument(errptr, "a quantity mask without quantities");
        return kNoHandle;
      }
      args.resources.Set(t, quantities[t]);
    }
  }
  std::vector<Decision> scratch;
  std::vector<Decision>* target = out != nullptr ? &out->decisions : &scratch;
  kernel->changed = true;
  if (kernel->recorder) {
    allocore::AddAskByHandleEvent event{.app = FromC<allocore::AppHandle>(app)};
    event.ask.id = std::string(args.id);
    event.ask.resources = args.resources;
    allocore::CopyAskOptions(args, event.ask);
    absl::Status status = kernel->recorder->Apply(*kernel->kernel, event, target);
    if (!Ok(status, errptr)) return kNoHandle;
    return HandleOrError(kernel->kernel->FindAsk(event.app, event.ask.id), errptr);
  }
  absl::StatusOr<allocore::AskHandle> added =
      kernel->kernel->AddAsk(FromC<allocore::AppHandle>(app), args, target);
  return HandleOrError(added, errptr);
}
void allocore_remove_ask_by_handle(allocore_kernel_t* kernel, allocore_handle_t ask,
                                   allocore_decisions_t* out, char** errptr) {
  WithOut(out, errptr, [&](std::vector<Decision>* o) {
    return Change(
        kernel, o,
        [&] {
          return allocore::Event(allocore::RemoveAskByHandleEvent{FromC<allocore::AskHandle>(ask)});
        },
        [&] { return kernel->kernel->RemoveAsk(FromC<allocore::AskHandle>(ask), o); });
  });
}
void allocore_release_by_handle(allocore_kernel_t* kernel, allocore_handle_t ask,
                                allocore_handle_t node, allocore_decisions_t* out, char** errptr) {
  WithOut(out, errptr, [&](std::vector<Decision>* o) {
    return Change(
        kernel, o,
        [&] {
          return allocore::Event(allocore::ReleaseByHandleEvent{
              .ask = FromC<allocore::AskHandle>(ask), .node = FromC<allocore::NodeHandle>(node)});
        },
        [&] {
          return kernel->kernel->ReleaseAllocation(FromC<allocore::AskHandle>(ask),
                                                   FromC<allocore::NodeHandle>(node), o);
        });
  });
}
void allocore_release_by_handle_seq(allocore_kernel_t* kernel, allocore_handle_t ask,
                                    allocore_handle_t node, int64_t seq, allocore_decisions_t* out,
                                    char** errptr) {
  if (seq <= 0) {
    InvalidArgument(errptr, absl::StrCat("seq must be > 0, got ", seq));
    return;
  }
  WithOut(out, errptr, [&](std::vector<Decision>* o) {
    return Change(
        kernel, o,
        [&] {
          return allocore::Event(
              allocore::ReleaseByHandleEvent{.ask = FromC<allocore::AskHandle>(ask),
                                             .node = FromC<allocore::NodeHandle>(node),
                                             .seq = seq});
        },
        [&] {
          return kernel->kernel->ReleaseAllocation(FromC<allocore::AskHandle>(ask),
                                                   FromC<allocore::NodeHandle>(node), seq, o);
        });
  });
}
void allocore_remove_app_by_handle(allocore_kernel_t* kernel, allocore_handle_t app,
                                   allocore_decisions_t* out, char** errptr) {
  WithOut(out, errptr, [&](std::vector<Decision>* o) {
    return Change(
        kernel, o,
        [&] {
          return allocore::Event(
              allocore::RemoveApplicationByHandleEvent{FromC<allocore::AppHandle>(app)});
        },
        [&] { return kernel->kernel->RemoveApplication(FromC<allocore::AppHandle>(app), o); });
  });
}
void allocore_remove_node_by_handle(allocore_kernel_t* kernel, allocore_handle_t node,
                                    allocore_decisions_t* out, char** errptr) {
  WithOut(out, errptr, [&](std::vector<Decision>* o) {
    return Change(
        kernel, o,
        [&] {
          return allocore::Event(
              allocore::RemoveNodeByHandleEvent{FromC<allocore::NodeHandle>(node)});
        },
        [&] { return kernel->kernel->RemoveNode(FromC<allocore::NodeHandle>(node), o); });
  });
}

allocore_probe_t* allocore_probe(const allocore_kernel_t* kernel, const allocore_ask_t* ask,
                                 char** errptr) {
  absl::StatusOr<allocore::ProbeResult> result = kernel->kernel->Probe(ask->spec);
  if (!Ok(result.status(), errptr)) return nullptr;
  return new allocore_probe_t{*std::move(result)};
}
void allocore_probe_destroy(allocore_probe_t* probe) { delete probe; }
const char* allocore_probe_queue(const allocore_probe_t* probe) {
  return probe == nullptr ? "" : probe->result.queue.c_str();
}
const char* allocore_probe_node(const allocore_probe_t* probe) {
  return probe == nullptr || probe->result.node.empty() ? nullptr : probe->result.node.c_str();
}
const char* allocore_probe_reason(const allocore_probe_t* probe) {
  return probe == nullptr || probe->result.reason.empty() ? nullptr : probe->result.reason.c_str();
}
int64_t allocore_probe_preemption_victims(const allocore_probe_t* probe) {
  return probe == nullptr ? 0 : probe->result.preemption_victims;
}

allocore_explanations_t* allocore_explain_pending(const allocore_kernel_t* kernel) {
  return new allocore_explanations_t{kernel->kernel->ExplainPending()};
}
void allocore_explanations_destroy(allocore_explanations_t* explanations) { delete explanations; }
size_t allocore_explanations_count(const allocore_explanations_t* explanations) {
  return explanations == nullptr ? 0 : explanations->explanations.size();
}

namespace {
const allocore::PendingExplanation* ExplanationAt(const allocore_explanations_t* e, size_t i) {
  return e != nullptr && i < e->explanations.size() ? &e->explanations[i] : nullptr;
}
}  // namespace

const char* allocore_explanation_app(const allocore_explanations_t* explanations, size_t i) {
  const allocore::PendingExplanation* e = ExplanationAt(explanations, i);
  return e == nullptr ? "" : e->app.c_str();
}
const char* allocore_explanation_ask(const allocore_explanations_t* explanations, size_t i) {
  const allocore::PendingExplanation* e = ExplanationAt(explanations, i);
  return e == nullptr ? "" : e->ask.c_str();
}
int64_t allocore_explanation_pending_count(const allocore_explanations_t* explanations, size_t i) {
  const allocore::PendingExplanation* e = ExplanationAt(explanations, i);
  return e == nullptr ? 0 : e->pending_count;
}
const char* allocore_explanation_reason(const allocore_explanations_t* explanations, size_t i) {
  const allocore::PendingExplanation* e = ExplanationAt(explanations, i);
  return e == nullptr ? "" : e->reason.c_str();
}

}  // extern "C"

// allocore/c_service.h over KernelService: the service's sink turns every batch into an owned
// allocore_batch_t that waits in a queue until the caller takes it, so C needs no callback and
// a batch outlives the kernel names it was made with.
#include "allocore/c_service.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "allocore/adapters/kernel_service.h"
#include "allocore/c.h"
#include "c_internal.h"

using allocore::adapters::KernelService;

struct allocore_batch_t {
  uint64_t first_seq = 0;
  uint64_t last_seq = 0;
  int64_t allocations = 0;
  allocore_decisions_t decisions;
  std::vector<allocore_receipt_t> receipts;
  std::vector<std::string> messages;  // per receipt: "" or the refusal
};

struct allocore_snapshot_t {
  std::shared_ptr<const KernelService::Snapshot> snapshot;
  std::shared_ptr<allocore::ResourceTypes> types;  // the snapshot's names as a registry
};

struct allocore_service_t {
  std::unique_ptr<KernelService> service;
  bool discard_batches = false;
  // Submits hold it shared; close holds it exclusively, so no event is queued after the
  // scheduler thread drained the queue and stopped.
  std::shared_mutex lifecycle;
  bool closed = false;
  // Applied batches waiting to be taken.
  std::mutex batches_mutex;
  std::condition_variable batch_ready;
  std::deque<std::unique_ptr<allocore_batch_t>> batches;
  bool stopped = false;  // the scheduler thread is gone: no batch will come
};

namespace {

using allocore::c_abi::InvalidArgument;
using allocore::c_abi::Ok;
using allocore::c_abi::Partition;
using allocore::c_abi::SetError;
using allocore::c_abi::Text;
using allocore::c_abi::ToC;

// As decisions give them (an invalid handle's slot is ALLOCORE_NO_HANDLE).
allocore_handle_t HandleOf(const auto& handle) { return ToC(handle); }

std::unique_ptr<allocore_batch_t> Own(const KernelService::Batch& batch) {
  auto owned = std::make_unique<allocore_batch_t>();
  owned->first_seq = batch.first_seq;
  owned->last_seq = batch.last_seq;
  owned->allocations = batch.allocations;
  allocore::c_abi::AppendOwned(batch.decisions, &owned->decisions);
  owned->receipts.reserve(batch.receipts.size());
  owned->messages.reserve(batch.receipts.size());
  for (const KernelService::Receipt& receipt : batch.receipts) {
    owned->receipts.push_back({.seq = receipt.seq,
                               .code = static_cast<int32_t>(receipt.status.code()),
                               .reserved = 0,
                               .app = HandleOf(receipt.app),
                               .ask = HandleOf(receipt.ask),
                               .node = HandleOf(receipt.node)});
    owned->messages.emplace_back(receipt.status.message().data(), receipt.status.message().size());
  }
  return owned;
}

// Queues `event` unless the service is closed or full; 0 with the error set then.
uint64_t Submit(allocore_service_t* service, allocore::Event event, char** errptr,
                const char* call) {
  std::shared_lock<std::shared_mutex> lock(service->lifecycle);
  if (service->closed) {
    SetError(errptr, absl::StatusCode::kFailedPrecondition, "the service is closed", call);
    return 0;
  }
  uint64_t seq = service->service->Submit(std::move(event));
  if (seq == 0) {
    SetError(errptr, absl::StatusCode::kResourceExhausted,
             "max_queued events are already waiting; nothing was queued", call);
  }
  return seq;
}

allocore_snapshot_t* Wrap(std::shared_ptr<const KernelService::Snapshot> snapshot) {
  auto* wrapped = new allocore_snapshot_t;
  wrapped->types = std::make_shared<allocore::ResourceTypes>();
  for (const std::string& name : snapshot->resource_types) (void)wrapped->types->Intern(name);
  wrapped->snapshot = std::move(snapshot);
  return wrapped;
}

void Close(allocore_service_t* service) {
  {
    std::unique_lock<std::shared_mutex> lock(service->lifecycle);
    if (service->closed) return;
    service->closed = true;
    service->service->Stop();  // applies what is queued; the sink sees every batch
  }
  std::lock_guard<std::mutex> lock(service->batches_mutex);
  service->stopped = true;
  service->batch_ready.notify_all();
}

}  // namespace

extern "C" {

allocore_service_t* allocore_service_create(const char* yaml, size_t len, const char* source_name,
                                            const allocore_service_options_t* options,
                                            char** errptr) {
  try {
    const allocore_service_options_t none{};
    const allocore_service_options_t& given = options != nullptr ? *options : none;
    absl::StatusOr<allocore::KernelOptions> kernel_options = allocore::c_abi::KernelOptionsOf(
        given.max_applications, given.max_asks, given.max_live_allocations, given.semantics);
    if (!Ok(kernel_options.status(), errptr)) return nullptr;
    KernelService::Options service_options;
    service_options.max_batch = given.max_batch;
    service_options.max_queued = given.max_queued;
    if (given.record_path != nullptr) service_options.record_path = given.record_path;
    service_options.snapshot_inventory = given.snapshot_inventory != 0;
    auto service = std::make_unique<allocore_service_t>();
    service->discard_batches = given.discard_batches != 0;
    absl::StatusOr<allocore::SchedulerConfig> config =
        allocore::c_abi::ConfigFromYaml(yaml, len, source_name, kernel_options->semantics);
    if (!Ok(config.status(), errptr)) return nullptr;
    allocore_service_t* raw = service.get();
    KernelService::BatchSink sink = [raw](const KernelService::Batch& batch) {
      if (raw->discard_batches) return;
      std::unique_ptr<allocore_batch_t> owned = Own(batch);
      std::lock_guard<std::mutex> lock(raw->batches_mutex);
      raw->batches.push_back(std::move(owned));
      raw->batch_ready.notify_all();
    };
    absl::StatusOr<std::unique_ptr<KernelService>> created = KernelService::Create(
        *std::move(config), *kernel_options, std::move(sink), std::move(service_options));
    if (!Ok(created.status(), errptr)) return nullptr;
    service->service = *std::move(created);
    service->service->Start();
    return service.release();
  } catch (const std::bad_alloc&) {
    SetError(errptr, absl::StatusCode::kResourceExhausted, "out of memory");
    return nullptr;
  }
}

void allocore_service_close(allocore_service_t* service) { Close(service); }

void allocore_service_destroy(allocore_service_t* service) {
  if (service == nullptr) return;
  Close(service);
  delete service;
}

uint64_t allocore_service_add_node(allocore_service_t* service, const allocore_node_t* node,
                                   char** errptr) {
  return Submit(service, NodeToAdd(*node), errptr, __func__);
}
uint64_t allocore_service_update_node(allocore_service_t* service, const allocore_node_t* node,
                                      char** errptr) {
  return Submit(service, node->spec, errptr, __func__);
}
uint64_t allocore_service_remove_node(allocore_service_t* service, const char* partition,
                                      const char* id, size_t id_len, char** errptr) {
  return Submit(service,
                allocore::RemoveNodeEvent{.partition = Partition(partition),
                                          .id = std::string(Text(id, id_len))},
                errptr, __func__);
}
uint64_t allocore_service_add_app(allocore_service_t* service, const allocore_app_t* app,
                                  char** errptr) {
  return Submit(service, app->spec, errptr, __func__);
}
uint64_t allocore_service_remove_app(allocore_service_t* service, const char* partition,
                                     const char* id, size_t id_len, char** errptr) {
  return Submit(service,
                allocore::RemoveApplicationEvent{.partition = Partition(partition),
                                                 .id = std::string(Text(id, id_len))},
                errptr, __func__);
}
uint64_t allocore_service_add_ask(allocore_service_t* service, const allocore_ask_t* ask,
                                  char** errptr) {
  return Submit(service, ask->spec, errptr, __func__);
}
uint64_t allocore_service_remove_ask(allocore_service_t* service, const char* partition,
                                     const char* app, size_t app_len, const char* ask,
                                     size_t ask_len, char** errptr) {
  return Submit(service,
                allocore::RemoveAskEvent{.partition = Partition(partition),
                                         .app = std::string(Text(app, app_len)),
                                         .ask = std::string(Text(ask, ask_len))},
                errptr, __func__);
}
uint64_t allocore_service_release(allocore_service_t* service, const char* partition,
                                  const char* app, size_t app_len, const char* ask, size_t ask_len,
                                  const char* node, size_t node_len, int64_t seq, char** errptr) {
  if (seq < 0) {
    InvalidArgument(errptr, absl::StrCat("seq must be >= 0 (0: the oldest allocation), got ", seq));
    return 0;
  }
  return Submit(service,
                allocore::ReleaseEvent{.partition = Partition(partition),
                                       .app = std::string(Text(app, app_len)),
                                       .ask = std::string(Text(ask, ask_len)),
                                       .node = std::string(Text(node, node_len)),
                                       .seq = seq},
                errptr, __func__);
}
uint64_t allocore_service_advance(allocore_service_t* service, int64_t millis, char** errptr) {
  return Submit(service, allocore::AdvanceEvent{.millis = millis}, errptr, __func__);
}
uint64_t allocore_service_update_config(allocore_service_t* service, const char* yaml, size_t len,
                                        const char* source_name, char** errptr) {
  allocore::Semantics semantics = allocore::Semantics::kYunikorn12;
  service->service->Inspect(
      [&](const allocore::Kernel& kernel) { semantics = kernel.options().semantics; });
  absl::StatusOr<allocore::SchedulerConfig> config =
      allocore::c_abi::ConfigFromYaml(yaml, len, source_name, semantics);
  if (!Ok(config.status(), errptr)) return 0;
  return Submit(service, allocore::UpdateConfigEvent{*std::move(config)}, errptr, __func__);
}

allocore_batch_t* allocore_service_next_batch(allocore_service_t* service, int64_t timeout_millis,
                                              char** errptr) {
  if (service->discard_batches) {
    SetError(errptr, absl::StatusCode::kFailedPrecondition,
             "the service discards its batches (allocore_service_options_t.discard_batches)");
    return nullptr;
  }
  std::unique_lock<std::mutex> lock(service->batches_mutex);
  auto ready = [&] { return !service->batches.empty() || service->stopped; };
  if (timeout_millis < 0) {
    service->batch_ready.wait(lock, ready);
  } else if (timeout_millis > 0 && !service->batch_ready.wait_for(
                                       lock, std::chrono::milliseconds(timeout_millis), ready)) {
    SetError(errptr, absl::StatusCode::kDeadlineExceeded,
             absl::StrCat("no batch was applied within ", timeout_millis, " ms"));
    return nullptr;
  }
  if (service->batches.empty()) {
    if (service->stopped) {
      SetError(errptr, absl::StatusCode::kCancelled,
               "the service is closed and every batch was taken");
    }
    return nullptr;
  }
  std::unique_ptr<allocore_batch_t> batch = std::move(service->batches.front());
  service->batches.pop_front();
  return batch.release();
}

void allocore_batch_destroy(allocore_batch_t* batch) { delete batch; }
uint64_t allocore_batch_first_seq(const allocore_batch_t* batch) {
  return batch == nullptr ? 0 : batch->first_seq;
}
uint64_t allocore_batch_last_seq(const allocore_batch_t* batch) {
  return batch == nullptr ? 0 : batch->last_seq;
}
int64_t allocore_batch_allocations(const allocore_batch_t* batch) {
  return batch == nullptr ? 0 : batch->allocations;
}
const allocore_decisions_t* allocore_batch_decisions(const allocore_batch_t* batch) {
  return batch == nullptr ? nullptr : &batch->decisions;
}
size_t allocore_batch_receipt_count(const allocore_batch_t* batch) {
  return batch == nullptr ? 0 : batch->receipts.size();
}
int allocore_batch_receipt(const allocore_batch_t* batch, size_t i, allocore_receipt_t* receipt) {
  if (batch == nullptr || i >= batch->receipts.size() || receipt == nullptr) return 0;
  *receipt = batch->receipts[i];
  return 1;
}
const char* allocore_batch_receipt_message(const allocore_batch_t* batch, size_t i) {
  if (batch == nullptr || i >= batch->messages.size()) return "";
  return batch->messages[i].c_str();
}

allocore_snapshot_t* allocore_service_wait_applied(allocore_service_t* service, uint64_t seq,
                                                   int64_t timeout_millis, char** errptr) {
  absl::StatusOr<std::shared_ptr<const KernelService::Snapshot>> snapshot =
      timeout_millis < 0
          ? service->service->WaitApplied(seq)
          : service->service->WaitApplied(seq, std::chrono::milliseconds(timeout_millis));
  if (!Ok(snapshot.status(), errptr)) return nullptr;
  return Wrap(*std::move(snapshot));
}

allocore_snapshot_t* allocore_service_snapshot(const allocore_service_t* service) {
  return Wrap(service->service->snapshot());
}
void allocore_snapshot_destroy(allocore_snapshot_t* snapshot) { delete snapshot; }
uint64_t allocore_snapshot_applied_seq(const allocore_snapshot_t* snapshot) {
  return snapshot == nullptr ? 0 : snapshot->snapshot->applied_seq;
}
int64_t allocore_snapshot_now_millis(const allocore_snapshot_t* snapshot) {
  return snapshot == nullptr ? 0 : snapshot->snapshot->now_millis;
}
void allocore_snapshot_usage(const allocore_snapshot_t* snapshot, int64_t* applications,
                             int64_t* asks, int64_t* live_allocations) {
  const allocore::Kernel::Usage usage =
      snapshot == nullptr ? allocore::Kernel::Usage{} : snapshot->snapshot->usage;
  if (applications != nullptr) *applications = usage.applications;
  if (asks != nullptr) *asks = usage.asks;
  if (live_allocations != nullptr) *live_allocations = usage.live_allocations;
}
allocore_queues_t* allocore_snapshot_queues(const allocore_snapshot_t* snapshot,
                                            const char* partition, char** errptr) {
  const std::string name = Partition(partition);
  auto found = snapshot->snapshot->queues.find(name);
  if (found == snapshot->snapshot->queues.end()) {
    SetError(errptr, absl::StatusCode::kNotFound, absl::StrCat("unknown partition '", name, "'"));
    return nullptr;
  }
  auto* queues = new allocore_queues_t;
  queues->queues = found->second;
  queues->types = snapshot->types.get();
  queues->keep_types = snapshot->types;
  return queues;
}
const char* allocore_snapshot_app_state(const allocore_snapshot_t* snapshot, const char* partition,
                                        const char* id, size_t id_len, char** errptr) {
  auto found = snapshot->snapshot->apps.find({Partition(partition), std::string(Text(id, id_len))});
  if (found == snapshot->snapshot->apps.end()) {
    SetError(errptr, absl::StatusCode::kNotFound,
             absl::StrCat("no application '", std::string(Text(id, id_len)), "' in partition '",
                          Partition(partition), "'"));
    return nullptr;
  }
  return allocore::AppStateName(found->second).data();
}

int allocore_service_resource_type_id(allocore_service_t* service, const char* name,
                                      char** errptr) {
  absl::StatusOr<int> id = service->service->ResourceTypeId(Text(name));
  return Ok(id.status(), errptr) ? *id : -1;
}
allocore_handle_t allocore_service_find_app(const allocore_service_t* service,
                                            const char* partition, const char* id, size_t id_len,
                                            char** errptr) {
  return allocore::c_abi::HandleOrError(
      service->service->FindApplication(Partition(partition), Text(id, id_len)), errptr);
}
allocore_handle_t allocore_service_find_node(const allocore_service_t* service,
                                             const char* partition, const char* id, size_t id_len,
                                             char** errptr) {
  return allocore::c_abi::HandleOrError(
      service->service->FindNode(Partition(partition), Text(id, id_len)), errptr);
}
allocore_handle_t allocore_service_find_ask(const allocore_service_t* service,
                                            allocore_handle_t app, const char* id, size_t id_len,
                                            char** errptr) {
  return allocore::c_abi::HandleOrError(
      service->service->FindAsk(allocore::c_abi::FromC<allocore::AppHandle>(app), Text(id, id_len)),
      errptr);
}
uint64_t allocore_service_recover_allocation(allocore_service_t* service, const allocore_ask_t* ask,
                                             const char* node, size_t node_len, char** errptr) {
  return Submit(service,
                allocore::RecoverSpec{.ask = ask->spec, .node = std::string(Text(node, node_len))},
                errptr, __func__);
}
size_t allocore_snapshot_resource_type_count(const allocore_snapshot_t* snapshot) {
  return snapshot == nullptr ? 0 : snapshot->snapshot->resource_types.size();
}
const char* allocore_snapshot_resource_type_name(const allocore_snapshot_t* snapshot, size_t i) {
  if (snapshot == nullptr || i >= snapshot->snapshot->resource_types.size()) return "";
  return snapshot->snapshot->resource_types[i].c_str();
}
void allocore_service_record_check(const allocore_service_t* service, char** errptr) {
  (void)Ok(service->service->recording_status(), errptr);
}
void allocore_service_record_stop(allocore_service_t* service, char** errptr) {
  (void)Ok(service->service->StopRecording(), errptr);
}

}  // extern "C"

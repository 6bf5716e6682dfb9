#include "allocore/adapters/kernel_service.h"

#include <algorithm>
#include <iterator>
#include <type_traits>

namespace allocore::adapters {

std::map<std::string, int64_t> KernelService::Snapshot::Named(const Resource& resource) const {
  std::map<std::string, int64_t> named;
  for (size_t t = 0; t < resource_types.size(); ++t) {
    if (resource.Has(static_cast<int>(t)))
      named[resource_types[t]] = resource.Get(static_cast<int>(t));
  }
  return named;
}

absl::StatusOr<std::unique_ptr<KernelService>> KernelService::Create(SchedulerConfig config,
                                                                     KernelOptions kernel_options,
                                                                     BatchSink sink,
                                                                     Options options) {
  if (!options.durable_dir.empty()) {
    if (!options.record_path.empty()) {
      return absl::InvalidArgumentError(
          "KernelService::Options: record_path and durable_dir both set: the durable directory "
          "logs the events itself");
    }
    RestartReport report;
    absl::StatusOr<std::unique_ptr<DurableKernel>> durable =
        DurableKernel::Restart(options.durable_dir, options.durability, &report);
    if (!durable.ok() && durable.status().code() == absl::StatusCode::kNotFound) {
      report = {};
      durable = DurableKernel::Create(options.durable_dir, std::move(config), kernel_options,
                                      options.durability);
    }
    if (!durable.ok()) return durable.status();
    std::unique_ptr<KernelService> service(new KernelService(nullptr, *std::move(durable), nullptr,
                                                             std::move(sink), std::move(options)));
    service->restart_report_ = std::move(report);
    return service;
  }
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = Kernel::Create(config, kernel_options);
  if (!kernel.ok()) return kernel.status();
  std::unique_ptr<EventRecorder> recorder;
  if (!options.record_path.empty()) {
    absl::StatusOr<std::unique_ptr<EventRecorder>> opened =
        EventRecorder::Create(options.record_path, config, kernel_options, options.record_options);
    if (!opened.ok()) return opened.status();
    recorder = *std::move(opened);
  }
  return std::unique_ptr<KernelService>(new KernelService(
      *std::move(kernel), nullptr, std::move(recorder), std::move(sink), std::move(options)));
}

KernelService::KernelService(std::unique_ptr<Kernel> kernel, std::unique_ptr<DurableKernel> durable,
                             std::unique_ptr<EventRecorder> recorder, BatchSink sink,
                             Options options)
    : kernel_(std::move(kernel)),
      durable_(std::move(durable)),
      recorder_(std::move(recorder)),
      sink_(std::move(sink)),
      options_(std::move(options)) {
  // A restarted kernel's applications, in the states the kernel holds them in.
  for (const std::string& partition : this->kernel().PartitionNames()) {
    absl::StatusOr<std::vector<AppInfo>> apps = this->kernel().ListApplications(partition);
    if (!apps.ok()) continue;
    for (const AppInfo& app : *apps) app_states_[{partition, app.id}] = app.state;
  }
  snapshot_ = Picture(/*applied_seq=*/0);
}

KernelService::~KernelService() {
  Stop();
  StopRecording().IgnoreError();  // reported by recording_status() to whoever asked before
}

absl::Status KernelService::recording_status() const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  if (durable_) return durable_->status();
  return recorder_ ? recorder_->status() : absl::OkStatus();
}

absl::Status KernelService::StopRecording() {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  if (durable_) return durable_->status();  // a durable directory is never stopped
  return recorder_ ? recorder_->Close() : absl::OkStatus();
}

absl::Status KernelService::durable_status() const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  return durable_ ? durable_->status() : absl::OkStatus();
}

RestartReport KernelService::restart_report() const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  return restart_report_;
}

int64_t KernelService::durable_seq() const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  return durable_ ? durable_->durable_seq() : 0;
}

absl::Status KernelService::ApplyOne(const Event& event, std::vector<Decision>* out,
                                     int64_t* allocations) {
  if (durable_) {
    const bool was_durable = durable_->status().ok();
    absl::StatusOr<int64_t> seq = durable_->Apply(event, out, allocations);
    // Applied, but its record failed: the batch's sync reports it on the receipts and the
    // batch, while the event counts as applied (its decisions are in `out`).
    if (!seq.ok() && was_durable && !durable_->status().ok()) return absl::OkStatus();
    return seq.status();
  }
  if (recorder_) return recorder_->Apply(*kernel_, event, out, allocations);
  return ApplyEvent(*kernel_, event, out, allocations);
}

std::shared_ptr<KernelService::Snapshot> KernelService::Picture(uint64_t applied_seq) const {
  auto picture = std::make_shared<Snapshot>();
  picture->applied_seq = applied_seq;
  picture->now_millis = kernel().now_millis();
  picture->apps = app_states_;
  picture->usage = kernel().usage();
  const ResourceTypes& types = kernel().resource_types();
  for (int t = 0; t < types.size(); ++t) picture->resource_types.push_back(types.Name(t));
  for (const std::string& partition : kernel().PartitionNames()) {
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel().ListQueues(partition);
    if (queues.ok()) picture->queues[partition] = *std::move(queues);
    if (!options_.snapshot_inventory) continue;
    absl::StatusOr<std::vector<NodeInfo>> nodes = kernel().ListNodes(partition);
    if (nodes.ok()) picture->nodes[partition] = *std::move(nodes);
    absl::StatusOr<std::vector<AppInfo>> apps = kernel().ListApplications(partition);
    if (apps.ok()) picture->applications[partition] = *std::move(apps);
    absl::StatusOr<std::vector<AllocationInfo>> live = kernel().ListAllocations(partition, "", "");
    if (live.ok()) picture->allocations[partition] = *std::move(live);
  }
  return picture;
}

uint64_t KernelService::Enqueue(Event event, std::shared_ptr<std::promise<Receipt>> receipt) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (options_.max_queued != 0 && queue_.size() >= options_.max_queued) return 0;
    seq = next_seq_++;
    queue_.push_back({seq, std::move(event), std::move(receipt)});
  }
  queue_signal_.notify_one();
  return seq;
}

uint64_t KernelService::Submit(Event event) { return Enqueue(std::move(event), nullptr); }

std::future<KernelService::Receipt> KernelService::SubmitWithReceipt(Event event) {
  auto promise = std::make_shared<std::promise<Receipt>>();
  std::future<Receipt> future = promise->get_future();
  if (Enqueue(std::move(event), promise) == 0) {
    promise->set_value({.seq = 0,
                        .status = absl::ResourceExhaustedError(
                            "the service queue is full (Options::max_queued); nothing changed")});
  }
  return future;
}

std::shared_ptr<const KernelService::Snapshot> KernelService::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
}

absl::StatusOr<std::shared_ptr<const KernelService::Snapshot>> KernelService::WaitApplied(
    uint64_t seq) const {
  return WaitApplied(seq, std::chrono::milliseconds::max());
}

absl::StatusOr<std::shared_ptr<const KernelService::Snapshot>> KernelService::WaitApplied(
    uint64_t seq, std::chrono::milliseconds timeout) const {
  uint64_t issued;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    issued = next_seq_ - 1;
  }
  if (seq == 0 || seq > issued) {
    return absl::InvalidArgumentError("wait: sequence number " + std::to_string(seq) +
                                      " was never issued (issued so far: 1.." +
                                      std::to_string(issued) + ")");
  }
  std::unique_lock<std::mutex> lock(snapshot_mutex_);
  auto applied = [&] { return snapshot_->applied_seq >= seq; };
  // steady_clock's range is far shorter than milliseconds::max(): treat huge timeouts as none.
  if (timeout >= std::chrono::hours(24 * 365)) {
    snapshot_signal_.wait(lock, applied);
  } else if (!snapshot_signal_.wait_for(lock, timeout, applied)) {
    return absl::DeadlineExceededError("wait: sequence number " + std::to_string(seq) +
                                       " is not applied after " + std::to_string(timeout.count()) +
                                       " ms");
  }
  return snapshot_;
}

absl::StatusOr<int> KernelService::ResourceTypeId(std::string_view name) {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  return durable_ ? durable_->ResourceTypeId(name) : kernel_->ResourceTypeId(name);
}

std::vector<std::string> KernelService::ResourceTypeNames() const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  std::vector<std::string> names;
  const ResourceTypes& types = kernel().resource_types();
  for (int t = 0; t < types.size(); ++t) names.push_back(types.Name(t));
  return names;
}

absl::StatusOr<AppHandle> KernelService::FindApplication(std::string_view partition,
                                                         std::string_view id) const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  absl::StatusOr<PartitionHandle> p = kernel().FindPartition(partition);
  if (!p.ok()) return p.status();
  return kernel().FindApplication(*p, id);
}

absl::StatusOr<AskHandle> KernelService::FindAsk(AppHandle app, std::string_view id) const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  return kernel().FindAsk(app, id);
}

absl::StatusOr<NodeHandle> KernelService::FindNode(std::string_view partition,
                                                   std::string_view id) const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  absl::StatusOr<PartitionHandle> p = kernel().FindPartition(partition);
  if (!p.ok()) return p.status();
  return kernel().FindNode(*p, id);
}

void KernelService::Inspect(const std::function<void(const Kernel&)>& read) const {
  std::lock_guard<std::mutex> lock(kernel_mutex_);
  read(kernel());
}

void KernelService::Start() {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  if (scheduler_.joinable()) return;
  stopping_ = false;
  scheduler_ = std::thread([this] { Loop(); });
}

void KernelService::Stop() {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (!scheduler_.joinable()) return;
    stopping_ = true;
  }
  queue_signal_.notify_one();
  scheduler_.join();
}

bool KernelService::TakeBatch(std::vector<Queued>* batch) {
  batch->clear();
  if (queue_.empty()) return false;
  size_t take =
      options_.max_batch == 0 ? queue_.size() : std::min(options_.max_batch, queue_.size());
  std::move(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take),
            std::back_inserter(*batch));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
  return true;
}

bool KernelService::RunOnce() {
  std::vector<Queued> batch;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (!TakeBatch(&batch)) return false;
  }
  Apply(batch);
  return true;
}

void KernelService::Loop() {
  std::vector<Queued> batch;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_signal_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (!TakeBatch(&batch)) return;  // stopping and drained
    }
    Apply(batch);
  }
}

KernelService::Receipt KernelService::Acknowledge(uint64_t seq, const Event& event) const {
  Receipt receipt{.seq = seq};
  auto app_of = [&](std::string_view partition, std::string_view id) {
    absl::StatusOr<PartitionHandle> p = kernel().FindPartition(partition);
    if (!p.ok()) return AppHandle();
    return kernel().FindApplication(*p, id).value_or(AppHandle());
  };
  auto node_of = [&](std::string_view partition, std::string_view id) {
    absl::StatusOr<PartitionHandle> p = kernel().FindPartition(partition);
    if (!p.ok()) return NodeHandle();
    return kernel().FindNode(*p, id).value_or(NodeHandle());
  };
  auto ask_of = [&](AppHandle app, std::string_view id) {
    if (!app.valid()) return AskHandle();
    return kernel().FindAsk(app, id).value_or(AskHandle());
  };
  std::visit(
      [&](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, NodeSpec> || std::is_same_v<E, NodeUpdate>) {
          receipt.node = node_of(e.partition, e.id);
        } else if constexpr (std::is_same_v<E, AppSpec>) {
          receipt.app = app_of(e.partition, e.id);
        } else if constexpr (std::is_same_v<E, AskSpec>) {
          receipt.app = app_of(e.partition, e.app);
          receipt.ask = ask_of(receipt.app, e.id);
        } else if constexpr (std::is_same_v<E, AddAskByHandleEvent>) {
          receipt.app = e.app;
          receipt.ask = ask_of(e.app, e.ask.id);
        } else if constexpr (std::is_same_v<E, RecoverSpec>) {
          receipt.app = app_of(e.ask.partition, e.ask.app);
          receipt.ask = ask_of(receipt.app, e.ask.id);
          receipt.node = node_of(e.ask.partition, e.node);
        } else if constexpr (std::is_same_v<E, AllocationUpdate>) {
          receipt.app = app_of(e.partition, e.app);
          receipt.ask = ask_of(receipt.app, e.ask);
          receipt.node = node_of(e.partition, e.node);
        } else if constexpr (std::is_same_v<E, AskUpdate>) {
          receipt.app = app_of(e.partition, e.app);
          receipt.ask = ask_of(receipt.app, e.id);
        } else if constexpr (std::is_same_v<E, ForeignAllocationSpec> ||
                             std::is_same_v<E, ForeignAllocationUpdate>) {
          receipt.node = node_of(e.partition, e.node);
        }
      },
      event);
  return receipt;
}

void KernelService::Apply(std::vector<Queued>& events) {
  Batch result;
  result.first_seq = events.front().seq;
  result.last_seq = events.back().seq;
  // Application states as the decisions report them; a removed application is forgotten.
  auto track_states = [&](size_t from) {
    for (size_t i = from; i < result.decisions.size(); ++i) {
      const Decision& d = result.decisions[i];
      std::pair<std::string, std::string> key{std::string(d.partition), std::string(d.app)};
      if (d.type == DecisionType::kAppState) {
        if (d.to == AppState::kExpired) {
          app_states_.erase(key);
        } else {
          app_states_[key] = d.to;
        }
      } else if (d.type == DecisionType::kAppRejected) {
        app_states_[key] = AppState::kRejected;
      }
    }
  };
  std::shared_ptr<Snapshot> next;
  {
    std::lock_guard<std::mutex> kernel_lock(kernel_mutex_);
    for (const Queued& queued : events) {
      const Event& event = queued.event;
      std::vector<Decision>* out = &result.decisions;
      const size_t before = out->size();
      int64_t made = 0;
      absl::Status status = ApplyOne(event, out, &made);
      result.allocations += made;
      if (!status.ok()) {
        result.refused.emplace_back(queued.seq, std::string(status.message()));
        result.receipts.push_back({.seq = queued.seq, .status = std::move(status)});
        continue;
      }
      result.receipts.push_back(Acknowledge(queued.seq, event));
      track_states(before);
      // An admitted application is New until a decision says more (it makes none before its
      // first ask).
      if (const auto* added = std::get_if<AppSpec>(&event);
          added != nullptr && result.receipts.back().app.valid()) {
        app_states_.emplace(std::make_pair(added->partition, added->id), AppState::kNew);
      }
      if (const auto* removed = std::get_if<RemoveApplication>(&event)) {
        app_states_.erase({removed->partition, removed->id});
      } else if (const auto* by_handle = std::get_if<RemoveApplicationByHandleEvent>(&event)) {
        // The handle's names are in the removal's own decisions.
        for (size_t i = before; i < out->size(); ++i) {
          const Decision& d = (*out)[i];
          if (d.app_handle == by_handle->app) {
            app_states_.erase({std::string(d.partition), std::string(d.app)});
            break;
          }
        }
      }
    }
    const size_t before_schedule = result.decisions.size();
    int64_t made = 0;
    if (ApplyOne(ScheduleEvent{}, &result.decisions, &made).ok()) result.allocations += made;
    track_states(before_schedule);
    // The log holds the batch before the sink sees its decisions.
    if (recorder_) recorder_->Flush().IgnoreError();  // kept in recording_status()
    // A receipt that says OK is durable: the batch is synced first, and a failed sync says so
    // on every receipt that would have claimed it.
    if (durable_) {
      if (absl::Status synced = durable_->Sync(); !synced.ok()) {
        for (Receipt& receipt : result.receipts) {
          if (receipt.status.ok()) receipt.status = synced;
        }
        result.durability = synced;
      }
    }
    next = Picture(result.last_seq);
  }
  // Lookups may run while the sink reads the batch: they change no name it views.
  if (sink_) sink_(result);
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    snapshot_ = std::move(next);
  }
  snapshot_signal_.notify_all();
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].receipt) events[i].receipt->set_value(std::move(result.receipts[i]));
  }
  // The sink has consumed the batch's decisions: names nothing refers to may go (when the
  // table has doubled, so that the cost stays amortised).
  std::lock_guard<std::mutex> kernel_lock(kernel_mutex_);
  if (kernel().name_count() >= 2 * names_after_release_ + 4096) {
    if (durable_) {
      durable_->ReleaseUnusedNames();
    } else {
      kernel_->ReleaseUnusedNames();
    }
    names_after_release_ = kernel().name_count();
  }
}

}  // namespace allocore::adapters

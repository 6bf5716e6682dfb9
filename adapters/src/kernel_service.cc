#include "allocore/adapters/kernel_service.h"

#include <algorithm>
#include <iterator>

namespace allocore::adapters {

absl::StatusOr<std::unique_ptr<KernelService>> KernelService::Create(SchedulerConfig config,
                                                                     KernelOptions kernel_options,
                                                                     BatchSink sink,
                                                                     Options options) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      Kernel::Create(std::move(config), kernel_options);
  if (!kernel.ok()) return kernel.status();
  return std::unique_ptr<KernelService>(
      new KernelService(*std::move(kernel), std::move(sink), options));
}

KernelService::KernelService(std::unique_ptr<Kernel> kernel, BatchSink sink, Options options)
    : kernel_(std::move(kernel)), sink_(std::move(sink)), options_(options) {
  auto first = std::make_shared<Snapshot>();
  for (const std::string& partition : kernel_->PartitionNames()) {
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel_->ListQueues(partition);
    if (queues.ok()) first->queues[partition] = *std::move(queues);
  }
  snapshot_ = std::move(first);
}

KernelService::~KernelService() { Stop(); }

uint64_t KernelService::Submit(Event event) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (options_.max_queued != 0 && queue_.size() >= options_.max_queued) return 0;
    seq = next_seq_++;
    queue_.emplace_back(seq, std::move(event));
  }
  queue_signal_.notify_one();
  return seq;
}

std::shared_ptr<const KernelService::Snapshot> KernelService::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
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

bool KernelService::TakeBatch(std::vector<std::pair<uint64_t, Event>>* batch) {
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
  std::vector<std::pair<uint64_t, Event>> batch;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (!TakeBatch(&batch)) return false;
  }
  Apply(batch);
  return true;
}

void KernelService::Loop() {
  std::vector<std::pair<uint64_t, Event>> batch;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_signal_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (!TakeBatch(&batch)) return;  // stopping and drained
    }
    Apply(batch);
  }
}

void KernelService::Apply(const std::vector<std::pair<uint64_t, Event>>& events) {
  Batch result;
  result.first_seq = events.front().first;
  result.last_seq = events.back().first;
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
  for (const auto& [seq, event] : events) {
    std::vector<Decision>* out = &result.decisions;
    const size_t before = out->size();
    int64_t made = 0;
    absl::Status status = ApplyEvent(*kernel_, event, out, &made);
    result.allocations += made;
    if (!status.ok()) {
      result.refused.emplace_back(seq, std::string(status.message()));
      continue;
    }
    track_states(before);
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
  absl::StatusOr<int64_t> made = kernel_->Schedule(0, "", &result.decisions);
  result.allocations += made.ok() ? *made : 0;
  track_states(before_schedule);
  if (sink_) sink_(result);

  auto next = std::make_shared<Snapshot>();
  next->applied_seq = result.last_seq;
  next->now_millis = kernel_->now_millis();
  next->apps = app_states_;
  next->usage = kernel_->usage();
  for (const std::string& partition : kernel_->PartitionNames()) {
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel_->ListQueues(partition);
    if (queues.ok()) next->queues[partition] = *std::move(queues);
  }
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    snapshot_ = std::move(next);
  }
  // The sink has consumed the batch's decisions: names nothing refers to may go (when the
  // table has doubled, so that the cost stays amortised).
  if (kernel_->name_count() >= 2 * names_after_release_ + 4096) {
    kernel_->ReleaseUnusedNames();
    names_after_release_ = kernel_->name_count();
  }
}

}  // namespace allocore::adapters

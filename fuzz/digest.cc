// Kernel state digests (see digest.h).
#include "digest.h"

#include <sstream>

namespace allocore::fuzz {

std::string DecisionText(const Decision& d) {
  std::ostringstream os;
  switch (d.type) {
    case DecisionType::kAllocation:
      os << "allocation #" << d.seq << " " << d.partition << " " << d.queue << " " << d.app << "/"
         << d.ask << " on " << d.node << " prio " << d.priority;
      break;
    case DecisionType::kRelease:
      os << "release " << d.partition << " " << d.queue << " " << d.app << "/" << d.ask << " on "
         << d.node << " (" << ReleaseReasonName(d.release_reason) << ")";
      break;
    case DecisionType::kAskRemoved:
      os << "ask_removed " << d.partition << " " << d.app << "/" << d.ask << " x" << d.count;
      break;
    case DecisionType::kPreemption:
      os << "preemption " << d.partition << " " << d.queue << " " << d.app << "/" << d.ask
         << " reserves " << d.node << ", " << d.count << " victim(s)";
      break;
    case DecisionType::kAppState:
      os << "app_state " << d.partition << " " << d.app << " " << AppStateName(d.from) << ">"
         << AppStateName(d.to);
      break;
    case DecisionType::kAppRejected:
      os << "app_rejected " << d.partition << " " << d.app << ": " << d.reason;
      break;
    case DecisionType::kRecovered:
      os << "recovered " << d.partition << " " << d.queue << " " << d.app << "/" << d.ask << " on "
         << d.node;
      break;
    case DecisionType::kQuotaPreemption:
      os << "quota_preemption " << d.partition << " " << d.queue << ", " << d.count << " victim(s)";
      break;
  }
  return os.str();
}

std::string QueueText(const QueueInfo& q, const ResourceTypes& types) {
  std::ostringstream os;
  os << q.path << "(leaf=" << q.is_leaf << " dynamic=" << q.dynamic << " " << q.state
     << " prio=" << q.priority << "/" << q.has_pending_priority << " offset=" << q.offset
     << " fenced=" << q.fenced << " sortprio=" << q.priority_sort_enabled << " " << q.sort_policy
     << " g=" << (q.guaranteed ? ToString(*q.guaranteed, types) : "-")
     << " m=" << (q.max ? ToString(*q.max, types) : "-") << " a=" << ToString(q.allocated, types)
     << " p=" << ToString(q.pending, types) << " apps=" << q.running_applications << "/"
     << q.max_applications << " depth=" << q.depth << ")";
  return os.str();
}

std::string StateDigest(const Kernel& kernel,
                        const std::set<std::pair<std::string, std::string>>& apps) {
  const ResourceTypes& types = kernel.resource_types();
  std::ostringstream os;
  os << "now=" << kernel.now_millis() << " types=";
  for (int t = 0; t < types.size(); ++t) os << types.Name(t) << ",";
  for (const std::string& partition : kernel.PartitionNames()) {
    os << "\n[" << partition << "]";
    auto queues = kernel.ListQueues(partition);
    if (!queues.ok()) {
      os << " " << queues.status().ToString();
      continue;
    }
    for (const QueueInfo& q : *queues) os << "\n  " << QueueText(q, types);
  }
  for (const auto& [partition, id] : apps) {
    auto app = kernel.GetApplication(partition, id);
    os << "\napp " << partition << "/" << id << ": ";
    if (!app.ok()) {
      os << app.status().code();
      continue;
    }
    os << app->id << " " << app->queue << " " << AppStateName(app->state) << " " << app->priority
       << " a=" << ToString(app->allocated, types) << " p=" << ToString(app->pending, types);
  }
  for (const PendingExplanation& e : kernel.ExplainPending()) {
    os << "\npending " << e.partition << " " << e.queue << " " << e.app << "/" << e.ask << " x"
       << e.pending_count << ": " << e.reason;
  }
  return os.str();
}

}  // namespace allocore::fuzz

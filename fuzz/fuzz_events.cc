// fuzz_events — bytes -> a config and a sequence of kernel calls (valid and invalid, reloads
// and clock jumps included); the kernel's invariants are checked after every call:
//
//   1. Kernel::CheckConsistency() passes (every cache equals a from-scratch recomputation).
//   2. The decision stream is coherent with the calls: allocation seqs are 1, 2, 3, ...; an
//      allocation names a live node, an active application and a known ask; a release names a
//      live allocation; an app_state decision starts from the state the stream left the app in.
//   3. No node holds more than its capacity: at every allocation, for each type the ask
//      requests, the node's live allocations (summed from the stream) plus its occupied
//      resources fit its capacity (as given by the calls).
//   4. Per application, GetApplication's allocated equals the sum of its live allocations, and
//      its state is the one the stream says.
//   5. Per queue (ListQueues): allocated and pending equal the sums over its children; after
//      a Schedule, every queue that received an allocation, and its ancestors, are within max.
//   6. Schedule returns the number of allocations it reported, never more than `max` (> 0).
//   7. A refused call (non-OK status) reported no decision and changed nothing: a digest of
//      every query (queues, applications, pending explanations, resource types, clock) is the
//      same before and after.
//   8. Determinism: a second run of the same sequence gives the same decisions.
//
// On a finding the target prints what broke and the sequence as a scenario file, then aborts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "allocore/kernel.h"
#include "allocore/resource.h"
#include "byte_reader.h"
#include "digest.h"
#include "event_sequence.h"

namespace allocore::fuzz {
namespace {

using Named = std::map<std::string, int64_t>;
__extension__ typedef __int128 Wide;  // exact sums of int64 quantities

Named ToNamedMap(const Quantities& q) {
  Named out;
  for (const auto& [k, v] : q) out[k] = v;  // a later duplicate wins, as in the kernel
  return out;
}

Named ToNamedMap(const Resource& r, const ResourceTypes& types) {
  Named out;
  for (int t = 0; t < types.size(); ++t) {
    if (r.Has(t) && r.Get(t) != 0) out[types.Name(t)] = r.Get(t);
  }
  return out;
}

std::string Text(const Named& q) {
  std::string out = "{";
  for (const auto& [k, v] : q) out += (out.size() > 1 ? "," : "") + k + ":" + std::to_string(v);
  return out + "}";
}

std::string View(std::string_view s) { return std::string(s); }

bool Active(AppState s) {
  return s == AppState::kNew || s == AppState::kAccepted || s == AppState::kStarting ||
         s == AppState::kRunning || s == AppState::kCompleting || s == AppState::kResuming ||
         s == AppState::kFailing;
}

class Checker {
 public:
  // `checks` false: only record the decision stream (the determinism rerun).
  Checker(const Sequence& seq, Kernel& kernel, bool checks)
      : seq_(seq), kernel_(kernel), checks_(checks) {}

  void Run() {
    for (index_ = 0; index_ < seq_.calls.size(); ++index_) {
      std::vector<Decision> out;
      if (!checks_) {
        if (!kernel_.Advance(1, &out).ok()) break;
        (void)ApplyCall(kernel_, seq_.calls[index_], &out, nullptr);
        for (const Decision& d : out) stream_.push_back(DecisionText(d));
        continue;
      }
      absl::Status tick = kernel_.Advance(1, &out);
      if (!tick.ok()) {
        // Only when the clock is at its end: no step can run any more.
        Expect(out.empty(), "a refused tick reported decisions");
        break;
      }
      Consume(out);
      CheckAfter(/*scheduled=*/false, {});
      Step(seq_.calls[index_]);
    }
  }

  const std::vector<std::string>& stream() const { return stream_; }

 private:
  struct NodeState {
    Named capacity;
    Named occupied;
  };
  struct Live {
    int64_t seq;
    std::string partition, queue, app, ask, node;
    Named resources;
  };
  using AppKey = std::pair<std::string, std::string>;
  using AskKey = std::tuple<std::string, std::string, std::string>;

  void Expect(bool ok, const std::string& what) {
    if (ok) return;
    std::string message = what + "\n  at step " + std::to_string(index_ + 1) + ": " +
                          (index_ < seq_.calls.size() ? DescribeCall(seq_.calls[index_]) : "") +
                          "\n--- sequence (scenario file) ---\n" +
                          DescribeSequence(seq_, index_ + 1);
    Fail(message);
  }

  void Step(const Call& call) {
    const std::string before = Digest();
    if (call.kind == CallKind::kAddAsk) CheckProbe(call.ask, before);
    std::vector<Decision> out;
    int64_t allocations = -1;
    // Every other call goes through the handle API where it has one: both must keep every
    // invariant.
    absl::Status status = ApplyCall(kernel_, call, &out, &allocations, index_ % 2 == 1);
    if (!status.ok()) {
      Expect(!status.message().empty(), "a refused call carries no message");
      std::string decisions;
      for (const Decision& d : out) decisions += "\n    " + DecisionText(d);
      Expect(out.empty(),
             "refused call (" + status.ToString() + ") reported decisions:" + decisions);
      const std::string after = Digest();
      Expect(before == after, "refused call (" + status.ToString() +
                                  ") changed the state:\n  before: " + before +
                                  "\n  after:  " + after);
      CheckAfter(false, {});
      return;
    }
    std::set<std::pair<std::string, std::string>> allocated_queues;
    for (const Decision& d : out) {
      if (d.type == DecisionType::kAllocation) {
        allocated_queues.insert({View(d.partition), View(d.queue)});
      }
    }
    if (call.kind == CallKind::kRecover) recovering_ = ToNamedMap(call.ask.resources);
    Consume(out);
    switch (call.kind) {
      case CallKind::kRecover: {
        bool recovered = false;
        for (const Decision& d : out) recovered |= d.type == DecisionType::kRecovered;
        if (!recovered) {
          // 1.6+: the report of a running pod is a resize of it.
          Expect(kernel_.options().semantics == Semantics::kYunikorn19,
                 "an accepted recovery reported no recovered allocation");
          Resize(call.ask.partition, call.ask.app, call.ask.id, "", call.ask.resources);
        }
        break;
      }
      case CallKind::kUpdateAllocation:
        Expect(kernel_.options().semantics == Semantics::kYunikorn19,
               "a resize accepted under yunikorn-1.2");
        Expect(out.empty(), "a resize reported decisions");
        Resize(call.partition, call.id, call.ask_id, call.node_id, call.resources);
        break;
      case CallKind::kUpdateAsk: {
        Expect(kernel_.options().semantics == Semantics::kYunikorn19,
               "a resize accepted under yunikorn-1.2");
        auto ask = asks_.find({call.partition, call.id, call.ask_id});
        Expect(ask != asks_.end() && ask->second.pending > 0,
               "a resize of an ask with nothing pending accepted");
        ask->second.resources = ToNamedMap(call.resources);
        break;
      }
      case CallKind::kAddForeign:
      case CallKind::kUpdateForeign: {
        Expect(out.empty(), "a foreign pod's report reported decisions");
        auto known = foreign_.find({call.partition, call.id});
        Expect(call.kind == CallKind::kAddForeign || known != foreign_.end(),
               "an update of an unknown foreign pod accepted");
        std::string node_id = known != foreign_.end() ? known->second.first : call.node_id;
        auto node = nodes_.find({call.partition, node_id});
        Expect(node != nodes_.end(), "a foreign pod on an unknown node accepted");
        if (known != foreign_.end()) {
          for (const auto& [type, value] : known->second.second) {
            node->second.occupied[type] = std::max<int64_t>(0, node->second.occupied[type] - value);
          }
        }
        const Named resources = ToNamedMap(call.resources);
        for (const auto& [type, value] : resources) node->second.occupied[type] += value;
        foreign_[{call.partition, call.id}] = {node_id, resources};
        break;
      }
      case CallKind::kRemoveForeign: {
        auto known = foreign_.find({call.partition, call.id});
        Expect(known != foreign_.end(), "removal of an unknown foreign pod accepted");
        auto node = nodes_.find({call.partition, known->second.first});
        for (const auto& [type, value] : known->second.second) {
          node->second.occupied[type] = std::max<int64_t>(0, node->second.occupied[type] - value);
        }
        foreign_.erase(known);
        break;
      }
      case CallKind::kAddNode:
        Expect(!nodes_.contains({call.node.partition, call.node.id}),
               "a duplicate node id was accepted");
        nodes_[{call.node.partition, call.node.id}] =
            NodeState{ToNamedMap(call.node.capacity), ToNamedMap(call.node.occupied)};
        break;
      case CallKind::kUpdateNode: {
        auto it = nodes_.find({call.update.partition, call.update.id});
        Expect(it != nodes_.end(), "update of an unknown node accepted");
        if (call.update.capacity) it->second.capacity = ToNamedMap(*call.update.capacity);
        if (call.update.occupied) it->second.occupied = ToNamedMap(*call.update.occupied);
        break;
      }
      case CallKind::kRemoveNode:
        Expect(nodes_.erase({call.partition, call.id}) == 1, "removal of an unknown node accepted");
        std::erase_if(foreign_, [&](const auto& entry) {
          return entry.first.first == call.partition && entry.second.first == call.id;
        });
        for (const Live& l : live_) {
          Expect(!(l.partition == call.partition && l.node == call.id),
                 "node removed with a live allocation left on it: " + l.app + "/" + l.ask);
        }
        break;
      case CallKind::kAddApp: {
        bool rejected = false;
        for (const Decision& d : out) rejected |= d.type == DecisionType::kAppRejected;
        Expect(out.size() <= 1, "add_app reported more than one decision");
        if (rejected) {
          Expect(before == Digest(), "a rejected application changed the state");
        }
        known_apps_.insert({call.app.partition, call.app.id});
        if (!rejected) {
          Expect(!apps_.contains({call.app.partition, call.app.id}),
                 "a duplicate active application id was accepted");
          apps_[{call.app.partition, call.app.id}] = AppState::kNew;
        }
        break;
      }
      case CallKind::kRemoveApp: {
        // Causal order (contract version 3): the app's releases, then its way out (Completing,
        // or Completing -> Completed), which they cause.
        bool completed = false;
        bool state_changed = false;
        for (const Decision& d : out) {
          if (d.type == DecisionType::kAppState) {
            Expect(View(d.app) == call.id &&
                       (d.to == AppState::kCompleting || d.to == AppState::kCompleted),
                   "remove_app reported an unexpected state change: " + DecisionText(d));
            state_changed = true;
            if (d.to == AppState::kCompleted) {
              completed = true;
              --completed_[{call.partition, call.id}];  // forgotten: no expiry follows
            }
          } else {
            Expect(d.type == DecisionType::kRelease,
                   "remove_app reported a decision other than a state change or a release: " +
                       DecisionText(d));
            Expect(!state_changed, "remove_app reported a release after the app's state change: " +
                                       DecisionText(d));
          }
        }
        Expect(apps_.erase({call.partition, call.id}) == 1 || completed,
               "removal of an unknown app accepted");
        for (const Live& l : live_) {
          Expect(!(l.partition == call.partition && l.app == call.id),
                 "application removed with a live allocation left: " + l.ask + " on " + l.node);
        }
        for (auto it = asks_.begin(); it != asks_.end();) {
          if (std::get<0>(it->first) == call.partition && std::get<1>(it->first) == call.id) {
            it = asks_.erase(it);
          } else {
            ++it;
          }
        }
        break;
      }
      case CallKind::kAddAsk: {
        Expect(apps_.contains({call.ask.partition, call.ask.app}),
               "an ask for an inactive application was accepted");
        const AskKey key{call.ask.partition, call.ask.app, call.ask.id};
        auto known = asks_.find(key);
        if (AsksArePods() && known != asks_.end() && known->second.pending > 0) {
          // 1.5+: a known key is the same pod: only its resources change.
          known->second.resources = ToNamedMap(call.ask.resources);
        } else if (AsksArePods() && known != asks_.end() && HasLive(key)) {
          Expect(out.empty(), "a resize by add_ask reported decisions");
          Resize(call.ask.partition, call.ask.app, call.ask.id, "", call.ask.resources);
        } else {
          // A replaced ask (same id) starts over with the new count; its allocations stay.
          asks_[key] = AskState{ToNamedMap(call.ask.resources), call.ask.count};
        }
        break;
      }
      case CallKind::kRemoveAsk:
        Expect(asks_.erase({call.partition, call.id, call.ask_id}) == 1,
               "removal of an unknown ask accepted");
        break;
      case CallKind::kRelease:
        Expect(out.size() >= 1 && out.front().type == DecisionType::kRelease,
               "an accepted release reported no release decision first");
        break;
      case CallKind::kAdvance:
      case CallKind::kSchedule:
        break;
      case CallKind::kUpdateConfig:
        ForgetRemovedPartitions();
        break;
    }
    if (call.kind == CallKind::kSchedule) {
      int64_t reported = 0;
      for (const Decision& d : out) reported += d.type == DecisionType::kAllocation ? 1 : 0;
      Expect(allocations == reported, "Schedule returned " + std::to_string(allocations) +
                                          " but reported " + std::to_string(reported) +
                                          " allocations");
      Expect(call.value <= 0 || allocations <= call.value,
             "Schedule made more allocations than max");
    }
    CheckAfter(call.kind == CallKind::kSchedule, allocated_queues);
    // The decisions are consumed: names nothing refers to may go. Released after every call,
    // so that a name still in use that the kernel forgot to mark is read after it was freed
    // (ASan) or differs in the next decisions.
    out.clear();
    kernel_.ReleaseUnusedNames();
  }

  // The what-if of the ask about to be added: it must change nothing (state, names, types) and
  // may only name a node the partition has.
  void CheckProbe(const AskSpec& ask, const std::string& before) {
    const int64_t names = kernel_.name_count();
    const int types = kernel_.resource_types().size();
    absl::StatusOr<ProbeResult> answer = kernel_.Probe(ask);
    Expect(Digest() == before, "a probe changed the state");
    Expect(kernel_.name_count() == names, "a probe registered a name");
    Expect(kernel_.resource_types().size() == types, "a probe registered a resource type");
    if (!answer.ok()) {
      Expect(!answer.status().message().empty(), "a refused probe carries no message");
      return;
    }
    Expect(answer->node.empty() != answer->reason.empty(),
           "a probe answered both a node and a reason, or neither");
    Expect(answer->node.empty() || nodes_.contains({ask.partition, answer->node}),
           "a probe named node " + answer->node + ", which the partition does not have");
  }

  void ForgetRemovedPartitions() {
    std::set<std::string> names;
    for (const std::string& p : kernel_.PartitionNames()) names.insert(p);
    std::erase_if(nodes_, [&](const auto& e) { return !names.contains(e.first.first); });
    std::erase_if(apps_, [&](const auto& e) { return !names.contains(e.first.first); });
    std::erase_if(asks_, [&](const auto& e) { return !names.contains(std::get<0>(e.first)); });
    for (const Live& l : live_) {
      Expect(names.contains(l.partition),
             "partition " + l.partition + " removed with a live allocation left");
    }
  }

  // Applies the decisions to the stream model, checking each against it.
  void Consume(const std::vector<Decision>& out) {
    quota_run_ = false;
    for (const Decision& d : out) {
      stream_.push_back(DecisionText(d));
      const std::string partition = View(d.partition);
      const std::string app = View(d.app);
      switch (d.type) {
        case DecisionType::kAllocation: {
          Expect(d.seq == last_seq_ + 1,
                 "allocation seq " + std::to_string(d.seq) + " after " + std::to_string(last_seq_));
          last_seq_ = d.seq;
          auto state = apps_.find({partition, app});
          Expect(state != apps_.end(), "allocation for an inactive application " + app);
          Expect(state->second == AppState::kAccepted || state->second == AppState::kStarting ||
                     state->second == AppState::kRunning,
                 "allocation for application " + app + " in state " +
                     std::string(AppStateName(state->second)));
          auto ask = asks_.find({partition, app, View(d.ask)});
          Expect(ask != asks_.end(), "allocation of an unknown ask " + app + "/" + View(d.ask));
          auto node = nodes_.find({partition, View(d.node)});
          Expect(node != nodes_.end(), "allocation on an unknown node " + View(d.node));
          Expect(ask->second.pending > 0,
                 "allocation of an ask with nothing pending: " + app + "/" + View(d.ask));
          --ask->second.pending;
          live_.push_back(Live{d.seq, partition, View(d.queue), app, View(d.ask), View(d.node),
                               ask->second.resources});
          if (d.replaces.empty()) {
            CheckNodeFit(node->second, partition, View(d.node), ask->second.resources);
          } else {
            // A replacement takes a placeholder's place on its node; the placeholder's release
            // follows at once. The real ask is never larger than the placeholder.
            pending_replacement_ = Live{0, partition, "", app, View(d.replaces), View(d.node), {}};
          }
          break;
        }
        case DecisionType::kRelease: {
          // The allocation the record's seq names (recovered ones have none: the oldest).
          auto it = live_.begin();
          for (; it != live_.end(); ++it) {
            if (it->partition == partition && it->app == app && it->ask == d.ask &&
                it->node == d.node && (d.seq == 0 || it->seq == d.seq)) {
              break;
            }
          }
          Expect(it != live_.end(), "release of no live allocation: " + DecisionText(d));
          if (pending_replacement_) {
            Expect(d.release_reason == ReleaseReason::kReplaced &&
                       pending_replacement_->app == app && pending_replacement_->ask == d.ask &&
                       pending_replacement_->node == d.node,
                   "a replacement not followed by its placeholder's release: " + DecisionText(d));
            pending_replacement_.reset();
          }
          live_.erase(it);  // the oldest one (live_ is in seq order)
          Expect(d.release_reason != ReleaseReason::kQuota || quota_run_,
                 "a quota release without its quota_preemption record: " + DecisionText(d));
          if (AsksArePods() && d.release_reason == ReleaseReason::kReleased) {
            // 1.5+: the manager's release takes the ask along once nothing of it is left.
            ForgetSpentAsk({partition, app, View(d.ask)});
          }
          break;
        }
        case DecisionType::kAppState: {
          if (d.to == AppState::kExpired &&
              (d.from == AppState::kCompleted || d.from == AppState::kRejected ||
               d.from == AppState::kFailed)) {
            // Terminated records expire after 3 days; a new app may use the id meanwhile.
            int& count = d.from == AppState::kRejected ? rejected_[{partition, app}]
                                                       : completed_[{partition, app}];
            Expect(count > 0, "expiry of no terminated app: " + DecisionText(d));
            --count;
            break;
          }
          auto state = apps_.find({partition, app});
          Expect(state != apps_.end(),
                 "state change of an inactive application: " + DecisionText(d));
          Expect(state->second == d.from, "state change " + DecisionText(d) +
                                              " but the stream left the app " +
                                              std::string(AppStateName(state->second)));
          state->second = d.to;
          if (!Active(d.to)) {
            apps_.erase(state);
            if (d.to == AppState::kCompleted || d.to == AppState::kFailed) {
              ++completed_[{partition, app}];
            }
            std::erase_if(asks_, [&](const auto& e) {
              return std::get<0>(e.first) == partition && std::get<1>(e.first) == app;
            });
            for (const Live& l : live_) {
              Expect(!(l.partition == partition && l.app == app),
                     "application " + app + " left with a live allocation");
            }
          }
          break;
        }
        case DecisionType::kAppRejected:
          ++rejected_[{partition, app}];
          break;
        case DecisionType::kAskRemoved: {
          // A placeholder timeout drops every pending repeat of the app's asks.
          auto ask = asks_.find({partition, app, View(d.ask)});
          Expect(ask != asks_.end(), "ask_removed of an unknown ask: " + DecisionText(d));
          Expect(ask->second.pending == d.count && d.count > 0,
                 "ask_removed of " + std::to_string(d.count) + " repeats, the stream left " +
                     std::to_string(ask->second.pending) + ": " + DecisionText(d));
          ask->second.pending = 0;
          break;
        }
        case DecisionType::kRecovered: {
          // Taken as reported: no fit, no limit, no seq.
          Expect(d.seq == 0, "a recovered allocation with a seq: " + DecisionText(d));
          auto state = apps_.find({partition, app});
          Expect(state != apps_.end() && Active(state->second),
                 "recovery into an inactive application " + app);
          Expect(nodes_.contains({partition, View(d.node)}),
                 "recovery onto an unknown node " + View(d.node));
          const AskKey key{partition, app, View(d.ask)};
          auto ask = asks_.find(key);
          if (ask != asks_.end() && ask->second.pending > 0) {
            --ask->second.pending;  // a pending ask the manager placed (1.6+)
            ask->second.resources = recovering_;
          } else {
            asks_[key] = AskState{recovering_, 0};
          }
          live_.push_back(
              Live{0, partition, View(d.queue), app, View(d.ask), View(d.node), recovering_});
          past_limits_.insert(partition);
          break;
        }
        case DecisionType::kPreemption: {
          // The preemptor is a pending ask; its victims' releases follow in the same call.
          auto ask = asks_.find({partition, app, View(d.ask)});
          Expect(ask != asks_.end() && ask->second.pending > 0,
                 "preemption for no pending ask: " + DecisionText(d));
          Expect(d.count > 0, "preemption without victims: " + DecisionText(d));
          break;
        }
        case DecisionType::kQuotaPreemption:
          // Only the yunikorn-1.9 profile has it; its victims' releases follow.
          Expect(AsksArePods(), "quota preemption under yunikorn-1.2: " + DecisionText(d));
          Expect(d.count >= 0 && d.quota != nullptr, "malformed " + DecisionText(d));
          quota_run_ = true;
          break;
      }
    }
  }

  bool quota_run_ = false;  // this call's decisions hold a quota_preemption record
  bool AsksArePods() const { return kernel_.options().semantics == Semantics::kYunikorn19; }
  bool HasLive(const AskKey& key) const {
    for (const Live& l : live_) {
      if (l.partition == std::get<0>(key) && l.app == std::get<1>(key) &&
          l.ask == std::get<2>(key)) {
        return true;
      }
    }
    return false;
  }
  void ForgetSpentAsk(const AskKey& key) {
    auto ask = asks_.find(key);
    if (ask != asks_.end() && ask->second.pending == 0 && !HasLive(key)) asks_.erase(ask);
  }

  // The oldest live allocation of the ask (on `node` when given) takes `resources`.
  void Resize(const std::string& partition, const std::string& app, const std::string& ask,
              const std::string& node, const Quantities& resources) {
    for (Live& l : live_) {
      if (l.partition != partition || l.app != app || l.ask != ask) continue;
      if (!node.empty() && l.node != node) continue;
      l.resources = ToNamedMap(resources);
      past_limits_.insert(partition);
      return;
    }
    Expect(false, "a resize of no live allocation accepted");
  }

  void CheckNodeFit(const NodeState& node, const std::string& partition, const std::string& node_id,
                    const Named& ask) {
    for (const auto& [type, want] : ask) {
      if (want <= 0) continue;
      Wide used = 0;
      for (const Live& l : live_) {
        if (l.partition != partition || l.node != node_id) continue;
        auto it = l.resources.find(type);
        if (it != l.resources.end()) used += it->second;
      }
      auto occupied = node.occupied.find(type);
      if (occupied != node.occupied.end()) used += occupied->second;
      auto capacity = node.capacity.find(type);
      Wide cap = capacity == node.capacity.end() ? 0 : capacity->second;
      Expect(used <= cap, "node " + node_id + " holds more " + type + " than its capacity " +
                              Text(node.capacity) + " (occupied " + Text(node.occupied) + ")");
    }
  }

  void CheckAfter(bool scheduled, const std::set<std::pair<std::string, std::string>>& touched) {
    absl::Status consistency = kernel_.CheckConsistency();
    Expect(consistency.ok(), "CheckConsistency: " + consistency.ToString());
    // The memory budget is never passed.
    const KernelOptions& caps = kernel_.options();
    const Kernel::Usage usage = kernel_.usage();
    Expect(caps.max_applications == 0 || usage.applications <= caps.max_applications,
           "more applications than the budget: " + std::to_string(usage.applications));
    Expect(caps.max_asks == 0 || usage.asks <= caps.max_asks,
           "more asks than the budget: " + std::to_string(usage.asks));
    Expect(caps.max_live_allocations == 0 || usage.live_allocations <= caps.max_live_allocations,
           "more live allocations than the budget: " + std::to_string(usage.live_allocations));
    Expect(usage.live_allocations == static_cast<int64_t>(live_.size()),
           "usage() counts " + std::to_string(usage.live_allocations) +
               " live allocations, the decision stream " + std::to_string(live_.size()));
    const ResourceTypes& types = kernel_.resource_types();
    for (const std::string& partition : kernel_.PartitionNames()) {
      auto queues = kernel_.ListQueues(partition);
      Expect(queues.ok(), "ListQueues(" + partition + "): " + queues.status().ToString());
      std::map<std::string, const QueueInfo*> by_path;
      for (const QueueInfo& q : *queues) by_path[q.path] = &q;
      for (const QueueInfo& q : *queues) {
        if (q.is_leaf) continue;
        CheckChildSum(*queues, q, &QueueInfo::allocated, "allocated", types);
        CheckChildSum(*queues, q, &QueueInfo::pending, "pending", types);
      }
      // A recovered or resized pod is taken past any max: the max holds for what the walk adds
      // only where no such pod ever was.
      if (!scheduled || past_limits_.contains(partition)) continue;
      for (const auto& [p, leaf] : touched) {
        if (p != partition) continue;
        for (std::string path = leaf; !path.empty();) {
          auto it = by_path.find(path);
          Expect(it != by_path.end(), "allocation in an unlisted queue " + path);
          const QueueInfo& q = *it->second;
          if (q.max) {
            for (int t = 0; t < types.size(); ++t) {
              if (!q.max->Has(t)) continue;
              Expect(q.allocated.Get(t) <= std::max<int64_t>(0, q.max->Get(t)),
                     "queue " + path + " allocated " + ToString(q.allocated, types) +
                         " exceeds its max " + ToString(*q.max, types));
            }
          }
          size_t dot = path.rfind('.');
          path = dot == std::string::npos ? "" : path.substr(0, dot);
        }
      }
    }
    // Pending repeats per ask (ExplainPending lists every ask with some) as the stream says.
    std::map<AskKey, int64_t> explained;
    for (const PendingExplanation& e : kernel_.ExplainPending()) {
      Expect(e.pending_count > 0, "ExplainPending lists " + e.app + "/" + e.ask + " with pending " +
                                      std::to_string(e.pending_count));
      Expect(explained.insert({{e.partition, e.app, e.ask}, e.pending_count}).second,
             "ExplainPending lists " + e.app + "/" + e.ask + " twice");
    }
    std::map<AskKey, int64_t> tracked;
    for (const auto& [key, ask] : asks_) {
      if (ask.pending > 0) tracked[key] = ask.pending;
    }
    if (explained != tracked) {
      std::string k, t;
      for (const auto& [key, n] : explained) {
        k += " " + std::get<1>(key) + "/" + std::get<2>(key) + "=" + std::to_string(n);
      }
      for (const auto& [key, n] : tracked) {
        t += " " + std::get<1>(key) + "/" + std::get<2>(key) + "=" + std::to_string(n);
      }
      Expect(false, "pending repeats: ExplainPending says" + k + ", the calls say" + t);
    }
    // Applications: state, allocated and pending as the stream says.
    for (const auto& [key, state] : apps_) {
      auto info = kernel_.GetApplication(key.first, key.second);
      Expect(info.ok(), "GetApplication(" + key.second + "): " + info.status().ToString());
      Expect(info->state == state, "application " + key.second + " is " +
                                       std::string(AppStateName(info->state)) +
                                       " but the stream says " + std::string(AppStateName(state)));
      std::map<std::string, Wide> sum;
      for (const Live& l : live_) {
        if (l.partition != key.first || l.app != key.second) continue;
        for (const auto& [k, v] : l.resources) sum[k] += v;
      }
      std::map<std::string, Wide> pending;
      for (const auto& [ask_key, ask] : asks_) {
        if (std::get<0>(ask_key) != key.first || std::get<1>(ask_key) != key.second) continue;
        for (const auto& [k, v] : ask.resources) {
          // Capped far beyond int64 (so "does not fit" stays true) and far below int128.
          const Wide cap = Wide{1} << 100;
          pending[k] += std::clamp(Wide{v} * ask.pending, -cap, cap);
        }
      }
      CompareSum(ToNamedMap(info->pending, types), pending,
                 "application " + key.second + " pending");
      CompareSum(ToNamedMap(info->allocated, types), sum,
                 "application " + key.second + " allocated");
    }
  }

  // `reported` against an exact sum. The kernel refuses every call that would take a sum out
  // of [0, int64] (kernel/README decision 22), so one outside is a finding too.
  void CompareSum(const Named& reported, const std::map<std::string, Wide>& sum,
                  const std::string& what) {
    Named expected;
    for (const auto& [k, v] : sum) {
      if (v > INT64_MAX || v < 0) {
        Expect(false, what + ": the calls and decisions sum " + k + " to " +
                          (v < 0 ? "a negative value" : "more than int64 holds"));
        return;
      }
      if (v != 0) expected[k] = static_cast<int64_t>(v);
    }
    Expect(reported == expected,
           what + " " + Text(reported) + ", the calls and decisions say " + Text(expected));
  }

  void CheckChildSum(const std::vector<QueueInfo>& queues, const QueueInfo& parent,
                     Resource QueueInfo::*field, const char* what, const ResourceTypes& types) {
    std::vector<Wide> sum(kMaxResourceTypes, 0);
    const std::string prefix = parent.path + ".";
    for (const QueueInfo& q : queues) {
      if (q.path.size() <= prefix.size() || q.path.compare(0, prefix.size(), prefix) != 0 ||
          q.path.find('.', prefix.size()) != std::string::npos) {
        continue;
      }
      for (int t = 0; t < kMaxResourceTypes; ++t) {
        sum[static_cast<size_t>(t)] += (q.*field).Get(t);
      }
    }
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      Wide s = sum[static_cast<size_t>(t)];
      if (s > INT64_MAX || (parent.*field).Get(t) != static_cast<int64_t>(s)) {
        Expect(false, "queue " + parent.path + " " + what + " " + ToString(parent.*field, types) +
                          " differs from the sum of its children (type " +
                          (t < types.size() ? types.Name(t) : std::to_string(t)) + ")");
      }
    }
  }

  std::string Digest() const { return StateDigest(kernel_, known_apps_); }

  const Sequence& seq_;
  Kernel& kernel_;
  const bool checks_;
  size_t index_ = 0;
  int64_t last_seq_ = 0;
  std::map<AppKey, NodeState> nodes_;
  std::map<AppKey, AppState> apps_;          // active applications
  std::map<AppKey, int> completed_;          // completed and failed records not yet expired
  std::optional<Live> pending_replacement_;  // a replacement whose placeholder release is due
  std::map<AppKey, int> rejected_;
  std::set<AppKey> known_apps_;
  struct AskState {
    Named resources;
    int64_t pending = 0;  // repeats not allocated yet
  };
  std::map<AskKey, AskState> asks_;
  std::vector<Live> live_;  // oldest first (recovered pods too)
  std::vector<std::string> stream_;
  // Other schedulers' pods by (partition, id): node and resources.
  std::map<AppKey, std::pair<std::string, Named>> foreign_;
  // The resources of the recovery under way (a recovered decision does not carry them).
  Named recovering_;
  // Partitions where a recovered pod may have taken a queue past its max.
  std::set<std::string> past_limits_;
};

}  // namespace
}  // namespace allocore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace allocore::fuzz;
  ByteReader in(data, size);
  Sequence seq = DecodeSequence(in, DecodeOptions{});
  seq.kernel_options.semantics = ProfileFor(seq.config, data, size);  // both profiles
  if (Verbose()) std::fprintf(stderr, "%s", DescribeSequence(seq, seq.calls.size()).c_str());
  auto kernel = allocore::Kernel::Create(seq.config, seq.kernel_options);
  if (!kernel.ok())
    Fail("Kernel::Create refused a validated config: " + kernel.status().ToString());
  Checker checker(seq, **kernel, /*checks=*/true);
  checker.Run();

  // Determinism: the same calls again, on a fresh kernel.
  auto again = allocore::Kernel::Create(seq.config, seq.kernel_options);
  Checker second(seq, **again, /*checks=*/false);
  second.Run();
  if (checker.stream() != second.stream()) {
    Fail("two runs of the same sequence made different decisions\n" +
         DescribeSequence(seq, seq.calls.size()));
  }

  // Snapshots: the same calls with the kernel snapshotted and restored at a point the input
  // picks; the decisions from there on, and the final snapshot, must be the uninterrupted
  // run's.
  std::vector<std::string> whole;
  auto plain = allocore::Kernel::Create(seq.config, seq.kernel_options);
  ReplayCalls(**plain, seq, 0, seq.calls.size(), &whole);
  const size_t cut = size == 0 ? 0 : data[0] % (seq.calls.size() + 1);
  std::vector<std::string> resumed;
  auto before = allocore::Kernel::Create(seq.config, seq.kernel_options);
  ReplayCalls(**before, seq, 0, cut, &resumed);
  auto restored = allocore::Kernel::Restore((*before)->Snapshot());
  if (!restored.ok()) Fail("a kernel's own snapshot is refused: " + restored.status().ToString());
  ReplayCalls(**restored, seq, cut, seq.calls.size(), &resumed);
  if (resumed != whole || (*restored)->Snapshot() != (*plain)->Snapshot()) {
    Fail("a kernel restored after call " + std::to_string(cut) +
         " decided differently from the uninterrupted one\n" +
         DescribeSequence(seq, seq.calls.size()));
  }
  return 0;
}

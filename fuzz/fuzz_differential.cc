// fuzz_differential — the same decoded call sequence driven into allocore::Kernel and the
// naive reference model (tests/reference); they must agree after every call:
//
//   1. Both accept or both refuse the call.
//   2. Identical decisions (RefDecision equality: the fields that belong to the type).
//   3. Schedule returns the same count; the clocks agree.
//   4. Every queue's effective priority, allocated, pending and running count, and every
//      application's state, priority, allocated and pending are the same.
//   5. Kernel::CheckConsistency() passes.
//
// Only what the model implements is generated (DecodeOptions::modelled_only: no reloads, no
// recovery rule; placement rules, dynamic queues, templates and limits are in). On a mismatch
// the target prints both sides and the sequence as a scenario file (`allocore run` replays
// it), then aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "allocore/kernel.h"
#include "byte_reader.h"
#include "event_sequence.h"
#include "reference/reference_model.h"

namespace allocore::fuzz {
namespace {

using reference::FromKernelDecision;
using reference::NamedQuantities;
using reference::RefDecision;
using reference::ReferenceModel;
using reference::StateName;
using reference::ToNamed;

absl::Status ApplyModel(ReferenceModel& model, const Call& c, std::vector<RefDecision>* out,
                        int64_t* allocations) {
  return reference::ApplyEvent(model, ToEvent(c), out, allocations);
}

std::string Describe(const std::vector<RefDecision>& ds) {
  std::string out;
  for (const RefDecision& d : ds) out += "      " + d.ToString() + "\n";
  return out.empty() ? "      (none)\n" : out;
}

class Differ {
 public:
  Differ(const Sequence& seq, Kernel& kernel, ReferenceModel& model)
      : seq_(seq), kernel_(kernel), model_(model) {}

  void Run() {
    CompareQueueLists();
    for (index_ = 0; index_ < seq_.calls.size(); ++index_) {
      const Call& call = seq_.calls[index_];
      std::vector<Decision> kd;
      std::vector<RefDecision> md;
      absl::Status ks = kernel_.Advance(1, &kd);
      absl::Status ms = model_.Advance(1, &md);
      Compare(ks, ms, kd, md, "the 1 ms tick");
      if (!ks.ok()) break;
      kd.clear();
      md.clear();
      if (call.kind == CallKind::kAddApp) apps_.insert({call.app.partition, call.app.id});
      int64_t kernel_made = -1;
      int64_t model_made = -1;
      // Every other call by handle where the handle API has it: the model must not tell.
      ks = ApplyCall(kernel_, call, &kd, &kernel_made, index_ % 2 == 1);
      ms = ApplyModel(model_, call, &md, &model_made);
      Compare(ks, ms, kd, md, "the call");
      Expect(kernel_made == model_made, "Schedule returned " + std::to_string(kernel_made) +
                                            ", the model " + std::to_string(model_made));
      Expect(kernel_.now_millis() == model_.now_millis(),
             "clock: kernel " + std::to_string(kernel_.now_millis()) + ", model " +
                 std::to_string(model_.now_millis()));
      CompareState();
      absl::Status consistency = kernel_.CheckConsistency();
      Expect(consistency.ok(), "CheckConsistency: " + consistency.ToString());
    }
  }

 private:
  void Expect(bool ok, const std::string& what) {
    if (ok) return;
    Fail("kernel and reference model differ: " + what + "\n  at step " +
         std::to_string(index_ + 1) + ": " +
         (index_ < seq_.calls.size() ? DescribeCall(seq_.calls[index_]) : "") +
         "\n--- sequence (scenario file) ---\n" + DescribeSequence(seq_, index_ + 1));
  }

  void Compare(const absl::Status& ks, const absl::Status& ms, const std::vector<Decision>& kd,
               const std::vector<RefDecision>& md, const std::string& what) {
    std::vector<RefDecision> kernel_decisions;
    for (const Decision& d : kd) {
      kernel_decisions.push_back(FromKernelDecision(d, &kernel_.resource_types()));
    }
    const std::string both = "\n    kernel decisions:\n" + Describe(kernel_decisions) +
                             "    model decisions:\n" + Describe(md);
    Expect(ks.ok() == ms.ok(),
           what + ": kernel " + ks.ToString() + ", model " + ms.ToString() + both);
    bool same = kernel_decisions.size() == md.size();
    for (size_t i = 0; same && i < md.size(); ++i) same = kernel_decisions[i] == md[i];
    Expect(same, what + ": different decisions" + both);
  }

  void CompareQueueLists() {
    for (const std::string& partition : model_.PartitionNames()) {
      auto listed = kernel_.ListQueues(partition);
      Expect(listed.ok(), "ListQueues(" + partition + "): " + listed.status().ToString());
      std::vector<std::string> kernel_paths;
      for (const QueueInfo& q : *listed) kernel_paths.push_back(q.path);
      std::vector<std::string> model_paths = model_.QueuePaths(partition);
      std::string k, m;
      for (const auto& p : kernel_paths) k += p + " ";
      for (const auto& p : model_paths) m += p + " ";
      Expect(kernel_paths == model_paths, "queue list: kernel [" + k + "] model [" + m + "]");
    }
  }

  void CompareState() {
    const ResourceTypes& kt = kernel_.resource_types();
    for (const std::string& partition : model_.PartitionNames()) {
      for (const std::string& path : model_.QueuePaths(partition)) {
        auto kq = kernel_.GetQueue(partition, path);
        auto mq = model_.GetQueue(partition, path);
        Expect(kq.ok() && mq.ok(), "queue lookup " + path);
        std::ostringstream diff;
        if (kq->has_pending_priority != mq->has_pending_priority ||
            (kq->has_pending_priority && kq->priority != mq->priority)) {
          diff << " priority " << kq->priority << "/" << kq->has_pending_priority << " vs "
               << mq->priority << "/" << mq->has_pending_priority;
        }
        if (ToNamed(kq->allocated, kt) != mq->allocated) {
          diff << " allocated " << reference::ToString(ToNamed(kq->allocated, kt)) << " vs "
               << reference::ToString(mq->allocated);
        }
        if (ToNamed(kq->pending, kt) != mq->pending) {
          diff << " pending " << reference::ToString(ToNamed(kq->pending, kt)) << " vs "
               << reference::ToString(mq->pending);
        }
        if (kq->running_applications != mq->running_applications) {
          diff << " running " << kq->running_applications << " vs " << mq->running_applications;
        }
        Expect(diff.str().empty(),
               "queue " + partition + "/" + path + " (kernel vs model):" + diff.str());
      }
    }
    for (const auto& [partition, id] : apps_) {
      auto ka = kernel_.GetApplication(partition, id);
      auto ma = model_.GetApplication(partition, id);
      Expect(ka.ok() == ma.ok(),
             "application " + id + ": kernel " +
                 (ka.ok() ? std::string(StateName(ka->state)) : ka.status().ToString()) +
                 ", model " +
                 (ma.ok() ? std::string(StateName(ma->state)) : ma.status().ToString()));
      if (!ka.ok()) continue;
      std::ostringstream diff;
      if (ka->state != ma->state) {
        diff << " state " << StateName(ka->state) << " vs " << StateName(ma->state);
      }
      if (ka->priority != ma->priority)
        diff << " priority " << ka->priority << " vs " << ma->priority;
      if (ToNamed(ka->allocated, kt) != ma->allocated) {
        diff << " allocated " << reference::ToString(ToNamed(ka->allocated, kt)) << " vs "
             << reference::ToString(ma->allocated);
      }
      if (ToNamed(ka->pending, kt) != ma->pending) {
        diff << " pending " << reference::ToString(ToNamed(ka->pending, kt)) << " vs "
             << reference::ToString(ma->pending);
      }
      Expect(diff.str().empty(),
             "application " + partition + "/" + id + " (kernel vs model):" + diff.str());
    }
  }

  const Sequence& seq_;
  Kernel& kernel_;
  ReferenceModel& model_;
  size_t index_ = 0;
  std::set<std::pair<std::string, std::string>> apps_;
};

}  // namespace
}  // namespace allocore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace allocore::fuzz;
  ByteReader in(data, size);
  Sequence seq = DecodeSequence(in, DecodeOptions{.modelled_only = true});
  // Both semantics profiles.
  const allocore::Semantics semantics = ProfileFor(seq.config, data, size);
  seq.kernel_options.semantics = semantics;
  if (Verbose()) std::fprintf(stderr, "%s", DescribeSequence(seq, seq.calls.size()).c_str());
  auto kernel = allocore::Kernel::Create(seq.config, {.semantics = semantics});
  if (!kernel.ok())
    Fail("Kernel::Create refused a validated config: " + kernel.status().ToString());
  auto model = allocore::reference::ReferenceModel::Create(seq.config, semantics);
  if (!model.ok()) Fail("ReferenceModel::Create refused the config: " + model.status().ToString());
  Differ differ(seq, **kernel, **model);
  differ.Run();
  return 0;
}

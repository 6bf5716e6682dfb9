// allocore/adapters/decision_format.h — records as JSON lines (the contract) or tables.
//
// JSON lines follow share/doc/allocore/docs/scenario-format.md exactly: one object per line, keys
// in the contract's order, no whitespace. One record type is this project's extension, which
// consumers ignore by contract: "pending" (an ask still pending after the run, with the reason
// from Kernel::ExplainPending).
//
// Example:
//   std::string out;
//   AppendJsonLine(record, &out);   // {"type":"allocation","step":3,"seq":1,...}\n
#ifndef ALLOCORE_ADAPTERS_DECISION_FORMAT_H_
#define ALLOCORE_ADAPTERS_DECISION_FORMAT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/scenario.h"
#include "allocore/export.h"
#include "allocore/kernel.h"

namespace allocore::adapters {

// Appends the record as one JSON line, '\n' included.
ALLOCORE_EXPORT void AppendJsonLine(const Record& record, std::string* out);

// {"type":"pending","partition":...,"queue":...,"app":...,"ask":...,"count":N,"reason":...}\n
ALLOCORE_EXPORT void AppendPendingJsonLine(const PendingExplanation& pending, std::string* out);

// Pending asks as an aligned table (QUEUE APP ASK PENDING REASON), partition column when there
// is more than one partition. Nothing when `pending` is empty.
ALLOCORE_EXPORT void AppendPendingTable(const std::vector<PendingExplanation>& pending,
                                        std::string* out);

// The effective priority a queue presents to its parent: the number, or "n/a" when nothing is
// pending below it.
ALLOCORE_EXPORT std::string EffectivePriorityText(const QueueInfo& queue);

// Effective priorities that differ between two ListQueues snapshots of one partition, as
// "system-high: 1001 -> n/a", deepest queue first; the root is left out (no parent sorts it).
// Queues are named by their last path element when that is unique in `after`, else by path.
ALLOCORE_EXPORT std::vector<std::string> DescribePriorityChanges(
    const std::vector<QueueInfo>& before, const std::vector<QueueInfo>& after);

// A RunObserver that collects records into an aligned table.
//
// With `priority_changes`, every allocation row lists the effective queue priorities it
// changed; that is exact when each Schedule call makes at most one allocation
// (RunOptions::schedule_chunk = 1); otherwise all the changes a call made in a partition land
// on the first allocation row of that partition.
class ALLOCORE_EXPORT RecordTable : public RunObserver {
 public:
  struct Options {
    bool allocations_only = false;  // the walk-through view: allocation rows only
    bool priority_changes = true;
  };
  explicit RecordTable(Options options) : options_(options) {}

  void OnRecord(const Record& record, const Kernel& kernel) override;
  void BeforeSchedule(const Kernel& kernel) override;

  // Appends the table (header line included; nothing at all when there is no row).
  void Render(std::string* out, std::string_view indent = "") const;

  int64_t rows() const { return static_cast<int64_t>(rows_.size()); }
  int64_t hidden_records() const { return hidden_records_; }
  // Queues of every partition before the first Schedule call of the run (empty before it).
  const std::map<std::string, std::vector<QueueInfo>, std::less<>>& initial_queues() const {
    return initial_queues_;
  }

 private:
  struct Row {
    int64_t step = 0;
    int64_t seq = 0;
    std::string type;
    std::string partition;
    std::string queue;
    std::string app;
    std::string ask;
    std::string priority;
    std::string node;
    std::string detail;
  };

  Options options_;
  std::vector<Row> rows_;
  int64_t hidden_records_ = 0;
  std::map<std::string, std::vector<QueueInfo>, std::less<>> before_;
  std::map<std::string, std::vector<QueueInfo>, std::less<>> initial_queues_;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_DECISION_FORMAT_H_

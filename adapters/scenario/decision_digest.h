// The running digest of a decision stream that recorded event logs carry (docs/event-log-format.md,
// "Decision digests"): the recorder folds in every decision the live kernel made, the replay
// every decision it makes, and `allocore run LOG --check` compares the two step by step.
//
// The digest covers what a decision says (its type, names, numbers, states and release reason)
// and not its handles, which name slots of one kernel's tables, nor a rejection's message text:
// a replay by a later allocore may number slots differently or word a message anew and still
// decide the same.
#ifndef ALLOCORE_ADAPTERS_SCENARIO_DECISION_DIGEST_H_
#define ALLOCORE_ADAPTERS_SCENARIO_DECISION_DIGEST_H_

#include <cstdint>
#include <span>

#include "allocore/crc32c.h"
#include "allocore/kernel_types.h"

namespace allocore::adapters::internal {

class DecisionDigest {
 public:
  // The CRC-32C of the encodings of every decision added so far, one after the other
  // (docs/event-log-format.md gives the encoding); 0 before the first.
  void Add(const Decision& decision) {
    value_ = Crc32cExtendDecision(value_, decision);
    ++count_;
  }
  void Add(std::span<const Decision> decisions) {
    for (const Decision& d : decisions) Add(d);
  }
  uint32_t value() const { return value_; }
  // Decisions folded in so far.
  int64_t count() const { return count_; }

 private:
  uint32_t value_ = 0;
  int64_t count_ = 0;
};

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_SCENARIO_DECISION_DIGEST_H_

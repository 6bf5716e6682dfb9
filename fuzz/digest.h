// fuzz/digest.h — everything a caller can observe of a kernel, as comparable text.
//
// Used to check that a refused call changed nothing, that a reload with the same config is a
// no-op and that a restored snapshot answers as its kernel did: two digests are equal iff every
// query answers the same.
#ifndef ALLOCORE_FUZZ_DIGEST_H_
#define ALLOCORE_FUZZ_DIGEST_H_

#include <set>
#include <string>
#include <utility>

#include "allocore/kernel.h"

namespace allocore::fuzz {

// One decision as a line of text: its kind and the names and numbers a stream is compared by.
std::string DecisionText(const Decision& d);

// Every field of the queue.
std::string QueueText(const QueueInfo& queue, const ResourceTypes& types);

// Clock, resource types, partitions, ListQueues of every partition, GetApplication of every
// (partition, id) in `apps`, and ExplainPending.
std::string StateDigest(const Kernel& kernel,
                        const std::set<std::pair<std::string, std::string>>& apps);

}  // namespace allocore::fuzz

#endif  // ALLOCORE_FUZZ_DIGEST_H_

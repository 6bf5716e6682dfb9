// allocore/adapters/queue_tree_format.h — a partition's queue tree as text or Graphviz DOT.
//
// Input is Kernel::ListQueues output (depth-first, root first). Output is deterministic.
//
// Example:
//   std::string out;
//   AppendQueueTreeText(*kernel->ListQueues("default"), kernel->resource_types(),
//                       QueueTreeDetail::kFull, &out);
//   // QUEUE               PRIORITY  OFFSET  NOTES  SORT  GUARANTEED ...
//   // root                    1001                fair
//   // ├─ system               1001                fair
#ifndef ALLOCORE_ADAPTERS_QUEUE_TREE_FORMAT_H_
#define ALLOCORE_ADAPTERS_QUEUE_TREE_FORMAT_H_

#include <string>
#include <string_view>
#include <vector>

#include "allocore/export.h"
#include "allocore/kernel.h"
#include "allocore/resource.h"

namespace allocore::adapters {

enum class QueueTreeDetail {
  kPriorities,  // queue, effective priority, offset and fence only
  kFull,        // plus sort policy, guaranteed, max, allocated, pending, applications
};

// An aligned table with the tree drawn in the first column; every line starts with `indent`.
ALLOCORE_EXPORT void AppendQueueTreeText(const std::vector<QueueInfo>& queues,
                                         const ResourceTypes& types, QueueTreeDetail detail,
                                         std::string* out, std::string_view indent = "");

struct PartitionQueues {
  std::string partition;
  std::vector<QueueInfo> queues;
};

// A Graphviz digraph: one cluster per partition, one box per queue (parents shaded, fenced
// queues bold), edges parent -> child.
ALLOCORE_EXPORT void AppendQueueTreeDot(const std::vector<PartitionQueues>& partitions,
                                        const ResourceTypes& types, std::string* out);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_QUEUE_TREE_FORMAT_H_

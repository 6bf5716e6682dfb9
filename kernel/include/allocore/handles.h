// allocore/handles.h — generational handles for the kernel's hot calls.
//
// A manager resolves a partition, an application, an ask or a node once (Kernel::Find*,
// or the AskHandle that Kernel::AddAsk returns) and then calls by handle: no name is hashed
// or compared on the call. A handle is the record's slot plus the slot's generation when the
// handle was issued; the generation moves on when the record is freed, so a handle that
// outlived its entity is refused with FailedPrecondition ("stale handle") and never silently
// names the record that reused its slot. Handles are plain values: copy, store, compare.
//
// Resource quantities are a Resource (resource.h): a fixed array of quantities by resource
// type id plus a presence mask, with ids from Kernel::ResourceTypeId resolved once.

#ifndef ALLOCORE_HANDLES_H_
#define ALLOCORE_HANDLES_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "allocore/resource.h"

namespace allocore {

inline constexpr uint32_t kInvalidSlot = 0xffffffffu;

struct PartitionHandle {
  uint32_t index = kInvalidSlot;  // position in the kernel's partitions
  uint32_t serial = 0;            // which partition held it (a reload may replace it)
  friend bool operator==(const PartitionHandle&, const PartitionHandle&) = default;
};

// One shape for every entity of a partition; the tag keeps them apart at compile time.
template <typename Tag>
struct EntityHandle {
  PartitionHandle partition;
  uint32_t slot = kInvalidSlot;
  uint32_t generation = 0;
  bool valid() const { return slot != kInvalidSlot; }
  friend bool operator==(const EntityHandle&, const EntityHandle&) = default;
};
using AppHandle = EntityHandle<struct AppTag>;
using AskHandle = EntityHandle<struct AskTag>;
using NodeHandle = EntityHandle<struct NodeTag>;
// Queue records are never reused (a removed queue that comes back is a new record), so a
// queue handle's generation is always 0 and it is stale once its queue is removed.
using QueueHandle = EntityHandle<struct QueueTag>;

// An ask by handle: AskSpec without the strings to look up. Views need only live for the call.
struct AskArgs {
  std::string_view id;
  Resource resources;  // ids from Kernel::ResourceTypeId; quantities >= 0, not all zero
  int32_t priority = 0;
  int64_t count = 1;
  std::string_view task_group;
  bool placeholder = false;
  std::string_view required_node;
  bool allow_preemption = true;
  bool originator = false;
  // The pod's creation time on the logical clock (ms, >= 0; may lie before now): the ask's
  // creation time and a floor on its app's submission time under yunikorn-1.9 (YUNIKORN-2772);
  // ignored under yunikorn-1.2, which took the receive time. nullopt: now.
  std::optional<int64_t> creation_time_millis;
};

}  // namespace allocore

#endif  // ALLOCORE_HANDLES_H_

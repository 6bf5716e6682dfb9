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

// An ask by handle: AskSpec without the strings to look up. `Text` is std::string_view for
// the call (AskArgs: views need only live for the call) and std::string where the ask waits
// as a value (AddAskByHandleEvent). The fields after `resources` are the ask's options, named
// and defaulted as AskSpec's; CopyAskOptions is the one place that copies them.
template <typename Text>
struct BasicAskArgs {
  Text id;
  Resource resources;  // ids from Kernel::ResourceTypeId; quantities >= 0, not all zero
  int32_t priority = 0;
  int64_t count = 1;
  Text task_group;
  bool placeholder = false;
  Text required_node;
  bool allow_preemption = true;
  bool originator = false;
  // The pod's creation time on the logical clock (ms, >= 0; may lie before now): the ask's
  // creation time and a floor on its app's submission time under yunikorn-1.9 (YUNIKORN-2772);
  // ignored under yunikorn-1.2, which took the receive time. nullopt: now.
  std::optional<int64_t> creation_time_millis;
};
using AskArgs = BasicAskArgs<std::string_view>;

// Copies an ask's options (priority through creation_time_millis) between any two of its
// descriptions: AskSpec, AskArgs, BasicAskArgs<std::string>. The id and the resources are left
// to the caller, since their types differ (a name list against resolved type ids).
template <typename To, typename From>
void CopyAskOptions(const From& from, To& to) {
  to.priority = from.priority;
  to.count = from.count;
  to.task_group = from.task_group;
  to.placeholder = from.placeholder;
  to.required_node = from.required_node;
  to.allow_preemption = from.allow_preemption;
  to.originator = from.originator;
  to.creation_time_millis = from.creation_time_millis;
}

}  // namespace allocore

#endif  // ALLOCORE_HANDLES_H_

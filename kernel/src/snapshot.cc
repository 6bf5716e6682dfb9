// Kernel::Snapshot, Restore and Fork: the whole kernel as a versioned byte string and back
// (share/doc/allocore/docs/snapshot-format.md).
//
// A snapshot holds the tables, not the history: the options, what the partitions share (the
// clock, the counters that number allocations, submissions, asks and timers, the resource
// types, the user-group cache), then each partition's tables as snapshot_fields.h lists them.
// The caches (queue orders, priorities, order keys, the node index) are not written: a restore
// recomputes them with RebuildCaches, as a config reload does, and then checks the whole state
// from scratch, so a snapshot that does not hold together is refused rather than run.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/kernel.h"
#include "byte_codec.h"
#include "contract.h"
#include "kernel_impl.h"
#include "message.h"
#include "partition.h"
#include "snapshot_archive.h"
#include "snapshot_fields.h"

namespace allocore {

using internal::ByteReader;
using internal::ByteWriter;
using internal::Cat;
using internal::SnapshotReader;
using internal::SnapshotWriter;

namespace internal {

// A member added to Partition must be added to StateFields (or named a cache there, or a
// value that lives only inside one call): this size changes with it. Update it once the new
// member is handled.
static_assert(sizeof(void*) != 8 || sizeof(Partition) == 1272,
              "Partition changed: add the new member to Partition::StateFields (snapshot.cc)");

// Not written: context_ (the restoring kernel's), name_ (the partition's record), the caches
// (queue_keys_, app_keys_, every Queue::order, the priorities, node_index_,
// required_node_pending_: RebuildCaches), and
// what lives only inside one call (defer_path_walk_, deferred_app_, preempted_,
// partition_limits_).
template <typename A, typename Self>
void Partition::StateFields(A& a, Self& self) {
  a(self.serial_, self.index_, self.app_generations_, self.ask_generations_, self.node_generations_,
    self.root_, self.queues_, self.queue_side_, self.queues_by_path_, self.apps_, self.app_side_,
    self.free_apps_, self.shapes_, self.ask_hot_, self.asks_, self.free_asks_, self.nodes_,
    self.free_nodes_, self.allocations_, self.free_allocations_, self.apps_by_id_,
    self.nodes_by_id_, self.nodes_in_id_order_, self.foreign_, self.score_basis_, self.timers_,
    self.terminated_apps_, self.cluster_capacity_, self.has_nodes_ever_, self.total_reservations_,
    self.placement_, self.has_limits_, self.live_placeholders_, self.preemption_enabled_,
    self.preemption_attempts_left_, self.latest_backoff_deadline_, self.quota_preemption_enabled_,
    self.quota_starts_, self.walk_changed_, self.node_policy_, self.node_weights_,
    self.default_node_weights_, self.next_sibling_order_);
}

void Partition::SaveState(SnapshotWriter& out) const {
  ALLOCORE_DCHECK(!defer_path_walk_ && deferred_app_ == kNoSlot && preempted_.empty());
  StateFields(out, *this);
}

absl::Status Partition::LoadState(SnapshotReader& in) {
  StateFields(in, *this);
  if (!in.ok()) return absl::OkStatus();  // the caller names the reader's error and offset
  ALLOCORE_RETURN_IF_ERROR(CheckRestoredReferences());
  for (Queue& q : queues_) q.order = Order(OrderEntryLess(this));
  RebuildCaches();
  return CheckConsistency();
}

namespace {

absl::Status Damaged(std::string_view what) {
  return absl::InvalidArgumentError(Cat("the state does not hold together: ", what));
}

// Every slot in `slots` is below `size` (kNoSlot too when `none_allowed`).
template <typename Slots>
bool AllBelow(const Slots& slots, size_t size, bool none_allowed = false) {
  for (uint32_t s : slots) {
    if (s >= size && !(none_allowed && s == kNoSlot)) return false;
  }
  return true;
}

// A free list names distinct slots, each free by `is_free`.
template <typename IsFree>
bool FreeListValid(const std::vector<uint32_t>& free, size_t size, IsFree&& is_free) {
  std::vector<bool> seen(size, false);
  for (uint32_t s : free) {
    if (s >= size || seen[s] || !is_free(s)) return false;
    seen[s] = true;
  }
  return true;
}

}  // namespace

// What RebuildCaches and CheckConsistency index with, checked before either runs: every slot a
// record names is in its table, the queue tree has no cycle (a parent's slot is below its
// child's: queues are only ever appended), free lists name free slots, and every resource type
// a record uses is registered.
absl::Status Partition::CheckRestoredReferences() const {
  const size_t queues = queues_.size();
  const size_t apps = apps_.size();
  const size_t asks = asks_.size();
  const size_t nodes = nodes_.size();
  const size_t allocations = allocations_.size();
  if (queue_side_.size() != queues || app_side_.size() != apps || ask_hot_.size() != asks) {
    return Damaged("side tables are not sized with their records");
  }
  if (root_ >= queues || queues_[root_].parent != kNoSlot) return Damaged("no root queue");
  for (uint32_t q = 0; q < queues; ++q) {
    const Queue& queue = queues_[q];
    if (q != root_ && (queue.parent >= q)) return Damaged(Cat("queue ", q, ": its parent"));
    for (uint32_t child : queue.children) {
      if (child >= queues || child <= q || queues_[child].parent != q) {
        return Damaged(Cat("queue ", q, ": its children"));
      }
    }
    for (const auto& [seq, app] : queue.apps) {
      if (app >= apps) return Damaged(Cat("queue ", q, ": its applications"));
    }
    if (!AllBelow(queue.allocating_accepted, apps)) {
      return Damaged(Cat("queue ", q, ": its allocating applications"));
    }
  }
  for (const auto& [path, q] : queues_by_path_) {
    if (q >= queues) return Damaged("the queues by path");
  }
  for (const auto& [start, q] : quota_starts_) {
    if (q >= queues) return Damaged("the quota start times");
  }
  for (uint32_t app = 0; app < apps; ++app) {
    const App& a = apps_[app];
    const AppSide& side = app_side_[app];
    if (a.queue >= queues && !(a.queue == kNoSlot && !a.in_queue)) {
      return Damaged(Cat("application ", app, ": its queue"));
    }
    for (const AskKey& key : a.ask_order) {
      if (key.slot >= asks) return Damaged(Cat("application ", app, ": its ask order"));
    }
    for (const Reservation& r : a.reservations) {
      if (r.ask >= asks || r.node >= nodes) {
        return Damaged(Cat("application ", app, ": its reservations"));
      }
    }
    for (const auto& [id, ask] : side.asks_by_id) {
      if (ask >= asks) return Damaged(Cat("application ", app, ": its asks by id"));
    }
    for (const auto& [seq, ask] : side.asks) {
      if (ask >= asks) return Damaged(Cat("application ", app, ": its asks"));
    }
  }
  for (uint32_t ask = 0; ask < asks; ++ask) {
    const AskHot& hot = ask_hot_[ask];
    if (hot.app >= apps && hot.app != kNoSlot)
      return Damaged(Cat("ask ", ask, ": its application"));
    if (hot.shape != ResourceShapes::kNone && !shapes_.Holds(hot.shape)) {
      return Damaged(Cat("ask ", ask, ": its resource shape"));
    }
    if (!AllBelow(asks_[ask].allocations, allocations)) {
      return Damaged(Cat("ask ", ask, ": its allocations"));
    }
  }
  const ResourceMask registered =
      (ResourceMask{1} << static_cast<unsigned>(context_->types.size())) - 1;
  auto types_registered = [&](const Resource& r) { return (r.present & ~registered) == 0; };
  for (uint32_t node = 0; node < nodes; ++node) {
    const Node& n = nodes_[node];
    if (n.reservation && (n.reservation->first >= apps || n.reservation->second >= asks)) {
      return Damaged(Cat("node ", node, ": its reservation"));
    }
    if (!AllBelow(n.allocations, allocations)) return Damaged(Cat("node ", node, ": allocations"));
    if (!types_registered(n.capacity) || !types_registered(n.occupied)) {
      return Damaged(Cat("node ", node, ": a resource type that is not registered"));
    }
  }
  for (const Allocation& allocation : allocations_) {
    if (allocation.app >= apps || allocation.ask >= asks || allocation.node >= nodes) {
      if (allocation.live) return Damaged("a live allocation naming a missing record");
    }
    if (!types_registered(allocation.resource)) {
      return Damaged("an allocation of a resource type that is not registered");
    }
  }
  for (const auto& [id, app] : apps_by_id_) {
    if (app >= apps) return Damaged("the applications by id");
  }
  for (const auto& [id, node] : nodes_by_id_) {
    if (node >= nodes) return Damaged("the nodes by id");
  }
  for (const auto& [id, node] : nodes_in_id_order_) {
    if (node >= nodes || !nodes_[node].alive) return Damaged("the nodes in id order");
  }
  for (const auto& [id, pod] : foreign_) {
    if (pod.node >= nodes) return Damaged("a foreign pod's node");
  }
  for (const auto& [node, basis] : score_basis_) {
    if (node >= nodes) return Damaged("the node score bases");
  }
  for (const auto& [due, seq, app] : timers_) {
    if (app >= apps) return Damaged("the timers");
  }
  if (!AllBelow(terminated_apps_, apps)) return Damaged("the terminated applications");
  for (const auto& [type, weight] : node_weights_) {
    if (type < 0 || type >= context_->types.size()) return Damaged("the node sort weights");
  }
  if (!FreeListValid(free_apps_, apps, [&](uint32_t s) { return !apps_[s].alive; }) ||
      !FreeListValid(free_asks_, asks, [&](uint32_t s) { return !ask_hot_[s].alive; }) ||
      !FreeListValid(free_nodes_, nodes, [&](uint32_t s) { return !nodes_[s].alive; }) ||
      !FreeListValid(free_allocations_, allocations,
                     [&](uint32_t s) { return !allocations_[s].live; })) {
    return Damaged("a free list naming a slot in use");
  }
  return absl::OkStatus();
}

}  // namespace internal

namespace {

constexpr std::string_view kSnapshotMagic = "ALLOCSNP";
// magic, version, checksum of the body, length of the body.
constexpr size_t kSnapshotHeaderBytes = 8 + 4 + 4 + 8;

template <typename A, typename Self>
void ContextFields(A& a, Self& context) {
  a(context.now, context.next_allocation_seq, context.next_allocation_age,
    context.next_submission_seq, context.next_ask_seq, context.next_timer_seq,
    context.next_partition_serial, context.user_groups);
}

absl::Status Refused(size_t offset, std::string_view what) {
  return absl::InvalidArgumentError(Cat("snapshot: byte ", offset, ": ", what));
}

}  // namespace

std::string Kernel::Snapshot() const {
  std::string body;
  SnapshotWriter out(&body);
  const KernelOptions& options = impl_->options;
  out(options.max_applications, options.max_asks, options.max_live_allocations, options.semantics);
  std::vector<std::string> types(static_cast<size_t>(impl_->context.types.size()));
  for (size_t t = 0; t < types.size(); ++t)
    types[t] = impl_->context.types.Name(static_cast<int>(t));
  out(types);
  ContextFields(out, impl_->context);
  out(static_cast<uint64_t>(impl_->partitions.size()));
  for (const auto& partition : impl_->partitions) {
    out(partition->name());
    partition->SaveState(out);
  }
  std::string snapshot;
  snapshot.reserve(kSnapshotHeaderBytes + body.size());
  ByteWriter header(&snapshot);
  header.Bytes(kSnapshotMagic);
  header.Fixed32(kSnapshotVersion);
  header.Fixed32(internal::Crc32c(body));
  header.Fixed64(body.size());
  snapshot += body;
  return snapshot;
}

absl::StatusOr<std::unique_ptr<Kernel>> Kernel::Restore(std::string_view snapshot) {
  if (snapshot.size() < kSnapshotHeaderBytes || snapshot.substr(0, 8) != kSnapshotMagic) {
    return Refused(0, "not an allocore snapshot (it does not start with ALLOCSNP)");
  }
  ByteReader header(snapshot.substr(8, kSnapshotHeaderBytes - 8));
  const uint32_t version = header.Fixed32();
  const uint32_t checksum = header.Fixed32();
  const uint64_t length = header.Fixed64();
  if (version == 0 || version > kSnapshotVersion) {
    return Refused(8,
                   Cat("version ", version, "; this build reads versions 1 to ", kSnapshotVersion));
  }
  std::string_view body = snapshot.substr(kSnapshotHeaderBytes);
  if (length != body.size()) {
    return Refused(16, Cat("the header gives ", length, " bytes of state, the snapshot holds ",
                           body.size(), body.size() < length ? " (cut short)" : ""));
  }
  if (internal::Crc32c(body) != checksum) {
    return Refused(12, "the checksum does not match the state (the snapshot is damaged)");
  }

  auto impl = std::make_unique<Impl>();
  SnapshotReader in(body, &impl->context.names);
  auto failed = [&]() {
    return Refused(kSnapshotHeaderBytes + in.bytes().error_offset(), in.bytes().error());
  };
  KernelOptions& options = impl->options;
  in(options.max_applications, options.max_asks, options.max_live_allocations, options.semantics);
  std::vector<std::string> types;
  in(types);
  if (!in.ok()) return failed();
  if (options.max_applications < 0 || options.max_asks < 0 || options.max_live_allocations < 0) {
    return Refused(kSnapshotHeaderBytes, "a negative budget in the kernel options");
  }
  impl->context.profile = &internal::ProfileFor(options.semantics);
  for (const std::string& type : types) {
    absl::StatusOr<int> id = impl->context.types.Intern(type);
    if (!id.ok() || *id + 1 != impl->context.types.size()) {
      return Refused(kSnapshotHeaderBytes, "resource types repeated or more than the kernel holds");
    }
  }
  ContextFields(in, impl->context);
  uint64_t partitions = 0;
  in(partitions);
  if (!in.ok()) return failed();
  if (partitions == 0 || partitions > in.bytes().remaining()) {
    return Refused(kSnapshotHeaderBytes + in.bytes().offset(), "no partitions");
  }
  const uint32_t next_serial = impl->context.next_partition_serial;
  for (uint64_t i = 0; i < partitions; ++i) {
    std::string name;
    in(name);
    if (!in.ok()) return failed();
    if (impl->Find(name) != nullptr) {
      return Refused(kSnapshotHeaderBytes + in.bytes().offset(), Cat("partition ", name, " twice"));
    }
    auto partition = std::make_unique<Partition>(&impl->context, name);
    absl::Status loaded = partition->LoadState(in);
    if (!in.ok()) return failed();
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(Cat("snapshot: partition ", name, ": ", loaded.message()));
    }
    if (partition->serial() >= next_serial) {
      return Refused(kSnapshotHeaderBytes + in.bytes().offset(),
                     Cat("partition ", name, ": a serial the kernel has not issued yet"));
    }
    impl->partitions.push_back(std::move(partition));
  }
  // The partitions' constructors took serials; the kernel goes on from the snapshot's count.
  impl->context.next_partition_serial = next_serial;
  if (in.bytes().remaining() != 0) {
    return Refused(kSnapshotHeaderBytes + in.bytes().offset(), "bytes after the last partition");
  }
  return std::unique_ptr<Kernel>(new Kernel(std::move(impl)));
}

absl::StatusOr<std::unique_ptr<Kernel>> Kernel::Fork() const { return Restore(Snapshot()); }

}  // namespace allocore

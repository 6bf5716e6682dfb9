// kernel/src/semantics_profile.h — the rules a semantics profile chooses.
//
// YuniKorn changed some scheduling rules between the releases allocore reproduces. Each such
// rule has one version per release, written next to the other in the module that owns the
// rule; a Profile says which version a kernel runs. The partition reads its profile in the
// few places that call one of these rules, so a profile is a set of choices made once, not a
// test of the release spread over the walk. kernel/README.md ("Semantics profiles") maps each
// field to YuniKorn's change.
#ifndef ALLOCORE_KERNEL_SRC_SEMANTICS_PROFILE_H_
#define ALLOCORE_KERNEL_SRC_SEMANTICS_PROFILE_H_

#include <optional>

#include "allocore/kernel.h"
#include "allocore/resource.h"
#include "allocore/semantics.h"
#include "name_rules.h"
#include "queue_order.h"

namespace allocore::internal {

// A child queue's share in its parent's fair order: `allocated` against its own guarantee and,
// where the profile uses one, the fair max (the cluster, narrowed by the maxes on its path).
using ChildShareRule = ShareKey (*)(const Resource& allocated,
                                    const std::optional<Resource>& guaranteed,
                                    const std::optional<Resource>& fair_max);
// Whether one queue level with limit `max` (the cluster for the root) takes `delta` on top of
// its `allocated`.
using LevelMaxRule = bool (*)(const Resource& max, const Resource& allocated, const Resource& delta,
                              bool root);

// Where placement goes when the configured rules place nothing.
enum class PlacementFallback : uint8_t {
  kReject,       // the application is rejected (v1.2.0)
  kRootDefault,  // root.default when it exists, takes the user and is not draining; forced
                 // applications go to root.@recovery@ (1.6+)
};

struct Profile {
  Semantics semantics;
  ChildShareRule child_share;
  bool child_share_reads_fair_max;  // child_share needs the fair max (and the cluster size)
  LevelMaxRule level_max_allows;
  // The state an Accepted application enters with its first allocation: Starting in v1.2.0
  // (left for Running by a second allocation or a timer), Running since 1.6.
  AppState started_state;
  // `application.sort.policy: stateaware` reads as fifo (1.6+).
  bool stateaware_is_fifo;
  // A dynamic leaf without a child template copies its parent's application.sort.policy
  // (v1.2.0; 1.5+ start it from the defaults).
  bool dynamic_leaf_inherits_sort_policy;
  // With no placement rules configured: the named queue must exist (v1.2.0), or the
  // provided rule without create runs, followed by the fallback (1.6+).
  bool implicit_provided_rule;
  PlacementFallback placement_fallback;
  // Placement skips a Draining leaf as it skips one the user may not submit to (1.6+).
  bool placement_skips_draining;
  // An ask's creation time (the pod's creationTime tag) is its create time and lowers its app's
  // submission time, which orders fifo apps (1.7+, YUNIKORN-2772); v1.2.0 took the receive time.
  bool ask_creation_time_counts;
  // The partition's preemption.enabled when the key is absent.
  bool preemption_enabled_by_default;
  // Queue, user and group names: v1.2.0's characters, or 1.6+'s wider set.
  NameCharset name_charset;
  // `statedumpfilepath` is an invalid key (1.9) rather than a deprecated one.
  bool state_dump_file_path_is_error;
  // A manager's allocation of a pending ask is placed where reported, and a report of a live one
  // resizes it (1.6+: UpdateAllocation is one call for both); v1.2.0 recovered new keys only.
  bool recovery_updates_known_asks;
  // A recovered placeholder counts in its task group as a placeholder ask does (1.5+,
  // addAllocationAskInternal); v1.2.0 recovered it without placeholder data.
  bool recovered_placeholder_joins_task_group;
  // Live allocations and pending asks take new resources in place (1.6+, YUNIKORN-2367).
  bool resize_in_place;
  // Other schedulers' pods are tracked one by one and change only the node's free space, not its
  // place in the node order until the node's next notified change (1.7+, YUNIKORN-2791);
  // v1.2.0 had one occupied total whose every change re-sorted the node.
  bool foreign_changes_keep_node_order;
  // Application tags set a dynamic leaf's limits: v1.2.0 only its max
  // (`namespace.resourcequota`); 1.4+ also its guarantee and maxapplications, where a tag left
  // out clears that limit (YUNIKORN-1575, -1697).
  bool namespace_tags_set_guarantee_and_apps;
  // One ask is one pod (1.5+, YUNIKORN-2204): a key the application knows is never a new ask
  // (re-sent, only its resources change: the pending part's, else its oldest live
  // allocation's), and a manager's release removes the ask with its allocation. v1.2.0 replaced
  // a re-sent ask and kept released ones known.
  bool asks_are_pods;
  // The reserved pass cancels a reservation whose ask the user or queue headroom refuses once
  // it is older than kReservationCancelAfterMs (1.9+, YUNIKORN-3219); v1.2.0 kept it.
  bool reservations_time_out;
  // A queue whose usage stays above a lowered max is brought back under it by preemption once
  // its quota.preemption.delay has passed, when the partition's
  // preemption.quotapreemptionenabled is true (1.8+, YUNIKORN-3133, -3203); v1.2.0 had neither
  // key.
  bool quota_preemption;
  // The partition total, the root's max, drops zero quantities (1.6+, YUNIKORN-2796, -2802,
  // -2826): a type whose nodes all report 0 of it, or have left, limits nothing at the root,
  // and with no positive quantity left the root has no max and the partition is not scheduled.
  // v1.2.0 kept such a type as a limit of 0.
  bool root_max_prunes_zeros;
};

const Profile& ProfileFor(Semantics semantics);

// The two versions of ChildShareRule.
// v1.2.0 (compareShares): every type's share, largest first; a type without a guarantee
// counts its raw quantity.
ShareKey ChildSharesByEveryType(const Resource& allocated,
                                const std::optional<Resource>& guaranteed,
                                const std::optional<Resource>& fair_max);
// 1.6+ (YUNIKORN-2678): one number, the largest share of a type against the guarantee, else
// the fair max; types with neither are skipped.
ShareKey ChildShareDominant(const Resource& allocated, const std::optional<Resource>& guaranteed,
                            const std::optional<Resource>& fair_max);

// The two versions of LevelMaxRule.
// v1.2.0: allocated + delta must fit max over max's types.
bool LevelMaxAllowsWhole(const Resource& max, const Resource& allocated, const Resource& delta,
                         bool root);
// 1.6+ (YUNIKORN-2790): only delta's types are checked (delta + allocated on those types); the
// root is strict: a type the cluster lacks does not fit.
bool LevelMaxAllowsRequestedTypes(const Resource& max, const Resource& allocated,
                                  const Resource& delta, bool root);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_SEMANTICS_PROFILE_H_

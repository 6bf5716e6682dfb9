// allocore/adapters/cluster_export.h — a scenario's state at a step, in the shape of YuniKorn's
// full state dump (`allocore export yunikorn`).
//
// The scenario is replayed up to the step; the dump then holds what a YuniKorn of the
// scenario's profile would report at that moment: the nodes with their capacity and the room
// other schedulers' pods take, every application that is not finished with its user, queue,
// submission time, running allocations and pending requests. Under yunikorn-1.2 the dump has
// the 1.2 format, under yunikorn-1.9 the 1.8-1.9 one (docs/import.md, "Which release wrote the
// dump"), so that `allocore import yunikorn` reads it back; the pair is a round trip
// (tests/adapters/cluster_roundtrip_test.cc).
//
// Where the dump's format cannot say what the kernel holds, allocore writes it anyway in the
// fields the importer reads: a 1.2 allocation's placeholder flag and task group (YuniKorn 1.2
// leaves both unset), and a pending count on 1.9 requests of an ask with several repeats.
// What no field holds (groups under 1.2, application tags other than the namespace, live
// reservations) is not exported: docs/import.md lists it.
#ifndef ALLOCORE_ADAPTERS_CLUSTER_EXPORT_H_
#define ALLOCORE_ADAPTERS_CLUSTER_EXPORT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "allocore/adapters/scenario.h"
#include "allocore/export.h"

namespace allocore::adapters {

struct ExportOptions {
  int64_t at_step = -1;  // the state after this step (1-based; -1: after the last)
  // The Unix time (seconds) the scenario's logical time 0 is written as.
  int64_t epoch_seconds = 1'700'000'000;
};

// The dump as JSON text. Errors: InvalidArgument for a step past the scenario's end; what the
// replay returns otherwise.
ALLOCORE_EXPORT absl::StatusOr<std::string> ExportYunikornStateDump(const Scenario& scenario,
                                                                    const ExportOptions& options);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_CLUSTER_EXPORT_H_

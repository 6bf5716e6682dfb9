// fuzz/event_sequence.h — fuzzer bytes -> a scheduler config and a sequence of kernel calls.
//
// Shared by fuzz_events (invariants after every call) and fuzz_differential (kernel against
// the reference model). The decoder is pure: the same bytes give the same sequence, whatever
// the kernel answers, so a sequence can be replayed into several implementations.
//
// The calls mix valid and invalid ones on purpose: unknown and duplicate ids, empty ids,
// unknown partitions, negative and overflowing quantities, zero and huge counts, more resource
// types than the kernel holds, removing what is allocated, clock jumps (negative, huge), names,
// groups, tags, counts and queue paths at and past their limits (ApiLimits, kMaxQueueDepth),
// and (fuzz_events only) config reloads mid-run, valid or not, and small memory budgets.
//
// Every call is one step of the scenario format (docs/scenario-format.md): the driver
// advances the clock by 1 ms before it, so DescribeSequence() prints a scenario that
// `allocore run` replays with the same decisions.
//
// Example:
//   ByteReader in(data, size);
//   Sequence seq = DecodeSequence(in, {.modelled_only = true});
//   auto kernel = Kernel::Create(seq.config).value();
//   for (const Call& call : seq.calls) {
//     kernel->Advance(1, &out);
//     ApplyCall(*kernel, call, &out, nullptr);
//   }
#ifndef ALLOCORE_FUZZ_EVENT_SEQUENCE_H_
#define ALLOCORE_FUZZ_EVENT_SEQUENCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "byte_reader.h"

namespace allocore::fuzz {

enum class CallKind : uint8_t {
  kAddNode,
  kUpdateNode,
  kRemoveNode,
  kAddApp,
  kRemoveApp,
  kAddAsk,
  kRemoveAsk,
  kRelease,
  kAdvance,
  kSchedule,
  kUpdateConfig,
  // A manager's lifecycle.
  kRecover,           // ask (count 1 usually) + node_id
  kUpdateAllocation,  // id (app), ask_id, node_id, resources
  kUpdateAsk,         // id (app), ask_id, resources
  kAddForeign,        // id, node_id, resources
  kUpdateForeign,     // id, node_id, resources
  kRemoveForeign,     // id
};

struct Call {
  CallKind kind = CallKind::kSchedule;
  NodeSpec node;                              // kAddNode
  NodeUpdate update;                          // kUpdateNode
  AppSpec app;                                // kAddApp
  AskSpec ask;                                // kAddAsk
  std::string partition = kDefaultPartition;  // the other kinds ("" on kSchedule: every one)
  std::string id;                             // node (remove), app (remove, remove ask, release)
  std::string ask_id;                         // remove ask, release
  std::string node_id;                        // release ("" = any node)
  int64_t value = 0;                          // advance: millis; schedule: max
  std::optional<SchedulerConfig> config;      // kUpdateConfig (not validated)
  Quantities resources;                       // resizes and foreign pods
};

struct DecodeOptions {
  // Only what the reference model implements (tests/reference/README.md, "Scope"): no
  // reloads and no recovery placement rule.
  bool modelled_only = false;
  size_t max_calls = 200;
};

struct Sequence {
  SchedulerConfig config;  // valid and normalised (ValidateConfig ran and found no error)
  std::string config_name;
  KernelOptions kernel_options;  // a small budget for some inputs (never with modelled_only)
  std::vector<Call> calls;
};

Sequence DecodeSequence(ByteReader& in, const DecodeOptions& options);

// The semantics profile an input runs under, without a byte of the decoding: the input's last
// bit picks yunikorn-1.9, for a config that profile accepts (its name rules and keys differ);
// otherwise yunikorn-1.2.
Semantics ProfileFor(const SchedulerConfig& config, const uint8_t* data, size_t size);

// The call as the kernel's event (allocore/events.h); how ApplyCall applies it by name.
Event ToEvent(const Call& call);

// Makes the call on `kernel`, appending its decisions to `out`. `allocations` (may be null)
// receives Schedule's result. The scenario runner's 1 ms tick before every step is the
// caller's: kernel.Advance(1, ...) first. `by_handle`: the calls the handle API has (add,
// remove and release asks, remove applications and nodes) go through it, with handles
// resolved by Find* just before; a lookup that fails, or an ask naming a resource type not
// yet registered, takes the call by name (so the verdict is the same either way).
absl::Status ApplyCall(Kernel& kernel, const Call& call, std::vector<Decision>* out,
                       int64_t* allocations, bool by_handle = false);

// Calls [begin, end) of `seq` on `kernel`, each after the driver's 1 ms tick, by name; the
// DecisionText (digest.h) of every decision is appended to `stream`.
void ReplayCalls(Kernel& kernel, const Sequence& seq, size_t begin, size_t end,
                 std::vector<std::string>* stream);

// The call as one `steps:` entry of a scenario ("add_ask: {app: app1, id: k1, ...}").
std::string DescribeCall(const Call& call);
// The whole sequence as a scenario file (config as JSON, steps, no expect block).
std::string DescribeSequence(const Sequence& seq, size_t calls);

// Aborts with `message` (and the sequence, when ALLOCORE_FUZZ_VERBOSE is set) on a finding.
[[noreturn]] void Fail(const std::string& message);

// Set ALLOCORE_FUZZ_VERBOSE=1 to print every decoded sequence before it runs.
bool Verbose();

// ALLOCORE_FUZZ_AVOID=pattern,pattern,... narrows the decoded inputs, to steer a long run
// around a reported finding while its fix is pending (fuzz/findings/README.md); the default,
// and CI, avoid nothing:
//   negative-quantity  node and ask quantities are never negative
//   saturation         ask counts stay at most 1000, node and ask quantities below 2^40
//   clock-overflow     clock jumps stay below 2^40 ms
//   type-limit         node and ask quantities name only memory, vcore and gpu; fuzz_config
//                      ignores Kernel::Create refusing a ninth resource type
bool Avoid(std::string_view pattern);

}  // namespace allocore::fuzz

#endif  // ALLOCORE_FUZZ_EVENT_SEQUENCE_H_

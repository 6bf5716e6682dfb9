#!/usr/bin/env python3
"""The Python package's costs on the churn workload, and its per-call overhead.

    PYTHONPATH=build/python python3 bindings/python/bench/churn.py [--rounds N] [--batch N]
        [--repeat N] [--quick]

Churn (bench/latency_benchmark.cc's shape): 5,000 nodes with room for 16 asks each, 10 leaf
queues of 10 applications, 100,000 pending asks; warm up to 50,000 live allocations, then
every round: schedule(1), a new ask, the release of the oldest live allocation. The driver
learns what was allocated from the decisions, read in bulk every --batch rounds.

It prints:
- the time of the schedule(1) calls as Python sees them (the C kernel plus the binding);
- the time of reading the same rounds' decisions in bulk, against the schedule time (every
  reader runs --repeat times, the readers alternating; the run with the least read time, and
  the median share over the runs): as a list
  of Decision named tuples (take_decisions()), as the allocations alone (take_decisions(types=
  (ALLOCATION,)): every decision is exported, only the allocations become tuples), as plain
  tuples of the four fields the driver needs (take_decisions(types=(ALLOCATION,), fields=
  ("app", "ask", "node", "seq"))), as a numpy structured array (take_decisions_array();
  numpy frees its object columns slowly, and that is counted: each take drops the previous
  result, as every reader's does), as a DecisionBatch (take_decision_batch(): the records and
  names exported into memory the batch owns, no Python object per decision: "batch"), and as
  a DecisionBatch plus what the driver needs from it: plain tuples of the allocations' four
  fields ("batch-rows": batch.to_list(types=(ALLOCATION,), fields=...), the rows of "rows"),
  or the same from the columns ("batch-columns": the records as a numpy array, the
  allocations found there, their names decoded by column(), their seqs from the array);
- the floor of every reader: allocore_decisions_export alone, in the same loop ("export": the
  C export into reused buffers, nothing made of it; the decisions were made up to --batch
  rounds before, so it reads them from memory the scheduling has pushed out of the caches);
- the same readers' cost per decision on one batch of decisions just made (caches warm),
  best of 50;
- the per-call overhead of a few calls, against a Python function call.
"""

from __future__ import annotations

import argparse
import collections
import gc
import statistics
import sys
import time

import numpy as np

import allocore
from allocore import DecisionType

ALLOCATION = DecisionType.ALLOCATION
ROW = ("app", "ask", "node", "seq")  # what the driver needs to release an allocation


def config(leaves: int) -> str:
    lines = ["partitions:", "  - name: default", "    queues:", "      - name: root",
             '        submitacl: "*"', "        queues:"]
    lines += [f"          - name: leaf-{i}" for i in range(leaves)]
    return "\n".join(lines) + "\n"


class Churn:
    def __init__(self, nodes: int, pending: int, live: int, leaves: int = 10,
                 apps_per_leaf: int = 10, slots: int = 16, seed: int = 1):
        import random

        self.rng = random.Random(seed)
        self.k = allocore.Kernel(config(leaves))
        for i in range(nodes):
            self.k.add_node(f"node-{i}", {"memory": 40 * slots, "vcore": 4000 * slots})
        self.apps = []
        for leaf in range(leaves):
            for _ in range(apps_per_leaf):
                app = f"app-{len(self.apps)}"
                self.k.add_app(app, queue=f"root.leaf-{leaf}", user="user")
                self.apps.append(app)
        self.next_ask = 0
        for _ in range(pending):
            self.add_ask()
        self.live = collections.deque()
        self.k.take_decisions()
        # Warm up to `live` allocations, replacing every allocated ask by a new one.
        while len(self.live) < live:
            made = self.k.schedule(min(1000, live - len(self.live)))
            if made == 0:
                break
            self.consume(self.k.take_decisions())
            for _ in range(made):
                self.add_ask()
        self.k.take_decisions()

    def add_ask(self) -> None:
        shape = self.rng.randrange(4) + 1
        app = self.apps[self.next_ask % len(self.apps)]
        self.k.add_ask(app, f"ask-{self.next_ask}", {"memory": 10 * shape, "vcore": 1000 * shape},
                       priority=self.rng.randrange(4))
        self.next_ask += 1

    def consume(self, decisions) -> None:
        for d in decisions:
            if d.type == ALLOCATION:
                self.live.append((d.app, d.ask, d.node, d.seq))

    def consume_array(self, array) -> None:
        allocs = array[array["type"] == 0]
        self.live.extend(zip(allocs["app"].tolist(), allocs["ask"].tolist(),
                             allocs["node"].tolist(), allocs["seq"].tolist()))

    @staticmethod
    def batch_columns(batch) -> list:
        """(app, ask, node, seq) of the batch's allocations, read from its columns."""
        records = batch.records
        allocs = np.flatnonzero(records["type"] == int(ALLOCATION))
        return list(zip(batch.column("app", allocs), batch.column("ask", allocs),
                        batch.column("node", allocs), records["seq"][allocs].tolist()))

    def rounds(self, n: int, batch: int, reader: str) -> dict:
        """n rounds; returns the nanoseconds spent in schedule(1), in reading, and in the rest."""
        k = self.k
        clock = time.perf_counter_ns
        schedule_ns = read_ns = 0
        decisions = 0
        start = clock()
        for r in range(n):
            t0 = clock()
            k.schedule(1)
            schedule_ns += clock() - t0
            self.add_ask()
            if self.live:
                app, ask, node, seq = self.live.popleft()
                k.release(app, ask, node, seq)
            if (r + 1) % batch == 0 or r == n - 1:
                decisions += k.pending_decisions
                t0 = clock()
                if reader == "list":
                    taken = k.take_decisions()
                    read_ns += clock() - t0
                    self.consume(taken)
                elif reader == "list-allocations":
                    taken = k.take_decisions(types=(ALLOCATION,))
                    read_ns += clock() - t0
                    self.consume(taken)
                elif reader == "rows":
                    taken = k.take_decisions(types=(ALLOCATION,), fields=ROW)
                    read_ns += clock() - t0
                    self.live.extend(taken)
                elif reader == "array":
                    taken = k.take_decisions_array()
                    read_ns += clock() - t0
                    self.consume_array(taken)
                elif reader == "export":
                    k._export_only()
                    read_ns += clock() - t0
                    self.live.extend(k.take_decisions(types=(ALLOCATION,), fields=ROW))
                elif reader == "batch":
                    taken = k.take_decision_batch()
                    read_ns += clock() - t0
                    self.live.extend(taken.to_list(types=(ALLOCATION,), fields=ROW))
                elif reader == "batch-rows":
                    rows = k.take_decision_batch().to_list(types=(ALLOCATION,), fields=ROW)
                    read_ns += clock() - t0
                    self.live.extend(rows)
                elif reader == "batch-columns":
                    rows = self.batch_columns(k.take_decision_batch())
                    read_ns += clock() - t0
                    self.live.extend(rows)
                else:
                    raise ValueError(reader)
        total = clock() - start
        return {"rounds": n, "decisions": decisions, "schedule_ns": schedule_ns,
                "read_ns": read_ns, "total_ns": total}


def per_call(repeat: int) -> dict:
    """Median nanoseconds per call over 5 runs of `repeat` calls, on a small kernel (one node,
    one application) where the C side of each call is short: what is left is the binding."""
    k = allocore.Kernel(config(1))
    k.add_node("node-0", {"memory": 10**9, "vcore": 10**9})
    k.add_app("app", queue="root.leaf-0", user="u")
    k.take_decisions()

    def timed(fn, n=repeat):
        runs = []
        for _ in range(5):
            t0 = time.perf_counter_ns()
            fn(n)
            runs.append((time.perf_counter_ns() - t0) / n)
        return statistics.median(runs)

    def noop():
        return None

    def loop_noop(n):
        for _ in range(n):
            noop()

    def loop_now(n):
        for _ in range(n):
            k.now_ms

    def loop_pending(n):
        for _ in range(n):
            k.pending_decisions

    def loop_usage(n):
        for _ in range(n):
            k.usage()

    def loop_take_empty(n):
        for _ in range(n):
            k.take_decisions()

    def loop_schedule_idle(n):
        for _ in range(n):
            k.schedule(1)

    def loop_add_remove(n):
        res = {"memory": 1}
        for _ in range(n):
            k.add_ask("app", "b", res)
            k.remove_ask("app", "b")
        k.clear_decisions()

    def loop_cycle(n):
        res = {"memory": 1}
        for _ in range(n):
            k.add_ask("app", "c", res)
            k.schedule(1)
            k.release("app", "c")
            k.take_decisions()

    result = {
        "python function call (baseline)": timed(loop_noop),
        "Kernel.now_ms (allocore_now_millis)": timed(loop_now),
        "Kernel.pending_decisions (allocore_decisions_count)": timed(loop_pending),
        "Kernel.usage() (allocore_usage, a 3-tuple)": timed(loop_usage),
        "Kernel.take_decisions() with none pending": timed(loop_take_empty),
        "Kernel.schedule(1) with nothing pending": timed(loop_schedule_idle),
        "Kernel.add_ask + remove_ask (one resource)": timed(loop_add_remove, repeat // 4),
        "add_ask + schedule(1) + release + take_decisions (3 decisions)":
            timed(loop_cycle, repeat // 4),
    }
    k.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=100, help="rounds between bulk reads")
    parser.add_argument("--quick", action="store_true", help="a small kernel (500 nodes)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of every reader")
    args = parser.parse_args()
    nodes, pending, live = (500, 10000, 5000) if args.quick else (5000, 100000, 50000)
    print(f"allocore {allocore.__version__}, Python {sys.version.split()[0]}; churn: {nodes} "
          f"nodes, {pending} pending, {live} live; {args.rounds} rounds, reads every "
          f"{args.batch} rounds", flush=True)
    t0 = time.perf_counter()
    churn = Churn(nodes, pending, live)
    print(f"set up in {time.perf_counter() - t0:.1f} s", flush=True)
    # The driver's own objects (50,000 live allocations as tuples) would make every full
    # collection of the timed loops scan them: move them out of the collector's sight.
    gc.collect()
    gc.freeze()
    churn.rounds(2000, args.batch, "list")  # warm
    readers = ("list", "list-allocations", "rows", "array", "export", "batch", "batch-rows",
               "batch-columns")
    # Every reader runs --repeat times; the runs of the readers alternate, so that they share
    # the machine's ups and downs (it may be shared). Printed: the run with the least read
    # time, and the median of read/schedule over the runs.
    runs = {reader: [] for reader in readers}
    for _ in range(args.repeat):
        for reader in readers:
            runs[reader].append(churn.rounds(args.rounds, args.batch, reader))
    print(f"reading every {args.batch} rounds, best of {args.repeat} runs (median "
          f"read/schedule over the runs):")
    for reader in readers:
        r = min(runs[reader], key=lambda x: x["read_ns"])
        median = statistics.median(100 * x["read_ns"] / x["schedule_ns"] for x in runs[reader])
        print(f"{reader:>16}: schedule(1) {r['schedule_ns'] / r['rounds']:5.0f} ns/call, "
              f"read {r['read_ns'] / max(r['decisions'], 1):4.0f} ns/decision "
              f"({r['decisions'] / r['rounds']:.2f} decisions/round), read/schedule = "
              f"{100 * r['read_ns'] / r['schedule_ns']:4.1f}% ({median:4.1f}%), "
              f"round {r['total_ns'] / r['rounds']:.0f} ns",
              flush=True)
    # One batch of decisions just made, read again and again by every form (the caches warm:
    # what reading costs when the decisions need not come from memory).
    for _ in range(args.batch):
        churn.k.schedule(1)
        churn.add_ask()
        app, ask, node, seq = churn.live.popleft()
        churn.k.release(app, ask, node, seq)
    n = churn.k.pending_decisions
    k = churn.k
    forms = {
        "the export alone (allocore_decisions_export, chunks of 1024)": k._export_only,
        "a DecisionBatch (peek_decision_batch())": k.peek_decision_batch,
        "a DecisionBatch, then the allocations' rows (to_list(types, fields))":
            lambda: k.peek_decision_batch().to_list(types=(ALLOCATION,), fields=ROW),
        "a DecisionBatch, then the allocations' rows from its columns":
            lambda: churn.batch_columns(k.peek_decision_batch()),
        "Decision tuples, in bulk (take_decisions() form)": lambda: k.peek_decisions(bulk=True),
        "Decision tuples from the per-decision accessors (17 C calls each)":
            lambda: k.peek_decisions(bulk=False),
    }
    best_ns = {}
    for _ in range(50):
        for name, fn in forms.items():
            t0 = time.perf_counter_ns()
            fn()
            best_ns[name] = min(best_ns.get(name, float("inf")), time.perf_counter_ns() - t0)
    bulk_list = k.peek_decisions(bulk=True)
    batch = k.peek_decision_batch()
    allocs = [(d.app, d.ask, d.node, d.seq) for d in bulk_list if d.type == ALLOCATION]
    assert bulk_list == k.peek_decisions(bulk=False) == batch.to_list() == list(batch)
    assert batch.to_list(types=(ALLOCATION,), fields=ROW) == allocs
    assert churn.batch_columns(batch) == allocs
    print(f"the same {n} decisions just made (caches warm), best of 50, ns per decision:")
    for name, ns in best_ns.items():
        print(f"  {name:<70} {ns / n:5.0f}")
    churn.consume(churn.k.take_decisions())
    print("per-call overhead (median ns per call):")
    for name, ns in per_call(100000).items():
        print(f"  {name:<55} {ns:7.0f}")
    churn.k.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

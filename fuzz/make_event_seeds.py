#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz_events and fuzz_differential (fuzz/corpus/<target>/).

Each seed is a short, meaningful call sequence encoded the way fuzz/event_sequence.cc decodes
bytes, so the fuzzers start from inputs that already allocate, release, reserve and time out.
Check a seed with: ALLOCORE_FUZZ_VERBOSE=1 build/bin/fuzz_events fuzz/corpus/fuzz_events/<seed>
Run from the repository root after changing the decoder: python3 fuzz/make_event_seeds.py
"""
import os

# Op bytes (DecodeCall: op = byte % 16).
ADD_NODE, UPDATE_NODE, REMOVE_NODE, ADD_APP, REMOVE_APP = 0, 2, 3, 4, 6
ADD_ASK, REMOVE_ASK, RELEASE, ADVANCE, SCHEDULE, RELOAD = 7, 10, 11, 12, 13, 15


def rng(value, lo, hi):
    """Bytes that ByteReader::Range(lo, hi) decodes to `value`."""
    span, v, out = hi - lo, value - lo, []
    shift = 0
    while shift < 64 and (span >> shift) != 0:
        out.append((v >> shift) & 0xFF)
        shift += 8
    return out


def ident(n):  # Id(): prefix + (1 + b % count)
    return [n - 1]


def quantities(memory=None, vcore=None, gpu=None, typical=500):
    shape, body = 0, []
    for bit, value in enumerate((memory, vcore, gpu)):
        if value is not None:
            shape |= 1 << bit
            body += [0] + rng(value, 1, typical)  # Quantity(): mode 0 = Range(1, typical)
    return [shape] + body


PART = [0]  # Partition(): the first partition


def add_node(n, memory, vcore, gpu=None):
    return [ADD_NODE] + PART + ident(n) + quantities(memory, vcore, gpu) + [99] + [99]


def update_node(n, memory=None, vcore=None, schedulable=None):
    what = 0
    body = []
    if memory is not None or vcore is not None:
        what |= 1
        body += quantities(memory, vcore)
    if schedulable is not None:
        what |= 4 | (0 if schedulable else 8)
    return [UPDATE_NODE] + PART + ident(n) + [what] + body


def add_app(n, queue_index, user=0, extra=0):
    # QueueName(): b % 32 < 27 picks state.queue_paths[index] (root first, depth-first).
    return [ADD_APP] + PART + ident(n) + [0, queue_index] + [user, extra]


def add_ask(app, ask, memory, vcore, priority=0, count=1):
    return ([ADD_ASK] + PART + ident(app) + ident(ask) + quantities(memory, vcore, typical=120) +
            [priority + 3] + [count - 1])


def schedule(max_index=0):  # kMax = {0, 0, 0, 0, 1, 1, 2, 3, 5, -1}
    return [SCHEDULE, 0, max_index]


def release(app, ask):
    return [RELEASE] + PART + ident(app) + ident(ask) + [0]


def remove_ask(app, ask):
    return [REMOVE_ASK] + PART + ident(app) + ident(ask)


def remove_app(app):
    return [REMOVE_APP] + PART + ident(app)


def remove_node(n):
    return [REMOVE_NODE] + PART + ident(n)


def advance_seconds(index):  # kSeconds = {1, 2, 3, 29, 30, 31, 299, 300, 301}
    return [ADVANCE, 6, index]


# Config mode byte: DecodeSequence reads mode = byte % 8; 0..4 pick a fixed config (in the
# differential target only the modelled ones: flat, tree, partitions).
FLAT, TREE, PARTITIONS, PLACEMENT, LIMITS = 0, 1, 2, 3, 4

SEEDS = {
    # flat: root, root.a, root.b, root.c
    "flat-allocate-release": [FLAT] + add_node(1, 300, 300) + add_app(1, 1) +
    add_ask(1, 1, 10, 10, count=3) + schedule() + release(1, 1) + remove_ask(1, 1) +
    advance_seconds(5) + remove_app(1),
    "flat-two-queues-fair": [FLAT] + add_node(1, 100, 100) + add_node(2, 60, 100) +
    add_app(1, 1) + add_app(2, 2, user=1) + add_ask(1, 1, 30, 5, priority=2, count=4) +
    add_ask(2, 1, 40, 5, priority=1, count=4) + schedule(4) + schedule() + remove_node(1) +
    schedule(),
    "flat-reservation": [FLAT] + add_node(1, 50, 50) + add_node(2, 50, 50) + add_app(1, 1) +
    add_ask(1, 1, 20, 5, count=2) + schedule() + add_app(2, 1) + add_ask(2, 1, 45, 5) +
    advance_seconds(2) + advance_seconds(2) + schedule() + release(1, 1) + schedule(),
    "flat-stateaware-timers": [FLAT] + add_node(1, 500, 500) + add_app(1, 3) + add_app(2, 3) +
    add_ask(1, 1, 10, 1) + add_ask(2, 1, 10, 1) + schedule() + advance_seconds(7) + schedule() +
    release(1, 1) + advance_seconds(4) + advance_seconds(6),
    # tree: root, system, system.high, system.low, tenants, tenants.t1, tenants.t2
    "tree-priorities": [TREE] + add_node(1, 400, 400) + add_app(1, 2) + add_app(2, 3) +
    add_app(3, 5, user=0, extra=1) + add_ask(1, 1, 10, 1, priority=1, count=2) +
    add_ask(2, 1, 10, 1, priority=6) + add_ask(3, 1, 10, 1, priority=4, count=2) + schedule(4) +
    update_node(1, schedulable=False) + schedule() + update_node(1, 400, 400, True) + schedule(),
    "partitions-two": [PARTITIONS] + add_node(1, 300, 300, 2) + add_app(1, 1) +
    add_ask(1, 1, 50, 5, count=3) + schedule() + remove_node(1) + schedule(),
    "placement-dynamic-queues": [PLACEMENT] + add_node(1, 300, 300) + add_app(1, 2, extra=4) +
    add_app(2, 0, user=1) + add_ask(1, 1, 10, 10, count=2) + add_ask(2, 1, 10, 10) + schedule() +
    remove_app(1) + schedule(),
    "limits-users-no-reload": [LIMITS] + add_node(1, 300, 300) + add_app(1, 1) + add_app(2, 1) +
    add_app(3, 1) + add_ask(1, 1, 40, 1, count=3) + add_ask(2, 1, 40, 1, count=3) + schedule(),
}
EVENTS_ONLY = {
    "placement-reload-default": [PLACEMENT] + add_node(1, 300, 300) + add_app(1, 2, extra=4) +
    add_ask(1, 1, 10, 10, count=2) + schedule() + remove_app(1) + [RELOAD, 2] + schedule(),
    "limits-users": [LIMITS] + add_node(1, 300, 300) + add_app(1, 1) + add_app(2, 1) +
    add_app(3, 1) + add_ask(1, 1, 40, 1, count=3) + add_ask(2, 1, 40, 1, count=3) + schedule() +
    [RELOAD, 3, 0, 0, 3, 1] + schedule(),
}


def main():
    for target, seeds in (("fuzz_events", {**SEEDS, **EVENTS_ONLY}), ("fuzz_differential", SEEDS)):
        directory = os.path.join("fuzz", "corpus", target)
        os.makedirs(directory, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(directory, "seed-" + name), "wb") as f:
                f.write(bytes(b & 0xFF for b in data))


if __name__ == "__main__":
    main()

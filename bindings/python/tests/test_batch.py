"""DecisionBatch: decisions exported in bulk into memory the batch owns, read as columns or
as Decisions on demand. They must read exactly what take_decisions() reads."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import allocore
from allocore import DecisionType
from conftest import CONFIG, SCENARIOS, run_threads

# allocore_decision_record_t as allocore/c.h declares it (x86-64 and aarch64 Linux): a change
# of the C struct must come with a change here, and of the dtype built from it.
RECORD_LAYOUT = (160, [
    ("type", 0, "i4"), ("priority", 4, "i4"), ("seq", 8, "i8"), ("count", 16, "i8"),
    ("placeholder", 24, "u1"), ("release_reason", 25, "u1"), ("from_state", 26, "u1"),
    ("to_state", 27, "u1"), ("reserved", 28, "u4"),
    ("app_handle", 32, "handle"), ("ask_handle", 48, "handle"), ("node_handle", 64, "handle"),
    ("partition", 80, "span"), ("queue", 88, "span"), ("app", 96, "span"), ("ask", 104, "span"),
    ("node", 112, "span"), ("reason", 120, "span"), ("replaces", 128, "span"),
    ("by_app", 136, "span"), ("by_ask", 144, "span"), ("by_queue", 152, "span")])
HANDLE_LAYOUT = (16, [("partition_index", 0, "u4"), ("partition_serial", 4, "u4"),
                      ("slot", 8, "u4"), ("generation", 12, "u4")])
SPAN_LAYOUT = (8, [("offset", 0, "u4"), ("len", 4, "u4")])
NAME_FIELDS = ("partition", "queue", "app", "ask", "node", "reason", "replaces", "by_app",
               "by_ask", "by_queue")


def history(k: allocore.Kernel) -> None:
    """Calls that make allocations (with priorities), application states, releases
    (released, removed) and a rejected application (with a reason)."""
    k.add_node("node-1", {"memory": 100, "vcore": 10})
    k.add_node("node-2", {"memory": 100, "vcore": 10})
    k.add_app("app-a", queue="root.a", user="alice")
    k.add_app("app-b", queue="root.b", user="bob")
    k.add_app("app-x", queue="root.missing", user="u")  # rejected, with a reason
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=5, priority=3)
    k.add_ask("app-b", "b1", {"memory": 10, "vcore": 1}, count=6, task_group="tg", priority=-2)
    k.schedule()
    k.release("app-a", "a1")
    k.remove_ask("app-b", "b1")
    k.remove_app("app-a")  # its allocations: RELEASE "removed"


def decode_span(names: bytes, span) -> str:
    offset, length = int(span["offset"]), int(span["len"])
    return names[offset:offset + length].decode("utf-8", "surrogateescape")


def test_record_layout_is_c_h():
    assert allocore._native.decision_record_layout() == {
        "record": RECORD_LAYOUT, "handle": HANDLE_LAYOUT, "span": SPAN_LAYOUT}


def test_dtype_matches_the_c_layout():
    layout = allocore._native.decision_record_layout()
    dtype = allocore.decision_record_dtype()
    assert dtype is allocore.decision_record_dtype()  # built once
    size, fields = layout["record"]
    assert dtype.itemsize == size
    assert dtype.names == tuple(name for name, _, _ in fields)
    nested = {code: layout[code] for code in ("handle", "span")}
    for name, offset, code in fields:
        field_dtype, field_offset = dtype.fields[name][:2]
        assert field_offset == offset, name
        if code in nested:
            sub_size, sub_fields = nested[code]
            assert field_dtype.itemsize == sub_size
            for sub, sub_offset, sub_code in sub_fields:
                assert field_dtype.fields[sub][1] == sub_offset
                assert field_dtype.fields[sub][0] == np.dtype(sub_code)
        else:
            assert field_dtype == np.dtype(code), name
    # Every byte of a record is in one field: no gap the C compiler might fill differently.
    assert sum(dtype.fields[n][0].itemsize for n in dtype.names) == dtype.itemsize


def test_records_read_what_decisions_say(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=3, priority=7)
    k.add_app("app-x", queue="root.missing", user="u")
    k.schedule()
    k.release("app-a", "a1")
    k.remove_app("app-a")
    expected = k.peek_decisions()
    batch = k.take_decision_batch()
    assert k.pending_decisions == 0
    records = batch.records
    assert records.dtype == allocore.decision_record_dtype() and len(records) == len(expected)
    assert not records.flags.writeable
    names = batch.names_bytes
    for r, d in zip(records, expected):
        assert r["type"] == d.type and r["priority"] == d.priority
        assert r["seq"] == d.seq and r["count"] == d.count
        assert bool(r["placeholder"]) == d.placeholder and r["reserved"] == 0
        if d.type in (DecisionType.RELEASE, DecisionType.ASK_REMOVED):
            assert allocore.RELEASE_REASONS[r["release_reason"]] == d.release_reason
        if d.type == DecisionType.APP_STATE:
            assert allocore.APP_STATES[r["from_state"]] == d.from_state
            assert allocore.APP_STATES[r["to_state"]] == d.to_state
        for name in NAME_FIELDS:
            assert decode_span(names, r[name]) == getattr(d, name), name
    assert {DecisionType(t) for t in records["type"]} >= {
        DecisionType.ALLOCATION, DecisionType.APP_STATE, DecisionType.RELEASE,
        DecisionType.APP_REJECTED}
    # Handles: the application's and the node's, as find_app and find_node give them.
    k.add_app("app-h", queue="root.a", user="u")
    k.add_ask("app-h", "h", {"memory": 10, "vcore": 1})
    k.schedule()
    batch = k.take_decision_batch()
    (i,) = np.flatnonzero(batch.records["type"] == DecisionType.ALLOCATION)
    alloc = batch.records[i]
    app = k.find_app("app-h")
    assert tuple(int(x) for x in alloc["app_handle"]) == tuple(app)
    assert tuple(int(x) for x in alloc["ask_handle"]) == tuple(k.find_ask(app, "h"))
    assert tuple(int(x) for x in alloc["node_handle"]) == tuple(k.find_node(batch.node(i)))


def test_batch_equals_take_decisions():
    with allocore.Kernel(CONFIG) as one, allocore.Kernel(CONFIG) as two:
        history(one)
        history(two)
        expected = one.take_decisions()
        batch = two.take_decision_batch()
        assert two.pending_decisions == 0
        assert len(batch) == len(expected) > 15
        assert {d.type for d in expected} >= {
            DecisionType.ALLOCATION, DecisionType.APP_STATE, DecisionType.RELEASE,
            DecisionType.APP_REJECTED}
        assert batch.to_list() == expected
        assert list(batch) == expected
        assert [batch[i] for i in range(len(batch))] == expected
        assert [batch[i] for i in range(-len(batch), 0)] == expected
        assert all(type(d) is allocore.Decision for d in batch)
        assert batch[2:9] == expected[2:9] and batch[::-3] == expected[::-3]
        # The forms of take_decisions(types, fields) read the same.
        types = (DecisionType.ALLOCATION, DecisionType.RELEASE)
        fields = ("ask", "seq", "type", "release_reason", "node")
        assert batch.to_list(types=types, fields=fields) == [
            tuple(getattr(d, f) for f in fields) for d in expected if d.type in types]
        assert batch.to_list(types=types) == [d for d in expected if d.type in types]
        for bad in ({"fields": ("nope",)}, {"types": (99,)}):
            with pytest.raises(ValueError):
                batch.to_list(**bad)
        # Columns and single names.
        for field in allocore.Decision._fields:
            assert batch.column(field) == [getattr(d, field) for d in expected], field
        for name in NAME_FIELDS:
            accessor = getattr(batch, name)
            assert [accessor(i) for i in range(len(batch))] == [getattr(d, name) for d in expected]
        with pytest.raises(ValueError):
            batch.column("nope")


def test_column_index_forms():
    with allocore.Kernel(CONFIG) as k:
        history(k)
        expected = k.peek_decisions()
        batch = k.take_decision_batch()
        types = batch.records["type"]
        mask = types == DecisionType.ALLOCATION
        allocs = [d.app for d in expected if d.type == DecisionType.ALLOCATION]
        assert batch.column("app", mask) == allocs
        assert batch.column("app", np.flatnonzero(mask)) == allocs
        assert batch.column("app", np.flatnonzero(mask).astype(np.uint16)) == allocs
        assert batch.column("app", np.flatnonzero(mask)[::-1]) == allocs[::-1]  # strided
        assert batch.column("app", list(np.flatnonzero(mask))) == allocs  # numpy ints
        assert batch.column("seq", [0, -1, 1]) == [expected[0].seq, expected[-1].seq,
                                                    expected[1].seq]
        assert batch.column("seq", []) == [] and batch.column("seq", np.array([], int)) == []
        with pytest.raises(TypeError):
            batch.column("app", [True, False])  # a mask must be a numpy bool array
        with pytest.raises(TypeError):
            batch.column("app", np.zeros(len(batch), dtype=float))
        with pytest.raises(TypeError):
            batch.column("app", np.zeros((2, 2), dtype=int))


def test_index_out_of_range():
    with allocore.Kernel(CONFIG) as k:
        history(k)
        batch = k.take_decision_batch()
        n = len(batch)
        for i in (n, n + 1, -n - 1, 2**40, -(2**40)):
            with pytest.raises(IndexError):
                batch[i]
            with pytest.raises(IndexError):
                batch.app(i)
            with pytest.raises(IndexError):
                batch.column("seq", [0, i])
        with pytest.raises(IndexError):
            batch.column("seq", np.array([n], dtype=np.uint64))
        with pytest.raises(IndexError):
            batch.column("seq", np.array([2**63], dtype=np.uint64))
        with pytest.raises(IndexError):
            batch.column("seq", np.ones(n + 1, dtype=bool))  # a mask of the wrong length
        assert batch[n - 1] == batch[-1] and batch[-n] == batch[0]
        assert batch[n:] == [] and batch[-n - 5:1] == [batch[0]]
        # An empty batch.
        empty = k.take_decision_batch()
        assert len(empty) == 0 and not empty and list(empty) == [] and empty.to_list() == []
        assert empty.column("app") == [] and empty.names_bytes == b""
        assert len(empty.records) == 0 and empty.records.dtype == allocore.decision_record_dtype()
        with pytest.raises(IndexError):
            empty[0]
        with pytest.raises(IndexError):
            empty.node(-1)
        assert repr(empty) == "<allocore.DecisionBatch of 0 decisions>"


def test_many_chunks_and_long_names():
    # More decisions than one export chunk of take_decisions() (1024 records) and than the
    # batch's first guess of the names' size (64 bytes a decision), and names at the kernel's
    # limit (1024 bytes): the names buffer grows while the export goes on, and more than 4096
    # decisions are exported with the GIL released.
    with allocore.Kernel(CONFIG) as one, allocore.Kernel(CONFIG) as two:
        long_name = "x" * 1000
        for k in (one, two):
            k.add_node("n" * 1024, {"memory": 10**9, "vcore": 10**6})
            for i in range(40):
                k.add_app(f"{long_name}-{i}", queue="root.a", user="u")
                k.add_ask(f"{long_name}-{i}", f"ask-é-{i}", {"memory": 1}, count=110)
            k.schedule()
        expected = one.take_decisions()
        batch = two.take_decision_batch()
        assert len(batch) == len(expected) > 4400
        assert batch.to_list() == expected
        assert batch.column("node", [0, -1]) == [expected[0].node, expected[-1].node]
        assert len(batch.names_bytes) > 4400 * 2000
        records = batch.records
        assert np.array_equal(records["seq"], np.array([d.seq for d in expected]))
        assert decode_span(batch.names_bytes, records[-1]["app"]) == expected[-1].app
        # Again on the same kernels: the batch sizes its names from the last one.
        for k in (one, two):
            for i in range(40):
                k.release(f"{long_name}-{i}", f"ask-é-{i}")
        assert two.take_decision_batch().to_list() == one.take_decisions()


def test_one_decision_larger_than_the_first_names_buffer():
    # A partition, application, ask and node of 1,024 bytes each (the kernel's limit) and a
    # queue of 64 (YuniKorn's): one decision's names exceed the 4 KiB the first batch of a
    # kernel starts with, and the export refuses it until the buffer grows.
    p, q = "p" * 1024, "q" * 64
    config = (f"partitions: [{{name: {p}, queues: [{{name: root, submitacl: '*', "
              f"queues: [{{name: {q}}}]}}]}}]")
    with allocore.Kernel(config) as one, allocore.Kernel(config) as two:
        for k in (one, two):
            k.add_node("n" * 1024, {"memory": 10}, partition=p)
            k.add_app("a" * 1024, queue=f"root.{q}", user="u", partition=p)
            k.add_ask("a" * 1024, "k" * 1024, {"memory": 1}, partition=p)
            k.take_decisions()
            k.schedule(partition=p)  # the allocation comes first
        expected = one.take_decisions()
        batch = two.take_decision_batch()
        assert expected[0].type == DecisionType.ALLOCATION
        assert len("".join(getattr(expected[0], name) for name in NAME_FIELDS)) > 4096
        assert batch.to_list() == expected


def test_batch_outlives_its_kernel_and_its_changes():
    k = allocore.Kernel(CONFIG)
    history(k)
    expected = k.peek_decisions()
    batch = k.take_decision_batch()
    records = batch.records
    seqs = records["seq"].copy()
    # The kernel goes on: more decisions, its unused names released, then closed.
    k.add_app("app-later", queue="root.a", user="u")
    k.add_ask("app-later", "later", {"memory": 1, "vcore": 1}, count=4)
    k.schedule()
    peeked = k.peek_decision_batch()
    later = k.take_decisions()
    assert peeked.to_list() == later
    k.remove_app("app-b")
    k.take_decisions()
    k.release_unused_names()
    k.close()
    with pytest.raises(allocore.ClosedError):
        k.take_decision_batch()
    assert batch.to_list() == expected and peeked.to_list() == later
    assert batch.column("app") == [d.app for d in expected]
    # The records' array keeps their memory when the batch goes, and later batches (which
    # reuse freed batches' memory) do not write into it.
    del batch
    gc.collect()
    for _ in range(3):
        with allocore.Kernel(CONFIG) as other:
            history(other)
            other.take_decision_batch().records
    assert np.array_equal(records["seq"], seqs)
    assert [DecisionType(t) for t in records["type"]] == [d.type for d in expected]


def test_run_decision_batch():
    for name in ("every-step-kind.yaml", "v19-quota-parent-shares.yaml",
                 "recovery-restart-v19.yaml"):
        with allocore.run(SCENARIOS / name) as result:
            batch = result.decision_batch()
            assert batch.to_list() == result.decisions and len(batch) > 5
            assert list(batch.records["seq"]) == [d.seq for d in result.decisions]


def test_every_scenario_reads_the_same():
    # Every decision type the scenarios make (preemptions, quota preemptions, recoveries,
    # placeholders replaced, ...), through the batch and through the Decision list.
    seen = set()
    for path in sorted(SCENARIOS.glob("*.yaml")):
        with allocore.run(path) as result:
            batch = result.decision_batch()
            assert batch.to_list() == result.decisions, path.name
            seen.update(d.type for d in result.decisions)
    assert seen >= set(DecisionType) - {DecisionType.ASK_REMOVED}


def test_threads_take_batches():
    # Threads share a kernel, some taking batches, some Decision lists; big batches are
    # exported with the GIL released while the others call. No decision is lost or doubled.
    with allocore.Kernel(CONFIG) as k:
        k.add_node("node-1", {"memory": 10**7, "vcore": 10**7})
        for t in range(4):
            k.add_app(f"app-{t}", queue="root.a", user="u")
        k.take_decisions()
        seen = [[] for _ in range(4)]

        def churn(t: int) -> None:
            for r in range(20):
                count = 5000 if r == 0 else 300  # batches of 5,000 and more first
                k.add_ask(f"app-{t}", f"ask-{r}", {"memory": 1, "vcore": 1}, count=count)
                k.schedule()
                if t % 2:
                    batch = k.take_decision_batch()
                    assert batch.to_list() == list(batch)
                    seen[t].extend(batch)
                else:
                    seen[t].extend(k.take_decisions())

        run_threads(4, churn)
        decisions = [d for s in seen for d in s] + k.take_decisions()
        allocs = [d for d in decisions if d.type == DecisionType.ALLOCATION]
        assert len(allocs) == 4 * (5000 + 19 * 300)
        assert len({d.seq for d in allocs}) == len(allocs)

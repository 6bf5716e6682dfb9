"""The kernel calls: a round trip with its decisions, queries, snapshots and forks, bulk reading."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import allocore
from allocore import DecisionType
from conftest import CONFIG, SCENARIOS


ONE_QUEUE = ("partitions: [{name: default, queues: [{name: root, submitacl: '*', "
             "queues: [{name: a}]}]}]")


def allocations(decisions):
    return [d for d in decisions if d.type == DecisionType.ALLOCATION]


def test_import_and_version():
    assert allocore.__version__.count(".") == 2
    assert issubclass(allocore.NotFoundError, allocore.Error)
    # The names the package keeps for the numbers of decision arrays are the C library's.
    assert allocore.RELEASE_REASONS == tuple(
        allocore._native.release_reason_name(i) for i in range(len(allocore.RELEASE_REASONS)))
    assert allocore._native.release_reason_name(len(allocore.RELEASE_REASONS)) == ""
    assert allocore.APP_STATES == tuple(
        allocore._native.app_state_name(i) for i in range(len(allocore.APP_STATES)))
    assert allocore._native.app_state_name(len(allocore.APP_STATES)) == ""


def test_round_trip_decisions(kernel):
    k = kernel
    assert k.partitions == ["default"]
    assert k.take_decisions() == []  # nodes and apps alone decide nothing yet
    k.add_ask("app-a", "a1", {"memory": 30, "vcore": 1}, count=3)
    k.add_ask("app-b", "b1", {"memory": 30, "vcore": 1}, priority=5, count=2)
    assert k.schedule() == 4  # root.b's max (memory 40) lets one of b1's two through
    decisions = k.take_decisions()
    allocs = allocations(decisions)
    assert len(allocs) == 4
    assert sorted((d.app, d.ask) for d in allocs) == [
        ("app-a", "a1"), ("app-a", "a1"), ("app-a", "a1"), ("app-b", "b1")]
    for d in allocs:
        assert d.partition == "default"
        assert d.queue == ("root.a" if d.app == "app-a" else "root.b")
        assert d.node in ("node-1", "node-2")
        assert d.seq > 0
        assert d.release_reason == "" and d.from_state == "" and d.reason == ""
    assert len({d.seq for d in allocs}) == 4
    assert [d.priority for d in allocs if d.app == "app-b"] == [5]
    # Applications moved on: every state decision names a known state.
    states = [(d.app, d.from_state, d.to_state) for d in decisions
              if d.type == DecisionType.APP_STATE]
    assert ("app-a", "New", "Accepted") in states
    assert all(s[1] in allocore.APP_STATES and s[2] in allocore.APP_STATES for s in states)
    assert k.pending_decisions == 0 and k.take_decisions() == []

    # What waits, and why.
    pending = k.explain_pending()
    assert [(e["app"], e["ask"], e["pending"]) for e in pending] == [("app-b", "b1", 1)]
    assert "max" in pending[0]["reason"] or "quota" in pending[0]["reason"] or pending[0]["reason"]

    # Release one allocation exactly by its seq, then the oldest of another ask.
    a1 = [d for d in allocs if d.app == "app-a"]
    k.release("app-a", "a1", a1[1].node, seq=a1[1].seq)
    k.release("app-b", "b1")
    decisions = k.take_decisions()
    releases = [d for d in decisions if d.type == DecisionType.RELEASE]
    assert [(d.app, d.ask, d.seq, d.release_reason) for d in releases] == [
        ("app-a", "a1", a1[1].seq, "released"),
        ("app-b", "b1", [d.seq for d in allocs if d.app == "app-b"][0], "released")]
    assert k.schedule() == 1  # b1's second repeat now fits under the max
    assert [(d.app, d.ask) for d in allocations(k.take_decisions())] == [("app-b", "b1")]

    # Removing an application releases what it holds.
    k.remove_app("app-a")
    removed = k.take_decisions()
    assert sorted(d.release_reason for d in removed if d.type == DecisionType.RELEASE) == [
        "removed", "removed"]
    assert k.usage() == (1, 1, 1)
    k.check_consistency()


def test_queries(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=2)
    k.add_ask("app-b", "b1", {"memory": 50, "vcore": 1})  # over root.b's max: stays pending
    k.schedule()
    assert set(k.resource_types) >= {"memory", "vcore"}
    queues = {q["path"]: q for q in k.list_queues()}
    assert set(queues) == {"root", "root.a", "root.b"}
    assert queues["root.a"]["allocated"] == {"memory": 20, "vcore": 2}
    assert queues["root.a"]["leaf"] and not queues["root"]["leaf"]
    # A queues.yaml counts vcore in cores (4 = 4000 milli-cores); calls pass kernel units.
    assert queues["root.b"]["max"] == {"memory": 40, "vcore": 4000}
    assert queues["root.b"]["pending"] == {"memory": 50, "vcore": 1}
    assert queues["root"]["allocated"] == {"memory": 20, "vcore": 2}
    nodes = k.list_nodes()
    assert [n["id"] for n in nodes] == ["node-1", "node-2"]
    assert sum(n["allocation_count"] for n in nodes) == 2
    assert all(n["capacity"] == {"memory": 100, "vcore": 10} for n in nodes)
    apps = {a["id"]: a for a in k.list_apps()}
    assert apps["app-a"]["queue"] == "root.a" and apps["app-a"]["allocated"]["memory"] == 20
    assert k.get_app("app-b")["pending"] == {"memory": 50, "vcore": 1}
    allocs = k.list_allocations(app="app-a")
    assert [(a["app"], a["ask"]) for a in allocs] == [("app-a", "a1"), ("app-a", "a1")]
    assert all(a["seq"] > 0 and a["resources"] == {"memory": 10, "vcore": 1} for a in allocs)
    probe = k.probe("app-a", {"memory": 10, "vcore": 1})
    assert probe["queue"] == "root.a" and probe["node"] in ("node-1", "node-2")
    assert probe["reason"] is None


def test_nodes_update_and_remove(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 80, "vcore": 1}, count=3)
    assert k.schedule() == 2
    k.update_node("node-2", {"memory": 200, "vcore": 10})
    assert k.schedule() == 1
    k.take_decisions()
    k.update_node("node-1", schedulable=False)
    assert [n["schedulable"] for n in k.list_nodes()] == [False, True]
    k.remove_node("node-2")
    released = [d for d in k.take_decisions() if d.type == DecisionType.RELEASE]
    assert len(released) == 2 and all(d.node == "node-2" for d in released)
    assert [n["id"] for n in k.list_nodes()] == ["node-1"]


def test_advance_and_clock(kernel):
    k = kernel
    start = k.now_ms
    k.advance(1500)
    assert k.now_ms == start + 1500


def test_creation_time_orders_asks_under_1_9():
    # v19-submission-time.yaml as calls: an ask created earlier moves its app first.
    orders = {}
    for semantics in ("yunikorn-1.2", "yunikorn-1.9"):
        with allocore.Kernel(ONE_QUEUE, semantics) as k:
            k.add_node("node-1", {"memory": 100})
            k.advance(100_000)
            k.add_app("app-1", queue="root.a", user="u")
            k.add_ask("app-1", "k", {"memory": 10})
            k.add_app("app-2", queue="root.a", user="u")
            k.add_ask("app-2", "k", {"memory": 10}, creation_time_ms=40_000)
            k.add_ask("app-2", "k2", {"memory": 10})
            k.schedule()
            orders[semantics] = [(d.app, d.ask) for d in allocations(k.take_decisions())]
    assert orders["yunikorn-1.9"] == [("app-2", "k"), ("app-2", "k2"), ("app-1", "k")]
    assert orders["yunikorn-1.2"][0] == ("app-1", "k")


def test_rejection_reason_and_odd_names():
    with allocore.Kernel(ONE_QUEUE) as k:
        k.add_app("ghost-app", queue="root.nowhere", user="u")
        rejected = [d for d in k.take_decisions() if d.type == DecisionType.APP_REJECTED]
        assert len(rejected) == 1 and rejected[0].app == "ghost-app" and rejected[0].reason
        # Names are bytes to the kernel: non-ASCII text and bytes that are not UTF-8 survive.
        k.add_node("nœud-1", {"memory": 10})
        odd = "app-\udcff-é"  # \udcff: the byte 0xff under surrogateescape
        k.add_app(odd, queue="root.a", user="u")
        k.add_ask(odd, b"ask-\xfe", {"memory": 1})
        k.schedule()
        (d,) = allocations(k.take_decisions())
        assert d.app == odd and d.ask == "ask-\udcfe" and d.node == "nœud-1"
        k.release(d.app, d.ask)
        k.check_consistency()


def test_bulk_equals_per_call_reading(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=5, priority=3)
    k.add_ask("app-b", "b1", {"memory": 10, "vcore": 1}, count=6, task_group="tg")
    k.add_app("app-x", queue="root.missing", user="u")  # rejected, with a reason
    k.schedule()
    k.release("app-a", "a1")
    k.remove_ask("app-b", "b1")
    k.remove_app("app-a")
    bulk = k.peek_decisions(bulk=True)
    per_call = k.peek_decisions(bulk=False)
    assert len(bulk) > 15
    assert bulk == per_call
    assert {d.type for d in bulk} >= {DecisionType.ALLOCATION, DecisionType.RELEASE,
                                      DecisionType.APP_STATE, DecisionType.APP_REJECTED}
    # Selected types, and plain tuples of selected fields, read the same decisions.
    assert k.peek_decisions() == bulk  # peeking takes nothing
    assert k.take_decisions(types=(DecisionType.ALLOCATION, DecisionType.RELEASE),
                            fields=("ask", "seq", "type", "release_reason")) == [
        (d.ask, d.seq, d.type, d.release_reason) for d in bulk
        if d.type in (DecisionType.ALLOCATION, DecisionType.RELEASE)]
    assert k.pending_decisions == 0  # all were taken, the selected ones returned
    for bad in ({"fields": ("nope",)}, {"types": (99,)}):
        with pytest.raises(ValueError):
            k.take_decisions(**bad)
    # Again, for the array form.
    k.add_app("app-z", queue="root.a", user="u")
    k.add_ask("app-z", "z", {"memory": 10, "vcore": 1}, count=2, task_group="tg")
    k.add_app("app-y", queue="root.missing", user="u")
    k.schedule()
    k.release("app-z", "z")
    k.remove_app("app-z")
    bulk = k.peek_decisions()
    assert bulk == k.peek_decisions(bulk=False)
    assert {d.type for d in bulk} >= {DecisionType.ALLOCATION, DecisionType.RELEASE,
                                      DecisionType.APP_REJECTED}
    # The array form reads the same decisions.
    array = k.take_decisions_array()
    assert k.pending_decisions == 0
    assert len(array) == len(bulk)
    assert list(array["type"]) == [int(d.type) for d in bulk]
    assert list(array["seq"]) == [d.seq for d in bulk]
    assert list(array["app"]) == [d.app for d in bulk]
    assert list(array["node"]) == [d.node for d in bulk]
    assert [bool(x) for x in array["placeholder"]] == [d.placeholder for d in bulk]
    reasons = [allocore.RELEASE_REASONS[r] if d.release_reason else ""
               for r, d in zip(array["release_reason"], bulk)]
    assert reasons == [d.release_reason for d in bulk]
    assert array.dtype["app_handle"].shape == (4,)


def test_bulk_reading_over_many_chunks():
    # More decisions than one export chunk (1024 records), and long names that fill the
    # names buffer (64 KiB) before the records do.
    with allocore.Kernel(CONFIG) as k:
        k.add_node("node-1", {"memory": 10**9, "vcore": 10**6})
        long_name = "x" * 1000  # names are at most 1024 bytes (ApiLimits::kMaxNameBytes)
        for i in range(40):
            k.add_app(f"{long_name}-{i}", queue="root.a", user="u")
            k.add_ask(f"{long_name}-{i}", "ask", {"memory": 1}, count=70)
        k.schedule()
        bulk = k.peek_decisions()
        assert len(bulk) > 2900
        assert bulk == k.peek_decisions(bulk=False)
        assert sum(d.type == DecisionType.ALLOCATION for d in bulk) == 2800
        array = k.take_decisions_array(names=False)
        assert len(array) == len(bulk) and "app" not in array.dtype.names
        assert np.array_equal(array["seq"], np.array([d.seq for d in bulk], dtype=np.int64))


def test_run_decisions_bulk_equals_per_call():
    with allocore.run(SCENARIOS / "every-step-kind.yaml") as result:
        assert len(result.decisions) > 10
        assert result.decisions == result._run.decisions_per_call()


def test_snapshot_restore_and_fork(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=3)
    k.schedule(max=1)
    k.take_decisions()
    data = k.snapshot()
    assert isinstance(data, bytes) and len(data) > 0
    restored = allocore.Kernel.restore(data)
    forked = k.fork()
    copied = pickle.loads(pickle.dumps(k))
    outcomes = []
    for kk in (k, restored, forked, copied):
        kk.add_ask("app-b", "b1", {"memory": 10, "vcore": 1}, count=2)
        kk.schedule()
        outcomes.append(kk.take_decisions())
    assert all(o == outcomes[0] for o in outcomes)
    assert len(allocations(outcomes[0])) == 4
    # A fork is independent of its original.
    forked.remove_app("app-a")
    assert {a["id"] for a in k.list_apps()} == {"app-a", "app-b"}
    assert {a["id"] for a in forked.list_apps()} == {"app-b"}
    for kk in (restored, forked, copied):
        kk.close()


def test_update_config(kernel):
    k = kernel
    k.add_ask("app-b", "b1", {"memory": 30, "vcore": 1}, count=3)
    assert k.schedule() == 1
    k.update_config(CONFIG.replace("max: {memory: 40, vcore: 4}", "max: {memory: 100, vcore: 10}"))
    assert k.schedule() == 2


def test_handles(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=2)
    k.schedule()
    k.take_decisions()
    app = k.find_app("app-a")
    assert isinstance(app, allocore.Handle)
    ask = k.find_ask(app, "a1")
    node = k.find_node("node-1")
    k.release_by_handle(ask)
    (d,) = [d for d in k.take_decisions() if d.type == DecisionType.RELEASE]
    assert (d.app, d.ask) == ("app-a", "a1")
    k.remove_ask_by_handle(ask)
    k.remove_app_by_handle(app)
    k.remove_node_by_handle(node)
    assert [n["id"] for n in k.list_nodes()] == ["node-2"]


def test_without_decisions():
    with allocore.Kernel(CONFIG, keep_decisions=False) as k:
        k.add_node("node-1", {"memory": 100, "vcore": 10})
        k.add_app("app-a", queue="root.a", user="u")
        k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=2)
        assert k.schedule() == 2
        assert k.pending_decisions == 0 and k.take_decisions() == []


def test_release_unused_names(kernel):
    k = kernel
    k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1})
    k.schedule()
    k.remove_app("app-a")
    released, taken = k.release_unused_names()
    assert released >= 0
    assert [d.app for d in taken if d.type == DecisionType.ALLOCATION] == ["app-a"]
    assert k.pending_decisions == 0


def test_record_and_replay(tmp_path):
    with allocore.Kernel(CONFIG) as k:
        log = tmp_path / "calls.log"
        k.record_start(log)
        k.add_node("node-1", {"memory": 100, "vcore": 10})
        k.add_app("app-a", queue="root.a", user="alice")
        k.add_ask("app-a", "a1", {"memory": 10, "vcore": 1}, count=3)
        k.schedule()
        live = allocations(k.take_decisions())
        k.record_stop()
    with allocore.run(log) as replay:
        assert [(d.app, d.ask, d.node, d.seq) for d in replay.allocations()] == [
            (d.app, d.ask, d.node, d.seq) for d in live]

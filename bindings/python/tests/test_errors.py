"""Misuse gives a typed error and never crashes the interpreter."""

from __future__ import annotations

import pickle

import pytest

import allocore
from conftest import CONFIG, SCENARIOS


def test_closed_kernel_raises_closed_error():
    k = allocore.Kernel(CONFIG)
    k.add_node("node-1", {"memory": 100})
    assert not k.closed
    k.close()
    assert k.closed
    k.close()  # closing twice is fine
    calls = [
        lambda: k.add_node("node-2", {"memory": 1}),
        lambda: k.update_node("node-1", schedulable=False),
        lambda: k.remove_node("node-1"),
        lambda: k.add_app("a", queue="root.a", user="u"),
        lambda: k.remove_app("a"),
        lambda: k.add_ask("a", "k", {"memory": 1}),
        lambda: k.remove_ask("a", "k"),
        lambda: k.release("a", "k"),
        lambda: k.advance(1),
        lambda: k.schedule(),
        lambda: k.update_config(CONFIG),
        lambda: k.take_decisions(),
        lambda: k.take_decisions_array(),
        lambda: k.pending_decisions,
        lambda: k.now_ms,
        lambda: k.snapshot(),
        lambda: k.fork(),
        lambda: k.list_queues(),
        lambda: k.list_nodes(),
        lambda: k.list_apps(),
        lambda: k.list_allocations(),
        lambda: k.explain_pending(),
        lambda: k.usage(),
        lambda: k.partitions,
        lambda: k.find_app("a"),
        lambda: k.check_consistency(),
        lambda: pickle.dumps(k),
    ]
    for call in calls:
        with pytest.raises(allocore.ClosedError) as info:
            call()
        assert isinstance(info.value, allocore.FailedPreconditionError)
        assert isinstance(info.value, allocore.Error)
        assert "closed" in str(info.value)


def test_context_manager_closes():
    with allocore.Kernel(CONFIG) as k:
        k.add_node("node-1", {"memory": 100})
    with pytest.raises(allocore.ClosedError):
        k.schedule()


def test_stale_handle_is_failed_precondition(kernel):
    app = kernel.find_app("app-a")
    kernel.remove_app("app-a")
    with pytest.raises(allocore.FailedPreconditionError) as info:
        kernel.remove_app_by_handle(app)
    assert not isinstance(info.value, allocore.ClosedError)
    assert info.value.code == 9 and info.value.code_name == "FAILED_PRECONDITION"
    assert "stale" in str(info.value)
    # A handle of a new application with the same id is a different handle.
    kernel.add_app("app-a", queue="root.a", user="alice")
    assert kernel.find_app("app-a") != app


def test_unknown_app_is_not_found(kernel):
    with pytest.raises(allocore.NotFoundError) as info:
        kernel.add_ask("ghost", "k", {"memory": 1})
    err = info.value
    assert isinstance(err, LookupError)
    assert err.code == 5
    assert str(err).startswith("NOT_FOUND: ")
    assert err.function and "ghost" in err.text
    with pytest.raises(allocore.NotFoundError):
        kernel.remove_app("ghost")
    with pytest.raises(allocore.NotFoundError):
        kernel.find_app("ghost")
    with pytest.raises(allocore.NotFoundError):
        kernel.get_app("ghost")
    with pytest.raises(allocore.NotFoundError):
        kernel.list_queues(partition="nowhere")


def test_refused_calls_change_nothing(kernel):
    kernel.add_ask("app-a", "k", {"memory": 10}, count=1)
    kernel.schedule()
    (alloc,) = [d for d in kernel.take_decisions() if d.type == allocore.DecisionType.ALLOCATION]
    with pytest.raises(allocore.NotFoundError):
        kernel.release("app-a", "k", seq=alloc.seq + 100)
    with pytest.raises(allocore.InvalidArgumentError):
        kernel.release("app-a", "k", seq=-1)
    with pytest.raises(allocore.AlreadyExistsError):
        kernel.add_node("node-1", {"memory": 1})
    assert kernel.take_decisions() == []
    assert kernel.usage() == (2, 1, 1)
    kernel.check_consistency()


def test_bad_config_yaml_is_invalid_argument():
    with pytest.raises(allocore.InvalidArgumentError) as info:
        allocore.Kernel("partitions: [", source_name="mine.yaml")
    assert isinstance(info.value, ValueError)
    assert "mine.yaml" in str(info.value)
    with pytest.raises(allocore.InvalidArgumentError):
        # a guarantee above the max
        allocore.Kernel("partitions: [{name: default, queues: [{name: root, queues: [{name: a, "
                        "resources: {guaranteed: {memory: 500}, max: {memory: 100}}}]}]}]")
    with allocore.Kernel(CONFIG) as k, pytest.raises(allocore.InvalidArgumentError):
        k.update_config("partitions: {")


def test_unknown_semantics_is_invalid_argument():
    with pytest.raises(allocore.InvalidArgumentError) as info:
        allocore.Kernel(CONFIG, "yunikorn-0.1")
    assert "yunikorn-0.1" in str(info.value)
    for semantics in allocore.SEMANTICS:
        allocore.Kernel(CONFIG, semantics).close()
    with pytest.raises(allocore.InvalidArgumentError):
        allocore.run(SCENARIOS / "priority-tree.yaml", semantics="yunikorn-0.1")
    with pytest.raises(allocore.InvalidArgumentError):
        allocore.report(SCENARIOS / "priority-tree.yaml", semantics="yunikorn-0.1")


def test_missing_files(tmp_path):
    missing = tmp_path / "nope.yaml"
    for call in (lambda: allocore.run(missing), lambda: allocore.report(missing),
                 lambda: allocore.pack(missing, tmp_path / "out.log"),
                 lambda: allocore.run(SCENARIOS / "priority-tree.yaml", config=missing)):
        with pytest.raises((allocore.NotFoundError, allocore.InvalidArgumentError)) as info:
            call()
        assert "nope.yaml" in str(info.value)
    assert not (tmp_path / "out.log").exists()


def test_bad_snapshot_is_invalid_argument():
    with pytest.raises(allocore.InvalidArgumentError):
        allocore.Kernel.restore(b"not a snapshot")
    with allocore.Kernel(CONFIG) as k:
        data = k.snapshot()
    with pytest.raises(allocore.InvalidArgumentError):
        allocore.Kernel.restore(data[: len(data) // 2])


def test_caps_are_resource_exhausted():
    with allocore.Kernel(CONFIG, max_asks=1) as k:
        k.add_app("a", queue="root.a", user="u")
        k.add_ask("a", "k1", {"memory": 1})
        with pytest.raises(allocore.ResourceExhaustedError):
            k.add_ask("a", "k2", {"memory": 1})


def test_python_side_misuse():
    with allocore.Kernel(CONFIG) as k:
        k.add_app("a", queue="root.a", user="u")
        with pytest.raises(TypeError):
            k.add_ask("a", "k", {"memory": "ten"})
        with pytest.raises(TypeError):
            k.add_ask("a", "k", 5)
        with pytest.raises(TypeError):
            k.add_ask("a", None, {"memory": 1})
        with pytest.raises(OverflowError):
            k.add_ask("a", "k", {"memory": 2**70})
        with pytest.raises(allocore.InvalidArgumentError):
            k.add_ask("a", "k", {"memory": 1}, partition="def\0ault")
        with pytest.raises(allocore.InvalidArgumentError):
            k.add_ask("a", "k", {})  # zero resources
        with pytest.raises(TypeError):
            k.find_ask((1, 2), "k")
        k.check_consistency()


def test_errors_pickle():
    # Errors cross process boundaries (sweeps) with their class and parts.
    err = allocore.NotFoundError("NOT_FOUND: add_ask: application ghost is unknown")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is allocore.NotFoundError
    assert (back.function, back.text) == ("add_ask", "application ghost is unknown")
    assert type(pickle.loads(pickle.dumps(allocore.ClosedError()))) is allocore.ClosedError

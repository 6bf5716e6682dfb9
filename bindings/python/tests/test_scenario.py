"""Scenario files and event logs: run, pack, report."""

from __future__ import annotations

import json

import allocore
from allocore import DecisionType
from conftest import SCENARIOS

PRIORITY_TREE_ORDER = [
    ("app-high", "high-p1"),
    ("app-normal", "normal-p10"),
    ("app-normal", "normal-p2"),
    ("app-a1", "a1-p8"),
    ("app-a2", "a2-p6"),
    ("app-a1", "a1-p5"),
    ("app-a2", "a2-p4"),
    ("app-b1", "b1-p9"),
    ("app-b2", "b2-p8"),
    ("app-b1", "b1-p7"),
    ("app-low", "low-p3"),
]


def test_run_scenario():
    with allocore.run(SCENARIOS / "priority-tree.yaml") as result:
        assert result.errors == []
        assert [(d.app, d.ask) for d in result.allocations()] == PRIORITY_TREE_ORDER
        assert all(d.node == "node-1" for d in result.allocations())
        assert result.steps > len(PRIORITY_TREE_ORDER)
        steps = result.decision_steps
        assert len(steps) == len(result.decisions)
        assert steps == sorted(steps)
        # The last step (schedule) made every allocation.
        assert {s for s, d in zip(steps, result.decisions)
                if d.type == DecisionType.ALLOCATION} == {result.steps}
        # The final kernel answers queries and goes on deciding.
        queues = {q["path"]: q for q in result.kernel.list_queues()}
        assert queues["root"]["allocated"]["memory"] == 10 * len(PRIORITY_TREE_ORDER)
        fork = result.kernel.fork()
        fork.add_app("late", queue="root.system.system-high", user="ops")
        fork.add_ask("late", "x", {"memory": 10, "vcore": 1})
        assert fork.schedule() == 1
        fork.close()
        array = result.decisions_array()
        assert list(array["step"]) == steps
        assert list(array["ask"]) == [d.ask for d in result.decisions]


def test_run_refused_steps_are_errors():
    with allocore.run(SCENARIOS / "refused-calls.yaml") as result:
        assert len(result.errors) == 15
        assert all(isinstance(e, allocore.RunError) for e in result.errors)
        assert [e.step for e in result.errors[:2]] == [0, 0]
        # The kernel's messages name the call ("add_ask: unknown application ghost"). The C
        # ABI gives no code for a run's errors (allocore_run_error_message is the message
        # alone), so RunError.code is UNKNOWN (2) unless the message carries one.
        assert result.errors[2].step == 1
        message = result.errors[2].message
        assert message.startswith("add_ask: ") and "ghost" in message
        assert {e.code for e in result.errors} <= {2, 3, 5, 6, 9}
        assert [(d.app, d.ask, d.node) for d in result.allocations()] == [
            ("app-1", "ask-1", "node-1")]
        rejected = [d.app for d in result.decisions if d.type == DecisionType.APP_REJECTED]
        assert rejected == ["app-1"]


def test_run_semantics_and_config_override(tmp_path):
    v12 = allocore.run(SCENARIOS / "v19-submission-time.yaml", semantics="yunikorn-1.2")
    v19 = allocore.run(SCENARIOS / "v19-submission-time.yaml")
    assert [(d.app, d.ask) for d in v19.allocations()] == [
        ("app-2", "k"), ("app-2", "k2"), ("app-1", "k")]
    assert [(d.app, d.ask) for d in v12.allocations()][0] == ("app-1", "k")
    v12.close()
    v19.close()
    # config-file.yaml: root.high's offset puts app-high first; a config without it does not.
    scenario = SCENARIOS / "config-file.yaml"
    with allocore.run(scenario) as own:
        assert [d.app for d in own.allocations()] == ["app-high", "app-low"]
    flat = ("partitions: [{name: default, queues: [{name: root, submitacl: '*', "
            "queues: [{name: low}, {name: high}]}]}]")
    with allocore.run(scenario, config_yaml=flat) as replaced:
        assert [d.app for d in replaced.allocations()] == ["app-low", "app-high"]
    path = tmp_path / "flat.yaml"
    path.write_text(flat)
    with allocore.run(scenario, config=path) as replaced:
        assert [d.app for d in replaced.allocations()] == ["app-low", "app-high"]


def test_pack_then_run_log(tmp_path):
    scenario = SCENARIOS / "every-step-kind.yaml"
    log = tmp_path / "every-step-kind.log"
    allocore.pack(scenario, log)
    assert log.stat().st_size > 0
    with allocore.run(scenario) as a, allocore.run(log) as b:
        assert len(a.decisions) > 10
        assert a.decisions == b.decisions
        assert len(a.errors) == len(b.errors)


def test_report():
    scenario = SCENARIOS / "priority-tree.yaml"
    report = allocore.report(scenario)
    assert report["report_version"] == 1
    assert report["semantics"] in allocore.SEMANTICS
    (partition,) = report["partitions"]
    assert partition["name"] == "default"
    assert partition["waits"]["count"] == len(PRIORITY_TREE_ORDER)
    assert partition["waits"]["still_pending"] == 0
    queues = {q["path"]: q for q in partition["queues"]}
    assert queues["root.system.system-high"]["allocations"] == 1
    assert sum(q["allocations"] for q in partition["queues"] if q["leaf"]) == len(
        PRIORITY_TREE_ORDER)
    # The dict is the JSON text, parsed.
    assert json.loads(allocore.report_text(scenario)) == report
    under_19 = allocore.report(scenario, semantics="yunikorn-1.9")
    assert under_19["semantics"] == "yunikorn-1.9"

"""Sweeps on a local process pool and on a Dask LocalCluster give the same results."""

from __future__ import annotations

import concurrent.futures

import pytest

import allocore
from conftest import SCENARIOS

SCENARIO = SCENARIOS / "config-file.yaml"
FLAT = ("partitions: [{name: default, queues: [{name: root, submitacl: '*', "
        "queues: [{name: low}, {name: high}]}]}]")


def waits_by_queue(report: dict) -> dict:
    """A summary of the kind a planner keeps: pending-time figures per leaf queue."""
    return {q["path"]: (q["allocations"], q["waits"]["count"], q["waits"]["max_ms"])
            for p in report["partitions"] for q in p["queues"] if q["leaf"]}


def first_allocation(result) -> str:
    return result.allocations()[0].app


def configs(tmp_path):
    flat_path = tmp_path / "flat.yaml"
    flat_path.write_text(FLAT)
    return [None, str(flat_path), allocore.Config(yaml=FLAT, label="flat text"),
            {"semantics": "yunikorn-1.9"}]


def test_sweep_locally_matches_direct_calls(tmp_path):
    points = configs(tmp_path)
    results = allocore.sweep(SCENARIO, points, max_workers=2)
    assert len(results) == 4
    direct = [
        allocore.report(SCENARIO),
        allocore.report(SCENARIO, config=points[1]),
        allocore.report(SCENARIO, config_yaml=FLAT),
        allocore.report(SCENARIO, semantics="yunikorn-1.9"),
    ]
    assert results == direct
    assert results[3]["semantics"] == "yunikorn-1.9"
    summaries = allocore.sweep(SCENARIO, points, summarize=waits_by_queue, max_workers=2)
    assert summaries == [waits_by_queue(r) for r in direct]
    # mode="run": the run summary, or what summarize keeps of the RunResult.
    firsts = allocore.sweep(SCENARIO, points, mode="run", summarize=first_allocation)
    assert firsts == ["app-high", "app-low", "app-low", "app-high"]
    (summary,) = allocore.sweep(SCENARIO, [None], mode="run")
    assert summary["by_type"]["allocation"] == 2 and summary["errors"] == 0
    # Any executor with submit() runs the same tasks.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert allocore.sweep(SCENARIO, points, summarize=waits_by_queue,
                              executor=pool) == summaries


def test_sweep_errors_are_typed(tmp_path):
    with pytest.raises(allocore.InvalidArgumentError):
        allocore.sweep(SCENARIO, [None, allocore.Config(yaml="partitions: [")], max_workers=1)
    with pytest.raises(allocore.InvalidArgumentError):
        allocore.sweep(SCENARIO, [None], semantics="yunikorn-0.1", max_workers=1)
    with pytest.raises(TypeError):
        allocore.sweep(SCENARIO, [42])
    assert allocore.sweep(SCENARIO, []) == []


@pytest.mark.parametrize("processes", [False, True])
def test_sweep_on_dask_matches_local(tmp_path, processes):
    from distributed import Client, LocalCluster

    points = configs(tmp_path)
    local = allocore.sweep(SCENARIO, points, max_workers=2)
    local_runs = allocore.sweep(SCENARIO, points, mode="run")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=processes,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        on_dask = allocore.sweep(SCENARIO, points, client=client)
        assert on_dask == local
        assert allocore.sweep(SCENARIO, points, mode="run", client=client) == local_runs
        # A closure travels to Dask workers (cloudpickle), unlike to the local pool.
        prefix = "queue "
        assert allocore.sweep(SCENARIO, points[:1], client=client,
                              summarize=lambda r: [prefix + q["path"] for q in
                                                   r["partitions"][0]["queues"]]) == [
            [prefix + q["path"] for q in local[0]["partitions"][0]["queues"]]]
        with pytest.raises(allocore.InvalidArgumentError):
            allocore.sweep(SCENARIO, [allocore.Config(yaml="partitions: [")], client=client)

"""Shared paths and fixtures of the allocore package's tests.

run_tests.sh sets PYTHONPATH to BUILD_DIR/python and ALLOCORE_BUILD_DIR to BUILD_DIR (the
example's test runs BUILD_DIR/bin/allocore). Nothing here skips: a missing package, module or
file fails the tests that need it.
"""

from __future__ import annotations

import os
import pathlib
import threading
from typing import Callable

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
SCENARIOS = REPO / "tests" / "scenarios"

# Two queues under root, a leaf max on one of them (used by several tests).
CONFIG = pathlib.Path(__file__).with_name("queues.yaml").read_text(encoding="utf-8")


def build_dir() -> pathlib.Path:
    value = os.environ.get("ALLOCORE_BUILD_DIR")
    assert value, "ALLOCORE_BUILD_DIR is not set (run the tests with bindings/python/run_tests.sh)"
    return pathlib.Path(value).resolve()


def run_threads(count: int, work: Callable[[int], None]) -> None:
    """Runs work(0), ..., work(count - 1) in threads that start together, waits for them, and
    fails with what any of them raised."""
    start = threading.Barrier(count)
    failures = []

    def run(t: int) -> None:
        try:
            start.wait()
            work(t)
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert failures == []


@pytest.fixture
def kernel():
    import allocore

    with allocore.Kernel(CONFIG) as k:
        k.add_node("node-1", {"memory": 100, "vcore": 10})
        k.add_node("node-2", {"memory": 100, "vcore": 10})
        k.add_app("app-a", queue="root.a", user="alice")
        k.add_app("app-b", queue="root.b", user="bob")
        yield k


def pytest_configure(config):
    # Dask's tornado (Debian's python3-tornado) warns about its own event loop handling.
    config.addinivalue_line("filterwarnings",
                            "ignore:make_current is deprecated:DeprecationWarning")

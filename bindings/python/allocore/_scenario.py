"""Scenario files and event logs: run, pack, report (allocore/c_scenario.h)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Iterator, List, Optional, Union

from . import _native
from ._types import RunError

__all__ = ["RunResult", "run", "pack", "report"]

PathLike = Union[str, "os.PathLike[str]"]


@contextlib.contextmanager
def _config_path(config: Optional[PathLike], config_yaml: Optional[str]) -> Iterator[Optional[str]]:
    """The path of the queues.yaml to use: `config` as given, or `config_yaml` (text) written
    to a temporary file for the duration of the call."""
    if config is not None and config_yaml is not None:
        raise TypeError("give config (a path) or config_yaml (text), not both")
    if config_yaml is None:
        yield None if config is None else os.fspath(config)
        return
    fd, path = tempfile.mkstemp(prefix="allocore-config-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(config_yaml)
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


class RunResult:
    """The outcome of run(): the decisions of the whole run, the steps the kernel refused,
    and the kernel in its final state for queries (explain_pending, list_queues, fork, ...).

    ``decisions`` (a list of Decision) and ``decision_steps`` (the 1-based step that made each
    one; 0 for the nodes registered up front) are read in bulk on first use.
    ``decisions_array()`` gives them as a numpy structured array with a ``step`` column,
    ``decision_batch()`` as a DecisionBatch (the fast form for long runs).
    ``close()`` (or ``with``) frees the run and its kernel at once.
    """

    def __init__(self, native_run: "_native.Run", path: str):
        self._run = native_run
        self.path = path
        self.steps: int = native_run.steps
        self.errors: List[RunError] = [RunError(*e) for e in native_run.errors()]
        self.kernel = native_run.take_kernel()
        self._decisions = None
        self._decision_steps = None

    def _live(self) -> "_native.Run":
        if self._run is None:
            from ._errors import ClosedError

            raise ClosedError("the run is closed")
        return self._run

    @property
    def decisions(self):
        if self._decisions is None:
            self._decisions = self._live().decisions()
        return self._decisions

    @property
    def decision_steps(self) -> List[int]:
        if self._decision_steps is None:
            self._decision_steps = self._live().decision_steps()
        return self._decision_steps

    def decisions_array(self, names: bool = True):
        """The run's decisions as a numpy structured array (names as str objects unless
        names=False), with the step of each decision."""
        return self._live().decisions_array(names)

    def decision_batch(self):
        """The run's decisions as a DecisionBatch (records exported in bulk, a numpy view of
        them, Decisions and names made on demand); decision_steps gives their steps."""
        return self._live().decision_batch()

    def allocations(self):
        """The ALLOCATION decisions."""
        from ._types import DecisionType

        return [d for d in self.decisions if d.type == DecisionType.ALLOCATION]

    def close(self) -> None:
        self._run = None
        if self.kernel is not None:
            self.kernel.close()

    def __enter__(self) -> "RunResult":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        count = self._run.decision_count if self._run is not None else "?"
        return (f"RunResult(path={self.path!r}, steps={self.steps}, decisions={count}, "
                f"errors={len(self.errors)})")


def run(path: PathLike, semantics: Optional[str] = None, config: Optional[PathLike] = None, *,
        config_yaml: Optional[str] = None, max_live_allocations: int = 0) -> RunResult:
    """Runs a scenario file or an event log to its end, as `allocore run` does.

    semantics: None (the scenario's own profile), "yunikorn-1.2" or "yunikorn-1.9".
    config: a queues.yaml file that replaces the scenario's config; or config_yaml, its text.
    Refused steps are RunResult.errors, not exceptions; an unreadable file or a config the
    kernel refuses raises (InvalidArgumentError, NotFoundError).
    """
    path = os.fspath(path)
    with _config_path(config, config_yaml) as config_path:
        native_run = _native.Run.file(path, semantics, config_path, max_live_allocations)
    return RunResult(native_run, path)


def pack(scenario: PathLike, log: PathLike, semantics: Optional[str] = None) -> None:
    """`allocore pack`: writes the scenario as an event log at `log`."""
    _native.pack_file(os.fspath(scenario), os.fspath(log), semantics)


def report_text(path: PathLike, semantics: Optional[str] = None,
                config: Optional[PathLike] = None, *, config_yaml: Optional[str] = None,
                max_live_allocations: int = 0) -> str:
    """The report's JSON text (docs/report-format.md)."""
    with _config_path(config, config_yaml) as config_path:
        return _native.report_json(os.fspath(path), semantics, config_path, max_live_allocations)


def report(path: PathLike, semantics: Optional[str] = None, config: Optional[PathLike] = None,
           *, config_yaml: Optional[str] = None, max_live_allocations: int = 0) -> dict:
    """`allocore report --format json` of the scenario or log at `path`, as a dict
    (docs/report-format.md: per partition the waits, per queue usage against guarantee and
    max, fairness, preemptions, nodes)."""
    return json.loads(report_text(path, semantics, config, config_yaml=config_yaml,
                                  max_live_allocations=max_live_allocations))

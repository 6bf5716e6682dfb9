"""Sweeps: one scenario under many configurations, on a local process pool or a Dask cluster.

Both run the same code: every configuration becomes one task ``_evaluate(scenario, config,
mode, summarize)`` submitted to an executor, and the results come back in the order of the
configurations. Locally the executor is a ``concurrent.futures.ProcessPoolExecutor``; given a
Dask ``distributed.Client`` it is the client (``Client.submit`` has the executor's shape), so
that a planner who outgrows one machine changes one argument. A run is deterministic, so both
give the same results.

The scenario is named by path: every worker reads it, so on a cluster of several machines the
path must be on a shared file system. Configurations travel with the tasks (as paths or as
YAML text).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
from typing import Any, Callable, Iterable, List, Mapping, Optional, Union

from ._scenario import report, run

__all__ = ["Config", "sweep", "run_summary"]


@dataclasses.dataclass(frozen=True)
class Config:
    """One point of a sweep: a queues.yaml (``path`` or its text ``yaml``; neither: the
    scenario's own config), a profile and a live allocation budget. ``label`` names it in
    results; it changes nothing."""

    path: Optional[str] = None
    yaml: Optional[str] = None
    semantics: Optional[str] = None
    max_live_allocations: int = 0
    label: Optional[str] = None

    @staticmethod
    def of(item: Union[None, str, "os.PathLike[str]", "Config", Mapping[str, Any]],
           semantics: Optional[str] = None) -> "Config":
        """A Config from what sweep() accepts: None, a path, a Config or its fields as a dict.
        `semantics` applies where the item names none."""
        if isinstance(item, Config):
            config = item
        elif item is None:
            config = Config()
        elif isinstance(item, Mapping):
            config = Config(**item)
        elif isinstance(item, (str, os.PathLike)):
            config = Config(path=os.fspath(item))
        else:
            raise TypeError(f"a sweep configuration is a path, a Config or a dict, not "
                            f"{type(item).__name__}")
        if config.semantics is None and semantics is not None:
            config = dataclasses.replace(config, semantics=semantics)
        return config


def run_summary(result) -> dict:
    """The default summary of mode="run": counts that travel cheaply between processes."""
    from ._types import DecisionType

    kinds = {}
    for d in result.decisions:
        name = DecisionType(d.type).name.lower()
        kinds[name] = kinds.get(name, 0) + 1
    apps, asks, live = result.kernel.usage()
    return {
        "steps": result.steps,
        "decisions": len(result.decisions),
        "by_type": kinds,
        "errors": len(result.errors),
        "pending": sum(e["pending"] for e in result.kernel.explain_pending()),
        "applications": apps,
        "asks": asks,
        "live_allocations": live,
    }


def _evaluate(scenario: str, config: Config, mode: str,
              summarize: Optional[Callable[[Any], Any]]) -> Any:
    """One task of a sweep, in a worker process."""
    if mode == "report":
        value = report(scenario, config.semantics, config.path, config_yaml=config.yaml,
                       max_live_allocations=config.max_live_allocations)
        return summarize(value) if summarize is not None else value
    if mode == "run":
        with run(scenario, config.semantics, config.path, config_yaml=config.yaml,
                 max_live_allocations=config.max_live_allocations) as result:
            return (summarize or run_summary)(result)
    raise ValueError(f"mode is 'report' or 'run', not {mode!r}")


def sweep(scenario: Union[str, "os.PathLike[str]"],
          configs: Iterable[Union[None, str, "os.PathLike[str]", Config, Mapping[str, Any]]],
          *, semantics: Optional[str] = None, mode: str = "report",
          summarize: Optional[Callable[[Any], Any]] = None, client: Any = None,
          max_workers: Optional[int] = None, executor: Any = None) -> List[Any]:
    """Runs `scenario` under every configuration and returns one result per configuration,
    in order.

    configs: paths of queues.yaml files, Config objects, dicts of Config fields, or None (the
    scenario as it is).
    mode="report": a result is the report dict (docs/report-format.md); mode="run": a result
    is run_summary(RunResult). summarize, when given, is applied in the worker to the report
    dict or the RunResult, so that only what it returns travels back. For the local pool it
    must be picklable (a module-level function); Dask pickles closures too.
    client: a dask.distributed Client: the tasks run on its cluster. Otherwise a local
    ProcessPoolExecutor(max_workers), or the given `executor` (anything with submit()).
    The first task that raises makes sweep raise that error (allocore.Error subclasses
    included) after the others are done or cancelled.
    """
    if mode not in ("report", "run"):
        raise ValueError(f"mode is 'report' or 'run', not {mode!r}")
    scenario = os.path.abspath(os.fspath(scenario))
    points = [Config.of(c, semantics) for c in configs]
    if not points:
        return []
    if client is not None and executor is not None:
        raise TypeError("give client or executor, not both")

    def submit_all(submit: Callable[..., Any]) -> List[Any]:
        futures = [submit(_evaluate, scenario, point, mode, summarize) for point in points]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise

    if client is not None:
        # pure=False: identical configurations are still separate tasks (no key collisions).
        return submit_all(lambda fn, *args: client.submit(fn, *args, pure=False))
    if executor is not None:
        return submit_all(executor.submit)
    workers = max_workers if max_workers is not None else min(len(points), os.cpu_count() or 1)
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        return submit_all(pool.submit)

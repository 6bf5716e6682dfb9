"""allocore: an allocation kernel that decides like the Apache YuniKorn scheduler, from Python.

The package sits on allocore's C ABI (liballocore_c.so; allocore/c.h, c_scenario.h):

- ``Kernel``: create a kernel from a queues.yaml text and drive it (nodes, applications,
  asks, releases, the clock, schedule), query it (list_queues, list_nodes, list_apps,
  explain_pending), snapshot, restore and fork it. Decisions accumulate in the kernel and are
  read in bulk with ``take_decisions()`` (a list of ``Decision`` named tuples),
  ``take_decision_batch()`` (a ``DecisionBatch``: the exported records, a numpy view of them,
  and Decisions or names made only when asked for; the fast form) or
  ``take_decisions_array()`` (a numpy structured array with the names as str objects).
- ``run(path)``, ``pack(scenario, log)``, ``report(path)``: scenario files and event logs,
  as ``allocore run``, ``allocore pack`` and ``allocore report --format json`` do.
- ``sweep(scenario, configs)``: one scenario under many configurations on a local process
  pool, or on a Dask cluster with ``client=``.
- Errors are ``allocore.Error`` subclasses, one per C code (``NotFoundError``,
  ``InvalidArgumentError``, ``FailedPreconditionError``, ...), and ``ClosedError`` for a
  closed kernel.

Quantities are int64 in the kernel's units (YuniKorn's): vcore in milli-cores, memory in
bytes. A Kernel may be used from several threads: its calls take turns on a per-kernel lock,
and the long ones (schedule, fork, snapshot, run, report) release the GIL.
"""

from __future__ import annotations

from . import _errors
from ._errors import *  # noqa: F401,F403 (the error classes, listed once in _errors.__all__)
from ._errors import ERRORS_BY_CODE, ClosedError, Error
from ._types import APP_STATES, RELEASE_REASONS, Decision, DecisionType, Handle, RunError
from . import _native

from ._batch import DecisionBatch, _records_view, decision_record_dtype  # noqa: E402

_native._init(Decision, tuple(DecisionType), Handle, Error, ERRORS_BY_CODE, ClosedError,
              _records_view)

from ._native import Kernel  # noqa: E402
from ._scenario import RunResult, pack, report, report_text, run  # noqa: E402
from ._sweep import Config, run_summary, sweep  # noqa: E402

__version__ = _native.version()

SEMANTICS = ("yunikorn-1.2", "yunikorn-1.9")

__all__ = [
    "Kernel",
    "Decision",
    "DecisionBatch",
    "DecisionType",
    "decision_record_dtype",
    "Handle",
    "RunError",
    "RunResult",
    "run",
    "pack",
    "report",
    "report_text",
    "sweep",
    "Config",
    "run_summary",
    "SEMANTICS",
    "RELEASE_REASONS",
    "APP_STATES",
] + [name for name in _errors.__all__ if name != "ERRORS_BY_CODE"]

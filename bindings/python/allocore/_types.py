"""Value types: decisions, handles, run errors."""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = ["DecisionType", "Decision", "Handle", "RunError", "RELEASE_REASONS", "APP_STATES"]


class DecisionType(enum.IntEnum):
    """The kind of a decision (ALLOCORE_ALLOCATION, ... of allocore/c.h)."""

    ALLOCATION = 0
    APP_REJECTED = 1
    APP_STATE = 2
    RELEASE = 3
    ASK_REMOVED = 4
    PREEMPTION = 5
    RECOVERED = 6
    QUOTA_PREEMPTION = 7


class Decision(NamedTuple):
    """One decision of the kernel (share/doc/allocore/docs/scenario-format.md names them).

    Fields a decision does not use are "" (names, release_reason, states) or 0.
    ``release_reason`` is set on RELEASE and ASK_REMOVED ("released", "removed", "replaced",
    "preempted", "timeout", "quota"); ``from_state``/``to_state`` on APP_STATE ("Accepted",
    ...); ``reason`` on APP_REJECTED. ``count`` is the victims of a PREEMPTION or
    QUOTA_PREEMPTION.
    """

    type: DecisionType
    partition: str
    queue: str
    app: str
    ask: str
    node: str
    priority: int
    seq: int
    count: int
    placeholder: bool
    release_reason: str
    from_state: str
    to_state: str
    reason: str
    replaces: str
    by_app: str
    by_ask: str
    by_queue: str


class Handle(NamedTuple):
    """A generational handle (allocore_handle_t): an application, ask or node found once and
    then named without strings. A handle whose entity is gone is refused with
    FailedPreconditionError ("stale ... handle")."""

    partition_index: int
    partition_serial: int
    slot: int
    generation: int


class RunError(NamedTuple):
    """A step a scenario run refused: its 1-based step, the kernel's message and its code."""

    step: int
    message: str
    code: int


# The numbers of Decision arrays' release_reason, from_state and to_state columns.
RELEASE_REASONS = ("released", "removed", "replaced", "preempted", "timeout", "quota")
APP_STATES = (
    "New",
    "Accepted",
    "Starting",
    "Running",
    "Completing",
    "Completed",
    "Failing",
    "Failed",
    "Rejected",
    "Expired",
    "Resuming",
)

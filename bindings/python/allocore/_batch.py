"""DecisionBatch's numpy view: the dtype of allocore_decision_record_t.

The layout comes from the extension (``_native.decision_record_layout()``: offsetof and the
member types of c.h's structs), so the dtype is the C compiler's layout, not a copy of it
written by hand. numpy is imported on first use only: a batch is usable without it, except
for ``records``.
"""

from __future__ import annotations

import functools

from . import _native

__all__ = ["DecisionBatch", "decision_record_dtype"]

DecisionBatch = _native.DecisionBatch


def _struct(np, size: int, fields, nested):
    return np.dtype(
        {
            "names": [name for name, _, _ in fields],
            "formats": [nested[code] if code in nested else "=" + code for _, _, code in fields],
            "offsets": [offset for _, offset, _ in fields],
            "itemsize": size,
        },
        align=True,
    )


@functools.lru_cache(maxsize=None)
def decision_record_dtype():
    """The numpy dtype of one allocore_decision_record_t (DecisionBatch.records' dtype).

    Fields, as in allocore/c.h: ``type`` (int32, a DecisionType value), ``priority`` (int32),
    ``seq``, ``count`` (int64), ``placeholder`` (uint8, 0 or 1), ``release_reason``,
    ``from_state``, ``to_state`` (uint8: indexes of RELEASE_REASONS and APP_STATES, meaningful
    for RELEASE/ASK_REMOVED and APP_STATE), ``reserved``, ``app_handle``, ``ask_handle``,
    ``node_handle`` (structs of partition_index, partition_serial, slot, generation), and the
    names ``partition``, ``queue``, ``app``, ``ask``, ``node``, ``reason``, ``replaces``,
    ``by_app``, ``by_ask``, ``by_queue`` as spans (structs of ``offset`` and ``len``) into
    DecisionBatch.names_bytes.
    """
    import numpy as np

    layout = _native.decision_record_layout()
    nested = {name: _struct(np, *layout[name], {}) for name in ("handle", "span")}
    return _struct(np, *layout["record"], nested)


def _records_view(memory, count: int):
    """A batch's `count` records (`memory`: an object with the buffer protocol, read-only) as
    a structured array, without a copy; the array keeps `memory` alive."""
    import numpy as np

    dtype = decision_record_dtype()
    if count == 0:
        array = np.empty(0, dtype=dtype)
        array.flags.writeable = False
        return array
    return np.frombuffer(memory, dtype=dtype, count=count)

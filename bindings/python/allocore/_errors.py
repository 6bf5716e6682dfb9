"""Typed errors: one class per code of allocore/c.h (allocore_error_code_t).

Every message of the C library reads "CODE: function: text"; the class is chosen by CODE,
and the parts are kept as attributes.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "CancelledError",
    "UnknownError",
    "InvalidArgumentError",
    "DeadlineExceededError",
    "NotFoundError",
    "AlreadyExistsError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "OutOfRangeError",
    "InternalError",
    "DataLossError",
    "ClosedError",
    "ERRORS_BY_CODE",
]


class Error(Exception):
    """An error of allocore. ``code`` is the C code (allocore_error_code_t), ``code_name`` its
    name ("NOT_FOUND"), ``function`` the C function that refused the call and ``text`` the
    rest of the message."""

    code = 2
    code_name = "UNKNOWN"

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message
        self.function = ""
        self.text = message
        parts = message.split(": ", 2)
        if len(parts) == 3 and parts[0] == type(self).code_name:
            self.function, self.text = parts[1], parts[2]
        elif len(parts) >= 2 and parts[0] == type(self).code_name:
            self.text = ": ".join(parts[1:])


class CancelledError(Error):
    code, code_name = 1, "CANCELLED"


class UnknownError(Error):
    code, code_name = 2, "UNKNOWN"


class InvalidArgumentError(Error, ValueError):
    """A bad value: negative seq, zero resources, bad YAML, unknown semantics."""

    code, code_name = 3, "INVALID_ARGUMENT"


class DeadlineExceededError(Error):
    code, code_name = 4, "DEADLINE_EXCEEDED"


class NotFoundError(Error, LookupError):
    """Unknown partition, application, ask, node, seq, file."""

    code, code_name = 5, "NOT_FOUND"


class AlreadyExistsError(Error):
    code, code_name = 6, "ALREADY_EXISTS"


class PermissionDeniedError(Error):
    code, code_name = 7, "PERMISSION_DENIED"


class ResourceExhaustedError(Error):
    """A cap of the kernel's options (max_applications, ...), or memory."""

    code, code_name = 8, "RESOURCE_EXHAUSTED"


class FailedPreconditionError(Error):
    """A stale handle, or a state that refuses the call."""

    code, code_name = 9, "FAILED_PRECONDITION"


class OutOfRangeError(Error):
    code, code_name = 11, "OUT_OF_RANGE"


class InternalError(Error):
    """A broken invariant of the kernel: a bug, please report it."""

    code, code_name = 13, "INTERNAL"


class DataLossError(Error):
    code, code_name = 15, "DATA_LOSS"


class ClosedError(FailedPreconditionError):
    """A call on a closed Kernel (checked in the binding: it never reaches C)."""

    def __init__(self, message: str = "the kernel is closed"):
        super().__init__(message)


ERRORS_BY_CODE = {
    cls.code: cls
    for cls in (
        CancelledError,
        UnknownError,
        InvalidArgumentError,
        DeadlineExceededError,
        NotFoundError,
        AlreadyExistsError,
        PermissionDeniedError,
        ResourceExhaustedError,
        FailedPreconditionError,
        OutOfRangeError,
        InternalError,
        DataLossError,
    )
}

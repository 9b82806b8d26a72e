"""What a service says when it will not do what it was asked."""

from __future__ import annotations


class ServiceError(Exception):
    """Base of the errors services raise; views map each to a status code."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(ServiceError):
    """Bad input, with the field it concerns (None for the request as a whole)."""

    status = 400

    def __init__(self, field: str | None, message: str, messages: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.field = field
        # Several reasons at once (a password's validators), each to show on its own.
        self.messages = messages or (message,)


class NotFound(ServiceError):
    status = 404


class Suspended(NotFound):
    """A disabled account, or one of its twits: hidden as if not there, but saying why."""

    def __init__(self, message: str = "This account is suspended.") -> None:
        super().__init__(message)


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    status = 409

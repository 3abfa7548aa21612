"""What a call of :mod:`judgebox.client` gives back: its exceptions (tree in that module's docstring) and its
answers, the models of :mod:`judgebox.server.schemas` subclassed only to carry ``request_id``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .server.schemas import BatchLine, JudgeResponse, RunCodeResponse


class ClientError(Exception):
    """Base of this module's errors; ``request_id`` is the ``X-Request-ID`` of the call that failed."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(f"{message} [request id {request_id}]" if request_id else message)
        self.request_id = request_id


class ServerRejected(ClientError):
    """The server answered an error status that is not worth retrying (its ``detail`` says why)."""

    def __init__(self, status: int, detail: Any, request_id: str | None = None) -> None:
        super().__init__(f"the server answered HTTP {status}: {detail}", request_id)
        self.status, self.detail = status, detail


class BadAnswer(ClientError):
    """A success status with an answer that does not parse (a login page, another service on the port)."""


class ServerUnavailable(ClientError):
    """The server stayed unreachable or overloaded through every attempt, or a batch stream broke."""

    def __init__(self, message: str, request_id: str | None = None, attempts: int = 0, status: int | None = None,
                 detail: Any = None) -> None:
        super().__init__(message, request_id)
        self.attempts, self.status, self.detail = attempts, status, detail


class DeadlineExceeded(ClientError, TimeoutError):
    """The call's deadline passed before it had its answer."""


class _Traced(BaseModel):
    request_id: str = Field("", exclude=True, description="the X-Request-ID of the call that got this answer")


class RunCodeReply(RunCodeResponse, _Traced):
    """A :class:`RunCodeResponse` with the call's ``request_id``."""


class JudgeReply(JudgeResponse, _Traced):
    """A :class:`JudgeResponse` with the call's ``request_id``."""


class BatchReply(BatchLine, _Traced):
    """A :class:`BatchLine` with the ``request_id`` of the batch call."""

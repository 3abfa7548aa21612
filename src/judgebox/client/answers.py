"""What a call of :mod:`judgebox.client` gives back: its exceptions (tree in that module's docstring; defined in
:mod:`judgebox.errors`, under :class:`judgebox.JudgeboxError`) and its answers, the models of
:mod:`judgebox.wire.schemas` subclassed only to carry ``request_id``."""

from __future__ import annotations

from pydantic import BaseModel, Field

from judgebox.errors import BadAnswer, ClientError, DeadlineExceeded, ServerRejected, ServerUnavailable
from judgebox.wire.schemas import BatchLine, JudgeResponse, RunCodeResponse

__all__ = ["BadAnswer", "BatchReply", "ClientError", "DeadlineExceeded", "JudgeReply", "RunCodeReply", "ServerRejected",
           "ServerUnavailable"]


class _Traced(BaseModel):
    request_id: str = Field("", exclude=True, description="the X-Request-ID of the call that got this answer")


class RunCodeReply(RunCodeResponse, _Traced):
    """A :class:`RunCodeResponse` with the call's ``request_id``."""


class JudgeReply(JudgeResponse, _Traced):
    """A :class:`JudgeResponse` with the call's ``request_id``."""


class BatchReply(BatchLine, _Traced):
    """A :class:`BatchLine` with the ``request_id`` of the batch call."""

"""One case's verdict as every transport of judgebox.verl reports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CaseVerdict:
    """One case as any transport reports it."""

    verdict: str
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None
    duration: float | None = None
    message: str = ""
    api_response: dict[str, Any] | None = None
    api_error: str | None = None  # the transport failed: no verdict from the sandbox
    points: float | None = None  # a partial-credit checker's share of the case's points
    cpu_time: float | None = None  # seconds; None where the transport reports none (a SandboxFusion server)

    @property
    def score(self) -> float:
        return self.points if self.points is not None else float(self.verdict == "AC")

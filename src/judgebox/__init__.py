"""judgebox: a fast, isolated code-execution judge for RL training and evaluation of code models.

    >>> import judgebox
    >>> judgebox.judge("print(input()[::-1])", [judgebox.Case.stdio("abc\\n", "cba\\n")]).verdict
    <Verdict.AC: 'AC'>

Heavy parts (the sandbox, the worker pool) load on first use, so ``import judgebox`` stays cheap
inside training workers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from judgebox.errors import (
    BadAnswer,
    BadRecord,
    ClientError,
    ClusterUnreachable,
    DeadlineExceeded,
    InvalidCases,
    InvalidCode,
    InvalidInput,
    InvalidLimits,
    IsolationUnavailable,
    JudgeboxError,
    JudgeClosed,
    LanguageUnavailable,
    RayUnavailable,
    SandboxError,
    ServerRejected,
    ServerUnavailable,
    UnknownAddress,
    UnknownChecker,
    UnknownLanguage,
    UnknownPreset,
    UnreadableFile,
    UnsupportedDataSource,
)
from judgebox.types import Case, CaseResult, JudgeResult, Limits, Submission
from judgebox.verdicts import Verdict

if TYPE_CHECKING:
    from judgebox.backends.registry import connect
    from judgebox.judging.judge import Judge, judge, judge_async
    from judgebox.sandbox.config import SandboxConfig
    from judgebox.sandbox.report import isolation_report

from judgebox.version import __version__ as __version__

__all__ = [
    "BadAnswer", "BadRecord", "Case", "CaseResult", "ClientError", "ClusterUnreachable", "DeadlineExceeded",
    "InvalidCases", "InvalidCode", "InvalidInput", "InvalidLimits", "IsolationUnavailable", "Judge", "JudgeClosed",
    "JudgeResult", "JudgeboxError", "LanguageUnavailable", "Limits", "RayUnavailable", "SandboxConfig",
    "SandboxError", "ServerRejected", "ServerUnavailable", "Submission", "UnknownAddress", "UnknownChecker",
    "UnknownLanguage", "UnknownPreset", "UnreadableFile", "UnsupportedDataSource", "Verdict", "connect",
    "isolation_report", "judge", "judge_async",
]
_LAZY = {"connect": ".backends.registry", "Judge": ".judging.judge", "judge": ".judging.judge",
         "judge_async": ".judging.judge", "SandboxConfig": ".sandbox.config", "isolation_report": ".sandbox.report"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'judgebox' has no attribute {name!r}")

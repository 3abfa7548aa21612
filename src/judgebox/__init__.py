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

from .errors import (
    InvalidCases,
    InvalidCode,
    InvalidInput,
    InvalidLimits,
    IsolationUnavailable,
    JudgeboxError,
    LanguageUnavailable,
    SandboxError,
    UnknownChecker,
    UnknownLanguage,
)
from .types import Case, CaseResult, JudgeResult, Limits, Submission
from .verdicts import Verdict

if TYPE_CHECKING:
    from .judging import Judge, judge, judge_async
    from .sandbox.config import SandboxConfig
    from .sandbox.report import isolation_report

__version__ = "0.1.0"
__all__ = [
    "Case", "CaseResult", "InvalidCases", "InvalidCode", "InvalidInput", "InvalidLimits", "IsolationUnavailable",
    "Judge", "JudgeResult", "JudgeboxError", "LanguageUnavailable",
    "Limits", "SandboxConfig", "SandboxError", "Submission",
    "UnknownChecker", "UnknownLanguage", "Verdict", "isolation_report", "judge", "judge_async",
]
_LAZY = {"Judge": ".judging", "judge": ".judging", "judge_async": ".judging", "SandboxConfig": ".sandbox.config",
         "isolation_report": ".sandbox.report"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'judgebox' has no attribute {name!r}")

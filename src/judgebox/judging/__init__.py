"""The embedded judge: a submission's cases run in this process's sandbox slots and are judged here.

``judge.py`` holds :class:`Judge` and the process-wide default judge (``judgebox.judge()`` judges on it);
the rest are its parts, bottom up: the worker ``pool`` of slots and its build threads, a submission's
``jobs`` (one per case), ``many`` (judge_many's loop), the ``problem_plan`` of a problem's own programs
(``checker_runs``, ``interactive``), ``classify`` (outcome to verdict), ``cases`` (reading datasets' test
cases), ``dedupe`` (judged once), ``run_code`` (SandboxFusion's ``/run_code``) and ``selftest`` (which
languages work here).

The names below load on first use, so importing one part (the pool, say) does not load the judge.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgebox.judging.judge import Judge, default_judge, slots_from_environment

# (judgebox.judge, the function, is the top level's: here "judge" is the module judge.py)
__all__ = ["Judge", "default_judge", "slots_from_environment"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("judgebox.judging.judge"), name)
    raise AttributeError(f"module 'judgebox.judging' has no attribute {name!r}")

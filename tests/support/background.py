"""A judgement on a thread of its own, and waiting for a condition: for tests that act on a judge while
one of its cases runs or waits (closing it, sharing its work)."""

from __future__ import annotations

import threading
import time
from typing import Any

import judgebox
from judgebox import Limits

LONG = Limits(cpu_time=30)  # longer than any of these tests waits: a case ends when the test ends it


def wait_for(condition: Any, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {what}")
        time.sleep(0.02)


def judge_in_background(judge: judgebox.Judge, code: str, cases: Any, language: str = "python",
                        limits: Limits = LONG) -> tuple[threading.Thread, dict[str, Any]]:
    """The thread judging ``code``, and the dict its answer lands in (``result``: a JudgeResult, or the
    JudgeboxError it raised)."""
    got: dict[str, Any] = {}

    def call() -> None:
        try:
            got["result"] = judge.judge(code, cases, language=language, limits=limits)
        except judgebox.JudgeboxError as exc:
            got["result"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread, got

"""What every judge offers on top of judging a :class:`Submission`: judging code and cases as given.

A backend (the embedded judge, servers, Ray) defines ``submission`` (validation), ``judge_submission`` and
``judge_submission_async``; this mixin turns a call with code and cases into those, so the entry points
read the same on every backend."""

from __future__ import annotations

from typing import Any

from ..types import JudgeResult, Limits


class JudgesCode:
    def judge(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
              checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
        """Judge ``code`` on ``cases`` (a list of :class:`Case` or verl's test-case dict)."""
        return self.judge_submission(self.submission(code, cases, language, limits, checker, stop_on_first_failure))

    async def judge_async(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                          checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
        """The awaitable twin of :meth:`judge`; it waits without occupying a thread."""
        return await self.judge_submission_async(
            self.submission(code, cases, language, limits, checker, stop_on_first_failure))

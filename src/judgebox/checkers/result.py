"""What a checker says about one case: a verdict, why, and, for a checker that gives partial credit,
the share of the case's points the answer earned."""

from __future__ import annotations

from dataclasses import dataclass

from judgebox.verdicts import Verdict


@dataclass(frozen=True, slots=True)
class CheckResult:
    verdict: Verdict
    message: str = ""
    points: float | None = None  # 0..1 of the case's points; None: all of them if AC, none otherwise


AC = CheckResult(Verdict.AC)

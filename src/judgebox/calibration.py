"""Time limits calibrated on the reference: each case's CPU limit from its reference solution's measured
CPU time, ``max(floor, factor * measured)`` (evalplus sets its limits from the ground truth's time the
same way, with a factor of 4 and a 4 s wall-clock floor).

The measure is CPU time, which a busy machine does not inflate, so the floor can be lower than a
wall-clock one. A reference that does not pass is an error: its times say nothing about the problem.

    problem = calibrate(judge, reference_code, test_cases)            # a Problem with per-case limits
    judge.judge(candidate_code, problem)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .cases import Problem, load_problem
from .errors import InvalidCases, InvalidLimits
from .judging import Judge
from .types import Limits


@dataclass(frozen=True)
class Calibration:
    factor: float = 4.0
    floor: float = 1.0  # seconds of CPU

    def __post_init__(self) -> None:
        if not (self.factor >= 1 and self.floor > 0):
            raise InvalidLimits(f"a calibration needs factor >= 1 and floor > 0, got {self.factor}, {self.floor}")

    def limit(self, measured: float) -> float:
        return max(self.floor, self.factor * measured)


def calibrate(judge: Judge, reference: str, test_cases: Any, language: str = "python",
              limits: Limits | None = None, checker: Any = None,
              calibration: Calibration = Calibration()) -> Problem:
    """The problem of ``test_cases`` with each case's CPU limit set from the reference's time on it (the
    reference runs under ``limits``, or the problem's own limits)."""
    problem = load_problem(test_cases)
    result = judge.judge(reference, problem, language, limits, checker)
    if result.passed != result.total:
        failing = next(i for i, c in enumerate(result.cases) if not c.passed)
        raise InvalidCases(f"the reference solution fails case {failing} ({result.cases[failing].verdict}): "
                           "it cannot calibrate the time limits")
    base = problem.limits(limits or Limits())
    cases = tuple(replace(case, limits=(case.limits or base).replace(cpu_time=calibration.limit(ran.cpu_time)))
                  for case, ran in zip(problem.cases, result.cases))
    return replace(problem, cases=cases)

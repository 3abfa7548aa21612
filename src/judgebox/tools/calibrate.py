"""Limits calibrated on the reference: each case's CPU limit from its reference solution's measured CPU
time, ``max(floor, factor * measured)`` (evalplus sets its limits from the ground truth's time the same
way, with a factor of 4 and a 4 s wall-clock floor).

The measure is CPU time, which a busy machine does not inflate, so the floor can be lower than a
wall-clock one. A reference that does not pass is an error: its times say nothing about the problem.

    problem = calibrate(judge, reference_code, test_cases)            # a Problem with per-case limits
    judge.judge(candidate_code, problem)

A dataset's problems are calibrated by :mod:`judgebox.tools.calibrate_data` (``judgebox calibrate``), which
writes one limit a problem (:meth:`Calibration.problem_limits`) where the data's settings hold it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from judgebox.errors import InvalidCases, InvalidLimits
from judgebox.judging.cases import Problem, load_problem
from judgebox.judging.judge import Judge
from judgebox.types import JudgeResult, Limits, MiB


@dataclass(frozen=True)
class Calibration:
    factor: float = 4.0
    floor: float = 1.0  # seconds of CPU
    memory_factor: float = 4.0
    memory_floor: int = Limits().memory_mb  # MiB: a light reference leaves the judge's default memory limit

    def __post_init__(self) -> None:
        if not (self.factor >= 1 and self.floor > 0):
            raise InvalidLimits(f"a calibration needs factor >= 1 and floor > 0, got {self.factor}, {self.floor}")
        if not (self.memory_factor >= 1 and self.memory_floor >= 1):
            raise InvalidLimits("a calibration needs memory_factor >= 1 and memory_floor >= 1 MiB, got "
                                f"{self.memory_factor}, {self.memory_floor}")

    def limit(self, measured: float) -> float:
        return max(self.floor, self.factor * measured)

    def time_limit(self, cpu_times: Iterable[float]) -> float:
        """One problem's CPU limit from its reference's CPU seconds on each case: the limit of the slowest,
        rounded up to the 10 ms."""
        return math.ceil(round(self.limit(max(cpu_times, default=0.0)) * 100, 6)) / 100

    def problem_limits(self, reference: JudgeResult, stated_memory: int | None) -> tuple[float, int]:
        """One problem's (CPU seconds, MiB) from its passing reference: the CPU limit of its slowest case
        (rounded up to the 10 ms), and the problem's own memory limit where it states one (a tighter one
        would make a heavier right answer MLE, and saves no time), else the reference's peak times the
        memory factor, at least the floor."""
        time_limit = self.time_limit(case.cpu_time for case in reference.cases)
        if stated_memory is not None:
            return time_limit, stated_memory
        peak = max((case.memory_bytes for case in reference.cases), default=0)
        return time_limit, max(self.memory_floor, math.ceil(self.memory_factor * peak / MiB))


DEFAULT_CALIBRATION = Calibration()


def calibrate(judge: Judge, reference: str, test_cases: Any, language: str = "python",
              limits: Limits | None = None, checker: Any = None,
              calibration: Calibration = DEFAULT_CALIBRATION) -> Problem:
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

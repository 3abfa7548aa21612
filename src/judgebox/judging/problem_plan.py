"""The judge's one call for problems that bring programs of their own: a checker program, an interactor, or both.

:meth:`ProblemPrograms.plan` builds them (once per distinct program, cached with the solutions' builds)
before any case runs, and says how the submission's cases run (an interactive problem's runs are its
own) and how each run is checked (a checker program runs after the solution's run ended, on a copy of
its output). A problem without programs gets an empty plan and is judged as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from judgebox import checkers, languages
from judgebox.checkers.programs import CheckerProgram
from judgebox.checkers.result import CheckResult
from judgebox.judging.checker_runs import ProgramRunner
from judgebox.judging.classify import RAN, classify
from judgebox.judging.interactive import InteractiveRunner, second_phase, verdict
from judgebox.judging.jobs import Programs
from judgebox.judging.pool import current_group
from judgebox.sandbox.outcome import RunOutcome
from judgebox.types import Case, Submission

Check = Callable[[Case, RunOutcome], "Future[CheckResult] | None"]


@dataclass(frozen=True)
class Plan:
    """``runs``: the submission's runs, if the problem runs them itself (None: as any submission);
    ``check``: a case's verdict as a future, or None where the built-in checking applies."""

    runs: list[Future[RunOutcome]] | None = None
    check: Check | None = None


class ProblemPrograms:
    def __init__(self, programs: Programs) -> None:
        self.runner = ProgramRunner(programs)
        self.interactive = InteractiveRunner(programs, self.runner)

    @staticmethod
    def needs_building(submission: Submission) -> bool:
        return submission.interactor is not None or isinstance(_checker_program(submission), CheckerProgram)

    def plan(self, submission: Submission) -> Plan:
        """Build the problem's programs and, for an interactive problem, queue its runs (this blocks while
        a compiler runs). Validation happened in :meth:`judgebox.Judge.submission`."""
        spec = languages.get(submission.language)
        program = _checker_program(submission)
        checker = self.runner.prepare(program) if program is not None else None
        group = current_group()  # the checker's runs join the submission's group (callbacks run elsewhere)
        if submission.interactor is not None:
            interactor = self.runner.prepare(submission.interactor, "interactor")
            # the second phase's judge: the checker program, else the output checker against the answers
            compare = checkers.get(submission.checker) if checker is None else None

            def interactive(case: Case, outcome: RunOutcome) -> Future[CheckResult]:
                told = None if checker is None else functools.partial(self.runner.check, checker, case, group=group)
                return second_phase(verdict(outcome, spec), case, outcome, compare, told)

            return Plan(self.interactive.submit(submission, interactor), interactive)
        if checker is None:
            return Plan()

        def check(case: Case, outcome: RunOutcome) -> Future[CheckResult] | None:
            if case.kind != "stdio":
                return None
            ran = classify(outcome, spec)  # SE, CE, OLE, MLE, TLE, RE come first; RAN is a clean exit
            if ran is not RAN:
                return _done(ran)
            return self.runner.check(checker, case, outcome.stdout, group)

        return Plan(None, check)


def _checker_program(submission: Submission) -> CheckerProgram | None:
    output = getattr(submission.checker, "output", None)
    return output if isinstance(output, CheckerProgram) else None


def _done(result: CheckResult) -> Future[CheckResult]:
    future: Future[CheckResult] = Future()
    future.set_result(result)
    return future

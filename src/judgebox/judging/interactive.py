"""Interactive problems: the solution talks to the problem's interactor, then the problem's checker may judge.

Each case is one sandbox run of two processes joined by pipes (``sandbox/inside/interaction.py``): the
solution, in a nested Landlock domain that cannot read the interactor's input (its secret) or files nor
signal it, and the interactor (testlib's ``interactor <input> <output>``). The case's CPU and wall limits
cover both; memory is the run's. The verdict, in this order:

1. the judge's and the build's failures (SE, CE), the run's limits (OLE, MLE, TLE), idleness (TLE: no
   process ran for a while, as when both sides wait to read);
2. a solution that crashed or exited non-zero before the interactor ended: RE (whatever the interactor
   then made of the closed pipe, even a crash of its own);
3. an interactor that failed (testlib's FAIL, a crash, an exit code testlib does not have) once it ran
   beside the solution: WA, blamed on the solution's exchange. The solution's queries reach it (an ``ensuref``
   on them, a query "better" than the jury's, a count its reader rejects), and unlike a checker it cannot
   be run again without the solution to tell the dataset's bug from the output's doing: so, as for a
   checker (``checkers/programs.py``), SE, every trainer's "no reward", is only what the judge itself
   observed failing without the solution: an interactor that does not compile or cannot run here, the
   sandbox's failure, a run without its supervisor's account (rule 1). The cost: a broken interactor
   scores 0 for every solution (never a mask a policy could aim for), and is seen in the messages;
4. the interactor's WA or PE (what the solution did after it, even dying of a broken pipe, changes nothing);
5. a solution still running once the interactor ended: TLE; one that failed after it: RE;
6. the interactor's points; its OK, which the second phase may still overturn:
7. testlib's two phases (Codeforces, Polygon): an interactor that only relays the exchange writes what the
   solution answered to its output file (``tout``) and quits with OK; the problem's checker then judges that
   file (:func:`second_phase`): a checker program (a testlib checker, run as ``checker input
   interactor_output answer``, with the checker's blame rules: its FAIL on this file is WA), or, when the
   case gives an expected answer and no checker program, the submission's output checker comparing the
   file with it. Its WA, PE or points are the case's verdict. A file past the output cap is WA (what
   floods it is the solution's answers). An interactor that is itself the judge (the case gives no
   answer and the problem no checker program) keeps its OK.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from judgebox import languages
from judgebox.checkers import Checker
from judgebox.checkers.programs import verdict_of_testlib
from judgebox.checkers.result import CheckResult
from judgebox.judging.checker_runs import Prepared, ProgramRunner, exec_command
from judgebox.judging.classify import RAN, classify, exit_description
from judgebox.judging.jobs import Programs
from judgebox.languages.build import build, environment
from judgebox.languages.spec import LanguageSpec
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import InteractiveCommand
from judgebox.types import Case, Submission
from judgebox.verdicts import Verdict

__all__ = ["InteractiveRunner", "second_phase", "verdict"]

T = TypeVar("T")
INTERACTOR_FILES = ("/proc/self/fd/9", "/proc/self/fd/10")  # its input, and its output file for the checker
_ACCOUNT_KEYS = {"solution", "interactor", "idle", "cut", "solution_first"}


class InteractiveRunner:
    def __init__(self, programs: Programs, runner: ProgramRunner) -> None:
        self.programs = programs
        self.runner = runner

    def submit(self, submission: Submission, interactor: Prepared) -> list[Future[RunOutcome]]:
        """Queue every case of ``submission`` against ``interactor`` (building the solution first)."""
        spec = languages.get(submission.language)
        self.programs.check_language(spec)
        if interactor.error is not None:
            return [_done(RunOutcome(system_error=interactor.error)) for _ in submission.cases]
        built = build(self.programs.pool.submit, self.programs.cache, spec, spec.source_for(submission.code),
                      self.programs.toolchain_cache)
        if built.artifact is None:
            return [_done(RunOutcome(compile_error=built.compile_error, system_error=built.system_error))
                    for _ in submission.cases]
        argv = exec_command(spec, self.runner.interpreter)
        env = {**interactor.env, **environment(spec)}
        runs = []
        for case in submission.cases:
            limits = case.limits or submission.limits
            limits = limits.replace(memory_mb=max(limits.memory_mb, spec.memory_floor_mb))
            job = InteractiveCommand(argv, (*interactor.argv, *INTERACTOR_FILES), interactor.artifact,
                                     case.stdin, env)
            runs.append(self.programs.pool.submit(job, b"", limits, program=built.artifact))
        return runs


def verdict(outcome: RunOutcome, spec: LanguageSpec) -> CheckResult:
    """An interactive run's verdict (see the module's docstring for the order); ``spec`` is the solution's."""
    first = classify(outcome, spec)  # the judge's failures, the build and the limits come first
    if first is not RAN and first.verdict is not Verdict.RE:  # the run's own exit is the supervisor's
        return first
    account = _account(outcome)
    if isinstance(account, str):
        return CheckResult(Verdict.SE, account)
    if account["idle"]:
        return CheckResult(Verdict.TLE, "idleness limit exceeded: neither the solution nor the interactor ran")
    exit_code, signal = account["solution"]
    crashed = None if exit_code == 0 and signal is None else \
        CheckResult(Verdict.RE, exit_description(RunOutcome(exit_code=exit_code, signal=signal)))
    if crashed is not None and account["solution_first"]:
        return crashed  # whatever the interactor then made of it, a crash of its own included
    exit_code, signal = account["interactor"]
    said = verdict_of_testlib(exit_code, signal, outcome.stdout)
    if isinstance(said, str):  # its FAIL or crash: the solution's exchange is blamed (rule 3)
        return CheckResult(Verdict.WA, f"the interactor failed on this solution's exchange ({said}): the "
                                       "solution is blamed")
    if said.verdict in (Verdict.WA, Verdict.PE) and said.points is None:
        return said
    if account["cut"]:
        return CheckResult(Verdict.TLE, "the solution did not end once the interactor had")
    return crashed or said


def second_phase(said: CheckResult, case: Case, outcome: RunOutcome, compare: Checker | None,
                 program: Callable[[bytes], Future[CheckResult]] | None) -> Future[CheckResult]:
    """The case's verdict once the interactor has said ``said`` (rule 7): its OK judged again on its output
    file by the problem's checker program (``program``, given that file), or else by the output checker
    ``compare`` against the case's expected answer; anything else it said stands."""
    if said.verdict is not Verdict.AC or said.points is not None:
        return _done(said)
    if program is None and not case.expected_output:  # the interactor is the judge
        return _done(said)
    if outcome.interactor_output_length > len(outcome.interactor_output):
        return _done(CheckResult(Verdict.WA, "the interactor's output file passed the output cap"))
    if program is not None:
        return program(outcome.interactor_output)
    assert compare is not None  # (the caller gives one or the other)
    return _done(compare(outcome.interactor_output, case.expected_output or ""))


def _account(outcome: RunOutcome) -> dict | str:
    """The supervisor's account of both processes, or why there is none (the judge's failure)."""
    if not outcome.token_ok:
        return "the interactive run ended without its supervisor's account"
    try:
        account = json.loads(outcome.harness)
    except ValueError:
        return "the interactive run's account is not JSON"
    if not isinstance(account, dict) or set(account) != _ACCOUNT_KEYS:
        return "the interactive run's account has the wrong fields"
    return account


def _done(value: T) -> Future[T]:
    future: Future[T] = Future()
    future.set_result(value)
    return future

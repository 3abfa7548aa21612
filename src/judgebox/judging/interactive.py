"""Interactive problems: the solution talks to the problem's interactor, which decides the verdict.

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
6. the interactor's OK (AC) or points.
"""

from __future__ import annotations

import json
from concurrent.futures import Future

from judgebox import languages
from judgebox.checkers.programs import verdict_of_testlib
from judgebox.checkers.result import CheckResult
from judgebox.judging.checker_runs import Prepared, ProgramRunner, exec_command
from judgebox.judging.classify import RAN, classify, exit_description
from judgebox.judging.jobs import Programs
from judgebox.languages.build import build, environment
from judgebox.languages.spec import LanguageSpec
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import InteractiveCommand
from judgebox.types import Submission
from judgebox.verdicts import Verdict

__all__ = ["InteractiveRunner", "verdict"]

INTERACTOR_FILES = ("/proc/self/fd/9", "/dev/null")  # its input, and the output testlib writes for a checker
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


def _done(outcome: RunOutcome) -> Future[RunOutcome]:
    future: Future[RunOutcome] = Future()
    future.set_result(outcome)
    return future

"""A problem's checker and interactor programs, built and run in the sandbox like a solution.

:class:`ProgramRunner` builds each one once (cached by content with the solutions' builds) and runs a
checker on a copy of the solution's output after its run ended; reading what the checker said, and whose
fault a checker's failure is, are :mod:`judgebox.checkers.programs`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from judgebox import languages
from judgebox.checkers.programs import CHECKER_LIMITS, CheckerProgram, Interactor, blame, read_checker_run
from judgebox.checkers.result import CheckResult
from judgebox.errors import LanguageUnavailable
from judgebox.judging.pool import Group
from judgebox.languages.artifacts import Artifact
from judgebox.languages.build import build, environment
from judgebox.languages.spec import PROGRAM_PATH, LanguageSpec
from judgebox.sandbox.inside.protocol import Fd
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import CheckerCommand
from judgebox.types import Case, Limits
from judgebox.verdicts import Verdict

if TYPE_CHECKING:
    from judgebox.judging.jobs import Programs

# Each convention's arguments: testlib's checker input output answer, open-r1's checker.py input expected actual
ARGUMENTS = {protocol: tuple(f"/proc/self/fd/{fd}" for fd in order) for protocol, order in (
    ("testlib", (Fd.INPUT_FILE, Fd.OUTPUT_FILE, Fd.ANSWER_FILE)),
    ("codeforces-python", (Fd.INPUT_FILE, Fd.ANSWER_FILE, Fd.OUTPUT_FILE)))}


@dataclass(frozen=True)
class Prepared:
    """A checker or interactor built once and ready to run: the command that runs its program (at fd 5),
    or, if it could not be built, why (every case it judges is then SE: the dataset's fault)."""

    argv: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    artifact: Artifact | None = None
    limits: Limits = CHECKER_LIMITS
    protocol: str = "testlib"
    error: str | None = None


class ProgramRunner:
    """Builds checkers and interactors (cached by content with the solutions' builds) and runs checkers."""

    def __init__(self, programs: Programs) -> None:
        self.programs = programs
        slot = programs.pool.slots[0]
        self.interpreter = slot.interpreter
        self.testlib = slot.config.testlib_dir

    def prepare(self, program: CheckerProgram | Interactor, what: str = "checker") -> Prepared:
        """Build ``program`` (this blocks while its compiler runs)."""
        spec = _with_include(languages.get(program.language), self.testlib)
        try:
            self.programs.check_language(spec)
        except LanguageUnavailable as exc:
            return Prepared(error=f"the {what} cannot run here: {exc}")
        built = build(self.programs.pool.submit, self.programs.cache, spec, spec.source_for(program.code),
                      self.programs.toolchain_cache)
        if built.artifact is None:
            why = built.system_error or f"the {what} does not compile: {built.compile_error}"
            return Prepared(error=why)
        limits = getattr(program, "limits", None) or CHECKER_LIMITS
        return Prepared(exec_command(spec, self.interpreter), environment(spec), built.artifact,
                        limits.replace(memory_mb=max(limits.memory_mb, spec.memory_floor_mb)), program.protocol)

    def check(self, prepared: Prepared, case: Case, output: bytes, group: Group | None = None
              ) -> Future[CheckResult]:
        """The checker's verdict on ``output`` (the solution's whole stdout, read once its run ended).

        A checker that fails (testlib's FAIL, a crash, its limits, an answer it does not give) is run once
        more with the expected answer as the output. If it judges that cleanly, the failure came from the
        solution's output, which is WA (a solution cannot buy an SE with junk, floods, NULs, a value its
        ``ensuref`` rejects or an answer "better" than the jury's); if it fails on the answer too, the
        checker or the case is broken: SE, never WA nor AC."""
        verdict: Future[CheckResult] = Future()
        if prepared.error is not None:
            verdict.set_result(CheckResult(Verdict.SE, prepared.error))
            return verdict
        answer = (case.expected_output or "").encode("utf-8", "surrogateescape")

        def judged(run: Future[RunOutcome]) -> None:
            said = read_checker_run(prepared.protocol, run.result())
            if isinstance(said, CheckResult):
                verdict.set_result(said)
                return
            def blamed(again: Future[RunOutcome]) -> CheckResult:
                return blame(said, read_checker_run(prepared.protocol, again.result()))

            self._run(prepared, case.stdin, answer, answer, group).add_done_callback(_settling(verdict, blamed))

        self._run(prepared, case.stdin, output, answer, group).add_done_callback(_settling(verdict, judged))
        return verdict

    def _run(self, prepared: Prepared, stdin: bytes, output: bytes, answer: bytes, group: Group | None
             ) -> Future[RunOutcome]:
        job = CheckerCommand((*prepared.argv, *ARGUMENTS[prepared.protocol]), stdin, output, answer, prepared.env)
        # before the submission's runs still queued: until its checker has run, a case's outcome (its output,
        # up to the output cap) is held, and a submission of many cases would hold every one of them
        return self.programs.pool.submit(job, b"", prepared.limits, program=prepared.artifact, group=group,
                                         first=True)


def _settling(verdict: Future[CheckResult], then: Callable[[Future[RunOutcome]], CheckResult | None]
              ) -> Callable[[Future[RunOutcome]], None]:
    """A run's done-callback that settles ``verdict`` with what ``then`` makes of it (if anything), or with
    its exception: a failure of the judge reaches the caller, never lost in a callback."""
    def settle(run: Future[RunOutcome]) -> None:
        if run.cancelled():
            verdict.cancel()
            return
        try:
            result = then(run)
        except BaseException as exc:
            verdict.set_exception(exc)
            return
        if result is not None:
            verdict.set_result(result)
    return settle


def exec_command(spec: LanguageSpec, interpreter: str) -> tuple[str, ...]:
    """The command that runs a built program of ``spec`` from fd 5 as a process of its own (Python's
    solutions otherwise run in the slot's warm interpreter)."""
    if spec.runner == "python-fork":
        return (interpreter, "-I", PROGRAM_PATH)
    return spec.command(spec.run)


def _with_include(spec: LanguageSpec, folder: str | None) -> LanguageSpec:
    """C and C++ checkers find testlib.h in ``folder``."""
    if folder is None or not spec.compile or os.path.basename(spec.compile[0]) not in ("g++", "gcc"):
        return spec
    return replace(spec, compile=(spec.compile[0], "-I", folder, *spec.compile[1:]))

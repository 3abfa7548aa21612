"""Assert cases in two processes for languages that run as executables (the tamper-proof harness).

A language with a two-process harness declares ``LanguageSpec.split_asserts``: a function that, given a
:class:`Toolbox`, the program and the tests, builds what each side runs and returns a :class:`SplitBuild`
(a ``SplitCommand`` and the program's artifact, or why it cannot run). The sandbox then runs the program's
side and the tests' side as two processes joined by a channel (see ``sandbox.slot.SplitCommand``): the
program's process never holds the tests, the token or the report, and cannot read or signal the tests'
process; every value crosses the channel as data. The language's harness code (its two sides' programs)
lives beside the language, e.g. ``languages/harnesses/``.
"""

from __future__ import annotations

import base64
import contextvars
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future

from judgebox.languages.artifacts import Artifact, Build
from judgebox.languages.build import COMPILE_LIMITS, failed_build
from judgebox.languages.spec import SplitBuild, Toolbox
from judgebox.sandbox.slot import Command


def beside(build: Callable[[], Build]) -> Future[Build]:
    """``build()`` on a thread of its own, in the caller's context (its pool group and caller identity), so
    one side of a split harness builds while the caller builds the other. A thread per call, not a shared
    pool: a fixed pool's queue would make one caller's build wait behind another caller's (first come, first
    built), while the pool's fairness must decide. Bounded: every caller is on one of a judge's build threads."""
    done: Future[Build] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            done.set_result(context.run(build))
        except BaseException as exc:  # the caller's .result() raises it, as a pool's future would
            done.set_exception(exc)

    threading.Thread(target=run, name="judgebox-split-side", daemon=True).start()
    return done


def sandboxed_step(toolbox: Toolbox, job: Command, files: Mapping[str, str | bytes], made: str, name: str,
                   failure: str, program: Artifact | None = None) -> Build:
    """One step of a harness's build, run in the sandbox with the compile limits: ``files`` placed in the
    work folder, the file ``made`` it leaves is the artifact (``name``); a step that leaves none is a
    compile error, ``failure`` followed by the step's messages."""
    encoded = {path: base64.b64encode(data.encode() if isinstance(data, str) else data).decode()
               for path, data in files.items()}
    outcome = toolbox.submit(job, b"", COMPILE_LIMITS, encoded, (made,), program=program).result()
    if outcome.system_error is not None:
        return Build(system_error=f"{failure}: the sandbox failed: {outcome.system_error}")
    result = outcome.files.get(made)
    if outcome.clean_exit and result is not None:
        return Build(Artifact(base64.b64decode(result), name), compile_time=outcome.cpu_time)
    failed = failed_build(outcome, COMPILE_LIMITS)
    return Build(compile_error=f"{failure}:\n{failed.compile_error}", compile_timed_out=failed.compile_timed_out,
                 compile_time=outcome.cpu_time)


def failed_sides(program_side: Build, tests_side: Build, refused: dict[str, str], callable_note: str
                 ) -> SplitBuild | None:
    """Why a harness's two built sides cannot run (None: both built): the machine's failure, the program's
    compile error, or the tests' compile error with the reasons the program's functions they call have no
    stub (``refused``) and what the tests can call (``callable_note``)."""
    for step in (program_side, tests_side):
        if step.system_error is not None:
            return SplitBuild(system_error=step.system_error)
    if program_side.artifact is None:
        return SplitBuild(compile_error=program_side.compile_error)
    if tests_side.artifact is None:
        notes = "".join(f"\n  {name}: {why}" for name, why in sorted(refused.items()))
        return SplitBuild(compile_error=(tests_side.compile_error or "")
                          + (f"\nfunctions of the program the tests cannot call:{notes}" if notes else "")
                          + f"\n({callable_note})")
    return None

"""The judge: run every case of a submission in the sandbox, check each, fold into a JudgeResult.

Example::

    >>> import judgebox
    >>> result = judgebox.judge("print(sum(map(int, input().split())))",
    ...                         [judgebox.Case.stdio("1 2\\n", "3\\n")])
    >>> result.verdict, result.score
    (<Verdict.AC: 'AC'>, 1.0)
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from judgebox import checkers, languages
from judgebox.backend import Backend, BackendStats, RunCodeResult
from judgebox.callers import current_caller
from judgebox.checkers import CheckResult
from judgebox.errors import InvalidCases, InvalidInput, InvalidLimits, JudgeClosed
from judgebox.judging.build_threads import BuildThreads
from judgebox.judging.cases import load_problem
from judgebox.judging.classify import classify
from judgebox.judging.dedupe import ResultCache, Unkeyable, submission_key
from judgebox.judging.jobs import Programs
from judgebox.judging.many import JUDGE_MANY_WINDOW, as_they_finish
from judgebox.judging.pool import Group, WorkerPool, current_group, grouped
from judgebox.judging.problem_plan import Check, ProblemPrograms
from judgebox.languages import LanguageSpec
from judgebox.languages.artifacts import Build, descriptor_share
from judgebox.sandbox.config import SandboxConfig
from judgebox.sandbox.outcome import RunOutcome
from judgebox.types import Case, CaseResult, JudgeResult, Limits, Submission
from judgebox.verdicts import Verdict

if TYPE_CHECKING:  # /run_code's records are pydantic's: loaded by the /run_code methods alone, so the
    # embedded judge itself runs with the standard library and libseccomp (as an unprivileged user's may)
    from judgebox.judging.run_code import RanCode
    from judgebox.wire.schemas import RunCodeRequest, RunJupyterRequest, RunJupyterResponse

T = TypeVar("T")
# Threads a judge keeps for work that may wait on a compiler (each holds one while its build, or a build it
# waits for, runs: bounded by the build limits). Far more than the slots can compile at once, and a tenant
# holds at most two per slot, so the pool's fairness, not this bound, decides whose build runs first.
BUILD_THREADS = 64


class Judge(Backend):
    """Owns a pool of sandbox slots; safe to call from many threads at once.

    ``Judge()`` starts one slot per core and raises :class:`judgebox.IsolationUnavailable` if this
    machine cannot give the required isolation. Use it as a context manager, or call :meth:`close`.

    ``dedupe``: identical submissions are judged once (:mod:`judgebox.judging.dedupe`): True (the default) gives
    the judge a :class:`ResultCache` of its own, unless ``$JUDGEBOX_DEDUPE=0`` (an operator's switch: a
    ``judgebox serve``, a benchmark that must run every submission); a ResultCache is used as given (its
    keys include this judge's ``config``); None or False judges every submission. ``judge.dedupe`` is the
    cache in use (reassign it to start afresh).
    """

    def __init__(self, config: SandboxConfig | None = None, slots: int | None = None,
                 dedupe: bool | ResultCache | None = True) -> None:
        if not isinstance(config, (SandboxConfig, type(None))):
            raise InvalidInput(f"config must be a judgebox.SandboxConfig or None, got {type(config).__name__}")
        if slots is not None and (isinstance(slots, bool) or not isinstance(slots, int) or slots < 1):
            raise InvalidInput(f"slots must be a positive whole number or None, got {slots!r}")
        if not isinstance(dedupe, (bool, ResultCache, type(None))):
            raise InvalidInput(f"dedupe must be True, False, None or a ResultCache, got {dedupe!r}")
        self.config = config or SandboxConfig()
        if dedupe is True:
            dedupe = ResultCache() if _dedupe_from_environment() else None
        self.dedupe: ResultCache | None = dedupe if isinstance(dedupe, ResultCache) else None
        self._closed = False
        self._pool = WorkerPool(self.config, slots)
        self._builds = BuildThreads(BUILD_THREADS, per_tenant=2 * len(self._pool.slots))
        self._programs = Programs(self._pool, self.config.cache_dir)
        self._problem_programs = ProblemPrograms(self._programs)
        # What besides a submission decides its verdict here: the settings, and testlib.h as read at start
        self._key_scope = submission_key((self.config, self._problem_programs.runner.testlib))

    def judge_submission(self, submission: Submission) -> JudgeResult:
        """Judge a :class:`Submission` (see :meth:`submission`). With dedupe on, a submission identical to
        one judged recently, or being judged now, is not run again: the caller gets that same JudgeResult,
        whose ``wall_time`` is the original judgement's."""
        self._refuse_if_closed()
        cache, key = self._cached(submission)
        if cache is None:
            return self._judge_now(submission)
        return cache.run(key, lambda: self._judge_now(submission), self._leading(), self._follow)

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        """The awaitable twin of :meth:`judge_submission`."""
        self._refuse_if_closed()
        cache, key = self._cached(submission)
        if cache is None:
            return await self._judge_now_async(submission)
        return await cache.run_async(key, lambda: self._judge_now_async(submission), self._leading(),
                                     self._follow)

    def judge_many(self, submissions: Iterable[Submission]) -> Iterator[tuple[int, JudgeResult]]:
        """Judge every submission at once, yielding ``(index, result)`` as each finishes (not in order).

        They are queued together as one tenant of the pool (as fair to other callers as one submission
        of all their cases; first come, first run among themselves), identical ones judged once. One the
        judge fails on (an invalid record, a closed judge) yields an SE result saying why; the others go on.
        Leaving the loop early cancels what has not run yet. At most a window of them (16 per slot, at least
        ``JUDGE_MANY_WINDOW``, at most a quarter of the process's descriptors: each holds its built program
        open) is in the judge at once, so a GRPO step of 300,000 runs holds the judge's memory of a few
        thousand, while keeping every slot busy. A judge closed before the loop starts raises
        :class:`JudgeClosed` (as every backend does), rather than an SE for each submission."""
        self._refuse_if_closed()
        batch = list(submissions)
        if batch:
            window = min(max(JUDGE_MANY_WINDOW, 16 * len(self._pool.slots)), descriptor_share())
            yield from as_they_finish(self, batch, window)

    async def off_loop(self, work: Callable[[], T]) -> T:
        """``work()``, awaited from the caller's loop while it runs on one of the judge's build threads (work
        that may wait for a compiler: never on an event loop). The threads are the judge's own, not the
        loop's default executor, and fair between tenants (:mod:`judgebox.judging.build_threads`): at most
        ``BUILD_THREADS``, at most two per slot to a tenant at once, each carrying its caller's context (its
        pool group and caller identity)."""
        return await self._builds.run(current_group().tenant, work)

    def stats(self) -> BackendStats:
        """What the judge has done: its slots (``busy`` now), the pool's ``jobs_started`` (runs of programs,
        checkers and compilers), ``dedupe`` (:meth:`ResultCache.stats`, None when off) and the build cache's
        hits and misses."""
        cache = self._programs.cache
        return BackendStats(slots=len(self._pool.slots), busy=self._pool.busy, jobs_started=self._pool.jobs_started,
                            dedupe=self.dedupe.stats() if self.dedupe is not None else None,
                            artifact_hits=cache.hits, artifact_misses=cache.misses)

    def run_code(self, requests: list[dict[str, Any]]) -> list[RunCodeResult]:
        """SandboxFusion ``/run_code`` request bodies, all started at once (the pool queues them), each
        answered as ``judgebox serve`` answers it (server defaults: 1 GiB when the request says no memory
        limit, 64 MiB of output)."""
        from judgebox.judging import run_code as run_code_api

        self._refuse_if_closed()
        pending = [run_code_api.start(self._programs, body) for body in requests]
        return [finish() for finish in pending]

    async def run_code_async(self, request: RunCodeRequest, memory_mb: int | None = None,
                             output_bytes: int | None = None) -> RanCode:
        """One ``/run_code`` request, awaited (``judgebox serve``'s handler, with its settings' memory default and
        output cap; else :mod:`judgebox.judging.run_code`'s): its language, build and outcome;
        ``.response(queue_time, pod)`` is the answer. A compiled language's build runs off the loop."""
        from judgebox.judging import run_code as run_code_api

        self._refuse_if_closed()
        spec = run_code_api.run_code_language(request.language, self._programs)
        if isinstance(spec, str):
            return run_code_api.RanCode(None, refused=spec)
        arguments = run_code_api.run_once_arguments(spec, request, memory_mb or run_code_api.DEFAULT_MEMORY_MB,
                                                    output_bytes or run_code_api.OUTPUT_BYTES)
        if spec.compiled:  # the compiler may run: off the event loop
            built, future = await self.off_loop(functools.partial(self._programs.run_once, *arguments))
        else:
            built, future = self._programs.run_once(*arguments)
        outcome: RunOutcome | None = None
        if future is not None:
            outcome = await asyncio.wrap_future(future)
        return run_code_api.RanCode(spec, built, outcome)

    async def run_jupyter_async(self, request: RunJupyterRequest, memory_mb: int | None = None,
                                output_bytes: int | None = None) -> RunJupyterResponse:
        """One ``/run_jupyter`` request, awaited: its cells in one Jupyter kernel, in one sandbox run
        (:mod:`judgebox.judging.run_jupyter`); the server fills in the response's queue time and pod."""
        from judgebox.judging import run_code, run_jupyter
        from judgebox.wire.schemas import RunJupyterResponse

        self._refuse_if_closed()
        if not self._pool.layers.get("landlock") and self.config.mode != "none":
            # only Landlock's nested domain keeps the kernel from the driver's result (sandbox/inside/jupyter.py)
            return RunJupyterResponse(status="SandboxError", message="/run_jupyter needs Landlock here, which this "
                                                                     "sandbox lacks")
        limits = run_jupyter.run_limits(request, memory_mb or run_code.DEFAULT_MEMORY_MB,
                                        output_bytes or run_code.OUTPUT_BYTES)
        job = run_jupyter.driver_job(request, limits)
        outcome = await asyncio.wrap_future(self._pool.submit(job, b"", limits, dict(request.files),
                                                              tuple(request.fetch_files)))
        return run_jupyter.response(outcome, limits)

    def run_program(self, language: LanguageSpec, code: str, stdin: bytes, limits: Limits
                    ) -> tuple[Build | None, RunOutcome | None]:
        """Build ``code`` (a compiled language) and run it once on ``stdin``, checking nothing (``judgebox
        run``): the build (None for Python) and the run's outcome (None if the build failed)."""
        self._refuse_if_closed()
        built, run = self._programs.run_once(language, code, stdin, limits)
        return built, run.result() if run is not None else None

    @property
    def slots(self) -> int:
        return len(self._pool.slots)

    @property
    def python_version(self) -> str:
        """The version of the Python that submissions run in (the slots' warm interpreter)."""
        return self._pool.slots[0].python_version

    def cancel(self, group: Group, unless_started: bool = False) -> bool:
        """Cancel ``group``'s queued jobs (and, unless ``unless_started``, its running ones); whether any
        had started (:meth:`judgebox.judging.pool.WorkerPool.cancel`). The server's admission uses it."""
        return self._pool.cancel(group, unless_started=unless_started)

    def _cached(self, submission: Submission) -> tuple[ResultCache | None, str]:
        """The cache to judge ``submission`` through (read once: ``dedupe`` may be reassigned meanwhile) and
        its key; no cache if dedupe is off or the submission has no key."""
        cache = self.dedupe
        if cache is None:
            return None, ""
        try:
            return cache, submission_key(submission, (self._key_scope, current_caller()))
        except Unkeyable:  # a value of a type test data never holds: judged, not cached
            return None, ""

    def _leading(self) -> tuple[WorkerPool, Group]:
        """What an owner of a judgement tells its waiters: the pool and the group its jobs are queued in."""
        return self._pool, current_group()

    def _follow(self, leader: tuple[WorkerPool, Group] | None) -> Callable[[], None] | None:
        """A caller waiting on another's judgement lends it its standing in the pool while it waits. Only in
        this judge's own pool: a cache shared by several judges may hold another judge's judgement, and lending
        that one's group here offered its jobs to this pool's slots (whose threads then died on it)."""
        if leader is None or leader[0] is not self._pool:
            return None
        return self._pool.lend(leader[1])

    async def _judge_now_async(self, submission: Submission) -> JudgeResult:
        started = time.monotonic()
        if languages.get(submission.language).compiled or ProblemPrograms.needs_building(submission):
            # a compiler may run: not on the event loop; its jobs join this task's group wherever it runs
            start = functools.partial(_in_group, current_group(), self._start, submission)
            runs, check = await self.off_loop(start)
        else:
            runs, check = self._start(submission)
        judged, pending = self._judged_as_they_end(submission, runs, check)
        del runs
        results: list[CaseResult] = []
        try:
            for future in judged:
                results.append(await asyncio.wrap_future(future))
                if submission.stop_on_first_failure and not results[-1].passed:
                    break
        finally:
            _cancel(pending)
        return self._fold(submission, results, started)

    def _judge_now(self, submission: Submission) -> JudgeResult:
        started = time.monotonic()
        judged, pending = self._judged_as_they_end(submission, *self._start(submission))
        results: list[CaseResult] = []
        try:
            for future in judged:
                results.append(future.result())
                if submission.stop_on_first_failure and not results[-1].passed:
                    break
        finally:
            _cancel(pending)
        return self._fold(submission, results, started)

    def _start(self, submission: Submission) -> tuple[list[Future[RunOutcome]], Check | None]:
        """Queue every case (building first where needed), and say how a problem's own programs check them."""
        plan = self._problem_programs.plan(submission)
        return (plan.runs if plan.runs is not None else self._programs.submit(submission)), plan.check

    def _judged_as_they_end(self, submission: Submission, runs: list[Future[RunOutcome]], check: Check | None
                            ) -> tuple[list[Future[CaseResult]], list[weakref.ref[Future[RunOutcome]]]]:
        """Each run's result, judged the moment it ends: a run's outcome holds up to the output cap of
        stdout, its result at most the returned bound, so a submission whose later cases end first holds
        results, not outcomes. The runs are only weakly held (to cancel those not started)."""
        judged: list[Future[CaseResult]] = []
        for case, run in zip(submission.cases, runs):
            result: Future[CaseResult] = Future()
            run.add_done_callback(functools.partial(self._settle, result, submission, case, check))
            judged.append(result)
        return judged, [weakref.ref(run) for run in runs]

    def _settle(self, result: Future[CaseResult], submission: Submission, case: Case, check: Check | None,
                run: Future[RunOutcome]) -> None:
        if run.cancelled() or result.cancelled():  # or its caller went away while it ran: nothing to check
            result.cancel()
            return
        try:
            outcome = run.result()
            checked = check(case, outcome) if check is not None else None
            if checked is None:
                result.set_result(self._case_result(submission, case, outcome))
                return
            checked.add_done_callback(functools.partial(_settle_checked, result, case, outcome,
                                                        case.limits or submission.limits))
        except BaseException as exc:  # an unexpected failure of the judge reaches the caller, never lost
            if not result.done():  # (a result cancelled meanwhile has no caller left to tell)
                result.set_exception(exc)

    @staticmethod
    def submission(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                   checker: Any = None, stop_on_first_failure: bool = False) -> Submission:
        """Validate the caller's input into a :class:`Submission`; raises :class:`InvalidInput`.

        ``checker`` is any checker setting (:func:`judgebox.checkers.parse`), None for the default
        (``float`` for stdout, ``value`` for call results: the ``judgebox`` preset's). The test data's own
        settings win over the caller's: its ``checker`` replaces the part of the checking it is about, its
        ``time_limit``/``memory_limit`` the CPU and memory limits."""
        spec = languages.get(language)
        if limits is not None and not isinstance(limits, Limits):
            raise InvalidLimits(f"limits must be a judgebox.Limits, got {type(limits).__name__}")
        problem = load_problem(cases)
        checking = checkers.parse(problem.checker, checkers.parse(checker))
        _refuse_programs(problem.interactor, problem.cases)
        submission = Submission(code, problem.cases, spec.name, problem.limits(limits or Limits()), checking,
                                bool(stop_on_first_failure), problem.interactor)
        Programs.check(submission)
        return submission

    def isolation(self) -> dict[str, object]:
        return dict(self._pool.layers)

    def close(self, cancel: bool = False) -> None:
        """Close the judge once the cases queued have run; with ``cancel``, at once: a case that has not
        started raises :class:`JudgeClosed` in its caller, and a running one ends as SE."""
        self._closed = True
        self._pool.close(cancel)
        self._builds.close()

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise JudgeClosed("this judge is closed")

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------------

    def _fold(self, submission: Submission, results: list[CaseResult], started: float) -> JudgeResult:
        return JudgeResult.fold(results, len(submission.cases), time.monotonic() - started, _message(results))

    @staticmethod
    def _case_result(submission: Submission, case: Case, outcome: RunOutcome) -> CaseResult:
        check = classify(outcome, languages.get(submission.language), case, submission.checker)
        return case_result(_with_file_hint(check, case, outcome), outcome, case.limits or submission.limits)


def _in_group(group: Group, start: Any, submission: Submission) -> Any:
    with grouped(group):
        return start(submission)


def _refuse_programs(interactor: Any, cases: tuple[Case, ...]) -> None:
    """An interactive problem runs stdin/stdout cases (its interactor's inputs, and the answers its checker
    compares the interactor's output file with): cases of another kind are refused before anything runs."""
    if interactor is None:
        return
    if any(case.kind != "stdio" for case in cases):
        raise InvalidCases("an interactive problem's cases are inputs for its interactor (stdio cases)")
    if any(case.io == "file" for case in cases):
        raise InvalidCases("an interactive problem talks on stdin and stdout: it has no input_mode \"file\"")


def _settle_checked(result: Future[CaseResult], case: Case, outcome: RunOutcome, limits: Limits,
                    checked: Future[CheckResult]) -> None:
    """A case checked by the problem's own program: its result once that program has spoken."""
    if checked.cancelled() or result.cancelled():
        result.cancel()
        return
    try:
        result.set_result(case_result(_with_file_hint(checked.result(), case, outcome), outcome, limits))
    except BaseException as exc:
        if not result.done():
            result.set_exception(exc)


def _with_file_hint(check: CheckResult, case: Case, outcome: RunOutcome) -> CheckResult:
    """A file-mode case judged wrong on no output says where the output was looked for: a program that
    printed its answer, or wrote no output.txt, reads "expected 1 tokens, got 0" otherwise."""
    if case.io != "file" or check.verdict is not Verdict.WA or outcome.stdout_length:
        return check
    return dataclasses.replace(check, message=f"{check.message} (output.txt is missing or empty; in file mode "
                                              "stdout is not judged)".lstrip())


def case_result(check: CheckResult, outcome: RunOutcome, limits: Limits) -> CaseResult:
    """What a caller gets back of a run: its verdict and figures, and its output up to the returned bound
    (the rest, up to the output cap, was read only to be checked)."""
    keep = limits.returned_output_bytes
    return CaseResult(
        verdict=check.verdict, cpu_time=outcome.cpu_time, wall_time=outcome.wall_time,
        memory_bytes=outcome.memory_bytes, exit_code=outcome.exit_code, signal=outcome.signal,
        stdout_raw=outcome.stdout[:keep], stderr_raw=outcome.stderr[:keep], stdout_length=outcome.stdout_length,
        stderr_length=outcome.stderr_length, message=check.message, points=check.points)


def _cancel(runs: list[weakref.ref[Future[RunOutcome]]]) -> None:
    for ref in runs:
        run = ref()
        if run is not None:
            run.cancel()


def _message(results: list[CaseResult]) -> str:
    for result in results:
        if result.verdict in (Verdict.CE, Verdict.SE):
            return result.message
    return ""


# -- the process-wide default judge used by judgebox.judge() ------------------------------------------

_default: Judge | None = None
# The process that made _default: a forked child (verl's prime pool, say) inherits a judge whose threads did
# not come with it (it would wait forever), so it makes its own, and never closes its parent's slots.
_default_pid = 0
_default_lock = threading.Lock()


def default_judge() -> Judge:
    """The process-wide judge: one slot per core, or ``$JUDGEBOX_SLOTS`` (several processes on one machine
    each judging embedded, such as verl's reward workers, can share the cores out this way; or share one
    ``judgebox serve``)."""
    global _default, _default_pid
    with _default_lock:
        if _default is None or _default_pid != os.getpid():
            _default, _default_pid = Judge(slots=slots_from_environment()), os.getpid()
            import atexit

            atexit.register(_close_in, _default_pid, _default)
        return _default


def _close_in(pid: int, judge: Judge) -> None:
    if os.getpid() == pid:
        judge.close()


def slots_from_environment() -> int | None:
    """``$JUDGEBOX_SLOTS``, the process-wide judge's number of slots (None when unset: one per core)."""
    text = os.environ.get("JUDGEBOX_SLOTS", "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise InvalidInput(f"JUDGEBOX_SLOTS must be a positive whole number, got {text!r}")
    return int(text)


def _dedupe_from_environment() -> bool:
    """``$JUDGEBOX_DEDUPE=0``: a judge made with ``dedupe=True`` (the default) judges every submission."""
    text = os.environ.get("JUDGEBOX_DEDUPE", "").strip()
    if text not in ("", "0", "1"):
        raise InvalidInput(f"JUDGEBOX_DEDUPE must be 0 or 1, got {text!r}")
    return text != "0"


def judge(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
          checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
    """Judge ``code`` on ``cases`` with the process-wide default :class:`Judge`."""
    return default_judge().judge(code, cases, language, limits, checker, stop_on_first_failure)


async def judge_async(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                      checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
    """The awaitable twin of :func:`judge`."""
    return await default_judge().judge_async(code, cases, language, limits, checker, stop_on_first_failure)

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
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any, TypeVar

from . import checkers, languages
from .backends.build_threads import BuildThreads
from .backends.interface import JudgesCode
from .backends.local import Group, Tenant, WorkerPool, current_group, grouped
from .callers import current_caller
from .cases import load_problem
from .checkers import CheckResult
from .classify import classify
from .dedupe import ResultCache, Unkeyable, submission_key
from .errors import InvalidCases, InvalidInput, UnknownChecker
from .languages.artifacts import descriptor_share
from .problem_programs import Check, ProblemPrograms
from .programs import Programs
from .sandbox.config import SandboxConfig
from .sandbox.outcome import RunOutcome
from .types import Case, CaseResult, JudgeResult, Limits, Submission
from .verdicts import Verdict

T = TypeVar("T")
# Threads a judge keeps for work that may wait on a compiler (each holds one while its build, or a build it
# waits for, runs: bounded by the build limits). Far more than the slots can compile at once, and a tenant
# holds at most two per slot, so the pool's fairness, not this bound, decides whose build runs first.
BUILD_THREADS = 64


class Judge(JudgesCode):
    """Owns a pool of sandbox slots; safe to call from many threads at once.

    ``Judge()`` starts one slot per core and raises :class:`judgebox.IsolationUnavailable` if this
    machine cannot give the required isolation. Use it as a context manager, or call :meth:`close`.

    ``dedupe``: identical submissions are judged once (:mod:`judgebox.dedupe`): True (the default) gives
    the judge a :class:`ResultCache` of its own, unless ``$JUDGEBOX_DEDUPE=0`` (an operator's switch: a
    ``judgebox serve``, a benchmark that must run every submission); a ResultCache is used as given (its
    keys include this judge's ``config``); None or False judges every submission. ``judge.dedupe`` is the
    cache in use (reassign it to start afresh).
    """

    def __new__(cls, *args: Any, backend: str = "local", address: str | None = None, **options: Any) -> Any:
        """``backend="local"`` (default): this machine's slots. ``backend="server"``: a
        :class:`judgebox.backends.server.ServerJudge` on the ``judgebox serve`` endpoints at ``address`` (a URL,
        several comma-joined, or a list), with the same methods; ``options`` are its own (``token``,
        ``concurrency``). ``backend="ray"``: a :class:`judgebox.backends.ray.RayJudge` over the Ray cluster
        at ``address`` (None: the current one), with the same methods; ``options`` are its own (``slots``
        per node, ``attempts``)."""
        if backend == "ray":
            from .backends.ray import RayJudge

            return RayJudge(address, *args, **options)
        if backend == "server":
            from .backends.server import ServerJudge

            if address is None:
                raise InvalidInput("backend='server' needs address=: the judgebox serve URL (or several)")
            return ServerJudge(address, *args, **options)
        if backend != "local":
            raise InvalidInput(f"backend must be 'local', 'server' or 'ray', got {backend!r}")
        if address is not None:
            raise InvalidInput("address= is for backend='server' or 'ray'; the local judge runs on this machine")
        return super().__new__(cls)

    def __init__(self, config: SandboxConfig | None = None, slots: int | None = None,
                 dedupe: bool | ResultCache | None = True, *, backend: str = "local", address: None = None) -> None:
        if not isinstance(dedupe, (bool, ResultCache, type(None))):
            raise InvalidInput(f"dedupe must be True, False, None or a judgebox.dedupe.ResultCache, got {dedupe!r}")
        self.config = config or SandboxConfig()
        if dedupe is True:
            dedupe = ResultCache() if _dedupe_from_environment() else None
        self.dedupe: ResultCache | None = dedupe if isinstance(dedupe, ResultCache) else None
        self.pool = WorkerPool(self.config, slots)
        self._builds = BuildThreads(BUILD_THREADS, per_tenant=2 * len(self.pool.slots))
        self.programs = Programs(self.pool, self.config.cache_dir)
        self.problem_programs = ProblemPrograms(self.programs)
        # What besides a submission decides its verdict here: the settings, and testlib.h as read at start
        self._key_scope = submission_key((self.config, self.problem_programs.runner.testlib))

    def judge_submission(self, submission: Submission) -> JudgeResult:
        """Judge a :class:`Submission` (see :meth:`submission`). With dedupe on, a submission identical to
        one judged recently, or being judged now, is not run again: the caller gets that same JudgeResult,
        whose ``wall_time`` is the original judgement's."""
        cache, key = self._cached(submission)
        if cache is None:
            return self._judge_now(submission)
        return cache.run(key, lambda: self._judge_now(submission), current_group(), self._follow)

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        """The awaitable twin of :meth:`judge_submission`."""
        cache, key = self._cached(submission)
        if cache is None:
            return await self._judge_now_async(submission)
        return await cache.run_async(key, lambda: self._judge_now_async(submission), current_group(), self._follow)

    def judge_many(self, submissions: Iterable[Submission]) -> Iterator[tuple[int, JudgeResult]]:
        """Judge every submission at once, yielding ``(index, result)`` as each finishes (not in order).

        They are queued together as one tenant of the pool (as fair to other callers as one submission
        of all their cases; first come, first run among themselves), identical ones judged once. One the
        judge fails on (an invalid record, a closed judge) yields an SE result saying why; the others go on.
        Leaving the loop early cancels what has not run yet. At most a window of them (16 per slot, at least
        ``JUDGE_MANY_WINDOW``, at most a quarter of the process's descriptors: each holds its built program
        open) is in the judge at once, so a GRPO step of 300,000 runs holds the judge's memory of a few
        thousand, while keeping every slot busy."""
        batch = list(submissions)
        if batch:
            window = min(max(JUDGE_MANY_WINDOW, 16 * len(self.pool.slots)), descriptor_share())
            yield from _as_they_finish(self, batch, window)

    async def off_loop(self, work: Callable[[], T]) -> T:
        """``work()``, awaited from the caller's loop while it runs on one of the judge's build threads (work
        that may wait for a compiler: never on an event loop). The threads are the judge's own, not the
        loop's default executor, and fair between tenants (:mod:`judgebox.backends.build_threads`): at most
        ``BUILD_THREADS``, at most two per slot to a tenant at once, each carrying its caller's context (its
        pool group and caller identity)."""
        return await self._builds.run(current_group().tenant, work)

    def stats(self) -> dict[str, Any]:
        """What the judge has done: ``dedupe`` (:meth:`ResultCache.stats`, None when off), the pool's
        ``jobs_started`` (runs of programs, checkers and compilers), the build ``artifact_cache``'s hits."""
        cache = self.programs.cache
        return {"dedupe": self.dedupe.stats() if self.dedupe is not None else None,
                "jobs_started": self.pool.jobs_started,
                "artifact_cache": {"hits": cache.hits, "misses": cache.misses}}

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

    def _follow(self, leader: Group | None) -> Callable[[], None] | None:
        """A caller waiting on another's judgement lends it its standing in the pool while it waits."""
        return self.pool.lend(leader) if leader is not None else None

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
        plan = self.problem_programs.plan(submission)
        return (plan.runs if plan.runs is not None else self.programs.submit(submission)), plan.check

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
            raise InvalidCases("limits must be a judgebox.Limits")
        problem = load_problem(cases)
        checking = checkers.parse(problem.checker, checkers.parse(checker))
        _refuse_programs(checking, problem.interactor, problem.cases)
        submission = Submission(code, problem.cases, spec.name, problem.limits(limits or Limits()), checking,
                                bool(stop_on_first_failure), problem.interactor)
        Programs.check(submission)
        return submission

    def isolation(self) -> dict[str, object]:
        return dict(self.pool.layers)

    def close(self) -> None:
        self.pool.close()
        self._builds.close()

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


JUDGE_MANY_WINDOW = 256  # submissions judge_many keeps in the judge at once, at least


def _as_they_finish(judge: Judge, batch: list[Any], window: int) -> Iterator[tuple[int, JudgeResult]]:
    """:meth:`Judge.judge_many`'s work: ``window`` tasks on an event loop of its own (one thread that waits,
    not one thread per submission) take the submissions in turn, each result handed over as it ends."""
    finished: queue.Queue[tuple[int, JudgeResult] | None] = queue.Queue()
    tenant = Tenant()

    async def one(index: int, submission: Any) -> None:
        try:
            if not isinstance(submission, Submission):
                raise InvalidInput(f"judge_many takes Submission records, got a {type(submission).__name__}")
            with grouped(Group(tenant)):
                result = await judge.judge_submission_async(submission)
        except Exception as exc:  # this one's failure is its SE; the others go on
            result = _failed(submission, exc)
        finished.put((index, result))

    async def every() -> None:
        turns = iter(enumerate(batch))  # shared by the takers: each submission taken once (one loop thread)

        async def taker() -> None:
            for index, submission in turns:
                await one(index, submission)

        await asyncio.gather(*(taker() for _ in range(min(window, len(batch)))))

    loop = asyncio.new_event_loop()
    work = loop.create_task(every())

    def serve() -> None:
        try:
            loop.run_until_complete(work)
        except BaseException:  # cancelled by the consumer leaving, or lost: the consumer accounts for the rest
            pass
        finally:
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
            finished.put(None)

    thread = threading.Thread(target=serve, name="judgebox-judge-many", daemon=True)
    thread.start()
    given: set[int] = set()
    try:
        while (item := finished.get()) is not None:
            given.add(item[0])
            yield item
        for index in sorted(set(range(len(batch))) - given):  # never dropped, whatever went wrong
            yield index, _failed(batch[index], RuntimeError("the judge lost this submission"))
    finally:
        if thread.is_alive():
            try:
                loop.call_soon_threadsafe(work.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass
        thread.join()


def _failed(submission: Any, exc: BaseException) -> JudgeResult:
    """A submission the judge could not judge: SE, with the reason, never a wrong answer."""
    total = len(submission.cases) if isinstance(submission, Submission) else 0
    return JudgeResult(Verdict.SE, (), total, f"{type(exc).__name__}: {exc}")


def _refuse_programs(checking: checkers.Checking, interactor: Any, cases: tuple[Case, ...]) -> None:
    """An interactive problem's verdict is its interactor's, on stdin/stdout cases: a checker program beside
    it, or cases of another kind, are refused before anything runs."""
    if interactor is None:
        return
    if isinstance(checking.output, checkers.CheckerProgram):
        raise UnknownChecker("an interactive problem is judged by its interactor; it takes no checker program")
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
            _default, _default_pid = Judge(slots=_slots_from_environment()), os.getpid()
            import atexit

            atexit.register(_close_in, _default_pid, _default)
        return _default


def _close_in(pid: int, judge: Judge) -> None:
    if os.getpid() == pid:
        judge.close()


def _slots_from_environment() -> int | None:
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

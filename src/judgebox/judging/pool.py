"""The embedded worker pool: one sandbox slot per core, one thread per slot, jobs queued per tenant.

Callers on any thread submit jobs and get ``concurrent.futures.Future`` objects back, so the sync API
blocks on them and the async API awaits them without tying up a thread. No signals are used, so the
pool works from any thread (verl calls reward functions from thread pools).

Fairness: every job belongs to a :class:`Group` (one submission), and every group to a :class:`Tenant`
(whom the pool is fair between: one HTTP request, one ``judge()`` call; the submissions of one
``/judge/batch`` request share one). Jobs wait in a queue per group, and a free slot takes the next job
round-robin across the tenants with queued jobs, skipping a tenant that already runs its share,
``ceil(slots / tenants with queued jobs)``. So one submission's many cases cannot hold every slot while
another waits: a newcomer starts as soon as any slot frees. A slot never idles while a job is queued
(if every tenant with queued jobs ran its share, the shares would fill every slot).

Shared work inherits its waiters' standing. A submission that waits on work another group does (an
identical submission judged once, a build two submissions need: :meth:`WorkerPool.lend`) lends that group
its tenant's turn: while it waits, the holder's queued jobs are taken in the waiter's turn too, and count
against the waiter's share. So one tenant's queue can never hold another tenant's answer: a waiter is
served as if the work were its own, however much else the holder's tenant has queued. The waiter counts as
started (for admission's deadline) once a job of that work runs.

Which group a job joins: the ``group`` argument of :meth:`WorkerPool.submit`; else the group made current
with :func:`grouped` (a context variable, so it follows the caller's asyncio task and threads started
with the context, as ``asyncio.to_thread`` does); else one group per asyncio task, or per thread outside
asyncio. So concurrent ``Judge.judge`` calls from verl's thread pool are fair to one another unchanged.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

from judgebox.errors import JudgeClosed
from judgebox.languages.artifacts import Artifact
from judgebox.sandbox.config import SandboxConfig
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import Job, Slot, SlotFailure
from judgebox.types import Limits


class Tenant:
    """Whom the pool is fair between. Its fields belong to the pool (under its lock)."""

    __slots__ = ("_groups", "_running", "last_start")

    def __init__(self) -> None:
        self._groups: deque[Group] = deque()  # groups with queued jobs it may take: its own, and those lent it
        self._running = 0
        self.last_start: float | None = None  # the time.monotonic() its latest job started at

    @property
    def running(self) -> int:
        """Its jobs on slots now (read without the pool's lock: a moment's figure)."""
        return self._running


class Group:
    """The jobs of one submission, for its caller to follow and to cancel.

    ``started`` is the ``time.monotonic()`` at which its first job (or a job of the work it waits on, see
    :meth:`WorkerPool.lend`) started on a slot (None until then); ``cancelled`` is set by
    :meth:`WorkerPool.cancel`, after which the group's new jobs are cancelled at once.
    """

    __slots__ = ("_borrowers", "_borrowing", "_followers", "_queue", "_running", "cancelled", "started", "tenant")

    def __init__(self, tenant: Tenant | None = None) -> None:
        self.tenant = tenant or Tenant()
        self.started: float | None = None
        self.cancelled = False
        self._queue: deque[tuple] = deque()
        self._running = 0
        self._borrowers: dict[Tenant, int] = {}  # other tenants waiting on this group's work, with their lends
        self._followers: list[Group] = []  # waiting groups that count as started when one of its jobs does
        self._borrowing: list[Group] = []  # the groups whose work it waits on (WorkerPool.lend)

    def _takers(self) -> list[Tenant]:
        return [self.tenant, *self._borrowers]


def _upstream(holder: Group) -> list[Group]:
    """``holder`` and the groups whose work it waits on, and theirs (under the pool's lock)."""
    chain, pending = [], [holder]
    while pending:
        group = pending.pop()
        if group not in chain:
            chain.append(group)
            pending.extend(group._borrowing)
    return chain


def _start_followers(group: Group, now: float) -> None:
    """A job of ``group`` started: those waiting on its work are started, and those waiting on theirs."""
    pending = [group]
    while pending:
        followers, pending[-1]._followers = pending[-1]._followers, []
        pending.pop()
        for follower in followers:
            if follower.started is None:
                follower.started = now
                pending.append(follower)


_current: ContextVar[Group | None] = ContextVar("judgebox_pool_group", default=None)
_per_thread = threading.local()
_per_task: weakref.WeakKeyDictionary[asyncio.Task, Group] = weakref.WeakKeyDictionary()
_per_task_lock = threading.Lock()


@contextmanager
def grouped(group: Group) -> Iterator[Group]:
    """Jobs submitted in this context (without a ``group`` argument) join ``group``."""
    token = _current.set(group)
    try:
        yield group
    finally:
        _current.reset(token)


def current_group() -> Group:
    """The group a job submitted here joins: :func:`grouped`'s, else the asyncio task's, else the thread's."""
    group = _current.get()
    if group is not None:
        return group
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop runs in this thread
        task = None
    if task is not None:
        with _per_task_lock:
            return _per_task.setdefault(task, Group())
    group = getattr(_per_thread, "group", None)
    if group is None:
        group = _per_thread.group = Group()
    return group


class WorkerPool:
    def __init__(self, config: SandboxConfig, slots: int | None = None) -> None:
        count = slots or os.cpu_count() or 1
        with ThreadPoolExecutor(count) as starter:  # zygotes boot in parallel; the first error is raised
            started = [starter.submit(Slot, config, i) for i in range(count)]
        errors = [f.exception() for f in started if f.exception()]
        self.slots = [f.result() for f in started if not f.exception()]
        if errors:
            for slot in self.slots:
                slot.close()
            raise errors[0]  # type: ignore[misc]
        self._cond = threading.Condition()
        self._ready: deque[Tenant] = deque()  # tenants with queued jobs, in round-robin order
        self._closed = False
        self._running = [False] * len(self.slots)  # each written by its own slot's thread only
        self.jobs_started = 0  # jobs taken by a slot since the pool started (under the lock)
        self._threads = [threading.Thread(target=self._work, args=(slot,), name=f"judgebox-slot-{slot.index}",
                                          daemon=True) for slot in self.slots]
        for thread in self._threads:
            thread.start()

    @property
    def layers(self) -> dict[str, object]:
        return self.slots[0].layers

    def submit(self, job: Job, stdin: bytes, limits: Limits, files: dict[str, str | None] | None = None,
               fetch: tuple[str, ...] = (), program: Artifact | None = None,
               group: Group | None = None, first: bool = False) -> Future[RunOutcome]:
        """Queue one job in ``group`` (default: :func:`current_group`); ``files``, ``fetch`` and ``program``
        as in :meth:`Slot.run` (the artifact is kept alive by the queued job until it has run). ``first``
        puts it before the group's other queued jobs: work that finishes a case already run (its checker),
        whose outcome is held until then, goes before the runs of cases not yet started."""
        group = group or current_group()
        future: Future[RunOutcome] = Future()
        with self._cond:
            if self._closed:
                raise JudgeClosed("the judge has been closed")
            if group.cancelled:
                future.cancel()
                return future
            entry = (future, job, stdin, limits, files, fetch, program)
            if first:
                group._queue.appendleft(entry)
            else:
                group._queue.append(entry)
            if len(group._queue) == 1:
                self._offer(group, group._takers())
            self._cond.notify()
        return future

    def cancel(self, group: Group, unless_started: bool = False) -> bool:
        """Cancel the group's queued jobs, and any it submits from now on; jobs already running finish.
        With ``unless_started``, do nothing if one of its jobs has started. True if cancelled."""
        with self._cond:
            if unless_started and group.started is not None:
                return False
            group.cancelled = True
            mine = list(group._queue)
            if mine:
                group._queue.clear()
                self._withhold(group, group._takers())
        for future, *_ in mine:
            future.cancel()
        return True

    def lend(self, holder: Group, borrower: Group | None = None) -> Callable[[], None]:
        """``borrower`` (default: :func:`current_group`) waits for work that ``holder``'s jobs do (one
        judgement shared by identical submissions, one build). Until the returned function is called, the
        borrower's tenant takes the queued jobs of the holder, and of whatever the holder itself waits on, in
        its own turns, so the work runs with the best standing among those waiting for it; the borrower
        counts as started once a job of that work runs."""
        borrower = borrower or current_group()
        tenant = borrower.tenant
        with self._cond:
            chain = _upstream(holder)
            if borrower.started is None:
                if any(group._running for group in chain):
                    borrower.started = time.monotonic()
                else:
                    for group in chain:
                        group._followers.append(borrower)
            lent = [group for group in chain if group.tenant is not tenant]
            for group in lent:
                group._borrowers[tenant] = group._borrowers.get(tenant, 0) + 1
                if group._borrowers[tenant] == 1 and group._queue:
                    self._offer(group, [tenant])
            borrower._borrowing.append(holder)
            self._cond.notify_all()

        def withdraw() -> None:
            with self._cond:
                borrower._borrowing.remove(holder)
                for group in lent:
                    left = group._borrowers.get(tenant, 0) - 1
                    if left > 0:
                        group._borrowers[tenant] = left
                        continue
                    group._borrowers.pop(tenant, None)
                    if group._queue:
                        self._withhold(group, [tenant])
        return withdraw

    @property
    def busy(self) -> int:
        """Slots running a job right now."""
        return sum(self._running)

    def _offer(self, group: Group, tenants: list[Tenant]) -> None:
        """``group`` has queued jobs these tenants may take (under the lock)."""
        for tenant in tenants:
            if not tenant._groups:
                self._ready.append(tenant)
            tenant._groups.append(group)

    def _withhold(self, group: Group, tenants: list[Tenant]) -> None:
        """``group`` has no more queued jobs for these tenants (under the lock)."""
        for tenant in tenants:
            tenant._groups.remove(group)
            if not tenant._groups:
                self._ready.remove(tenant)

    def _next(self) -> tuple[Tenant, Group, tuple] | None:
        """The next job for a free slot (under the lock): round-robin over the tenants with queued jobs,
        skipping those that run their share already. Marks it running."""
        while self._ready:
            share = -(-len(self.slots) // len(self._ready))
            for _ in range(len(self._ready)):
                tenant = self._ready[0]
                self._ready.rotate(-1)  # served or skipped, it goes to the back
                if tenant._running < share:
                    break
            else:
                return None  # not reached by a free slot: the shares of the waiting tenants fill every slot
            group = tenant._groups[0]  # first come, first run within a tenant
            task = group._queue.popleft()
            if not group._queue:
                self._withhold(group, group._takers())
            if task[0].set_running_or_notify_cancel():  # False: the caller cancelled it; take the next
                tenant._running += 1
                group._running += 1
                self.jobs_started += 1
                now = time.monotonic()
                tenant.last_start = now
                if group.started is None:
                    group.started = now
                _start_followers(group, now)
                return tenant, group, task
        return None

    def _work(self, slot: Slot) -> None:
        taken: tuple[Tenant, Group] | None = None
        while True:
            with self._cond:
                if taken is not None:
                    taken[0]._running -= 1
                    taken[1]._running -= 1
                while (picked := self._next()) is None:
                    if self._closed:  # queued jobs are run before the slots close
                        slot.close()
                        return
                    self._cond.wait()
            tenant, group, (future, job, stdin, limits, files, fetch, program) = picked
            taken = tenant, group
            self._running[slot.index] = True
            try:
                outcome = slot.run(job, stdin, limits, files, fetch, program.fd if program else None)
            except SlotFailure as exc:
                outcome = RunOutcome(system_error=str(exc))
            except Exception as exc:
                outcome = RunOutcome(system_error=f"{type(exc).__name__}: {exc}")
            finally:
                self._running[slot.index] = False
            future.set_result(outcome)
            del picked, future, job, stdin, files, program  # not kept alive while the slot waits for work

    def close(self, cancel: bool = False) -> None:
        """Stop the slots once the jobs queued have run; with ``cancel``, now: the queued jobs fail with
        :class:`JudgeClosed` and the running ones are ended where they are (an SE outcome, never a verdict),
        as an interrupted ``judgebox score`` wants rather than waiting for each case's CPU limit."""
        dropped: list[tuple] = []
        with self._cond:
            if self._closed and not cancel:
                return
            self._closed = True
            if cancel:
                queued = list(dict.fromkeys(group for tenant in self._ready for group in tenant._groups))
                for group in queued:
                    group.cancelled = True
                    dropped.extend(group._queue)
                    group._queue.clear()
                    self._withhold(group, group._takers())
            self._cond.notify_all()
        for future, *_ in dropped:
            if future.set_running_or_notify_cancel():
                future.set_exception(JudgeClosed("the judge was closed before this case ran"))
        if cancel:
            for slot in self.slots:  # every slot, busy or not: one may have just taken a job
                slot.abort()
        for thread in self._threads:
            thread.join(timeout=30)

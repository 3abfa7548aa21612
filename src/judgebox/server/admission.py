"""Admission control: a bounded number of requests in flight, none waiting past its deadline or its caller.

Requests are not gated by count: each one's jobs go to the worker pool's queue as a group of their own,
and the pool is fair between them (``judgebox.judging.pool``). What this module adds, per request:

- a bound on the requests in flight (beyond it, :class:`Overloaded` at once); the submissions of one
  ``/judge/batch`` are one request, so one batch cannot fill the bound and shut the other clients out;
- a deadline for the request's first job to start on a slot (the server's ``--max-wait``, or less when
  the caller's budget is less): past it, its queued jobs are cancelled and :class:`Overloaded` raised (the
  server answers 504, which verl and the judgebox client retry). A submission of a ``/judge/batch`` waiting
  behind its own batch's work is served, not shut out: its wait starts again while the batch has work on a
  slot (or started some within the wait);
- the client hanging up: its queued jobs are cancelled (jobs already running finish) and
  :class:`ClientGone` raised.

Time spent waiting is reported (``Group.started`` minus the request's arrival) and never counted against
the program: its limits are enforced by the sandbox from the moment it starts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from judgebox.callers import as_caller, process_caller
from judgebox.judging.pool import Group, Tenant, grouped

T = TypeVar("T")


class Overloaded(Exception):
    pass


class ClientGone(Exception):
    """The client disconnected before its answer was ready; its queued work was cancelled."""


class Admission:
    def __init__(self, cancel: Callable[..., bool], max_requests: int, max_wait: float) -> None:
        """``cancel(group, unless_started=False)`` cancels a group's jobs (:meth:`judgebox.Judge.cancel`)."""
        self._cancel = cancel
        self.max_requests = max_requests
        self.max_wait = max_wait
        self._in_flight: set[Group] = set()
        self._requests: dict[Tenant, int] = {}  # groups in flight per request (a batch is one request)

    @property
    def waiting(self) -> int:
        """Requests in flight none of whose jobs has started yet."""
        return sum(1 for group in self._in_flight if group.started is None)

    async def run(self, work: Callable[[], Awaitable[T]], max_wait: float | None = None,
                  gone: Callable[[], Awaitable[object]] | None = None,
                  tenant: Tenant | None = None, caller: str | None = None) -> tuple[T, Group]:
        """Await ``work()``, whose jobs join a new group (of ``tenant``, or of a tenant of its own), and
        return its result with the group. Its first job must start within ``max_wait`` seconds (never more
        than the server's own bound), else :class:`Overloaded`; when ``gone()`` returns (the client hung
        up), :class:`ClientGone`. Either way, and when the caller is cancelled, the queued jobs are cancelled.
        ``caller`` is whose work it is (:mod:`judgebox.callers`: the caches it may use); default this process."""
        if tenant not in self._requests and len(self._requests) >= self.max_requests:
            raise Overloaded(f"too many requests in flight ({self.max_requests}); retry later")
        wait = self.max_wait if max_wait is None else max(0.0, min(max_wait, self.max_wait))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        group = Group(tenant)
        with grouped(group), as_caller(caller or process_caller()):  # the task copies the context: its jobs
            task = asyncio.ensure_future(work())                       # join the group, as the caller's work
        watcher = asyncio.ensure_future(gone()) if gone is not None else None
        self._in_flight.add(group)
        self._requests[group.tenant] = self._requests.get(group.tenant, 0) + 1
        try:
            while True:
                timeout = None if group.started is not None else max(0.0, deadline - loop.time())
                done, _ = await asyncio.wait([task] if watcher is None else [task, watcher], timeout=timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
                if task in done:
                    return task.result(), group
                if watcher is not None and watcher in done:
                    if watcher.exception() is None:
                        raise ClientGone("the client disconnected")
                    watcher = None  # the receive channel failed: stop watching, keep judging
                elif _progressing(group.tenant, time.monotonic() - wait):
                    # the request's other work holds slots (a batch's earlier submissions): it is being served,
                    # not shut out, so its wait starts again
                    deadline = loop.time() + wait
                elif self._cancel(group, unless_started=True):
                    raise Overloaded(f"no sandbox slot became free within {wait:g} s; retry later")
        finally:
            self._in_flight.discard(group)
            self._requests[group.tenant] -= 1
            if not self._requests[group.tenant]:
                del self._requests[group.tenant]
            if not task.done():
                self._cancel(group)
                task.cancel()
            if watcher is not None:
                watcher.cancel()


def _progressing(tenant: Tenant, since: float) -> bool:
    """Whether the request ``tenant`` stands for has work on a slot, or started some after ``since`` (on the
    pool's clock, time.monotonic())."""
    return tenant.running > 0 or (tenant.last_start is not None and tenant.last_start > since)

"""The embedded judge's threads for work that may wait on a compiler: bounded, and fair between tenants.

Building a submission (its program, a checker, an assert harness's two sides) blocks a thread while the
compiler runs in a sandbox slot, so it cannot run on an event loop. A plain thread pool in front of the
fair worker pool would undo the fairness: one tenant's batch of 200 distinct programs would take every
thread, and another tenant's one compiled submission would wait in the threads' queue (first come, first
served) before its build even reached the worker pool. So each tenant holds at most ``per_tenant`` threads
at once (enough to keep the slots compiling for it); its further builds wait, without holding a thread,
until one of its own ends. Threads are held until the work ends, even if its caller went away.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from judgebox.judging.pool import Tenant

T = TypeVar("T")


class BuildThreads:
    def __init__(self, threads: int, per_tenant: int) -> None:
        self.per_tenant = max(1, min(per_tenant, threads))
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="judgebox-build")
        self._lock = threading.Lock()
        self._held: dict[Tenant, int] = {}
        self._waiting: dict[Tenant, deque[_Ticket]] = {}

    async def run(self, tenant: Tenant, work: Callable[[], T]) -> T:
        """``work()`` on a build thread, in the caller's context, once ``tenant`` holds fewer than its share."""
        await self._turn(tenant)
        try:
            future = self._executor.submit(contextvars.copy_context().run, work)
        except BaseException:
            self._release(tenant)
            raise
        future.add_done_callback(lambda _: self._release(tenant))
        return await asyncio.wrap_future(future)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"held": sum(self._held.values()), "waiting": sum(len(q) for q in self._waiting.values())}

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _turn(self, tenant: Tenant) -> None:
        with self._lock:
            if self._held.get(tenant, 0) < self.per_tenant:
                self._held[tenant] = self._held.get(tenant, 0) + 1
                return
            ticket = _Ticket(asyncio.get_running_loop())
            self._waiting.setdefault(tenant, deque()).append(ticket)
        try:
            await ticket.turn  # the thread count is handed over with it
        except asyncio.CancelledError:
            with self._lock:
                handed, ticket.gone = ticket.handed, True
                if not handed:
                    self._waiting[tenant].remove(ticket)
                    if not self._waiting[tenant]:
                        del self._waiting[tenant]
            if handed:  # handed over as its caller went away: pass it on
                self._release(tenant)
            raise

    def _release(self, tenant: Tenant) -> None:
        with self._lock:
            queue = self._waiting.get(tenant)
            while queue:
                ticket = queue.popleft()
                if not queue:
                    del self._waiting[tenant]
                if ticket.hand_over():
                    return  # the held count passes to the waiter as it is
                queue = self._waiting.get(tenant)
            held = self._held[tenant] - 1
            if held:
                self._held[tenant] = held
            else:
                del self._held[tenant]


class _Ticket:
    """A waiter for a build thread, on its own event loop (under the BuildThreads' lock)."""

    __slots__ = ("gone", "handed", "loop", "turn")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop, self.turn = loop, loop.create_future()
        self.handed = self.gone = False

    def hand_over(self) -> bool:
        """Wake the waiter; False when it is gone (cancelled, or its loop closed)."""
        if self.gone:
            return False
        try:
            self.loop.call_soon_threadsafe(self._wake)
        except RuntimeError:  # its loop closed
            return False
        self.handed = True
        return True

    def _wake(self) -> None:
        if not self.turn.done():
            self.turn.set_result(None)

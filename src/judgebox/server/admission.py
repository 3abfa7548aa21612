"""Admission control: a bounded number of requests run at once, a bounded number wait, none forever.

A request that cannot start before its deadline gets an :class:`Overloaded` (the server answers 504,
which verl and the judgebox client retry). Time spent waiting is reported and never counted against
the program: its limits are enforced by the sandbox from the moment it starts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Overloaded(Exception):
    pass


class Admission:
    def __init__(self, max_active: int, max_waiting: int, max_wait: float) -> None:
        self._active = asyncio.Semaphore(max_active)
        self.max_waiting = max_waiting
        self.max_wait = max_wait
        self.waiting = 0

    @asynccontextmanager
    async def admit(self, max_wait: float | None = None) -> AsyncIterator[float]:
        """Wait for a place, at most ``max_wait`` seconds (never more than the server's own bound);
        yields the seconds waited."""
        started = time.monotonic()
        if self._active.locked():  # the common, uncontended case costs no timer
            if self.waiting >= self.max_waiting:
                raise Overloaded(f"the queue is full ({self.max_waiting} requests waiting); retry later")
            wait = self.max_wait if max_wait is None else max(0.0, min(max_wait, self.max_wait))
            self.waiting += 1
            try:
                await asyncio.wait_for(self._active.acquire(), wait)
            except asyncio.TimeoutError:
                raise Overloaded(f"no sandbox slot became free within {wait:g} s; retry later") from None
            finally:
                self.waiting -= 1
        else:
            await self._active.acquire()
        try:
            yield time.monotonic() - started
        finally:
            self._active.release()

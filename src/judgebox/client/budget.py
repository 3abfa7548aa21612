"""The process-wide budget of requests in flight to one pool of endpoints, fair to every waiter.

At most ``limit`` requests go at once (``concurrency=``, else ``$JUDGEBOX_CLIENT_CONCURRENCY``, else no
limit), granted in the order they were asked for, to threads and asyncio tasks alike: a caller's burst
cannot overtake an earlier waiter, and a grant whose waiter gave up passes to the next.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judgebox.errors import InvalidInput

CONCURRENCY_ENV = "JUDGEBOX_CLIENT_CONCURRENCY"


@dataclass(eq=False)
class _Waiter:
    wake: Callable[[], None]
    granted: bool = False


class Budget:
    """At most ``limit`` requests in flight (None: no limit), granted in the order they were asked for, to
    threads (:meth:`acquire`) and asyncio tasks (:meth:`acquire_async`) alike."""

    def __init__(self, limit: int | None) -> None:
        self.limit, self.in_flight, self.peak = limit, 0, 0
        self._waiters: deque[_Waiter] = deque()
        self._lock = threading.Lock()

    def acquire(self, timeout: float) -> bool:
        """True once a request may go; False when ``timeout`` seconds passed first."""
        if self._take():
            return True
        event = threading.Event()
        waiter = self._take_or_queue(event.set)
        if waiter is None:
            return True
        event.wait(max(0.0, timeout))
        return self._settle(waiter)

    async def acquire_async(self, timeout: float) -> bool:
        if self._take():
            return True
        loop = asyncio.get_running_loop()
        granted = loop.create_future()

        def grant() -> None:
            if not granted.done():
                granted.set_result(None)

        def wake() -> None:
            loop.call_soon_threadsafe(grant)

        waiter = self._take_or_queue(wake)
        if waiter is None:
            return True
        try:
            await asyncio.wait([granted], timeout=max(0.0, timeout))
        except BaseException:  # cancelled: a grant that came meanwhile goes to the next waiter
            if self._settle(waiter):
                self.release()
            raise
        return self._settle(waiter)

    def release(self) -> None:
        while True:
            with self._lock:
                if not self._waiters:
                    self.in_flight -= 1
                    return
                waiter = self._waiters.popleft()
                waiter.granted = True  # handed over: in_flight stays
            try:
                waiter.wake()
                return
            except RuntimeError:  # its event loop is closed: nobody will use the grant, pass it on
                continue

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"limit": self.limit, "in_flight": self.in_flight, "waiting": len(self._waiters),
                    "peak": self.peak}

    def _take(self) -> bool:
        """Take a grant if one is free and nobody waits (the common case: no waiter to make)."""
        with self._lock:
            return self._granted()

    def _take_or_queue(self, wake: Callable[[], None]) -> _Waiter | None:
        with self._lock:
            if self._granted():
                return None
            waiter = _Waiter(wake)
            self._waiters.append(waiter)
            return waiter

    def _granted(self) -> bool:
        """Under the lock."""
        if self.limit is not None and (self.in_flight >= self.limit or self._waiters):
            return False
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        return True

    def _settle(self, waiter: _Waiter) -> bool:
        with self._lock:
            if not waiter.granted:
                self._waiters.remove(waiter)
            return waiter.granted


def concurrency_setting(concurrency: int | None) -> int | None:
    """The budget a pool gets: ``concurrency``, else ``$JUDGEBOX_CLIENT_CONCURRENCY``, else None (no limit)."""
    if concurrency is None:
        value = os.environ.get(CONCURRENCY_ENV, "").strip()
        if not value:
            return None
        try:
            concurrency = int(value)
        except ValueError:
            raise InvalidInput(f"${CONCURRENCY_ENV} must be a whole number, got {value!r}") from None
    if type(concurrency) is not int or concurrency < 1:
        raise InvalidInput(f"the client's concurrency must be a whole number of at least 1, got {concurrency!r}")
    return concurrency

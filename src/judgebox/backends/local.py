"""The embedded worker pool: one sandbox slot per core, one thread per slot, one shared queue.

Callers on any thread submit jobs and get ``concurrent.futures.Future`` objects back, so the sync API
blocks on them and the async API awaits them without tying up a thread. No signals are used, so the
pool works from any thread (verl calls reward functions from thread pools).
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from ..languages.artifacts import Artifact
from ..sandbox.config import SandboxConfig
from ..sandbox.outcome import RunOutcome
from ..sandbox.slot import Command, PythonProgram, Slot, SlotFailure
from ..types import Limits

Job = Command | PythonProgram
_STOP = object()


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
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._running = [False] * len(self.slots)  # each written by its own slot's thread only
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, args=(slot,), name=f"judgebox-slot-{slot.index}",
                                          daemon=True) for slot in self.slots]
        for thread in self._threads:
            thread.start()

    @property
    def layers(self) -> dict[str, object]:
        return self.slots[0].layers

    def submit(self, job: Job, stdin: bytes, limits: Limits, files: dict[str, str | None] | None = None,
               fetch: tuple[str, ...] = (), program: Artifact | None = None) -> Future[RunOutcome]:
        """Queue one job; ``files``, ``fetch`` and ``program`` as in :meth:`Slot.run` (the artifact is
        kept alive by the queued job until it has run)."""
        future: Future[RunOutcome] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the judge has been closed")
            self._queue.put((future, job, stdin, limits, files, fetch, program))
        return future

    @property
    def busy(self) -> int:
        """Slots running a job right now."""
        return sum(self._running)

    def _work(self, slot: Slot) -> None:
        while True:
            task = self._queue.get()
            if task is _STOP:
                slot.close()
                return
            future, job, stdin, limits, files, fetch, program = task  # type: ignore[misc]
            if not future.set_running_or_notify_cancel():
                continue
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

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for _ in self._threads:
                self._queue.put(_STOP)
        for thread in self._threads:
            thread.join(timeout=30)

"""Built programs, content-addressed: identical programs (common within a GRPO group) build once.

An artifact lives in a sealed memfd that every run of it receives as fd 5, so running a case copies
nothing. A failed build (a compile error) is cached too: the same broken program fails once. Entries
are evicted least-recently-used past a byte budget; an evicted memfd stays open until the last run
holding it is done (its ``Artifact`` object is gone). The cache holds at most a quarter of the process's
descriptors' worth of entries (:func:`descriptor_share`).

What is shared, and with whom (:mod:`judgebox.callers`): a build serves only the caller that made it, so
one caller learns nothing of another's programs or checkers from a hit, and never waits on a build queued
behind another caller's work. Within one caller, a build in progress is shared: whoever asks for it
meanwhile waits for it, and lends the build its own standing in the worker pool (``lend``), so a build
queued behind its owner's other work runs as soon as a waiter's fair share allows. The wait is bounded by
the build's own limits.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import resource
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judgebox.callers import current_caller

SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


class Artifact:
    """A built program in a sealed (read-only for everyone) memfd."""

    def __init__(self, data: bytes, name: str = "program") -> None:
        fd = os.memfd_create(f"judgebox-{name}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
        self.fd = fd
        self.size = len(data)

    def __del__(self) -> None:
        os.close(self.fd)


@dataclass(frozen=True)
class Build:
    """What building a program gave: an artifact, the compiler's complaint, or the machine's failure
    (``system_error``, never cached)."""

    artifact: Artifact | None = None
    compile_error: str | None = None
    compile_timed_out: bool = False
    system_error: str | None = None
    compile_time: float = 0.0  # CPU seconds; 0 for a cache hit


def descriptor_share() -> int:
    """How many artifacts the judge may hold open at once in one place (the cache, the batch in flight): a
    quarter of this process's descriptors (256 of the usual 1024), so holding them never leaves the slots'
    pipes and the server's sockets without one."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 4096 if soft == resource.RLIM_INFINITY else max(16, soft // 4)


class ArtifactCache:
    """Builds by content and caller. ``holder()`` names who is building (the worker pool's current group);
    ``lend(holder)`` is called in a waiter before it waits on that build, and what it returns is called
    once the wait is over (:meth:`judgebox.judging.pool.WorkerPool.lend`); both default to nothing."""

    def __init__(self, max_bytes: int = 1 << 30, holder: Callable[[], Any] | None = None,
                 lend: Callable[[Any], Callable[[], object]] | None = None, max_entries: int | None = None) -> None:
        self.max_bytes = max_bytes
        # Each entry holds a memfd open: bounded by count too, or distinct programs (every request's own
        # caller's, a batch's) run the process out of descriptors and every later build is SE
        self.max_entries = descriptor_share() if max_entries is None else max_entries
        self.hits = 0
        self.misses = 0
        self.shared_in_flight = 0
        self.holder, self.lend = holder, lend
        self._entries: OrderedDict[str, Build] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._building: dict[str, tuple[threading.Event, Any]] = {}

    @staticmethod
    def key(*parts: str) -> str:
        digest = hashlib.sha256()
        for part in parts:
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        return digest.hexdigest()

    def get_or_build(self, key: str, build: Callable[[], Build]) -> Build:
        """The current caller's cached build for ``key``, or ``build()`` run once however many of its threads
        ask at the same time. A build that failed for reasons of the machine is not cached."""
        key = self.key(current_caller(), key)
        while True:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    self.hits += 1
                    cached = self._entries[key]
                    return Build(cached.artifact, cached.compile_error, cached.compile_timed_out)
                building = self._building.get(key)
                if building is None:
                    self._building[key] = (threading.Event(), self.holder() if self.holder else None)
                    self.misses += 1
                    break
                self.shared_in_flight += 1
            done, holder = building
            withdraw = self.lend(holder) if self.lend is not None and holder is not None else None
            try:
                done.wait()
            finally:
                if withdraw is not None:
                    withdraw()
        try:
            result = build()
            if result.system_error is None:
                self._store(key, result)
            return result
        finally:
            with self._lock:
                self._building.pop(key)[0].set()

    def _store(self, key: str, result: Build) -> None:
        size = result.artifact.size if result.artifact else len(result.compile_error or "")
        with self._lock:
            self._entries[key] = result
            self._bytes += size
            while (self._bytes > self.max_bytes or len(self._entries) > self.max_entries) and len(self._entries) > 1:
                _, old = self._entries.popitem(last=False)
                self._bytes -= old.artifact.size if old.artifact else len(old.compile_error or "")

"""A run's real time less the time its tasks waited for a CPU: a wall clock that a busy machine does not run.

SandboxFusion's ``run_timeout`` is wall-clock: a program that sleeps past it has timed out. Counted on a plain
wall clock, a correct program also times out when the machine is busy, since the time it spends runnable but
queued behind other work counts against it. The kernel keeps that waiting per task (the second field of
``/proc/<pid>/task/<tid>/schedstat``, ``run_delay``, in ns), so the zygote counts, interval by interval, the
real time that passed less the time the run's tasks waited in that interval (at most the interval, so the clock
never runs backwards).

What the zygote reads: in the run's pid namespace it is pid 1 and every other process there belongs to the
run, so the run is every numeric entry of its own /proc but itself (it mounted that /proc, with
``hidepid=invisible``). Without a pid namespace (trusted mode) only the run's own process is counted. The
program can only lose by what it does to these files: a task it hides (made non-dumpable, it disappears
from the zygote's /proc view), or one that ends between two readings, takes its waiting with it, so less is
forgiven; one that hid and reappears is forgiven only what it waited since it was last seen; a value that
cannot be read counts as no waiting.

What a task is forgiven is bounded twice. By its CPU: at most WAIT_PER_CPU times the CPU time it had in
the same span, so all the clock ever forgives a run is paid for with its CPU limit. A task that wakes for a
moment, over and over, on a busy machine waits far longer than it runs; without this bound a program of
such tasks beside a sleeping main process stopped its clock for almost no CPU whenever the machine was
busy (a fresh server's start-up self-tests were enough), and a task that was hidden for a while brought
back all the waiting of that while at once. And of the run's tasks only the one forgiven most counts in an
interval (up to its length), not their sum: tasks queued at the same time are one stall of the run, not
several.
"""

from __future__ import annotations

import os

# Tasks remembered per run (a run that forks this many distinct tasks to make the clock forget a hidden one
# pays for the forks in CPU time, and is forgiven that one task's waiting once more)
REMEMBERED = 65536


# A task's waiting is forgiven up to this many times the CPU time it had meanwhile: a CPU-bound task on a
# machine with nine runnable tasks per core waits eight times as long as it runs
WAIT_PER_CPU = 8


class RunClock:
    def __init__(self, pid: int, started: float, whole_namespace: bool) -> None:
        self.pid = pid
        self.whole_namespace = whole_namespace
        self.own = os.getpid()
        self.elapsed = 0.0  # the run's time so far, waiting excluded
        self.last = started
        # The run's process ran and waited before the run began too (it was forked in advance): not the run's.
        # It is one task then (its pid is its tid), so one file is read: the clock costs a short run no more.
        times = _times(f"/proc/{pid}/schedstat")
        self.seen = {pid: times} if times is not None else {}  # tid: (CPU, waiting) when last seen, in ns

    def advance(self, now: float) -> float:
        """The run's time up to ``now``."""
        current = self._read()
        forgiven = 0
        for tid, (ran, waited) in current.items():
            ran_before, waited_before = self.seen.get(tid, (0, 0))
            if ran < ran_before or waited < waited_before:  # smaller values: a new task with an old tid
                ran_before, waited_before = 0, 0
            forgiven = max(forgiven, min(waited - waited_before, WAIT_PER_CPU * (ran - ran_before)))
        interval = max(0.0, now - self.last)
        self.elapsed += interval - min(interval, forgiven / 1e9)
        # A task missing from this reading (it hid, or ended) is remembered: one that reappears is forgiven only
        # what it waited since it was last seen, never its whole waiting again.
        self.seen.update(current)
        if len(self.seen) > REMEMBERED:  # bounded: the oldest of those not seen now are forgotten
            for tid in [tid for tid in self.seen if tid not in current][: len(self.seen) - REMEMBERED]:
                del self.seen[tid]
        self.last = now
        return self.elapsed

    def _pids(self) -> list[str]:
        if not self.whole_namespace:
            return [str(self.pid)]
        try:
            return [name for name in os.listdir("/proc") if name.isdigit() and int(name) != self.own]
        except OSError:
            return [str(self.pid)]

    def _read(self) -> dict[int, tuple[int, int]]:
        current: dict[int, tuple[int, int]] = {}
        for pid in self._pids():
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:  # it ended, or hid itself
                continue
            for tid in tids:
                times = _times(f"/proc/{pid}/task/{tid}/schedstat")
                if times is not None:
                    current[int(tid)] = times
        return current


def _times(path: str) -> tuple[int, int] | None:
    """A task's CPU time and time waiting on a run queue so far (ns), or None if they cannot be read (it
    ended, or hid)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            ran, waited = os.read(fd, 128).split()[:2]
            return int(ran), int(waited)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None

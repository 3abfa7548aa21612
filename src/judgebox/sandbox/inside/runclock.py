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
cannot be read counts as no waiting. Several tasks waiting at once are forgiven
their sum up to the interval's length: a program that keeps many threads queued to stop its clock still
meets its CPU limit and the wall-clock backstop.
"""

from __future__ import annotations

import os

# Tasks remembered per run (a run that forks this many distinct tasks to make the clock forget a hidden one
# pays for the forks in CPU time, and is forgiven that one task's waiting once more)
REMEMBERED = 65536


class RunClock:
    def __init__(self, pid: int, started: float, whole_namespace: bool) -> None:
        self.pid = pid
        self.whole_namespace = whole_namespace
        self.own = os.getpid()
        self.elapsed = 0.0  # the run's time so far, waiting excluded
        self.last = started
        # The run's process waited before the run began too (it was forked in advance): not the run's. It is
        # one task then (its pid is its tid), so one file is read: the clock costs a short run no more.
        delay = _delay(f"/proc/{pid}/schedstat")
        self.delays = {pid: delay} if delay is not None else {}

    def advance(self, now: float) -> float:
        """The run's time up to ``now``."""
        delays = self._read()
        waited = 0
        for tid, delay in delays.items():
            before = self.delays.get(tid, 0)
            waited += delay - before if delay >= before else delay  # a smaller value: a new task with an old tid
        interval = max(0.0, now - self.last)
        self.elapsed += interval - min(interval, waited / 1e9)
        # A task missing from this reading (it hid, or ended) is remembered: one that reappears is forgiven only
        # what it waited since it was last seen, never its whole waiting again.
        self.delays.update(delays)
        if len(self.delays) > REMEMBERED:  # bounded: the oldest of those not seen now are forgotten
            for tid in [tid for tid in self.delays if tid not in delays][: len(self.delays) - REMEMBERED]:
                del self.delays[tid]
        self.last = now
        return self.elapsed

    def _pids(self) -> list[str]:
        if not self.whole_namespace:
            return [str(self.pid)]
        try:
            return [name for name in os.listdir("/proc") if name.isdigit() and int(name) != self.own]
        except OSError:
            return [str(self.pid)]

    def _read(self) -> dict[int, int]:
        delays: dict[int, int] = {}
        for pid in self._pids():
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:  # it ended, or hid itself
                continue
            for tid in tids:
                delay = _delay(f"/proc/{pid}/task/{tid}/schedstat")
                if delay is not None:
                    delays[int(tid)] = delay
        return delays


def _delay(path: str) -> int | None:
    """A task's time waiting on a run queue so far (ns), or None if it cannot be read (it ended, or hid)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            return int(os.read(fd, 128).split()[1])
        finally:
            os.close(fd)
    except (OSError, IndexError, ValueError):
        return None

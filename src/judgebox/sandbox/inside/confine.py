"""Isolation in two halves: what the zygote does to itself once, and what each forked run adds.

``lock_down`` (once, at the end of the zygote's boot): drop to the slot's uid (or, in a user namespace,
drop every capability), set no_new_privs, load the seccomp program. Every run is a fork of the zygote
and inherits all of it for free; as pid 1 of the namespace the zygote cannot be signalled by its runs,
and being non-dumpable it cannot be read or traced by them.

``prepare_run`` (in each forked run, first): OOM priority, work folder, and the Landlock domain prepared by
the zygote (the run still has to write its own ``/proc/self/oom_score_adj`` first, which Landlock would
refuse, so the zygote cannot enter the domain itself).
``plan_run`` (in the zygote, before the fork) and ``enter_planned`` (in the run): the run's stdio and result
fds, its rlimits.
"""

from __future__ import annotations

import fcntl
import os
import resource
import signal
from typing import NamedTuple

from . import kernel, landlock
from .protocol import JUDGE_ONLY, Fd, FdName, RunLimits


class Confinement:
    def __init__(self, config: dict, ruleset_fd: int | None, seccomp: kernel.SeccompProgram | None) -> None:
        self.mode: str = config["mode"]
        self.zygote_pid = os.getpid()  # made in the zygote: the parent of every run
        self.uid: int = config["uid"]
        self.gid: int = config["gid"]
        self.workdir: str = config["workdir"]
        self.has_memory_cgroup = "memory" in config.get("cgroups", {})
        self.has_pids_cgroup = "pids" in config.get("cgroups", {})
        self.ruleset_fd = ruleset_fd
        self.seccomp = seccomp

    def lock_down(self) -> None:
        if self.mode == "none":
            return
        if self.mode == "root":
            os.setgroups([])
            os.setresgid(self.gid, self.gid, self.gid)
            os.setresuid(self.uid, self.uid, self.uid)
        else:
            kernel.drop_capabilities()
        kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
        if self.seccomp is not None:
            self.seccomp.load()
        kernel.prctl(kernel.PR_SET_DUMPABLE, 0)  # changing uid resets it; runs must not read or trace us

    def prepare_run(self) -> None:
        """The part of a run's confinement that does not depend on its request."""
        if self.mode == "none":
            os.setsid()  # its own process group, which is what the zygote kills when the run ends
            # No pid namespace ends the run with the zygote: a judge closed with cancel kills the zygote's
            # group, which no longer holds the run, so the run dies with its parent instead (checked once
            # asked: a zygote killed before then has left it to the reaper already)
            kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != self.zygote_pid:
                os._exit(1)
        else:
            # The zygote is not dumpable, so neither is a fork of it, which leaves the run's own /proc
            # files to root; the run is its own process again (ptrace stays denied by seccomp).
            kernel.prctl(kernel.PR_SET_DUMPABLE, 1)
            fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            os.write(fd, b"1000")  # in the slot's cgroup, the run dies first
            os.close(fd)
        os.chdir(self.workdir)
        if self.ruleset_fd is not None:
            landlock.restrict_self(self.ruleset_fd)
            os.close(self.ruleset_fd)
            self.ruleset_fd = None

    def enter_run(self, limits: RunLimits, named: dict[FdName, int], control_fd: int) -> None:
        """The rest, once the request is known: its fds (by name, as the judge sent them) and its limits."""
        self.enter_planned(self.plan_run(limits, named, control_fd))

    def plan_run(self, limits: RunLimits, named: dict[FdName, int], control_fd: int) -> RunPlan:
        """What ``enter_planned`` does, worked out in the zygote before the fork: every page the run's
        judge code touches while it shares them with the zygote costs a copy-on-write fault."""
        by_number = {Fd.STDIN: named[FdName.STDIN], Fd.STDOUT: named[FdName.STDOUT],
                     Fd.STDERR: named[FdName.STDERR], Fd.REPORT: named[FdName.RESULT],
                     Fd.TOKEN: named.get(FdName.TOKEN), Fd.PROGRAM: named.get(FdName.PROGRAM),
                     Fd.TESTS: named.get(FdName.TEST), Fd.CONTROL: control_fd,
                     Fd.INPUT_FILE: named.get(FdName.INPUT_FILE), Fd.OUTPUT_FILE: named.get(FdName.OUTPUT_FILE),
                     Fd.ANSWER_FILE: named.get(FdName.ANSWER_FILE)}
        placed = tuple((int(target), fd, target not in JUDGE_ONLY) for target, fd in by_number.items()
                       if fd is not None)
        absent = tuple(target for target in range(max(Fd) + 1) if by_number.get(Fd(target)) is None)
        return RunPlan(placed, absent, _max_fd(), self._rlimits(limits))

    @staticmethod
    def enter_planned(plan: RunPlan) -> None:
        """Put each descriptor at its number, close every other, set the rlimits. Report, token, tests and
        the control channel close on exec: an exec'd program never holds them (only the tests' side of a
        split run is given the first three, by ``zygote._split_exec``)."""
        # Lift every source above the fixed numbers first, so no dup2 overwrites a source still needed.
        lifted = [(target, fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 16), inheritable)
                  for target, fd, inheritable in plan.placed]
        for target, fd, inheritable in lifted:
            os.dup2(fd, target, inheritable=inheritable)
        for target in plan.absent:
            os.closerange(target, target + 1)  # (which, unlike close, says nothing of a number not open)
        os.closerange(max(Fd) + 1, plan.fd_bound)
        for which, value in plan.rlimits:
            resource.setrlimit(which, value)

    def _rlimits(self, limits: RunLimits) -> tuple[tuple[int, tuple[int, int]], ...]:
        cpu = int(limits.cpu_time) + 2  # the supervisor decides TLE; this only stops a runaway process
        # stdout/stderr are files too: let them pass the output cap by one byte, which the judge reads as OLE
        fsize = max(limits.file_size_bytes, limits.output_bytes + 1)
        memory = limits.memory_mb * 1024 * 1024
        rlimits = [(resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_FSIZE, (fsize, fsize)),
                   (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)), (resource.RLIMIT_CORE, (0, 0)),
                   (resource.RLIMIT_STACK, (memory, memory))]
        if not self.has_memory_cgroup:
            # Without a cgroup the address-space limit is all there is; it is generous because it
            # counts reserved (not used) memory, which threaded runtimes reserve a lot of.
            rlimits.append((resource.RLIMIT_AS, (memory * 2 + (256 << 20),) * 2))
        if not self.has_pids_cgroup and self.mode != "none":
            # Counted per uid: the slot uid (root mode) or this user namespace's uid (user mode), whose
            # only other processes are the zygote and its waiting parent.
            nproc = limits.processes + (2 if self.mode == "user" else 0)
            rlimits.append((resource.RLIMIT_NPROC, (nproc, nproc)))
        return tuple(rlimits)


class RunPlan(NamedTuple):
    """A run's descriptors and rlimits, as ``Confinement.enter_planned`` applies them."""

    placed: tuple[tuple[int, int, bool], ...]  # (number in the run, descriptor now, kept across exec)
    absent: tuple[int, ...]  # the fixed numbers this run has nothing at
    fd_bound: int  # every descriptor from max(Fd) + 1 up to this is closed
    rlimits: tuple[tuple[int, tuple[int, int]], ...]


def close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _max_fd() -> int:
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return min(soft, 65536)


def reset_signals_for_exec() -> None:
    """Python ignores SIGPIPE and SIGXFSZ; a program it execs must get the defaults back."""
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)

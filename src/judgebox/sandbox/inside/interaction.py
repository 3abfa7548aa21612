"""An interactive run: the solution and the problem's interactor, joined by two pipes, under one supervisor.

The run's process (judge code, after the run's confinement) becomes the supervisor. It forks

- the solution: stdin from the interactor, stdout to it, stderr the run's stderr; it holds none of the
  judge's descriptors nor the interactor's input (``Fd.INPUT_FILE``, the secret), and it enters a nested
  Landlock domain, so it can neither read (``/proc/PID/fd``, ``/proc/PID/mem``) nor signal the
  interactor or the supervisor, which stay in the enclosing one;
- the interactor: stdin from the solution, stdout to it, stderr the run's *stdout* (its message), its
  input at ``Fd.INPUT_FILE``, its output file (testlib's ``tout``, for the problem's checker) at
  ``Fd.OUTPUT_FILE`` and its program at ``Fd.PROGRAM``; the solution holds neither file. Its writes
  never meet a closed pipe (the supervisor holds a read end), and it ignores SIGPIPE besides: a solution
  that closes its stdin early cannot make it die into looking like a broken interactor.

and waits for both. It detects idleness (no process of the run used CPU or was runnable for
``idle_seconds``: both sides blocked on reads, or one waiting forever) and a solution that carries on
once the interactor has ended, kills what is left, and writes its account to ``Fd.REPORT`` followed by the
run's token: it never runs program code, so only it can. The zygote's CPU and wall limits cover the
whole run (both processes), as one time limit.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import time

from . import confine, kernel, landlock, protocol
from .protocol import Fd, RunRequest

POLL_SECONDS = 0.05
AFTER_INTERACTOR_SECONDS = 1.0  # how long the solution may take to end once the interactor has


def idle_seconds(cpu_time: float) -> float:
    """How long a run may sit with nothing running before it is idle (Codeforces' idleness limit)."""
    return max(1.0, min(cpu_time, 10.0) / 2)


def run(request: RunRequest, control: socket.socket, nest: bool, whole_namespace: bool) -> None:
    """Supervise one interactive run; never returns."""
    to_solution = os.pipe()  # (read, write): the interactor writes, the solution reads
    from_solution = os.pipe()
    protocol.send(control, protocol.STARTED)
    # The interactor first: once the solution runs, it could fill the run's process limit, and a failed
    # fork of the interactor would then read as the judge's failure (SE) of the solution's making.
    interactor = os.fork()
    if interactor == 0:
        _exec_interactor(request, to_solution, from_solution)
    solution = os.fork()
    if solution == 0:
        _exec_solution(request, to_solution, from_solution, nest)
    # The supervisor keeps the solution's read end too, for the whole run: an interactor's write never
    # meets a closed pipe (a Python interactor would die flushing it, exit 120, and read as broken: an SE
    # the solution chose by closing its stdin); it reads the solution's end of file instead.
    os.close(from_solution[0])
    # Its children are exec'd and dumpable again; the supervisor, in the interactor's domain and of its
    # uid, must not be readable or writable by it.
    kernel.prctl(kernel.PR_SET_DUMPABLE, 0)
    # The supervisor keeps both write ends until it has seen the writer end, so a side reads end of file only
    # once its peer's end is recorded: which side ended first is then never a race.
    account = _supervise({solution: from_solution[1], interactor: to_solution[1]}, solution, interactor,
                         idle_seconds(request.limits.cpu_time), whole_namespace)
    token = os.pread(Fd.TOKEN, protocol.TOKEN_BYTES, 0)
    report = json.dumps(account).encode() + token
    view = memoryview(report)
    while view:
        view = view[os.write(Fd.REPORT, view):]
    os._exit(0)


def _exec_solution(request: RunRequest, to_solution: tuple[int, int], from_solution: tuple[int, int],
                   nest: bool) -> None:
    try:
        os.dup2(to_solution[0], Fd.STDIN)
        os.dup2(from_solution[1], Fd.STDOUT)
        for fd in (*to_solution, *from_solution, Fd.REPORT, Fd.TOKEN, Fd.TESTS, Fd.INPUT_FILE, Fd.OUTPUT_FILE,
                   Fd.CONTROL):
            confine.close_quietly(fd)
        if nest:
            landlock.enter_nested_domain()
        confine.reset_signals_for_exec()
        os.execve(*request.exec_args(request.argv))
    finally:
        os._exit(127)  # the interactor reads end of file: the solution did not run


def _exec_interactor(request: RunRequest, to_solution: tuple[int, int], from_solution: tuple[int, int]) -> None:
    try:
        os.dup2(Fd.STDOUT, Fd.STDERR)  # its message lands in the run's stdout
        os.dup2(from_solution[0], Fd.STDIN)
        os.dup2(to_solution[1], Fd.STDOUT)
        os.dup2(Fd.TESTS, Fd.PROGRAM)  # its own program replaces the solution's
        for fd in (*to_solution, *from_solution, Fd.REPORT, Fd.TOKEN, Fd.TESTS, Fd.CONTROL):
            confine.close_quietly(fd)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # kept across exec
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        os.execve(*request.exec_args(request.interactor_argv))
    finally:
        os._exit(127)


def _supervise(write_ends: dict[int, int], solution: int, interactor: int, idle_limit: float,
               whole_namespace: bool) -> dict:
    pidfds = {os.pidfd_open(solution): solution, os.pidfd_open(interactor): interactor}
    poller = select.poll()
    for fd in pidfds:
        poller.register(fd, select.POLLIN)
    statuses: dict[int, tuple[int | None, int | None]] = {}
    idle = cut = solution_first = False
    interactor_ended = None
    activity, active_at = _activity([solution, interactor], whole_namespace), time.monotonic()
    while len(statuses) < 2:
        ended = []
        for fd, _event in poller.poll(POLL_SECONDS * 1000):
            poller.unregister(fd)
            ended.append(pidfds.pop(fd))
            os.close(fd)
            statuses[ended[-1]] = _status(os.waitpid(ended[-1], 0)[1])
            os.close(write_ends[ended[-1]])
        if interactor in ended:
            interactor_ended = time.monotonic()
        if solution in ended:
            # Which side ended first decides whose fault the end is. Both at once (each on its own, as
            # neither could have read the other's end yet): the solution's, unless a broken pipe killed it.
            solution_first = interactor not in statuses or (
                interactor in ended and statuses[solution][1] != signal.SIGPIPE)
        if len(statuses) == 2:
            break
        now = time.monotonic()
        if interactor_ended is not None and now - interactor_ended > AFTER_INTERACTOR_SECONDS:
            cut = True  # the verdict is the interactor's; the solution does not get to run on
            _kill(solution)
            continue
        seen = _activity([pid for pid in (solution, interactor) if pid not in statuses], whole_namespace)
        if seen is None or seen != activity:
            activity, active_at = seen, now
        elif now - active_at >= idle_limit:
            idle = True
            for pid in (solution, interactor):
                _kill(pid)
    return {"solution": statuses[solution], "interactor": statuses[interactor], "idle": idle, "cut": cut,
            "solution_first": solution_first}


def _activity(pids: list[int], whole_namespace: bool) -> tuple[int, bool] | None:
    """The run's CPU ticks so far, or None while any of its processes is running (activity either way):
    in a pid namespace every process but the zygote and this one (a solution's own children count), else
    just ``pids``."""
    if whole_namespace:
        me = os.getpid()
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) not in (1, me)]
    ticks, running = 0, False
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it has just gone
        running = running or fields[0] in (b"R", b"D")
        ticks += sum(int(x) for x in fields[11:15])
    return None if running else (ticks, False)


def _status(status: int) -> tuple[int | None, int | None]:
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass

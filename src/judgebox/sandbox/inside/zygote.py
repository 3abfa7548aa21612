"""The warm worker process of one sandbox slot.

Boot (once per slot): join the slot's cgroups, enter fresh pid/mount/net/ipc/uts namespaces (plus a user
namespace when not root), become pid 1 there, mount a private /proc, a size-capped tmpfs work folder and
/dev/shm, build the Landlock ruleset, take the seccomp program, pre-import common modules.

Loop (once per run): receive a request, read and check it, work out the run's descriptors and limits, then
fork (without the interpreter's after-fork hooks where that is safe: ``kernel.lean_fork``); the child
confines itself (``confine``) and runs the program (``execve`` for a command, ``pyrun`` for Python code);
the zygote supervises CPU time, the run time (real time less waiting for a CPU, when the request sets it)
and wall time, then kills everything left in the namespace, wipes the work folder and replies with what
happened. The run is forked only once its request is here, so it inherits the request's descriptors and
the parsed request instead of receiving them, and runs as little of the judge's Python as can be: each page
either process writes while they share it costs a copy-on-write fault (3.6 µs each on this kind of VM).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable

from . import abspaths, confine, files, interaction, kernel, landlock, protocol, pyrun, rootfs
from .accounting import CgroupAccounting
from .protocol import FdName, Op, RunKind, RunLimits, RunRequest
from .runclock import RunClock

STARTED = json.dumps(protocol.STARTED, separators=(",", ":")).encode()  # as protocol.send sends it
PREIMPORTS = ("abc", "array", "bisect", "collections", "copy", "dataclasses", "datetime", "decimal", "enum",
              "fractions", "functools", "hashlib", "heapq", "io", "itertools", "json", "math", "operator",
              "random", "re", "statistics", "string", "struct", "textwrap", "typing", "unicodedata",
              "atexit", "threading", "traceback")


def main(sock_fd: int) -> None:
    sock = socket.socket(fileno=sock_fd)
    config, fds = protocol.recv(sock)
    if config is None:
        return
    seccomp_bpf = os.read(fds[0], 1 << 20) if fds else b""
    # The judge's channel to the outer process, which mounts the folders of a run's absolute paths
    mounter = socket.socket(fileno=fds.pop(1)) if len(fds) > 1 else None
    for fd in fds:
        os.close(fd)
    try:
        _protect_from_oom_killer(config)
        _join_cgroups(config)
        accounting = CgroupAccounting(config.get("cgroups", {}))  # opened here: the sandbox's root binds them read-only
        if config["mode"] != "none":
            _enter_namespaces(config, sock, mounter)  # returns only in the new pid namespace's init
        zygote = Zygote(config, sock, seccomp_bpf, accounting)
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        protocol.send(sock, {"op": Op.FAILED.value, "error": f"{type(exc).__name__}: {exc} "
                                                      f"(in {os.path.basename(where.filename)}:{where.lineno})"})
        raise SystemExit(1) from None
    protocol.send(sock, {"op": Op.READY.value, "layers": zygote.layers, "python": sys.version.split()[0]})
    zygote.serve()


def _protect_from_oom_killer(config: dict) -> None:
    """Before the fork, so the outer process is spared too: a v2 group OOM kill (memory.oom.group) takes
    every process of the slot but those at -1000. Each run raises its own score to 1000 anyway; lowering
    ours needs CAP_SYS_RESOURCE (without it, slots get no group OOM kill: cgroups.may_lower_oom_score)."""
    if config["mode"] == "root":
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("-1000")
        except PermissionError:
            pass


def _join_cgroups(config: dict) -> None:
    for path in config.get("cgroup_groups", []):
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def _enter_namespaces(config: dict, sock: socket.socket, mounter: socket.socket | None) -> None:
    # A cgroup namespace rooted at the slot's groups (joined just before): /proc/self/cgroup and the mount
    # table show the run its own groups as "/", never the host's path to them.
    flags = (kernel.CLONE_NEWNS | kernel.CLONE_NEWPID | kernel.CLONE_NEWNET | kernel.CLONE_NEWIPC
             | kernel.CLONE_NEWUTS | kernel.CLONE_NEWCGROUP)
    if config["mode"] == "user":
        uid, gid = os.getuid(), os.getgid()
        kernel.unshare(flags | kernel.CLONE_NEWUSER)
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    else:
        kernel.unshare(flags)
    pid = os.fork()
    if pid:  # the outer process waits (and mounts a run's folders): when the judge kills it, init dies with it
        sock.close()
        if mounter is None:
            status = os.waitpid(pid, 0)[1]
        else:
            owner = f"uid={config['uid']},gid={config['gid']}" if config["mode"] == "root" else "uid=0,gid=0"
            status = abspaths.serve(mounter, pid, owner, config["workdir_bytes"], 8192)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    if mounter is not None:
        mounter.close()
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    kernel.mount("none", "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
    rootfs.pivot_into_own_root(config)
    kernel.sethostname("judgebox")


class Zygote:
    def __init__(self, config: dict, sock: socket.socket, seccomp_bpf: bytes, accounting: CgroupAccounting) -> None:
        self.config = config
        self.sock = sock
        self.layers: dict[str, object] = {"rlimits": True}
        self.cgroups: dict[str, list] = config.get("cgroups", {})  # need -> [hierarchy, group]
        self.ncpu = os.cpu_count() or 1
        self.in_pid_namespace = config["mode"] != "none"
        self.layers.update(dict.fromkeys(("pid_namespace", "mount_namespace", "net_namespace",
                                          "ipc_namespace", "private_workdir"), self.in_pid_namespace))
        self.layers["user_namespace"] = config["mode"] == "user"
        self.layers["uid_switch"] = config["mode"] == "root"
        self.layers["no_new_privs"] = config["mode"] != "none"
        self.layers["cgroup_memory"] = "memory" in self.cgroups
        self.layers["cgroup_pids"] = "pids" in self.cgroups
        self.layers["cgroup_cpu"] = "cpu" in self.cgroups
        ruleset_fd = None
        self.layers["landlock"] = 0
        if config["mode"] != "none" and config.get("landlock"):
            ruleset_fd, abi = landlock.build_ruleset(config["read_paths"], config["write_paths"])
            self.layers["landlock"] = abi
        self.accounting = accounting
        self.attributes: ProcessAttributes
        seccomp = kernel.SeccompProgram(seccomp_bpf) if seccomp_bpf and config["mode"] != "none" else None
        self.layers["seccomp"] = seccomp is not None
        self.confinement = confine.Confinement(config, ruleset_fd, seccomp)
        kernel.prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)
        for name in PREIMPORTS:
            __import__(name)
        pyrun.prepare(nested_domains=bool(self.layers["landlock"]))
        os.environ.clear()  # the environment every run sees, set once here rather than in each run
        os.environ.update(config["env"])
        self.confinement.lock_down()
        if self.in_pid_namespace:  # a change of uid clears the parent-death signal: ask again
            kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
        self.attributes = ProcessAttributes()
        self.lean_fork = kernel.lean_fork_works()  # last: nothing after it may start a thread

    # -- the loop -------------------------------------------------------------------------------------

    def serve(self) -> None:
        kernel.set_process_name("judgebox-slot")
        while True:
            try:
                message, fds = protocol.recv(self.sock)
            except ConnectionResetError:  # the judge died (killed, or its Ctrl-C): an end like EOF's, no traceback
                return
            if message is None:
                return
            try:
                reply = self._run(RunRequest.from_wire(message), fds)
            except Poisoned as exc:  # nothing ran: the judge starts a fresh slot and sends the job there
                protocol.send(self.sock, protocol.RunReply.wire(refused=str(exc)))
                return
            except Exception as exc:  # a failed run is reported, the slot lives on
                reply = protocol.RunReply.wire(error=f"{type(exc).__name__}: {exc}")
            finally:
                for fd in fds:
                    os.close(fd)
            protocol.send(self.sock, reply)

    # -- one run --------------------------------------------------------------------------------------

    def _fork_run(self, request: RunRequest, named: dict[FdName, int]) -> tuple[int, socket.socket]:
        """Fork the run once its request is read and checked here: the child inherits the request's
        descriptors and the parsed request, so it runs no more of the judge's code than its own setup
        (every page either process writes while both share it costs a copy-on-write fault). Returns the
        run's pid and its control channel, on which its judge code may send notes."""
        changed = self.attributes.changed()  # what the run would inherit, read before it can inherit it
        if changed:
            raise Poisoned(changed)
        ruleset_fd = self.confinement.ruleset_fd
        if request.tops and ruleset_fd is not None:  # the run's own folders, writable in its domain alone
            ruleset_fd, _ = landlock.build_ruleset(
                self.config["read_paths"], [*self.config["write_paths"], *("/" + top for top in request.tops)])
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            plan = self.confinement.plan_run(request.limits, named, theirs.fileno())
            pid = kernel.lean_fork() if self.lean_fork else os.fork()
            if pid == 0:
                self._child(theirs, request, named, ruleset_fd, plan)  # never returns
        finally:
            theirs.close()
            if ruleset_fd is not None and ruleset_fd != self.confinement.ruleset_fd:
                os.close(ruleset_fd)
        return pid, ours

    def _run(self, request: RunRequest, fds: list[int]) -> dict:
        limits = request.limits
        tops = request.tops
        named = request.named(fds)
        self.accounting.prepare(limits)
        cpu0 = self.accounting.cpu_ns()
        self_cpu0 = _self_cpu()
        started = time.monotonic()
        pid, control = self._fork_run(request, named)
        try:
            pidfd = os.pidfd_open(pid)
            try:
                outputs = (named[FdName.STDOUT], named[FdName.STDERR])
                stopped = self._supervise(pid, pidfd, limits, started, cpu0, outputs)
            finally:
                os.close(pidfd)
            _, status, usage = os.wait4(pid, 0)
            wall = time.monotonic() - started
            self._kill_leftovers(pid)
            messages = protocol.drain(control)  # every writer is dead: what was sent is all there is
        finally:
            control.close()
        exit_code = os.WEXITSTATUS(status) if not os.WIFSIGNALED(status) else None
        cpu1 = self.accounting.cpu_ns()
        if cpu0 is not None and cpu1 is not None:  # the whole run, every process of it; minus the zygote's own share
            cpu = max(0.0, (cpu1 - cpu0) / 1e9 - (_self_cpu() - self_cpu0))
        else:
            cpu = usage.ru_utime + usage.ru_stime
        memory = max(usage.ru_maxrss * 1024, self.accounting.memory_peak() or 0)  # before the copies below
        retire = None
        try:
            if request.fetch:
                # The fetched files' base64 lands in a memfd charged to the slot's cgroup: room is made for it
                # above the run's own limit, so what the caller asked to fetch never counts as the run's memory.
                budget = limits.returned_output_bytes  # fetched files are output returned to the caller
                self.accounting.allow_more(budget * 4 // 3 + (1 << 20))
                _in_a_child(lambda: files.fetch(self.config["workdir"], list(request.fetch), budget,
                                                named[FdName.FETCHED], tops))
            if request.output_file:
                # A file-mode case's judged output is its output file, read in place of stdout and bounded as
                # stdout is: by the output cap (one byte more, so that a longer file reads as too long).
                self.accounting.allow_more(limits.output_bytes + (1 << 20))
                files.take_output(self.config["workdir"], request.output_file, limits.output_bytes + 1,
                                  named[FdName.STDOUT])
        finally:  # whatever became of the copies, nothing the run left reaches the next run on this slot
            try:
                self._wipe_workdir()
            except OSError as exc:  # the reply still stands; the judge replaces this slot before its next run
                retire = f"could not wipe the work folder: {exc}"
        return protocol.RunReply.wire(
            wall=wall, cpu=cpu, memory=memory,
            exit_code=exit_code, signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            stopped=stopped, oom=self.accounting.oom_killed(), started=protocol.STARTED in messages,
            notes=[m for m in messages if m.get("op") == Op.NOTE], retire=retire)

    def _child(self, channel: socket.socket, request: RunRequest, named: dict[FdName, int],
               ruleset_fd: int | None, plan: confine.RunPlan) -> None:
        """The forked run: confine to the request, run. Never returns.

        ``channel`` becomes the run's control channel (``Fd.CONTROL``): the judge code below reports on it
        (setup failures here, compile errors in pyrun) and it is closed before any program code runs in
        this process, or on exec, so nothing on it can come from the program."""
        python = request.kind in protocol.PYTHON_KINDS
        try:
            if python:  # (an exec names the run after its program; the plan closes these with the rest)
                self.sock.close()
                kernel.set_process_name("judgebox-run")
                if self.lean_fork and "random" in sys.modules:  # what the fork hook that was skipped does
                    sys.modules["random"].seed()
            self.confinement.ruleset_fd = ruleset_fd
            self.confinement.prepare_run()
            # Python sources are compiled only in the confined run: the zygote never holds a submission
            # (every later run is a fork of it), and a compile bomb meets the run's limits.
            # The tests of an assert case are not read here: they stay behind Fd.TESTS for the tests'
            # process alone, so the program's process never has them in its memory.
            sources = {name: files.read_all(named[name]) for name in (FdName.CODE, FdName.ARGS, FdName.FILES)
                       if name in named}
            channel.detach()  # its descriptor is the plan's to move (and the old number's to close)
            self.confinement.enter_planned(plan)  # the control channel is at Fd.CONTROL now
            if FdName.FILES in sources:
                files.place(self.config["workdir"], sources[FdName.FILES])
            if python or request.kind is not RunKind.COMMAND:
                channel = socket.socket(fileno=protocol.Fd.CONTROL)
            if python:
                pyrun.run(sources, request, channel)  # never returns
            confine.reset_signals_for_exec()
            if request.kind is RunKind.SPLIT:
                _split_exec(request, channel, nest=bool(self.layers["landlock"]))  # never returns
            if request.kind is RunKind.INTERACTIVE:
                interaction.run(request, channel, bool(self.layers["landlock"]), self.in_pid_namespace)  # never returns
            os.write(protocol.Fd.CONTROL, STARTED)  # judge code's last word: an exec failure is noted below
            os.execve(*request.exec_args(request.argv))
        except BaseException as exc:  # judge code failed before the program started: report, never fall back
            try:
                note = protocol.RunNote(protocol.Note.SETUP_FAILED, f"{type(exc).__name__}: {exc}").to_wire()
                if channel.fileno() == -1:  # detached: the control channel is at Fd.CONTROL, or nowhere
                    channel = socket.socket(fileno=protocol.Fd.CONTROL)
                protocol.send(channel, note)
            finally:
                os._exit(127)

    def _supervise(self, pid: int, pidfd: int, limits: RunLimits, started: float, cpu0: int | None,
                   outputs: tuple[int, int]) -> str | None:
        """Wait for the run to end; stop it on CPU time, run time or wall time, or once its output passed the
        cap (writes past it already fail; this stops a program that carries on regardless). Returns why it
        was stopped, if it was."""
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(self.sock, select.POLLHUP)  # the judge has gone: stop at once
        cpu_limit = limits.cpu_time
        run_limit = limits.run_time
        # Only a run with a run-time limit pays for reading its tasks' waiting (a few /proc reads per wake-up).
        clock = RunClock(pid, started, self.in_pid_namespace) if run_limit is not None else None
        deadline = started + limits.wall_time
        while True:
            used = self._cpu_used(pid, cpu0)
            now = time.monotonic()
            if used >= cpu_limit:
                reason = "cpu"
            elif clock is not None and run_limit is not None and clock.advance(now) >= run_limit:
                reason = "run"
            elif now >= deadline:
                reason = "wall"
            elif any(os.fstat(fd).st_size > limits.output_bytes for fd in outputs):
                reason = "output"
            else:
                # CPU accrues at most ncpu seconds per second and run time at most one, so this wakes up
                # before either limit is passed.
                wait = min(deadline - now, max(0.002, (cpu_limit - used) / self.ncpu), 0.25)
                if clock is not None and run_limit is not None:
                    wait = min(wait, max(0.002, run_limit - clock.elapsed))
                events = dict(poller.poll(max(0.0, wait) * 1000))
                if pidfd in events:
                    return None
                if self.sock.fileno() in events:
                    self._kill_leftovers(pid)
                    os._exit(0)
                continue
            _kill(pid)
            return reason

    def _cpu_used(self, pid: int, cpu0: int | None) -> float:
        cpu = self.accounting.cpu_ns()
        if cpu0 is not None and cpu is not None:
            return (cpu - cpu0) / 1e9
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def _kill_leftovers(self, pid: int) -> None:
        """Kill every process the run left behind (daemons included) and reap them all."""
        if self.in_pid_namespace:  # as init of the namespace, kill(-1) reaches every process in it
            while True:
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                try:
                    os.waitpid(-1, 0)
                except ChildProcessError:
                    return
        _kill(-pid)  # trusted mode: the run's process group
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    return
            except ChildProcessError:
                return

    def _wipe_workdir(self) -> None:
        folders = [self.config["workdir"]] + (["/dev/shm"] if self.in_pid_namespace else [])
        for folder in folders:
            _empty_folder(folder)
            _forget_marks(folder)


class Poisoned(Exception):
    """The zygote's own attributes changed: it must not fork another run."""


class ProcessAttributes:
    """What every run inherits from the zygote besides its memory: resource limits, priority, CPU
    affinity, scheduling policy. The seccomp filter refuses the calls that would let a run change them
    (they name the zygote by pid); this is the second wall: before each fork the zygote compares what the
    run would inherit with what it had at boot, and if they differ nothing runs there: the zygote refuses
    the job and exits, and the judge sends it to a fresh slot."""

    LIMITS = tuple(getattr(resource, name) for name in sorted(dir(resource)) if name.startswith("RLIMIT_"))

    def __init__(self) -> None:
        self.expected = self._read()

    def _read(self) -> tuple:
        return (tuple(resource.getrlimit(limit) for limit in self.LIMITS), os.getpriority(os.PRIO_PROCESS, 0),
                os.sched_getaffinity(0), os.sched_getscheduler(0))

    def changed(self) -> str | None:
        if self._read() == self.expected:
            return None
        return "a run changed the slot worker's own limits, priority or affinity"


def _split_exec(request: RunRequest, control: socket.socket, nest: bool) -> None:
    """A split run: the program's process (a child, in a nested Landlock domain so that it can neither
    read nor signal this one) and the tests' process (this one) each exec their side of the harness,
    joined by ``Fd.CHANNEL``. Only the tests' process keeps the report, token and tests; the run ends when
    it does, and whatever is left of the program's side is killed with the run."""
    tests_end, program_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    protocol.send(control, protocol.STARTED)
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (protocol.Fd.REPORT, protocol.Fd.TOKEN, protocol.Fd.TESTS):
                confine.close_quietly(fd)
            _place(program_end, protocol.Fd.CHANNEL)
            if nest:
                landlock.enter_nested_domain()
            os.execve(*request.exec_args(request.argv))
        finally:
            os._exit(127)  # the tests' side sees the channel close: the program did not run
    _place(tests_end, protocol.Fd.CHANNEL)
    for fd in (protocol.Fd.REPORT, protocol.Fd.TOKEN, protocol.Fd.TESTS):
        try:
            os.set_inheritable(fd, True)
        except OSError:  # not part of this run
            pass
    os.execve(*request.exec_args(request.tests_argv))


def _place(sock: socket.socket, number: int) -> None:
    """``sock`` at ``number``, inherited across exec (dup2 onto itself would keep close-on-exec)."""
    if sock.fileno() != number:
        os.dup2(sock.fileno(), number)
    os.set_inheritable(number, True)


def _empty_folder(top: str) -> None:
    """Remove everything below ``top`` without recursion (a run may leave a tree thousands deep)."""
    pending = [top]
    emptied: list[str] = []
    while pending:
        folder = pending.pop()
        emptied.append(folder)
        os.chmod(folder, 0o700)  # a run may have locked its own folders; the zygote owns them too
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                else:
                    os.unlink(entry.path)
    for folder in reversed(emptied[1:]):  # children before their parents
        os.rmdir(folder)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _forget_marks(folder: str) -> None:
    """Clear what a run could write on the folder itself, not in it, for the next run to read: its times
    (set to the epoch) and its extended attributes (where the filesystem keeps any)."""
    os.utime(folder, ns=(0, 0))
    try:
        names = os.listxattr(folder)
    except OSError:  # a filesystem with no extended attributes: nothing was kept
        return
    for name in names:
        os.removexattr(folder, name)


def _in_a_child(work: Callable[[], None]) -> None:
    """``work()`` in a forked child of the zygote, waited for. What it reads of a file a run left (the base64
    of a fetched file) is then made in the child's heap and goes with it: in the zygote's, freed but not
    cleared, it would be in the memory of every later run forked from it, another submission's included."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's exit status is its report
        code = 1
        try:
            work()
            code = 0
        except BaseException as exc:
            os.write(2, f"judgebox zygote: {type(exc).__name__}: {exc}\n".encode(errors="replace"))
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError(f"copying the files the caller asked for failed (status {status})")


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

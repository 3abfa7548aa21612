"""The warm worker process of one sandbox slot.

Boot (once per slot): join the slot's cgroups, enter fresh pid/mount/net/ipc/uts namespaces (plus a user
namespace when not root), become pid 1 there, mount a private /proc, a size-capped tmpfs work folder and
/dev/shm, build the Landlock ruleset, take the seccomp program, pre-import common modules.

Loop (once per run): receive a request, fork; the child confines itself (``confine``) and runs the
program (``execve`` for a command, ``pyrun`` for Python code); the zygote supervises CPU time, the run
time (real time less waiting for a CPU, when the request sets it) and wall time, then kills everything left
in the namespace, wipes the work folder and replies with what happened.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import socket
import sys
import time
import traceback

from . import abspaths, confine, files, interaction, kernel, landlock, protocol, pyrun, rootfs
from .accounting import CgroupAccounting
from .runclock import RunClock

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
        protocol.send(sock, {"op": "failed", "error": f"{type(exc).__name__}: {exc} "
                                                      f"(in {os.path.basename(where.filename)}:{where.lineno})"})
        raise SystemExit(1) from None
    protocol.send(sock, {"op": "ready", "layers": zygote.layers, "python": sys.version.split()[0]})
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

    # -- the loop -------------------------------------------------------------------------------------

    def serve(self) -> None:
        kernel.set_process_name("judgebox-slot")
        self._fork_spare()
        while True:
            request, fds = protocol.recv(self.sock)
            if request is None:
                return
            try:
                reply = self._run(request, fds)
            except Poisoned as exc:  # nothing ran: the judge starts a fresh slot and sends the job there
                protocol.send(self.sock, protocol.RunReply.wire(refused=str(exc)))
                return
            except Exception as exc:  # a failed run is reported, the slot lives on
                reply = protocol.RunReply.wire(error=f"{type(exc).__name__}: {exc}")
            finally:
                for fd in fds:
                    os.close(fd)
            protocol.send(self.sock, reply)
            self._fork_spare()  # while the judge reads the reply, so the next run starts from a warm fork

    # -- one run --------------------------------------------------------------------------------------

    def _fork_spare(self, tops: tuple[str, ...] = ()) -> None:
        """Fork the next run in advance: it prepares everything that does not depend on the request and
        waits for one. Fork and that preparation are then off the path of the next case's latency. ``tops``:
        the folders of a run's absolute paths, writable in its Landlock domain alone."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            ours.close()
            self._spare(theirs, tops)
        theirs.close()
        self.spare = (pid, ours)

    def _hand_over(self, request: dict, fds: list[int], tops: tuple[str, ...]) -> tuple[int, socket.socket]:
        """Give the request to the spare once it says it is ready; a spare that failed is replaced once.
        Returns the run's pid and its control channel, on which its judge code may send notes."""
        for attempt in (1, 2):
            pid, channel = self.spare
            try:
                status, _ = protocol.recv(channel, protocol.CONTROL_MESSAGE)
                if status is not None and status["op"] == "ready":
                    protocol.send(channel, request, fds)
                    return pid, channel
                if status is not None and status["op"] == "poisoned":
                    channel.close()
                    self._kill_leftovers(pid)
                    raise Poisoned(status["error"])
                error = status["error"] if status else "the spare run exited before it was ready"
            except OSError as exc:
                error = f"the spare run is unreachable: {exc}"
            channel.close()
            self._kill_leftovers(pid)
            if attempt == 1:
                self._fork_spare(tops)
        raise RuntimeError(f"could not prepare a run: {error}")

    def _run(self, request: dict, fds: list[int]) -> dict:
        limits = request["limits"]
        tops = tuple(request.get("tops", ()))
        if tops:  # the waiting spare's domain cannot write the run's own folders: a spare made for it can
            spare, channel = self.spare
            channel.close()
            self._kill_leftovers(spare)
            self._fork_spare(tops)
            # until it says it is ready (or has failed or gone): its making is not the run's time
            select.select([self.spare[1]], [], [])
        self.accounting.prepare(limits)
        cpu0 = self.accounting.cpu_ns()
        self_cpu0 = _self_cpu()
        started = time.monotonic()
        named = dict(zip(request["fd_names"], fds))
        pid, control = self._hand_over(request, fds, tops)
        try:
            pidfd = os.pidfd_open(pid)
            try:
                outputs = (named["stdout"], named["stderr"])
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
        if cpu0 is not None:  # the whole run, every process of it; minus the zygote's own share
            cpu = max(0.0, (self.accounting.cpu_ns() - cpu0) / 1e9 - (_self_cpu() - self_cpu0))
        else:
            cpu = usage.ru_utime + usage.ru_stime
        memory = max(usage.ru_maxrss * 1024, self.accounting.memory_peak() or 0)  # before the copies below
        if request.get("fetch"):
            # The fetched files' base64 lands in a memfd charged to the slot's cgroup: room is made for it
            # above the run's own limit, so what the caller asked to fetch never counts as the run's memory.
            budget = limits["returned_output_bytes"]  # fetched files are output returned to the caller
            self.accounting.allow_more(budget * 4 // 3 + (1 << 20))
            files.fetch(self.config["workdir"], request["fetch"], budget, named["fetched"], tops)
        if request.get("output_file"):
            # A file-mode case's judged output is its output file, read in place of stdout and bounded as
            # stdout is: by the output cap (one byte more, so that a longer file reads as too long).
            self.accounting.allow_more(limits["output_bytes"] + (1 << 20))
            files.take_output(self.config["workdir"], request["output_file"], limits["output_bytes"] + 1,
                              named["stdout"])
        retire = None
        try:
            self._wipe_workdir()
        except OSError as exc:  # the reply still stands; the judge replaces this slot before its next run
            retire = f"could not wipe the work folder: {exc}"
        return protocol.RunReply.wire(
            wall=wall, cpu=cpu, memory=memory,
            exit_code=exit_code, signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            stopped=stopped, oom=self.accounting.oom_killed(), started=protocol.STARTED in messages,
            notes=[m for m in messages if m.get("op") == "note"], retire=retire)

    def _spare(self, channel: socket.socket, tops: tuple[str, ...]) -> None:
        """The forked run: prepare, wait for the request, confine to it, run. Never returns.

        ``channel`` becomes the run's control channel (``Fd.CONTROL``): the judge code below reports on it
        (setup failures here, compile errors in pyrun) and it is closed before any program code runs in
        this process, or on exec, so nothing on it can come from the program."""
        try:
            self.sock.close()
            kernel.set_process_name("judgebox-spare")
            changed = self.attributes.changed()  # here, off the path of a case's latency
            if changed:
                protocol.send(channel, {"op": "poisoned", "error": changed})
                os._exit(0)
            if tops and self.confinement.ruleset_fd is not None:
                shared = self.confinement.ruleset_fd  # the zygote's, for every run: a ruleset of its own instead
                self.confinement.ruleset_fd, _ = landlock.build_ruleset(
                    self.config["read_paths"], [*self.config["write_paths"], *("/" + top for top in tops)])
                os.close(shared)
            self.confinement.prepare_run()
        except BaseException as exc:
            protocol.send(channel, {"op": "failed", "error": f"{type(exc).__name__}: {exc}"})
            os._exit(127)
        try:
            protocol.send(channel, {"op": "ready"})
            request, fds = protocol.recv(channel)
            if request is None:  # the zygote has gone
                os._exit(0)
            kernel.set_process_name("judgebox-run")
            named = dict(zip(request["fd_names"], fds))
            # Python sources are compiled only in the confined run: the zygote never holds a submission
            # (every later run is a fork of it), and a compile bomb meets the run's limits.
            # The tests of an assert case are not read here: they stay behind Fd.TESTS for the tests'
            # process alone, so the program's process never has them in its memory.
            sources = {name: files.read_all(named[name]) for name in ("code", "args", "files") if name in named}
            control = channel.detach()
            channel = socket.socket(fileno=control)
            self.confinement.enter_run(request["limits"], named, control)
            channel.detach()  # the descriptor is at Fd.CONTROL now
            channel = socket.socket(fileno=protocol.Fd.CONTROL)
            if "files" in sources:
                files.place(self.config["workdir"], sources["files"])
            if "python" in request:
                pyrun.run(sources, request["python"], channel)  # never returns
            confine.reset_signals_for_exec()
            if "tests_argv" in request:
                _split_exec(request, channel, nest=bool(self.layers["landlock"]))  # never returns
            if "interactor_argv" in request:
                interaction.run(request, channel, bool(self.layers["landlock"]), self.in_pid_namespace)  # never returns
            protocol.send(channel, protocol.STARTED)  # judge code's last word: an exec failure is noted below
            os.execve(request["argv"][0], request["argv"], request["env"])
        except BaseException as exc:  # judge code failed before the program started: report, never fall back
            try:
                protocol.send(channel, protocol.RunNote(protocol.Note.SETUP_FAILED,
                                                        f"{type(exc).__name__}: {exc}").to_wire())
            finally:
                os._exit(127)

    def _supervise(self, pid: int, pidfd: int, limits: dict, started: float, cpu0: int | None,
                   outputs: tuple[int, int]) -> str | None:
        """Wait for the run to end; stop it on CPU time, run time or wall time, or once its output passed the
        cap (writes past it already fail; this stops a program that carries on regardless). Returns why it
        was stopped, if it was."""
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(self.sock, select.POLLHUP)  # the judge has gone: stop at once
        cpu_limit = limits["cpu_time"]
        run_limit = limits.get("run_time")
        # Only a run with a run-time limit pays for reading its tasks' waiting (a few /proc reads per wake-up).
        clock = RunClock(pid, started, self.in_pid_namespace) if run_limit is not None else None
        deadline = started + limits["wall_time"]
        while True:
            used = self._cpu_used(pid, cpu0)
            now = time.monotonic()
            if used >= cpu_limit:
                reason = "cpu"
            elif clock is not None and clock.advance(now) >= run_limit:
                reason = "run"
            elif now >= deadline:
                reason = "wall"
            elif any(os.fstat(fd).st_size > limits["output_bytes"] for fd in outputs):
                reason = "output"
            else:
                # CPU accrues at most ncpu seconds per second and run time at most one, so this wakes up
                # before either limit is passed.
                wait = min(deadline - now, max(0.002, (cpu_limit - used) / self.ncpu), 0.25)
                if clock is not None:
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
        if cpu0 is not None:
            return (self.accounting.cpu_ns() - cpu0) / 1e9
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


class Poisoned(Exception):
    """The zygote's own attributes changed: it must not fork another run."""


class ProcessAttributes:
    """What every run inherits from the zygote besides its memory: resource limits, priority, CPU
    affinity, scheduling policy. The seccomp filter refuses the calls that would let a run change them
    (they name the zygote by pid); this is the second wall: each spare compares what it inherited with
    what the zygote had at boot, and if they differ nothing runs there: the zygote refuses the job and
    exits, and the judge sends it to a fresh slot."""

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


def _split_exec(request: dict, control: socket.socket, nest: bool) -> None:
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
            os.execve(request["argv"][0], request["argv"], request["env"])
        finally:
            os._exit(127)  # the tests' side sees the channel close: the program did not run
    _place(tests_end, protocol.Fd.CHANNEL)
    for fd in (protocol.Fd.REPORT, protocol.Fd.TOKEN, protocol.Fd.TESTS):
        try:
            os.set_inheritable(fd, True)
        except OSError:  # not part of this run
            pass
    os.execve(request["tests_argv"][0], request["tests_argv"], request["env"])


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


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

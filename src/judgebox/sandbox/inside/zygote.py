"""The warm worker process of one sandbox slot.

Boot (once per slot): join the slot's cgroups, enter fresh pid/mount/net/ipc/uts namespaces (plus a user
namespace when not root), become pid 1 there, mount a private /proc, a size-capped tmpfs work folder and
/dev/shm, build the Landlock ruleset, take the seccomp program, pre-import common modules.

Loop (once per run): receive a request, fork; the child confines itself (``confine``) and runs the
program (``execve`` for a command, ``pyrun`` for Python code); the zygote supervises CPU and wall time,
then kills everything left in the namespace, wipes the work folder and replies with what happened.
"""

from __future__ import annotations

import hashlib
import linecache
import os
import resource
import select
import shutil
import signal
import socket
import sys
import time
import traceback

from . import confine, kernel, landlock, protocol, pyrun

PREIMPORTS = ("abc", "array", "bisect", "collections", "copy", "dataclasses", "datetime", "decimal", "enum",
              "fractions", "functools", "hashlib", "heapq", "io", "itertools", "json", "math", "operator",
              "random", "re", "statistics", "string", "struct", "textwrap", "typing", "unicodedata",
              "atexit", "threading", "traceback")
CODE_CACHE_SIZE = 64


def main(sock_fd: int) -> None:
    sock = socket.socket(fileno=sock_fd)
    config, fds = protocol.recv(sock)
    if config is None:
        return
    seccomp_bpf = os.read(fds[0], 1 << 20) if fds else b""
    for fd in fds:
        os.close(fd)
    try:
        _join_cgroups(config)
        if config["mode"] != "none":
            _enter_namespaces(config, sock)  # returns only in the new pid namespace's init
        zygote = Zygote(config, sock, seccomp_bpf)
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        protocol.send(sock, {"op": "failed", "error": f"{type(exc).__name__}: {exc} "
                                                      f"(in {os.path.basename(where.filename)}:{where.lineno})"})
        raise SystemExit(1) from None
    protocol.send(sock, {"op": "ready", "layers": zygote.layers, "python": sys.version.split()[0]})
    zygote.serve()


def _join_cgroups(config: dict) -> None:
    for path in config.get("cgroups", {}).values():
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def _enter_namespaces(config: dict, sock: socket.socket) -> None:
    flags = (kernel.CLONE_NEWNS | kernel.CLONE_NEWPID | kernel.CLONE_NEWNET | kernel.CLONE_NEWIPC
             | kernel.CLONE_NEWUTS)
    if config["mode"] == "user":
        uid, gid = os.getuid(), os.getgid()
        kernel.unshare(flags | kernel.CLONE_NEWUSER)
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    else:
        kernel.unshare(flags)
    pid = os.fork()
    if pid:  # the outer process only waits: when the judge kills it, init below dies with it
        sock.close()
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    kernel.mount("none", "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
    kernel.mount("proc", "/proc", "proc", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC,
                 "hidepid=invisible")
    owner = f"uid={config['uid']},gid={config['gid']}" if config["mode"] == "root" else "uid=0,gid=0"
    kernel.mount("tmpfs", config["workdir"], "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV,
                 f"size={config['workdir_bytes']},nr_inodes=8192,mode=0700,{owner}")
    kernel.mount("tmpfs", "/dev/shm", "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC,
                 f"size={config['shm_bytes']},nr_inodes=1024,mode=0700,{owner}")
    kernel.sethostname("judgebox")


class Zygote:
    def __init__(self, config: dict, sock: socket.socket, seccomp_bpf: bytes) -> None:
        self.config = config
        self.sock = sock
        self.layers: dict[str, object] = {"rlimits": True}
        self.cgroups: dict[str, str] = config.get("cgroups", {})
        self.ncpu = os.cpu_count() or 1
        self.in_pid_namespace = config["mode"] != "none"
        self.layers.update(dict.fromkeys(("pid_namespace", "mount_namespace", "net_namespace",
                                          "ipc_namespace", "private_workdir"), self.in_pid_namespace))
        self.layers["user_namespace"] = config["mode"] == "user"
        self.layers["uid_switch"] = config["mode"] == "root"
        self.layers["no_new_privs"] = config["mode"] != "none"
        self.layers["cgroup_memory"] = "memory" in self.cgroups
        self.layers["cgroup_pids"] = "pids" in self.cgroups
        self.layers["cgroup_cpu"] = "cpuacct" in self.cgroups
        ruleset_fd = None
        self.layers["landlock"] = 0
        if config["mode"] != "none" and config.get("landlock"):
            ruleset_fd, abi = landlock.build_ruleset(config["read_paths"], config["write_paths"])
            high = os.dup2(ruleset_fd, 1000, inheritable=False)  # out of the way of the run's fds
            os.close(ruleset_fd)
            ruleset_fd = high
            self.layers["landlock"] = abi
        seccomp = kernel.SeccompProgram(seccomp_bpf) if seccomp_bpf and config["mode"] != "none" else None
        self.layers["seccomp"] = seccomp is not None
        self.confinement = confine.Confinement(config, ruleset_fd, seccomp)
        if config["mode"] == "root":
            try:  # each run raises its own score to 1000 anyway; lowering ours needs CAP_SYS_RESOURCE
                with open("/proc/self/oom_score_adj", "w") as f:
                    f.write("-1000")
            except PermissionError:
                pass
        if config["mode"] != "none":
            kernel.prctl(kernel.PR_SET_DUMPABLE, 0)  # runs of the same uid cannot ptrace or read us
        kernel.prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)
        for name in PREIMPORTS:
            __import__(name)
        self.snapshot = pyrun.snapshot_modules()
        self.codes: dict[str, object] = {}
        self.memory_limit_written = -1

    # -- the loop -------------------------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            request, fds = protocol.recv(self.sock)
            if request is None:
                return
            try:
                reply = self.handle(request, fds)
            except Exception as exc:
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            finally:
                for fd in fds:
                    os.close(fd)
            protocol.send(self.sock, reply)

    def handle(self, request: dict, fds: list[int]) -> dict:
        named = dict(zip(request["fd_names"], fds))
        code = test = None
        if "python" in request:
            harness = request["python"]
            code, error = self._compile(harness["code_sha"], named["code"], confine_filename=pyrun.SOLUTION_FILE)
            if error:
                return {"compile_error": error}
            if harness["kind"] == "assert":
                test, error = self._compile(harness["test_sha"], named["test"], pyrun.TEST_FILE)
                if error:  # bad test data is the judge's input failing, not the program
                    return {"error": "the test code does not compile: " + error}
        return self._run(request, named, code, test)

    def _compile(self, sha: str, fd: int, confine_filename: str) -> tuple[object, str | None]:
        if sha in self.codes:
            return self.codes[sha], None
        source = _read_all(fd)
        if hashlib.sha256(source).hexdigest() != sha:
            raise ValueError("code does not match its hash")
        text = source.decode("utf-8", "surrogateescape")
        try:
            code = compile(text, confine_filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
            return None, "".join(__import__("traceback").format_exception_only(type(exc), exc)).strip()
        if len(self.codes) >= CODE_CACHE_SIZE:
            self.codes.pop(next(iter(self.codes)))
        self.codes[sha] = code
        linecache.cache[confine_filename] = (len(text), None, text.splitlines(True), confine_filename)
        return code, None

    # -- one run --------------------------------------------------------------------------------------

    def _run(self, request: dict, fds: dict[str, int], code: object, test: object) -> dict:
        limits = request["limits"]
        if "python" in request:  # tracebacks should show the lines of the program being run
            linecache.cache.pop(pyrun.SOLUTION_FILE, None)
        memory0 = self._prepare_cgroups(limits)
        cpu0 = self._cpu_ns()
        self_cpu0 = _self_cpu()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self._child(request, fds, code, test)
        pidfd = os.pidfd_open(pid)
        try:
            stopped = self._supervise(pid, pidfd, limits, started, cpu0)
        finally:
            os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        wall = time.monotonic() - started
        self._kill_leftovers(pid)
        reply = {"wall": wall, "stopped": stopped, "exit_code": None, "signal": None}
        if os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
        else:
            reply["exit_code"] = os.WEXITSTATUS(status)
        if cpu0 is not None:
            reply["cpu"] = max(0.0, (self._cpu_ns() - cpu0) / 1e9 - (_self_cpu() - self_cpu0))
        else:
            reply["cpu"] = usage.ru_utime + usage.ru_stime
        reply["memory"] = usage.ru_maxrss * 1024
        if memory0 is not None:
            peak = _read_int(self.cgroups["memory"], "memory.max_usage_in_bytes") - memory0["usage"]
            reply["memory"] = max(reply["memory"], peak)
            reply["oom"] = _oom_kills(self.cgroups["memory"]) > memory0["oom_kills"]
        self._wipe_workdir()
        return reply

    def _child(self, request: dict, fds: dict[str, int], code: object, test: object) -> None:
        try:
            self.sock.close()
            self.confinement.enter(request["limits"], (fds["stdin"], fds["stdout"], fds["stderr"]),
                                   fds["result"], fds.get("token"))
            if "python" in request:
                pyrun.run(code, request["python"], test, request["env"], self.snapshot)
            confine.reset_signals_for_exec()
            os.execve(request["argv"][0], request["argv"], request["env"])
        except BaseException as exc:
            try:
                os.write(confine.RESULT_FD, f"judgebox-setup-failed: {type(exc).__name__}: {exc}\n".encode())
            finally:
                os._exit(127)

    def _supervise(self, pid: int, pidfd: int, limits: dict, started: float, cpu0: int | None) -> str | None:
        """Wait for the run to end; stop it on CPU or wall time. Returns why it was stopped, if it was."""
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(self.sock, select.POLLHUP)  # the judge has gone: stop at once
        cpu_limit = limits["cpu_time"]
        deadline = started + limits["wall_time"]
        while True:
            used = self._cpu_used(pid, cpu0)
            if used >= cpu_limit:
                reason = "cpu"
            elif time.monotonic() >= deadline:
                reason = "wall"
            else:
                # CPU accrues at most ncpu seconds per second, so this wakes up before the limit is passed.
                wait = min(deadline - time.monotonic(), max(0.002, (cpu_limit - used) / self.ncpu), 0.25)
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
            return (self._cpu_ns() - cpu0) / 1e9
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def _cpu_ns(self) -> int | None:
        return _read_int(self.cgroups["cpuacct"], "cpuacct.usage") if "cpuacct" in self.cgroups else None

    def _prepare_cgroups(self, limits: dict) -> dict | None:
        if "pids" in self.cgroups:  # the zygote and its outer parent count too
            _write(self.cgroups["pids"], "pids.max", str(limits["processes"] + 2))
        if "memory" not in self.cgroups:
            return None
        path = self.cgroups["memory"]
        usage = _read_int(path, "memory.usage_in_bytes")
        wanted = usage + limits["memory_mb"] * 1024 * 1024
        if abs(wanted - self.memory_limit_written) > 4 << 20:
            _write(path, "memory.limit_in_bytes", str(wanted))
            self.memory_limit_written = wanted
        _write(path, "memory.max_usage_in_bytes", "0")
        return {"usage": _read_int(path, "memory.usage_in_bytes"), "oom_kills": _oom_kills(path)}

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
        if not self.in_pid_namespace:
            return
        for folder in (self.config["workdir"], "/dev/shm"):
            os.chmod(folder, 0o700)
            for entry in os.scandir(folder):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _read_int(folder: str, name: str) -> int:
    with open(os.path.join(folder, name), "rb") as f:
        return int(f.read())


def _write(folder: str, name: str, value: str) -> None:
    with open(os.path.join(folder, name), "w") as f:
        f.write(value)


def _oom_kills(folder: str) -> int:
    with open(os.path.join(folder, "memory.oom_control")) as f:
        for line in f:
            if line.startswith("oom_kill "):
                return int(line.split()[1])
    return 0

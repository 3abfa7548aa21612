"""One worker slot: a warm zygote process, started and replaced by the judge, that runs one job at a time."""

from __future__ import annotations

import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebox.errors import InvalidInput, IsolationUnavailable, SandboxError
from judgebox.sandbox import seccomp_policy
from judgebox.sandbox.cgroups import SlotCgroups
from judgebox.sandbox.config import DEVICE_WRITE_PATHS, RUN_ENV, SandboxConfig
from judgebox.sandbox.inside import abspaths, protocol
from judgebox.sandbox.inside.protocol import FdName, Note, Op, RunKind
from judgebox.sandbox.outcome import RunOutcome
from judgebox.types import Limits

INSIDE_DIR = str(Path(__file__).with_name("inside"))
BOOT = """\
import importlib.util, sys
folder = sys.argv[1]
spec = importlib.util.spec_from_file_location("_judgebox_sandbox", folder + "/__init__.py",
                                              submodule_search_locations=[folder])
package = importlib.util.module_from_spec(spec)
sys.modules["_judgebox_sandbox"] = package
spec.loader.exec_module(package)
from _judgebox_sandbox.zygote import main
main(int(sys.argv[2]))
"""
BOOT_TIMEOUT = 30.0
REPLY_MARGIN = 10.0  # the zygote enforces time limits itself; this only catches a hung zygote
_slot_ids = itertools.count()
HARNESS_KINDS = {"stdio": RunKind.PYTHON_STDIO, "assert": RunKind.PYTHON_ASSERT, "call": RunKind.PYTHON_CALL,
                 "jupyter": RunKind.PYTHON_JUPYTER}


@dataclass(frozen=True)
class Command:
    """Run an executable: ``argv[0]`` must be an absolute path the sandbox uid can execute, or
    ``/proc/self/fd/5`` for the program passed alongside. It never holds the report, the token or the
    tests (fds 3, 4 and 6 close on exec)."""

    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=lambda: dict(RUN_ENV))
    # A name in the work folder whose content, once the run has ended, is the run's stdout (bounded by the
    # output cap as stdout is): a file-mode case's judged output.
    output_file: str | None = None


@dataclass(frozen=True)
class SplitCommand:
    """An assert case with the program and the tests in two processes, each exec'ing its side of a
    language's harness. The program's process (``argv``) gets the case's stdio, the program at fd 5 and
    the channel at fd 7, in a nested Landlock domain (it cannot read or signal the tests' process); the
    tests' process (``tests_argv``) gets the channel, the report and token (fds 3, 4), the program (5,
    to read its names) and the tests (6). The run's exit status is the tests' process's."""

    argv: tuple[str, ...]
    tests_argv: tuple[str, ...]
    tests: str | bytes  # fd 6: the tests' code, or the tests' side's built program
    env: dict[str, str] = field(default_factory=lambda: dict(RUN_ENV))


@dataclass(frozen=True)
class CheckerCommand:
    """A problem's checker program: a :class:`Command` that also gets the case's input, the solution's
    output and the expected answer at ``Fd.INPUT_FILE``, ``OUTPUT_FILE`` and ``ANSWER_FILE``
    (``/proc/self/fd/9``, ``10``, ``11``): copies the judge made once the solution's run had ended."""

    argv: tuple[str, ...]
    input: bytes
    output: bytes
    answer: bytes
    env: dict[str, str] = field(default_factory=lambda: dict(RUN_ENV))


@dataclass(frozen=True)
class InteractiveCommand:
    """An interactive case: the solution (``argv``, its program at fd 5) and the problem's interactor
    (``interactor_argv``, its program the memfd ``interactor`` at fd 5 of its own process), each other's
    stdin and stdout (``sandbox/inside/interaction.py``). Only the interactor gets ``input`` (at
    ``Fd.INPUT_FILE``) and an empty output file (at ``Fd.OUTPUT_FILE``: testlib's ``tout``, which the
    outcome's ``interactor_output`` holds once the run ended). The run's stdout is the interactor's stderr,
    its stderr the solution's; its report is the supervisor's account of both."""

    argv: tuple[str, ...]
    interactor_argv: tuple[str, ...]
    interactor: Any  # the interactor's built program: a sealed memfd at ``.fd``, kept open by this job
    input: bytes
    env: dict[str, str] = field(default_factory=lambda: dict(RUN_ENV))


@dataclass(frozen=True)
class PythonProgram:
    """Run Python source in a fork of the slot's warm interpreter, under one of pyrun's harnesses."""

    code: str
    harness: str = "stdio"  # "stdio" | "assert" | "call" | "jupyter" (code: the cells' request as JSON)
    test_code: str | None = None
    fn_name: str | None = None
    args_json: str = "[]"
    output_file: str | None = None  # as Command's


Job = Command | SplitCommand | CheckerCommand | InteractiveCommand | PythonProgram  # what Slot.run runs


class FoldersUnavailable(Exception):
    """The folders of a run's absolute paths could not be made or removed: the run is SE."""


class SlotFailure(Exception):
    """The zygote died or stopped answering while running a job; the slot has been restarted."""


ABORTED = "the judge was closed while this case ran"  # a job's failure once abort() was called


class Slot:
    def __init__(self, config: SandboxConfig, index: int = 0) -> None:
        self.config = config
        self.index = index
        self.interpreter = config.interpreter()
        self.uid = config.uid_base + index
        self.layers: dict[str, Any] = {}
        self.python_version = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._mounter: socket.socket | None = None
        self._cgroups: SlotCgroups | None = None
        self._aborted = False  # abort() was called: the slot is not started again
        self._lifecycle = threading.Lock()  # abort() comes from another thread than close()'s
        self._start()

    # -- lifecycle ------------------------------------------------------------------------------------

    def _start(self) -> None:
        mode = self.config.mode
        if mode != "none":
            self._cgroups = SlotCgroups(f"judgebox-{os.getpid()}-{next(_slot_ids)}", mode)
        workdir = abspaths.WORKDIR if mode != "none" else _trusted_workdir()
        try:  # bound into the sandbox's root at boot, so it must exist by then
            os.makedirs(self.config.cache_dir, mode=0o755, exist_ok=True)
        except OSError:  # an unwritable home: no toolchain cache, which only costs speed
            pass
        config = {
            "mode": mode, "uid": self.uid, "gid": self.uid, "workdir": workdir,
            "workdir_bytes": self.config.workdir_bytes, "shm_bytes": self.config.shm_bytes,
            "cgroups": self._cgroups.accounting if self._cgroups else {},
            "cgroup_groups": self._cgroups.groups if self._cgroups else [],
            "cgroup_view": self._cgroups.view if self._cgroups else {},
            "landlock": True, "read_paths": self.config.read_paths(self.interpreter),
            "write_paths": [workdir, "/dev/shm", *DEVICE_WRITE_PATHS], "env": RUN_ENV,
        }
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = subprocess.Popen(
                [self.interpreter, "-I", "-c", BOOT, INSIDE_DIR, str(theirs.fileno())],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                env={"PATH": RUN_ENV["PATH"], "LANG": "C.UTF-8"},
                # out of the terminal's process group: a Ctrl-C reaches the judge alone, which ends its slots
                start_new_session=True)
        finally:
            theirs.close()
        self._sock = ours
        if self._aborted:  # abort() came while the worker started, and may have found no process to kill
            self.close()
            raise SlotFailure(ABORTED)
        self.workdir = workdir
        bpf = _memfd("seccomp", seccomp_policy.compiled_bpf()) if mode != "none" else None
        # The channel to the slot's outer process, which makes the folders of a run's absolute paths
        mounter = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if mode != "none" else None
        self._mounter = mounter[0] if mounter else None
        try:
            protocol.send(ours, config, [bpf, mounter[1].fileno()] if bpf is not None and mounter else [])
        finally:
            if bpf is not None:
                os.close(bpf)
            if mounter:
                mounter[1].close()
        try:
            reply = self._receive(BOOT_TIMEOUT)
        except OSError as exc:
            reply = {"error": f"no answer from the worker ({exc})"}
        if reply is None or reply.get("op") != Op.READY:
            error = str(reply.get("error")) if reply else "the worker exited during start-up"
            if mode == "user":
                error += (" (user mode needs unprivileged user namespaces: check sysctl "
                          "kernel.unprivileged_userns_clone and the container's seccomp profile, or run as root)")
            self.close()
            raise SandboxError(f"sandbox slot {self.index} could not start ({mode} mode): {error}")
        self.layers = {**reply["layers"], "cgroup_hierarchy": self._cgroups.hierarchy if self._cgroups else "none"}
        self.python_version = reply["python"]
        missing = sorted(layer for layer in self.config.required_layers if not self.layers.get(layer))
        if missing:
            reasons = "; ".join(self._cgroups.problems) if self._cgroups and self._cgroups.problems else ""
            self.close()
            raise IsolationUnavailable(
                f"refusing to run untrusted code: isolation layers missing in {mode} mode: {', '.join(missing)}"
                + (f" ({reasons})" if reasons else "")
                + ". Fix the machine, lower SandboxConfig.required, or pass isolation='none' for trusted code.",
                frozenset(missing))

    def restart(self) -> None:
        self.close()
        if self._aborted:
            raise SlotFailure(ABORTED)
        self._start()

    def abort(self) -> None:
        """End the running job now, from any thread (the judge is closing and will not wait): the worker's
        process group is killed, and with it the runs of its pid namespace. The job fails with
        :class:`SlotFailure` and the slot stays down."""
        self._aborted = True
        with self._lifecycle:
            if self._process is not None and self._process.poll() is None:
                try:
                    os.killpg(self._process.pid, signal.SIGKILL)  # its own session: the group is its pid
                except ProcessLookupError:
                    pass

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._mounter is not None:
            self._mounter.close()
            self._mounter = None
        with self._lifecycle:
            if self._process is not None:
                self._process.kill()
                self._process.wait()
                self._process = None
        if self._cgroups is not None:
            self._cgroups.close()
            self._cgroups = None

    @property
    def pid(self) -> int | None:
        """The pid of the slot's outer worker process (killing it fails the running job with SE)."""
        return self._process.pid if self._process else None

    # -- running jobs ---------------------------------------------------------------------------------

    def run(self, job: Job, stdin: bytes, limits: Limits,
            files: dict[str, str | None] | None = None, fetch: tuple[str, ...] = (),
            program: int | None = None) -> RunOutcome:
        """Run one job. ``files`` (path to base64) are put in the work folder first, or at their absolute
        paths (``sandbox/inside/abspaths.py``); ``fetch`` names files to bring back; ``program`` is a memfd
        the run gets as fd 5 (not closed here). Raises :class:`SlotFailure` (after restarting the slot) if
        the worker died."""
        try:
            tops = abspaths.tops_of([*(files or {}), *fetch], self.workdir)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from None
        if tops and self._mounter is None:
            return RunOutcome(system_error="absolute file paths need the sandbox's own root, which isolation "
                                           "mode 'none' does not build")
        fds: dict[FdName, int] = {}
        token = b""
        try:
            fds[FdName.STDIN] = _memfd(FdName.STDIN, stdin)
            for name in (FdName.STDOUT, FdName.STDERR, FdName.RESULT):
                fds[name] = _memfd(name)
            if not isinstance(job, (Command, CheckerCommand)):
                token = secrets.token_bytes(protocol.TOKEN_BYTES)
                fds[FdName.TOKEN] = _memfd(FdName.TOKEN, token)
            own: dict[str, Any]  # the kind's own fields (protocol.KIND_FIELDS)
            if isinstance(job, PythonProgram):
                kind, own = self._python_request(job, fds)
            elif isinstance(job, SplitCommand):
                kind = RunKind.SPLIT
                own = {"argv": tuple(job.argv), "tests_argv": tuple(job.tests_argv), "env": job.env}
                tests = job.tests if isinstance(job.tests, bytes) else job.tests.encode("utf-8", "surrogateescape")
                fds[FdName.TEST] = _memfd(FdName.TEST, tests)
            elif isinstance(job, CheckerCommand):
                kind, own = RunKind.COMMAND, {"argv": tuple(job.argv), "env": job.env}
                for name, data in ((FdName.INPUT_FILE, job.input), (FdName.OUTPUT_FILE, job.output),
                                   (FdName.ANSWER_FILE, job.answer)):
                    fds[name] = _memfd(name, data)
            elif isinstance(job, InteractiveCommand):
                kind = RunKind.INTERACTIVE
                own = {"argv": tuple(job.argv), "interactor_argv": tuple(job.interactor_argv), "env": job.env}
                fds[FdName.INPUT_FILE] = _memfd(FdName.INPUT_FILE, job.input)
                fds[FdName.OUTPUT_FILE] = _memfd(FdName.OUTPUT_FILE)
            else:
                kind, own = RunKind.COMMAND, {"argv": tuple(job.argv), "env": job.env}
            if files:
                fds[FdName.FILES] = _memfd(FdName.FILES, json.dumps(files).encode())
            if fetch:
                fds[FdName.FETCHED] = _memfd(FdName.FETCHED)
            offered = {FdName.PROGRAM: program}  # not ours to close
            if isinstance(job, InteractiveCommand):
                offered[FdName.TEST] = job.interactor.fd  # at Fd.TESTS, which no exec'd program keeps
            borrowed = {name: fd for name, fd in offered.items() if fd is not None}
            request = protocol.RunRequest(
                kind, _run_limits(limits), (*fds, *borrowed), **own, fetch=tuple(fetch),
                output_file=getattr(job, "output_file", None) or None, tops=tuple(tops))
            passed = [*fds.values(), *borrowed.values()]
            try:
                reply = self._exchange_in_folders(request, passed, limits.wall_backstop + REPLY_MARGIN, tops)
                if reply.refused:  # a poisoned slot ran nothing: once more, on a fresh one
                    self._safe_restart()
                    reply = self._exchange_in_folders(request, passed, limits.wall_backstop + REPLY_MARGIN, tops)
            except FoldersUnavailable as exc:
                return RunOutcome(system_error=str(exc))
            if reply.refused:
                raise SlotFailure(f"a fresh slot refused the job too: {reply.refused}")
            told = fds[FdName.OUTPUT_FILE] if isinstance(job, InteractiveCommand) else None
            outcome = _outcome(reply, fds, limits, token, told)
            if reply.retire:  # the run is judged; the slot it dirtied is not used again
                self._safe_restart()
            return outcome
        finally:
            for fd in fds.values():
                os.close(fd)

    @staticmethod
    def _python_request(job: PythonProgram, fds: dict[FdName, int]) -> tuple[RunKind, dict[str, Any]]:
        kind = HARNESS_KINDS[job.harness]
        fds[FdName.CODE] = _memfd(FdName.CODE, job.code.encode("utf-8", "surrogateescape"))
        if kind is RunKind.PYTHON_ASSERT:
            fds[FdName.TEST] = _memfd(FdName.TEST, (job.test_code or "").encode("utf-8", "surrogateescape"))
        if kind is RunKind.PYTHON_CALL:
            fds[FdName.ARGS] = _memfd(FdName.ARGS, job.args_json.encode())
            return kind, {"fn_name": job.fn_name}
        return kind, {}

    def _exchange(self, request: protocol.RunRequest, fds: list[int], timeout: float) -> protocol.RunReply:
        try:
            self._deliver(request, fds)
            reply = self._receive(timeout)
        except OSError as exc:
            self._safe_restart()
            raise SlotFailure(ABORTED if self._aborted else f"lost contact with the worker: {exc}") from exc
        if reply is None:
            self._safe_restart()
            raise SlotFailure(ABORTED if self._aborted else "the worker process died while running the job")
        try:
            return protocol.RunReply.from_wire(reply)
        except (TypeError, ValueError) as exc:
            self._safe_restart()
            raise SlotFailure(f"the worker sent an unreadable reply: {exc}") from exc

    def _exchange_in_folders(self, request: protocol.RunRequest, fds: list[int], timeout: float,
                             tops: list[str]) -> protocol.RunReply:
        """The exchange, with the run's folders at absolute paths made before it and gone after it."""
        if not tops:
            return self._exchange(request, fds, timeout)
        self._ask_mounter({"op": Op.MOUNT.value, "tops": tops})
        try:
            return self._exchange(request, fds, timeout)
        finally:
            try:  # (a slot restarted by the exchange has none left to unmount)
                self._ask_mounter({"op": Op.UNMOUNT.value})
            except FoldersUnavailable:  # a slot that cannot clean up after a run runs nothing more
                self._safe_restart()

    def _ask_mounter(self, request: dict[str, Any]) -> None:
        try:
            if self._mounter is None:
                raise OSError("the slot is not running")
            protocol.send(self._mounter, request)
            self._mounter.settimeout(BOOT_TIMEOUT)
            reply, extra = protocol.recv(self._mounter, 4096)
            for fd in extra:
                os.close(fd)
        except (OSError, ValueError) as exc:
            raise FoldersUnavailable(f"the run's folders at absolute paths could not be made: {exc}") from exc
        if reply is None or "error" in reply:
            why = reply["error"] if reply else "the slot's outer process has gone"
            raise FoldersUnavailable(f"the run's folders at absolute paths could not be made: {why}")

    def _deliver(self, request: protocol.RunRequest, fds: list[int]) -> None:
        """Send a job; a worker that died while idle is replaced and the job sent again (it never ran)."""
        message = request.to_wire()
        try:
            if self._sock is None:
                raise OSError("the slot is not running")
            protocol.send(self._sock, message, fds)
        except OSError:
            self.restart()
            assert self._sock is not None
            protocol.send(self._sock, message, fds)

    def _receive(self, timeout: float) -> dict[str, Any] | None:
        assert self._sock is not None
        self._sock.settimeout(timeout)
        try:
            message, extra = protocol.recv(self._sock)
        except TimeoutError as exc:
            raise OSError("the worker did not answer in time") from exc
        for fd in extra:
            os.close(fd)
        return message

    def _safe_restart(self) -> None:
        try:
            self.restart()
        except Exception:
            self.close()


def _run_limits(limits: Limits) -> protocol.RunLimits:
    return protocol.RunLimits(cpu_time=limits.cpu_time, wall_time=limits.wall_backstop, run_time=limits.run_time,
                              memory_mb=limits.memory_mb,
                              output_bytes=limits.output_bytes, processes=limits.processes,
                              file_size_bytes=limits.file_size_bytes, open_files=limits.open_files,
                              returned_output_bytes=limits.returned_output_bytes)


def _outcome(reply: protocol.RunReply, fds: dict[FdName, int], limits: Limits, token: bytes,
             interactor_output: int | None) -> RunOutcome:
    """The run as the judge sees it. Only the zygote's reply, the notes of the run's judge code and the
    report (with its token) are believed; what is read is bounded whatever the program did to its
    descriptors (a sparse 64 MiB file costs the program nothing and would cost the judge 64 MiB)."""
    if reply.error is not None:
        return RunOutcome(system_error=reply.error)
    note = reply.note()
    if note is not None and note.kind is Note.SETUP_FAILED:
        return RunOutcome(system_error=f"the run could not be set up: {note.detail}")
    if note is not None and note.kind is Note.TEST_COMPILE_ERROR:  # the caller's tests, never the program's fault
        return RunOutcome(system_error="the test code does not compile: " + note.detail)
    if note is not None and note.kind is Note.COMPILE_ERROR:
        return RunOutcome(compile_error=note.detail, cpu_time=reply.cpu)
    if not reply.started and reply.stopped in ("cpu", "run", "wall"):
        # Stopped by the caller's limit before the program began: a limit shorter than a run's setup (a
        # run_timeout of 1 ms) is a time limit like any other, not the judge failing.
        return RunOutcome(signal=reply.signal, cpu_time=reply.cpu, wall_time=reply.wall, memory_bytes=reply.memory,
                          stopped=reply.stopped)  # type: ignore[arg-type]
    if not reply.started:
        return RunOutcome(system_error=f"the run ended during its setup (exit code {reply.exit_code}, "
                                       f"signal {reply.signal})")
    stdout, stdout_length = _read_bounded(fds[FdName.STDOUT], limits.output_bytes)
    stderr, stderr_length = _read_bounded(fds[FdName.STDERR], min(limits.returned_output_bytes, limits.output_bytes))
    report, report_length = _read_bounded(fds[FdName.RESULT], report_bound(limits))
    token_ok = bool(token) and report_length == len(report) and report.endswith(token)
    fetched = json.loads(_read_bounded(fds[FdName.FETCHED], 2 * limits.returned_output_bytes + 4096)[0] or b"{}") \
        if FdName.FETCHED in fds else {}
    # The interactor's output file (the solution never holds it), bounded as stdout is
    told, told_length = _read_bounded(interactor_output, limits.output_bytes) if interactor_output is not None \
        else (b"", 0)
    return RunOutcome(
        exit_code=reply.exit_code, signal=reply.signal, cpu_time=reply.cpu, wall_time=reply.wall,
        memory_bytes=reply.memory, stdout=stdout, stderr=stderr, stdout_length=stdout_length,
        stderr_length=stderr_length,
        output_limit_exceeded=max(stdout_length, stderr_length) > limits.output_bytes or report_length > len(report),
        stopped=reply.stopped,  # type: ignore[arg-type]
        out_of_memory=reply.oom, harness=report[: -len(token)] if token_ok else report, token_ok=token_ok,
        missing_function=note is not None and note.kind is Note.MISSING_FUNCTION, files=fetched,
        interactor_output=told, interactor_output_length=told_length)


def report_bound(limits: Limits) -> int:
    """How much of a run's report the judge reads: a call case's value as JSON. Decoding JSON costs many
    times its size in objects, so the bound is a small share of the output cap."""
    return max(64 * 1024, limits.output_bytes // 32)


def _read_bounded(fd: int, bound: int) -> tuple[bytes, int]:
    """At most ``bound`` bytes from the start of a memfd, and the file's whole length."""
    size = os.fstat(fd).st_size
    wanted = min(size, bound)
    chunks, offset = [], 0
    while offset < wanted:
        chunk = os.pread(fd, min(wanted - offset, 16 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks), size


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(f"judgebox-{name}", os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _trusted_workdir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="judgebox-trusted-")

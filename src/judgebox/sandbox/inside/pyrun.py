"""The Python side of a run: executes a submission in a forked, already confined child. Never returns.

Four harnesses, by the run's kind (``protocol.PYTHON_KINDS``):

- ``stdio``: run the program as ``python solution.py`` would, and exit with its status;
- ``assert``: the program runs in a process of its own (``split``) and the test code here, calling it
  through proxies; a pass is the per-case token copied into the result fd after the last test statement,
  and the program's process has neither the token, nor the result fd, nor the tests;
- ``call``: the same split; the function's return value comes back as data and goes to the judge
  through the result fd (not stdout, so debug prints do not matter); the judge compares values;
- ``jupyter``: no program of its own: this process drives a Jupyter kernel through the cells
  (``jupyter.py``) and passes on their outputs as the call harness passes on a value.

The token never becomes a Python object even here: it stays in a memfd that the harness copies with
``sendfile``.
"""

from __future__ import annotations

import builtins
import gc
import io
import json
import linecache
import os
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from os import _exit, ftruncate, lseek, pwrite, sendfile  # bound before user code can patch os
from typing import TYPE_CHECKING

from . import files, jupyter, kernel, landlock, protocol, returned, split
from .protocol import JUDGE_ONLY, Fd, FdName, Note, RunKind, RunNote, RunRequest

if TYPE_CHECKING:
    from types import CodeType, TracebackType

_BUILTINS = builtins
SOLUTION_FILE = "solution.py"
TEST_FILE = "tests.py"
def prepare(nested_domains: bool) -> None:
    """Once, in the zygote: work every run would otherwise repeat (each page a run touches costs it a
    copy-on-write fault, so what can be done before the fork is done there). ``nested_domains``: runs
    are in a Landlock domain, and the program's process of a split run gets one nested in it."""
    global _STREAMS, _NESTED_DOMAINS
    _STREAMS = _stdio_streams()
    _NESTED_DOMAINS = nested_domains
    for name in [n for n in sys.modules if n.startswith("_judgebox")]:
        del sys.modules[name]  # judgebox's own modules are not the program's to import
    gc.freeze()  # what the zygote holds is never collected: a run's collection walks only its own objects


def run(sources: dict[FdName, bytes], request: RunRequest, control: socket.socket) -> None:
    """``control`` is the run's control channel: notes go there, and it is closed before program code
    runs in a process that holds it. The setup is over: what happens from here on (compiling the
    program first, which a 2 MB source can make slow or large) is the program's doing, so a run killed
    from here on is judged by its limits, never as the judge's failure."""
    global _CONTROL
    _CONTROL = control
    protocol.send(control, protocol.STARTED)
    stdin, stdout, stderr = _STREAMS
    # typeshed has sys.__stdin__ & co Final; the harness points them at the run's streams on purpose
    sys.stdin = sys.__stdin__ = stdin  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = stdout  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = stderr  # type: ignore[misc]
    sys.argv = [SOLUTION_FILE]
    try:
        _judge(sources, request, stdout, stderr)
    except BaseException as exc:
        _print_exception(exc)
    _leave(1, stdout, stderr)


def _judge(sources: dict[FdName, bytes], request: RunRequest, stdout: io.TextIOWrapper,
           stderr: io.TextIOWrapper) -> None:
    kind = request.kind
    if kind is RunKind.PYTHON_JUPYTER:  # the cells run in a kernel of their own; this process is their driver
        try:
            payload = jupyter.run_cells(sources[FdName.CODE], _NESTED_DOMAINS)
        except jupyter.SetupFailed as exc:
            _tell_judge(Note.SETUP_FAILED, str(exc))
            _exit(1)
        _pass(payload, stdout, stderr)
    code = _compile(sources[FdName.CODE], SOLUTION_FILE, Note.COMPILE_ERROR)
    main = type(sys)("__main__")
    main.__dict__.update(__builtins__=_BUILTINS, __file__=SOLUTION_FILE)
    sys.modules["__main__"] = main

    # Assert and call cases: the program runs in a process of its own (split), this one tests it.
    if kind is RunKind.PYTHON_ASSERT:
        _run_split(code, main.__dict__, stdout, stderr, _assert)
    if kind is RunKind.PYTHON_CALL:
        fn_name = request.fn_name
        assert fn_name is not None  # a call request is refused without one (protocol.KIND_FIELDS)
        _run_split(code, main.__dict__, stdout, stderr,
                   lambda channel: _call(split.tests_namespace(channel), fn_name, sources[FdName.ARGS]))
    stdio = kind is RunKind.PYTHON_STDIO  # decided before program code runs here (it could rebind RunKind)
    _let_go_of_judge_channels()  # stdio: this process runs the program itself
    status = _execute(code, main.__dict__)
    if stdio:
        del main  # the program's module must become garbage for its finalizers to run (below)
        _finish_like_python(status, stdout, stderr)
    if status is not None:  # the program exited or failed before the harness could test it
        _leave(status, stdout, stderr)


def _run_split(code: CodeType, namespace: dict, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper,
               test: Callable[[split.Channel], tuple[int | None, bytes]]) -> None:
    """Fork the program's process, run ``test`` here against it, pass on ``test``'s payload."""
    tests_end, program_end = socket.socketpair()
    kernel.prctl(kernel.PR_SET_DUMPABLE, 0)  # before the fork: the program's process must never read this one
    pid = split.fork_program((tests_end, program_end), JUDGE_ONLY)
    if pid == 0:  # the program's process: no token, no report, no tests (never read here), no control channel
        _CONTROL.detach()  # its descriptor was closed with the others
        if _NESTED_DOMAINS:  # it can neither read nor signal the tests' process
            landlock.enter_nested_domain()
        kernel.prctl(kernel.PR_SET_DUMPABLE, 1)  # its own /proc files are its own again
        status = _execute(code, namespace)
        if status is None:
            split.program_side(program_end, namespace)
        _leave(status or 0, stdout, stderr)
    channel = split.Channel(tests_end)
    try:
        status, payload = test(channel)
    except (EOFError, OSError):  # the program ended (or exited) before the tests could start
        _leave(_wait_status(pid), stdout, stderr)
    tests_end.close()
    if channel.broken:  # it broke the protocol: nothing it does from here on can change the verdict
        os.kill(pid, signal.SIGKILL)
    program_status = _wait_status(pid)  # its output is complete once it has gone
    if channel.gone:  # the program left while being tested: its exit status is the run's
        _leave(program_status, stdout, stderr)
    if status is not None:
        _leave(status, stdout, stderr)
    _pass(payload, stdout, stderr)


def _assert(channel: split.Channel) -> tuple[int | None, bytes]:
    """The tests, read and compiled only now, in the tests' process, run on the program's names."""
    test = _compile(files.read_all(Fd.TESTS), TEST_FILE, Note.TEST_COMPILE_ERROR)
    names = split.tests_namespace(channel, split.names_used(test))
    return _execute(test, names, assertion_note=True), protocol.PASS


def _wait_status(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) & 0xFF


def _compile(source: bytes, filename: str, failure_note: Note) -> CodeType:
    text = source.decode("utf-8", "surrogateescape")
    try:
        code = compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        message = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        _tell_judge(failure_note, message)
        _exit(1)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # for tracebacks
    return code


def _execute(code: CodeType, namespace: dict, assertion_note: bool = False) -> int | None:
    """Run ``code``; ``None`` when it ran to its end, else the exit status it left with."""
    try:
        exec(code, namespace)
    except SystemExit as exc:
        return _exit_status(exc)
    except BaseException as exc:
        _uncaught(exc)
        if assertion_note and isinstance(exc, AssertionError):
            _report(protocol.ASSERTION_FAILED)
        return 1
    return None


def _call(names: dict, fn_name: str, args_json: bytes) -> tuple[int | None, bytes]:
    """Call the program's function (a method of ``Solution`` first) and return its value as data."""
    solution = names.get("Solution")
    try:
        if solution is not None and hasattr(solution, fn_name):
            target = getattr(solution(), fn_name)
        elif callable(names.get(fn_name)):
            target = names[fn_name]
        else:
            sys.stderr.write(f"judgebox: the program defines no function or Solution method {fn_name!r}\n")
            _tell_judge(Note.MISSING_FUNCTION, fn_name)
            return 1, b""
        value = target(*json.loads(args_json))
        return None, returned.dumps(value)
    except Exception as exc:  # raised in the program's process, or that process has gone
        _print_exception(exc)
        return 1, b""


def _pass(payload: bytes, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> None:
    """The tests' process's pass: the payload line, then the token (only this process holds either fd)."""
    _flush(stdout, stderr)
    _report(payload)
    lseek(Fd.REPORT, len(payload) + 1, os.SEEK_SET)
    sendfile(Fd.REPORT, Fd.TOKEN, 0, protocol.TOKEN_BYTES)
    _exit(0)


def _report(line: bytes) -> None:
    ftruncate(Fd.REPORT, 0)
    pwrite(Fd.REPORT, line + b"\n", 0)


def _tell_judge(kind: Note, detail: str) -> None:
    try:
        protocol.send(_CONTROL, RunNote(kind, detail).to_wire())
    except OSError:  # the channel is closed only where program code runs, and none has run where we note
        pass


def _let_go_of_judge_channels() -> None:
    """Before this process runs program code: it must hold nothing the judge believes."""
    _CONTROL.close()
    for fd in (Fd.REPORT, Fd.TOKEN, Fd.TESTS):
        try:
            os.close(fd)
        except OSError:
            pass


def _finish_like_python(status: int | None, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> None:
    """What the interpreter does on the way out: wait for threads, run atexit hooks, flush, then let the
    program's module go and collect it, so that its objects' finalizers run with their globals intact
    (contest templates keep output in an object whose ``__del__`` writes it)."""
    import atexit
    import threading

    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    except BaseException as exc:
        _print_exception(exc)
    _flush(stdout, stderr)
    try:
        sys.modules.pop("__main__", None)
        gc.collect()
    except BaseException as exc:
        _print_exception(exc)
    _leave(0 if status is None else status, stdout, stderr)


def _leave(status: int, stdout: io.TextIOWrapper | None, stderr: io.TextIOWrapper | None) -> None:
    _flush(stdout, stderr)
    _exit(status & 0xFF)


def _flush(*streams: object) -> None:
    for stream in (sys.stdout, sys.stderr, *streams):
        try:
            stream.flush()  # type: ignore[union-attr]
        except BaseException:
            pass


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return int.__int__(code)  # the value itself, as the interpreter takes it, whatever the subclass says
    try:
        sys.stderr.write(f"{code}\n")
    except BaseException:
        pass
    return 1


def _uncaught(exc: BaseException) -> None:
    """An exception the program did not catch, reported as the interpreter does: through the program's
    own ``sys.excepthook`` if it set one."""
    hook = sys.excepthook
    if hook is sys.__excepthook__:
        _print_exception(exc)
        return
    try:
        hook(type(exc), exc, _program_frames(exc))
    except BaseException:
        _print_exception(exc)


def _print_exception(exc: BaseException) -> None:
    """The traceback as ``python solution.py`` would print it: the harness's own frames (and with them
    where judgebox is installed) left out."""
    try:
        traceback.print_exception(type(exc), exc, _program_frames(exc), file=sys.__stderr__)
    except BaseException:
        pass


def _program_frames(exc: BaseException) -> TracebackType | None:
    frames = exc.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename not in (SOLUTION_FILE, TEST_FILE):
        frames = frames.tb_next
    return frames


def _stdio_streams() -> tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper]:
    """Fresh text streams on fds 0-2, which each run points at its own memfds before using them."""
    def stream(fd: int, mode: str, errors: str, line_buffering: bool = False) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        text = io.TextIOWrapper(buffered, encoding="utf-8", errors=errors, line_buffering=line_buffering)
        # as open() sets it: the common FastIO template reads sys.stdout.mode (typeshed: a read-only property)
        text.mode = mode  # type: ignore[misc]
        return text

    return (stream(0, "r", "surrogateescape"), stream(1, "w", "surrogateescape"),
            stream(2, "w", "backslashreplace", line_buffering=True))


_STREAMS: tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper]
_NESTED_DOMAINS = False
_CONTROL: socket.socket

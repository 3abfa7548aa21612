"""The Python side of a run: executes a submission in a forked, already confined child. Never returns.

Three harnesses, by the case's kind:

- ``stdio``: run the program as ``python solution.py`` would, and exit with its status;
- ``assert``: run the program, then the test code; a pass needs positive evidence, the per-case token
  copied into the result fd *after* the last test statement, so leaving early (``sys.exit(0)``,
  ``os._exit(0)``, ``raise SystemExit``, an atexit hook) can never pass;
- ``call``: run the program, call the function, and send its return value to the judge through the
  result fd (not stdout, so debug prints do not matter); the judge compares values.

The token never becomes a Python object in this process: it stays in a memfd that the harness copies
with ``sendfile``, so it cannot be found by walking frames or the heap.
"""

from __future__ import annotations

import builtins
import io
import json
import linecache
import os
import sys
import traceback
from os import _exit, ftruncate, lseek, pwrite, sendfile  # bound before user code can patch os

from .confine import RESULT_FD, TOKEN_FD

_BUILTINS = builtins
TOKEN_BYTES = 32
SOLUTION_FILE = "solution.py"
TEST_FILE = "tests.py"
# Modules whose state the assert code may rely on; restored from the zygote's snapshot before it runs.
GUARDED_MODULES = ("builtins", "math", "cmath", "operator", "re", "string", "json", "json.encoder",
                   "json.decoder", "json.scanner", "functools", "itertools", "collections", "random", "os")


def snapshot_modules() -> dict[str, tuple[object, dict]]:
    return {name: (sys.modules[name], dict(sys.modules[name].__dict__))
            for name in GUARDED_MODULES if name in sys.modules}


def prepare() -> None:
    """Once, in the zygote: work every run would otherwise repeat (each page a run touches costs it a
    copy-on-write fault, so what can be done before the fork is done there)."""
    global _STREAMS
    _STREAMS = _stdio_streams()
    for name in [n for n in sys.modules if n.startswith("_judgebox")]:
        del sys.modules[name]  # judgebox's own modules are not the program's to import


def run(sources: dict[str, bytes], harness: dict, snapshot: dict[str, tuple[object, dict]]) -> None:
    stdin, stdout, stderr = _STREAMS
    sys.stdin = sys.__stdin__ = stdin
    sys.stdout = sys.__stdout__ = stdout
    sys.stderr = sys.__stderr__ = stderr
    sys.argv = [SOLUTION_FILE]
    try:
        _judge(sources, harness, snapshot, stdout, stderr)
    except BaseException as exc:
        _print_exception(exc)
    _leave(1, stdout, stderr)


def _judge(sources: dict[str, bytes], harness: dict, snapshot: dict[str, tuple[object, dict]],
           stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> None:
    kind = harness["kind"]
    code = _compile(sources["code"], SOLUTION_FILE, b"compile-error")
    test = _compile(sources["test"], TEST_FILE, b"test-compile-error") if kind == "assert" else None
    main = type(sys)("__main__")
    main.__dict__.update(__builtins__=_BUILTINS, __file__=SOLUTION_FILE)
    sys.modules["__main__"] = main

    status = _execute(code, main.__dict__)
    if kind == "stdio":
        _finish_like_python(status, stdout, stderr)
    if status is not None:  # the program exited or failed before the harness could test it
        _leave(status, stdout, stderr)
    if kind == "assert":
        _restore(snapshot)
        main.__dict__["__builtins__"] = _BUILTINS
        status = _execute(test, main.__dict__, assertion_note=True)
        if status is not None:
            _leave(status, stdout, stderr)
        _pass(b"asserts", stdout, stderr)
    if kind == "call":
        value = _call(main.__dict__, harness["fn_name"], sources["args"])
        _restore(snapshot)
        _pass(json.dumps({"value": value}, default=_encode_other, allow_nan=True).encode(), stdout, stderr)


def _compile(source: bytes, filename: str, failure_note: bytes) -> object:
    text = source.decode("utf-8", "surrogateescape")
    try:
        code = compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        message = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        _note(failure_note + b"\n" + message.encode("utf-8", "replace"))
        _exit(1)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # for tracebacks
    return code


def _execute(code: object, namespace: dict, assertion_note: bool = False) -> int | None:
    """Run ``code``; ``None`` when it ran to its end, else the exit status it left with."""
    try:
        exec(code, namespace)
    except SystemExit as exc:
        return _exit_status(exc)
    except BaseException as exc:
        _print_exception(exc)
        if assertion_note and isinstance(exc, AssertionError):
            _note(b"assertion-failed")
        return 1
    return None


def _call(namespace: dict, fn_name: str, args_json: bytes) -> object:
    solution = namespace.get("Solution")
    target = None
    if isinstance(solution, type) and hasattr(solution, fn_name):
        try:
            target = getattr(solution(), fn_name)
        except BaseException as exc:
            _print_exception(exc)
            _leave(1, None, None)
    elif callable(namespace.get(fn_name)):
        target = namespace[fn_name]
    if target is None:
        sys.stderr.write(f"judgebox: the program defines no function or Solution method {fn_name!r}\n")
        _note(b"missing-function")
        _leave(1, None, None)
    try:
        value = target(*json.loads(args_json))
    except SystemExit as exc:
        _leave(_exit_status(exc), None, None)
    except BaseException as exc:
        _print_exception(exc)
        _leave(1, None, None)
    return value


def _encode_other(value: object) -> object:
    if isinstance(value, (set, frozenset)):
        try:
            return sorted(value)
        except TypeError:
            return list(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return {"__repr__": repr(value)}


def _pass(payload: bytes, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> None:
    _flush(stdout, stderr)
    ftruncate(RESULT_FD, 0)  # drop anything the program wrote here itself
    pwrite(RESULT_FD, payload + b"\n", 0)
    lseek(RESULT_FD, len(payload) + 1, os.SEEK_SET)
    sendfile(RESULT_FD, TOKEN_FD, 0, TOKEN_BYTES)
    _exit(0)


def _note(note: bytes) -> None:
    ftruncate(RESULT_FD, 0)
    pwrite(RESULT_FD, note + b"\n", 0)


def _finish_like_python(status: int | None, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> None:
    """What the interpreter does on the way out: wait for threads, run atexit hooks, flush."""
    import atexit
    import threading

    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
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


def _print_exception(exc: BaseException) -> None:
    """The traceback as ``python solution.py`` would print it: the harness's own frames (and with them
    where judgebox is installed) left out."""
    frames = exc.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename not in (SOLUTION_FILE, TEST_FILE):
        frames = frames.tb_next
    try:
        traceback.print_exception(type(exc), exc, frames, file=sys.__stderr__)
    except BaseException:
        pass


def _restore(snapshot: dict[str, tuple[object, dict]]) -> None:
    for name, (module, namespace) in snapshot.items():
        sys.modules[name] = module  # type: ignore[assignment]
        module.__dict__.clear()
        module.__dict__.update(namespace)


def _stdio_streams() -> tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper]:
    """Fresh text streams on fds 0-2, which each run points at its own memfds before using them."""
    def stream(fd: int, mode: str, errors: str, line_buffering: bool = False) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(buffered, encoding="utf-8", errors=errors, line_buffering=line_buffering)

    return (stream(0, "r", "surrogateescape"), stream(1, "w", "surrogateescape"),
            stream(2, "w", "backslashreplace", line_buffering=True))


_STREAMS: tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper]

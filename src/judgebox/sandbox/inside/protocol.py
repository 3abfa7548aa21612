"""The one protocol between the judge, a slot's zygote and a run: descriptors, notes, messages.

Both sides import this module (the judge as ``judgebox.sandbox.inside.protocol``, the zygote from its own
copy of the package), so every descriptor number, note and message field is declared here once.

Three channels carry what the judge believes, and the program's own code never holds any of them:

- the slot socket (judge <-> zygote): one JSON message per SEQPACKET datagram, fds alongside: the slot's
  config and the zygote's ``Op.READY`` once, at boot; then per run a :class:`RunRequest` in (which the
  zygote reads, and the run it forks for it inherits) and a :class:`RunReply` out;
- a run's control channel (the run's judge code -> zygote): :class:`Note` records from the code that sets a
  run up (the compile step of Python, the tests' process of a split run). It is closed before any program
  code runs in that process (or on exec), so a note is always the judge's own observation;
- ``Fd.REPORT`` of a run: written only by judge code that never runs program code (the tests' process of
  a split run); a pass is a :data:`PASS` payload line followed by the run's token from ``Fd.TOKEN``.

Bulk data (code, stdin, stdout, stderr, reports) never travels in a message: it lives in memfds whose
descriptors are passed with the message, so a 60 MiB output costs no copy here.

Every name on the wire is one of a closed set (:class:`Op`, :class:`RunKind`, :class:`FdName`,
:class:`Note`) and every record is read field by field: a message with a field or a name this module does
not declare is refused, never guessed at (isolate's meta file and go-sandbox's commands are closed in the
same way). The two ends are ours, so a refusal is a bug on one of them, and it shows as one.
"""

from __future__ import annotations

import enum
import json
import math
import os
import socket
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields

MAX_MESSAGE = 1 << 20
MAX_FDS = 12
TOKEN_BYTES = 32
NOTE_DETAIL_CHARS = 8000  # a compiler's first errors are the useful ones
CONTROL_MESSAGE = 64 * 1024  # a note, JSON-escaped, fits


class WireName(str, enum.Enum):
    """A closed set of names that cross the wire as strings. ``str()`` and f-strings give the name itself,
    as ``enum.StrEnum``'s do (3.11+, and the sandbox's Python may be 3.10)."""

    def __str__(self) -> str:
        return self.value


class Fd(enum.IntEnum):
    """Descriptor numbers inside a run."""

    STDIN = 0
    STDOUT = 1
    STDERR = 2
    REPORT = 3  # the tests' verdict (pass payload + token); held by judge code only, closed on exec
    TOKEN = 4  # the per-case pass token; held by judge code only, closed on exec
    PROGRAM = 5  # a built program or archive in a sealed memfd, run as /proc/self/fd/5 (kept across exec)
    TESTS = 6  # an assert case's tests, read by the tests' process alone
    CHANNEL = 7  # split runs: the program's process <-> the tests' process
    CONTROL = 8  # the run's control channel to the zygote (notes); closed before program code, and on exec
    # A checker's three files (``checker /proc/self/fd/9 /proc/self/fd/10 /proc/self/fd/11``): the case's
    # input, the solution's output and the expected answer, copies made by the judge after the solution's
    # run ended. An interactive run's input file (its secret) is held by the interactor's process alone.
    INPUT_FILE = 9
    OUTPUT_FILE = 10
    ANSWER_FILE = 11


JUDGE_ONLY = (Fd.REPORT, Fd.TOKEN, Fd.TESTS, Fd.CONTROL)  # what a process running program code never holds


class FdName(WireName):
    """The descriptors passed with a :class:`RunRequest`, named in ``fd_names`` in the order they travel.
    ``confine`` puts each at its number in the run; the zygote reads or writes the rest itself."""

    STDIN = "stdin"  # at Fd.STDIN (and the two below at theirs)
    STDOUT = "stdout"
    STDERR = "stderr"
    RESULT = "result"  # Fd.REPORT
    TOKEN = "token"  # Fd.TOKEN: runs whose report the judge believes (not a plain command's)
    PROGRAM = "program"  # Fd.PROGRAM: the built program, lent by the judge
    TEST = "test"  # Fd.TESTS: the tests (a split or Python assert run), or an interactive run's interactor
    CODE = "code"  # a Python run's source, read by the run itself before it is confined
    ARGS = "args"  # a Python call run's arguments, as JSON
    FILES = "files"  # {path: base64} the run's judge code places in the work folder
    FETCHED = "fetched"  # where the zygote writes the files of ``RunRequest.fetch`` it brought back
    INPUT_FILE = "input_file"  # at Fd.INPUT_FILE (and the two below at theirs): a checker's three files
    OUTPUT_FILE = "output_file"
    ANSWER_FILE = "answer_file"


EVERY_RUN_FDS = (FdName.STDIN, FdName.STDOUT, FdName.STDERR, FdName.RESULT)  # no run goes without these


class Op(WireName):
    """The ``op`` of a control message. Each is sent by one side of one channel and read by the other."""

    # A slot's zygote -> the judge, once, at boot.
    READY = "ready"  # booted (its layers, its Python)
    FAILED = "failed"  # could not boot (its error)
    # A run's judge code -> the zygote, on the run's control channel (``Fd.CONTROL``).
    STARTED = "started"
    NOTE = "note"
    # The judge -> a slot's outer process (``abspaths.serve``), around a run with absolute paths.
    MOUNT = "mount"
    UNMOUNT = "unmount"


class Note(WireName):
    """What a run's judge code reports on its control channel."""

    COMPILE_ERROR = "compile-error"  # the program does not compile (Python): CE
    TEST_COMPILE_ERROR = "test-compile-error"  # the caller's tests do not compile: SE, never the program's fault
    SETUP_FAILED = "setup-failed"  # the run could not be set up or exec'd: SE
    MISSING_FUNCTION = "missing-function"  # a call case names a function the program does not define: RE


STARTED = {"op": Op.STARTED.value}  # the run's judge code is done: program code (or an exec) comes next
PASS = b"asserts"  # the payload of a passed assert case (a call case's payload is its value as JSON)
ASSERTION_FAILED = b"assertion-failed"  # the tests' process saw an assertion fail (the message only)


@dataclass(frozen=True)
class RunNote:
    kind: Note
    detail: str = ""

    def to_wire(self) -> dict:
        return {"op": Op.NOTE.value, "kind": self.kind.value, "detail": self.detail[:NOTE_DETAIL_CHARS]}

    @classmethod
    def from_wire(cls, message: dict) -> RunNote:
        return cls(Note(message["kind"]), str(message.get("detail", "")))


class RunKind(WireName):
    """What a run is, which the request names (it is never inferred from the fields a request has). Each
    kind has fields of its own (``KIND_FIELDS``), which a request of any other kind never has."""

    COMMAND = "command"  # exec ``argv`` (a Command, or a CheckerCommand with its three files)
    SPLIT = "split"  # the program's process execs ``argv``, the tests' process ``tests_argv`` (zygote._split_exec)
    INTERACTIVE = "interactive"  # the solution execs ``argv``, the interactor ``interactor_argv`` (interaction)
    # Python source (FdName.CODE) in a fork of the warm interpreter, under one of pyrun's harnesses
    PYTHON_STDIO = "python-stdio"
    PYTHON_ASSERT = "python-assert"  # the tests at FdName.TEST
    PYTHON_CALL = "python-call"  # the function ``fn_name``, its arguments at FdName.ARGS
    PYTHON_JUPYTER = "python-jupyter"  # the cells (JSON at FdName.CODE) in a Jupyter kernel (inside/jupyter.py)


PYTHON_KINDS = frozenset({RunKind.PYTHON_STDIO, RunKind.PYTHON_ASSERT, RunKind.PYTHON_CALL, RunKind.PYTHON_JUPYTER})
_EXEC_FIELDS = frozenset({"argv", "env"})
KIND_FIELDS: dict[RunKind, frozenset[str]] = {
    RunKind.COMMAND: _EXEC_FIELDS,
    RunKind.SPLIT: _EXEC_FIELDS | {"tests_argv"},
    RunKind.INTERACTIVE: _EXEC_FIELDS | {"interactor_argv"},
    RunKind.PYTHON_STDIO: frozenset(),
    RunKind.PYTHON_ASSERT: frozenset(),
    RunKind.PYTHON_CALL: frozenset({"fn_name"}),
    RunKind.PYTHON_JUPYTER: frozenset(),
}
_KINDS_OWN_FIELDS = frozenset().union(*KIND_FIELDS.values())


@dataclass(frozen=True)
class RunLimits:
    """A run's limits as the zygote enforces them: the judge's ``Limits`` with its wall-time backstop
    resolved. Every field is sent, ``run_time`` as null when it is off."""

    cpu_time: float  # seconds of CPU, every process of the run together
    wall_time: float  # the backstop for a run that sleeps or blocks
    run_time: float | None  # real time less waiting for a CPU (runclock); None: no such limit
    memory_mb: int
    output_bytes: int  # each of stdout and stderr (and a file-mode case's output file)
    processes: int
    file_size_bytes: int
    open_files: int
    returned_output_bytes: int  # also the budget of the files fetched back

    def __post_init__(self) -> None:
        # Only the judge writes requests, from Limits it checked; a value no Limits can hold (NaN, infinite,
        # negative, or zero where zero is no limit at all) is refused here too, so a limit is never lost.
        for item in fields(self):
            value = getattr(self, item.name)
            least = 0 if item.name == "returned_output_bytes" else math.ulp(0)
            if value is not None and not (math.isfinite(value) and value >= least):
                raise ValueError(f"run limits: {item.name}: {value!r} is no limit")

    def to_wire(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_wire(cls, message: object) -> RunLimits:
        return cls(**_read_fields(cls, message, "run limits"))


@dataclass(frozen=True)
class RunRequest:
    """One run, as the judge asks a slot's zygote for it (the run the zygote forks for it inherits it). The
    descriptors travel beside the message, in the order of ``fd_names``."""

    kind: RunKind
    limits: RunLimits
    fd_names: tuple[FdName, ...]
    # The kinds' own fields (KIND_FIELDS): set in a request of a kind that has them, None in any other.
    argv: tuple[str, ...] | None = None  # argv[0] is an absolute path, or /proc/self/fd/5 (Fd.PROGRAM)
    env: dict[str, str] | None = None  # the exec'd programs' whole environment
    tests_argv: tuple[str, ...] | None = None
    interactor_argv: tuple[str, ...] | None = None
    fn_name: str | None = None
    # Any kind.
    fetch: tuple[str, ...] = ()  # files to bring back from the work folder into FdName.FETCHED
    output_file: str | None = None  # a file-mode case's output file: read back in place of stdout
    tops: tuple[str, ...] = ()  # the top folders of the run's absolute paths (abspaths), made for it alone

    def __post_init__(self) -> None:
        present = {name for name in _KINDS_OWN_FIELDS if getattr(self, name) is not None}
        wanted = KIND_FIELDS[self.kind]
        if present != wanted:
            raise ValueError(f"a {self.kind} run request has the fields {sorted(wanted)}, "
                             f"not {sorted(present)}")
        if len(set(self.fd_names)) != len(self.fd_names):
            raise ValueError(f"a run request names a descriptor twice: {[str(n) for n in self.fd_names]}")
        missing = [str(name) for name in EVERY_RUN_FDS if name not in self.fd_names]
        if missing:
            raise ValueError(f"a run request without the descriptors {missing}")

    def to_wire(self) -> dict:
        """The message: every field but those at their defaults (None, or no names)."""
        message: dict = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.default is not MISSING and value == f.default:
                continue
            if isinstance(value, enum.Enum):
                value = value.value
            elif isinstance(value, RunLimits):
                value = value.to_wire()
            elif isinstance(value, tuple):
                value = [item.value if isinstance(item, enum.Enum) else item for item in value]
            elif isinstance(value, dict):
                value = dict(value)
            message[f.name] = value
        return message

    @classmethod
    def from_wire(cls, message: object) -> RunRequest:
        return cls(**_read_fields(cls, message, "a run request"))

    def exec_args(self, argv: tuple[str, ...] | None) -> tuple[str, tuple[str, ...], dict[str, str]]:
        """``os.execve``'s arguments for one of this request's command lines (``argv``, ``tests_argv`` or
        ``interactor_argv``), which a request of a kind that execs has, and ``env`` with them."""
        if not argv or self.env is None:
            raise ValueError(f"a {self.kind} run request has no such command line")
        return argv[0], argv, self.env

    def named(self, fds: list[int]) -> dict[FdName, int]:
        """The descriptors that came with this request, by name."""
        if len(fds) != len(self.fd_names):  # e.g. more than MAX_FDS were sent, and the rest cut off
            raise ValueError(f"a run request names {len(self.fd_names)} descriptors but came with {len(fds)}")
        return dict(zip(self.fd_names, fds))



@dataclass(frozen=True)
class RunReply:
    """The zygote's account of one run, from its own observation (and its judge code's notes)."""

    wall: float = 0.0
    cpu: float = 0.0
    memory: int = 0
    exit_code: int | None = None
    signal: int | None = None
    stopped: str | None = None  # "cpu" | "run" | "wall" | "output": why the zygote killed it
    oom: bool = False
    started: bool = False  # the run's judge code finished its setup (absent: the setup failed)
    notes: list[dict] = field(default_factory=list)  # RunNote.to_wire() records
    error: str | None = None  # the zygote could not run it at all
    retire: str | None = None  # the slot must not run anything more (the reply still stands)
    refused: str | None = None  # nothing ran and the slot has gone: send the job to a fresh slot

    def to_wire(self) -> dict:
        return RunReply.wire(**{f.name: getattr(self, f.name) for f in fields(self)})

    @staticmethod
    def wire(**values: object) -> dict:
        """The message for these fields, without building a record: the zygote sends one per run, and
        every page it writes after a fork costs a page fault."""
        unknown = values.keys() - _REPLY_DEFAULTS.keys()
        if unknown:
            raise ValueError(f"a run reply with unknown fields {sorted(unknown)}")
        return {key: value for key, value in values.items()
                if value is not _REPLY_DEFAULTS[key] and value != []}

    @classmethod
    def from_wire(cls, message: dict) -> RunReply:
        known = {f.name for f in fields(cls)}
        unknown = set(message) - known
        if unknown:
            raise ValueError(f"a run reply with unknown fields {sorted(unknown)}")
        return cls(**message)

    def note(self) -> RunNote | None:
        """The first note of the run's judge code, if it sent one."""
        return RunNote.from_wire(self.notes[0]) if self.notes else None


_REPLY_DEFAULTS = {f.name: (None if f.default is MISSING else f.default) for f in fields(RunReply)}


# -- reading a request's records field by field ------------------------------------------------------------
#
# A record's annotations are its wire schema: each names one reader below, which takes the JSON value
# (checked to be that type, exactly: a bool is not a number here) to the field's value. An annotation with
# no reader fails at import, so a new field cannot slip through unchecked.


def _read_fields(cls: type, message: object, what: str) -> dict:
    if type(message) is not dict:
        raise ValueError(f"{what} is a {type(message).__name__}, not an object")
    known = {f.name: f for f in fields(cls)}
    unknown = message.keys() - known.keys()
    if unknown:
        raise ValueError(f"{what} with unknown fields {sorted(unknown)}")
    missing = [name for name, f in known.items()
               if f.default is MISSING and f.default_factory is MISSING and name not in message]
    if missing:
        raise ValueError(f"{what} without the fields {missing}")
    values = {}
    for name, value in message.items():
        annotation = str(known[name].type)  # already a string: annotations here are never evaluated
        try:
            values[name] = _READERS[annotation](value)
        except ValueError as exc:  # a nested record's or a name's own account, else the type's
            why = str(exc) or f"a {type(value).__name__}, not {annotation}"
            raise ValueError(f"{what}: {name}: {why}") from None
    return values


def _exactly(*types: type) -> Callable[[object], object]:
    def read(value: object) -> object:
        if type(value) not in types:
            raise ValueError
        return value
    return read


def _optional(read: Callable[[object], object]) -> Callable[[object], object]:
    return lambda value: None if value is None else read(value)


def _strings(value: object) -> tuple[str, ...]:
    if type(value) is not list or any(type(item) is not str for item in value):
        raise ValueError
    return tuple(value)


def _environment(value: object) -> dict[str, str]:
    if type(value) is not dict or any(type(item) is not str for pair in value.items() for item in pair):
        raise ValueError
    return dict(value)


def _fd_names(value: object) -> tuple[FdName, ...]:
    return tuple(FdName(name) for name in _strings(value))


_READERS = {
    "float": _exactly(int, float),
    "float | None": _optional(_exactly(int, float)),
    "int": _exactly(int),
    "str | None": _optional(_exactly(str)),
    "tuple[str, ...]": _strings,
    "tuple[str, ...] | None": _optional(_strings),
    "dict[str, str] | None": _optional(_environment),
    "tuple[FdName, ...]": _fd_names,
    "RunKind": lambda value: RunKind(_exactly(str)(value)),
    "RunLimits": RunLimits.from_wire,
}
_unread = [f"{record.__name__}.{f.name}: {f.type}" for record in (RunLimits, RunRequest) for f in fields(record)
           if f.type not in _READERS]
if _unread:
    raise TypeError(f"fields with no wire reader: {_unread}")


def send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:  # type: ignore[assignment]
    data = json.dumps(message, separators=(",", ":")).encode()
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE}")
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def recv(sock: socket.socket, size: int = MAX_MESSAGE) -> tuple[dict | None, list[int]]:
    """The next message (of at most ``size`` bytes) and its fds, or ``(None, [])`` when the other side has
    gone."""
    data, fds, _flags, _addr = socket.recv_fds(sock, size, MAX_FDS)
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    return json.loads(data), fds


def drain(sock: socket.socket) -> list[dict]:
    """Every message still queued on ``sock`` (whose writers have all gone), without waiting."""
    messages: list[dict] = []
    sock.setblocking(False)
    while True:
        try:
            message, fds = recv(sock, CONTROL_MESSAGE)
        except (BlockingIOError, OSError, ValueError):
            return messages
        for fd in fds:
            os.close(fd)
        if message is None:
            return messages
        messages.append(message)

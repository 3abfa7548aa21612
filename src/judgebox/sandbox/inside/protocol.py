"""The one protocol between the judge, a slot's zygote and a run: descriptors, notes, messages.

Both sides import this module (the judge as ``judgebox.sandbox.inside.protocol``, the zygote from its own
copy of the package), so every descriptor number, note and message field is declared here once.

Three channels carry what the judge believes, and the program's own code never holds any of them:

- the slot socket (judge <-> zygote): one JSON message per SEQPACKET datagram, fds alongside;
- a run's control channel (the run's judge code -> zygote): :class:`Note` records from the code that sets a
  run up (the compile step of Python, the tests' process of a split run). It is closed before any program
  code runs in that process (or on exec), so a note is always the judge's own observation;
- ``Fd.REPORT`` of a run: written only by judge code that never runs program code (the tests' process of
  a split run); a pass is a :data:`PASS` payload line followed by the run's token from ``Fd.TOKEN``.

Bulk data (code, stdin, stdout, stderr, reports) never travels in a message: it lives in memfds whose
descriptors are passed with the message, so a 60 MiB output costs no copy here.
"""

from __future__ import annotations

import enum
import json
import os
import socket
from dataclasses import MISSING, dataclass, field, fields

MAX_MESSAGE = 1 << 20
MAX_FDS = 12
TOKEN_BYTES = 32
NOTE_DETAIL_CHARS = 8000  # a compiler's first errors are the useful ones
CONTROL_MESSAGE = 64 * 1024  # a note, JSON-escaped, fits


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


class Note(str, enum.Enum):
    """What a run's judge code reports on its control channel."""

    COMPILE_ERROR = "compile-error"  # the program does not compile (Python): CE
    TEST_COMPILE_ERROR = "test-compile-error"  # the caller's tests do not compile: SE, never the program's fault
    SETUP_FAILED = "setup-failed"  # the run could not be set up or exec'd: SE
    MISSING_FUNCTION = "missing-function"  # a call case names a function the program does not define: RE


STARTED = {"op": "started"}  # the run's judge code is done: program code (or an exec) comes next
PASS = b"asserts"  # the payload of a passed assert case (a call case's payload is its value as JSON)
ASSERTION_FAILED = b"assertion-failed"  # the tests' process saw an assertion fail (the message only)


@dataclass(frozen=True)
class RunNote:
    kind: Note
    detail: str = ""

    def to_wire(self) -> dict:
        return {"op": "note", "kind": self.kind.value, "detail": self.detail[:NOTE_DETAIL_CHARS]}

    @classmethod
    def from_wire(cls, message: dict) -> RunNote:
        return cls(Note(message["kind"]), str(message.get("detail", "")))


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
        every object it allocates while a spare is forked costs a copy-on-write fault."""
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
    messages = []
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

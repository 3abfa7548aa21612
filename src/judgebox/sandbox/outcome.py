"""What the sandbox tells about one run: a status record, never an exception for the program's doing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class RunOutcome:
    exit_code: int | None = None
    signal: int | None = None
    cpu_time: float = 0.0
    wall_time: float = 0.0
    memory_bytes: int = 0
    stdout: bytes = b""  # at most the output cap (what the checker needs)
    stderr: bytes = b""  # at most the returned-output bound (nothing checks it)
    stdout_length: int = 0  # what the program left in them, however much of it was read
    stderr_length: int = 0
    output_limit_exceeded: bool = False
    stopped: Literal["cpu", "run", "wall", "output"] | None = None  # why the supervisor killed it, if it did
    out_of_memory: bool = False
    harness: bytes = b""  # what a Python harness reported (result fd), token removed
    token_ok: bool = False  # the harness's pass token arrived intact
    missing_function: bool = False  # a call case's function is not in the program (the tests' process saw)
    files: dict[str, str] = field(default_factory=dict)  # fetched files, base64 by requested path
    # An interactive run's output file (testlib's ``tout``: what the interactor wrote for the problem's
    # checker), at most the output cap, and its whole length
    interactor_output: bytes = b""
    interactor_output_length: int = 0
    compile_error: str | None = None
    system_error: str | None = None  # the sandbox failed; the run says nothing about the program

    @property
    def stdout_truncated(self) -> bool:
        return self.stdout_length > len(self.stdout)

    @property
    def stderr_truncated(self) -> bool:
        return self.stderr_length > len(self.stderr)

    @property
    def clean_exit(self) -> bool:
        return self.exit_code == 0 and self.signal is None

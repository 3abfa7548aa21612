"""The records that flow through judgebox: limits, cases, submissions and their results.

All records are frozen and slotted: they are shared between threads and never change after creation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from judgebox.errors import InvalidCases, InvalidCode, InvalidLimits
from judgebox.verdicts import Verdict, headline

MiB = 1024 * 1024
MAX_CODE_BYTES = 4 * MiB  # larger "programs" are data dumps or attacks on the judge, not solutions
MAX_VALUE_DEPTH = 100  # call arguments and expected values nested deeper are not test data
# The bound of one record, wherever one is read: the request body judgebox serve takes by default (a record
# it could not be sent is not read whole either), a dataset's record or line, a server's answer or batch line
# as the client decodes it. A decompression bomb costs about this much before it is refused.
MAX_RECORD_BYTES = 64 * MiB


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits for one run of a program.

    TLE is decided on CPU time, so a busy machine does not fail a correct program; ``wall_time`` is only
    a backstop for programs that sleep or block (by default ``3 * cpu_time + 2`` seconds, generous so that
    a busy machine slows a program without failing it).

    ``run_time`` (off by default) is a wall-clock limit that a busy machine does not run down: the run's
    real time less the time its tasks waited for a CPU. Past it the run is TLE, as a program that sleeps
    or blocks for that long is; ``/run_code`` sets it to ``run_timeout``, SandboxFusion's wall-clock limit.

    ``output_bytes`` caps what a program may write (past it: OLE) and what the judge reads to check it;
    ``returned_output_bytes`` bounds what of stdout and stderr is kept and returned to the caller
    (verl metadata, HTTP responses), with the full lengths and truncation flags reported beside it.
    """

    cpu_time: float = 5.0
    wall_time: float | None = None
    memory_mb: int = 512
    output_bytes: int = 64 * MiB
    processes: int = 64  # processes and threads together, as the kernel counts them
    file_size_bytes: int = 64 * MiB
    open_files: int = 256
    returned_output_bytes: int = 1 * MiB
    run_time: float | None = None

    def __post_init__(self) -> None:
        _check_range("cpu_time", self.cpu_time, 0.001, 3600)
        if self.wall_time is not None:
            _check_range("wall_time", self.wall_time, 0.001, 7200)
        if self.run_time is not None:
            _check_range("run_time", self.run_time, 0.001, 7200)
        _check_range("memory_mb", self.memory_mb, 16, 64 * 1024)
        _check_range("output_bytes", self.output_bytes, 1024, 4096 * MiB)
        _check_range("processes", self.processes, 1, 4096)
        _check_range("file_size_bytes", self.file_size_bytes, 1024, 16384 * MiB)
        _check_range("open_files", self.open_files, 16, 65536)
        _check_range("returned_output_bytes", self.returned_output_bytes, 0, 4096 * MiB)
        for name in _WHOLE_FIELDS:  # a count of bytes, MB or processes given as a real (256.0, 1e6) is that
            value = getattr(self, name)  # whole number; the sandbox writes them into cgroup files and rlimits
            if isinstance(value, float):
                if not value.is_integer():
                    raise InvalidLimits(f"{name} is a whole number, got {value!r}")
                object.__setattr__(self, name, int(value))

    @property
    def wall_backstop(self) -> float:
        return self.wall_time if self.wall_time is not None else 3 * self.cpu_time + 2.0

    def replace(self, **changes: Any) -> Limits:
        return replace(self, **changes)


_WHOLE_FIELDS = ("memory_mb", "output_bytes", "processes", "file_size_bytes", "open_files", "returned_output_bytes")


def _check_range(name: str, value: object, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidLimits(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or not low <= value <= high:
        raise InvalidLimits(f"{name}={value!r} is outside the allowed range [{low}, {high}]")


CaseKind = Literal["stdio", "call", "assert"]
CaseIO = Literal["stdio", "file"]
FILE_INPUT, FILE_OUTPUT = "input.txt", "output.txt"  # a file-mode case's files in the run's work folder


@dataclass(frozen=True, slots=True)
class Case:
    """One test case, of one of three kinds.

    - ``stdio``: ``stdin`` is given to the program, its stdout is checked against ``expected_output``;
    - ``call``: ``fn_name(*args)`` is called and its return value compared with ``expected_value``;
    - ``assert``: ``assert_code`` runs after the program and must run to its end.

    Build them with :meth:`stdio`, :meth:`call` and :meth:`asserts`. ``limits`` overrides the
    submission's limits for this case only.

    ``io="file"`` (a stdio case; open-r1's Codeforces ``input_mode: "file"``): the input is the file
    ``input.txt`` in the run's work folder, stdin is empty, and the output checked is what the program
    left in ``output.txt`` (none, or a link, is an empty output); what it wrote to stdout is not judged.
    """

    kind: CaseKind
    stdin: bytes = b""
    expected_output: str | None = None
    fn_name: str | None = None
    args: tuple[Any, ...] = ()
    expected_value: Any = None
    assert_code: str | None = None
    limits: Limits | None = None
    io: CaseIO = "stdio"

    def __post_init__(self) -> None:
        # the constructors check each kind's fields; a record made directly (Case("1 2\n", "3\n"), say) is
        # checked for what the sandbox relies on, so it is refused here rather than an SE there
        if self.kind not in ("stdio", "call", "assert"):
            raise InvalidCases(f'a case\'s kind is "stdio", "call" or "assert", got {self.kind!r} (build cases '
                               "with Case.stdio, Case.call or Case.asserts)")
        if not isinstance(self.stdin, bytes):
            raise InvalidCases(f"a case's stdin is bytes (Case.stdio encodes text), got {type(self.stdin).__name__}")
        if self.io not in ("stdio", "file"):
            raise InvalidCases(f'a case\'s io is "stdio" or "file", got {self.io!r}')
        if self.limits is not None and not isinstance(self.limits, Limits):
            raise InvalidLimits(f"a case's limits must be a judgebox.Limits, got {type(self.limits).__name__}")

    @classmethod
    def stdio(cls, stdin: str | bytes, expected_output: str, limits: Limits | None = None,
              io: CaseIO = "stdio") -> Case:
        if io not in ("stdio", "file"):
            raise InvalidCases(f'a stdio case\'s io is "stdio" or "file", got {io!r}')
        if not isinstance(stdin, (str, bytes)):
            raise InvalidCases(f"stdin must be str or bytes, got {type(stdin).__name__}")
        if not isinstance(expected_output, str):
            raise InvalidCases(f"expected output must be str, got {type(expected_output).__name__}")
        data = stdin.encode("utf-8", "surrogateescape") if isinstance(stdin, str) else stdin
        return cls("stdio", stdin=data, expected_output=expected_output, limits=limits, io=io)

    @classmethod
    def call(cls, fn_name: str, args: list[Any] | tuple[Any, ...], expected_value: Any,
             limits: Limits | None = None) -> Case:
        if not isinstance(fn_name, str) or not fn_name.isidentifier():
            raise InvalidCases(f"fn_name must be a Python identifier, got {fn_name!r}")
        if not isinstance(args, (list, tuple)):
            raise InvalidCases(f"call arguments must be a list, got {type(args).__name__}")
        for what, value in (("arguments", args), ("expected value", expected_value)):
            if _depth(value) > MAX_VALUE_DEPTH:
                raise InvalidCases(f"the {what} are nested deeper than {MAX_VALUE_DEPTH} levels")
        if (unfit := not_json(args)) is not None:  # the program's side reads its arguments as JSON
            raise InvalidCases(f"call arguments reach the program as JSON, and {unfit} has no JSON form")
        return cls("call", fn_name=fn_name, args=tuple(args), expected_value=expected_value, limits=limits)

    @classmethod
    def asserts(cls, assert_code: str, limits: Limits | None = None) -> Case:
        if not isinstance(assert_code, str) or not assert_code.strip():
            raise InvalidCases("assert code must be a non-empty string")
        return cls("assert", assert_code=assert_code, limits=limits)


def _depth(value: Any) -> int:
    """How deeply lists, tuples, sets and dicts nest in ``value`` (without recursion)."""
    deepest, pending = 0, [(value, 0)]
    while pending:
        item, depth = pending.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            pending.extend((v, depth + 1) for pair in item.items() for v in pair)
        elif isinstance(item, (list, tuple, set, frozenset)):
            pending.extend((v, depth + 1) for v in item)
    return deepest


JSON_SCALARS = (str, int, float, bool, type(None))


def not_json(value: Any) -> str | None:
    """What in ``value`` JSON cannot carry as it is (a set, bytes, a Decimal, a key that is not text: JSON
    would fail on it or turn it into another value), or None for a value of JSON's own types (a tuple is an
    array)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    return f"a key of type {type(key).__name__}"
                pending.append(inner)
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif not isinstance(item, JSON_SCALARS):
            return f"a {type(item).__name__}"
    return None


def _check_encodable(text: str, error: type[Exception], what: str) -> None:
    """Text reaches the sandbox as UTF-8; undecodable bytes read as text (U+DC80-U+DCFF) go back as the bytes
    they were, but any other lone surrogate has no encoding: refused here, before anything runs, rather
    than failing in the sandbox as if the judge had."""
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise error(f"{what} is not valid text: a lone surrogate {text[exc.start]!r} at character {exc.start}"
                    ) from None


@dataclass(frozen=True, slots=True)
class Submission:
    """A program and everything needed to judge it."""

    code: str
    cases: tuple[Case, ...]
    language: str = "python"
    limits: Limits = field(default_factory=Limits)
    checker: Any = None  # a checker setting (judgebox.checkers.parse); None: the default
    stop_on_first_failure: bool = False
    interactor: Any = None  # the problem's judgebox.checkers.Interactor, if it is interactive

    def __post_init__(self) -> None:
        if not isinstance(self.code, str):
            raise InvalidCode(f"code must be str, got {type(self.code).__name__}")
        if not self.code.strip():
            raise InvalidCode("code is empty")
        if len(self.code.encode("utf-8", "surrogatepass")) > MAX_CODE_BYTES:
            raise InvalidCode(f"code is larger than {MAX_CODE_BYTES // MiB} MiB")
        _check_encodable(self.code, InvalidCode, "the code")
        if not self.cases:
            raise InvalidCases("a submission needs at least one case")
        for case in self.cases:
            _check_encodable(case.assert_code or "", InvalidCases, "an assert case's test code")
        if not all(isinstance(c, Case) for c in self.cases):
            raise InvalidCases("cases must be Case records (see judgebox.judging.cases.load_cases)")
        if not isinstance(self.limits, Limits):
            raise InvalidLimits("limits must be a judgebox.Limits")


@dataclass(frozen=True, slots=True)
class CaseResult:
    """What one case did. ``stdout``/``stderr`` are decoded with replacement; the raw bytes kept are at most
    ``Limits.returned_output_bytes`` each; ``stdout_length``/``stderr_length`` are what the program wrote,
    and ``*_truncated`` says that less than that is kept."""

    verdict: Verdict
    cpu_time: float = 0.0  # seconds
    wall_time: float = 0.0  # seconds
    memory_bytes: int = 0  # peak
    exit_code: int | None = None
    signal: int | None = None
    stdout_raw: bytes = b""
    stderr_raw: bytes = b""
    stdout_length: int = 0
    stderr_length: int = 0
    message: str = ""  # checker or judge message: why the verdict is what it is
    points: float | None = None  # a partial-credit checker's share of the case's points, 0..1

    @property
    def score(self) -> float:
        """What the case earned: its points if its checker gave some, else 1 if it passed, 0 if not."""
        return self.points if self.points is not None else float(self.passed)

    @property
    def stdout_truncated(self) -> bool:
        return self.stdout_length > len(self.stdout_raw)

    @property
    def stderr_truncated(self) -> bool:
        return self.stderr_length > len(self.stderr_raw)

    @property
    def stdout(self) -> str:
        return self.stdout_raw.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.stderr_raw.decode("utf-8", "replace")

    @property
    def passed(self) -> bool:
        return self.verdict.passed


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """The judgement of a whole submission. ``score`` is what the cases earned over all cases (a case
    earns 1 if it passed, or its checker's points)."""

    verdict: Verdict
    cases: tuple[CaseResult, ...]
    total: int
    message: str = ""  # compile errors and judge-level messages
    wall_time: float = 0.0  # seconds from submission to result
    cpu_time: float = 0.0  # summed over cases

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.passed)

    @property
    def score(self) -> float:
        return sum(c.score for c in self.cases) / self.total if self.total else 0.0

    @classmethod
    def fold(cls, cases: list[CaseResult], total: int, wall_time: float, message: str = "") -> JudgeResult:
        verdict = headline([c.verdict for c in cases]) if cases else Verdict.SE
        if len(cases) < total and verdict is Verdict.AC:  # cases skipped without a failure: never AC
            verdict = Verdict.SE
        return cls(verdict, tuple(cases), total, message, wall_time, sum(c.cpu_time for c in cases))

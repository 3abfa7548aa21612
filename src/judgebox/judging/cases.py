"""Turn the shapes test data comes in into :class:`judgebox.Case` records.

Accepted: a sequence of ``Case``; or verl's sandbox_fusion form (a dict, or its JSON text)::

    {"inputs": [stdin, ...], "outputs": [expected stdout, ...]}                  # stdin/stdout
    {"inputs": [...], "outputs": [...], "fn_name": "f"}                           # call-based
    {"inputs": ["", ...], "outputs": [None, ...], "assert_case": [code, ...]}      # assert-based

In the call-based form each input holds one JSON value per argument, one per line (or is the list of
arguments itself), and each output is the expected return value as JSON (or Python literal) text, or
the value itself. A stdin input of None is an empty input; numbers stand for their digits.

Beside the cases, the dict may hold the problem's settings (:func:`load_problem` reads them; an unknown
key is an error, never ignored)::

    "checker":     a checker setting: "tokens", {"name": "float", "epsilon": 1e-4}, or a program
                   {"language": "cpp", "code": ..., "protocol": "testlib" | "codeforces-python"}
    "interactor":  a program {"language": ..., "code": ...} that talks to the solution (testlib's protocol)
    "time_limit":  seconds of CPU per case;  "memory_limit": MB
    "language":    the solution's language (verl's key)

open-r1's ``verification_info`` (``{"language": ..., "test_cases": [{"input": ..., "output": ..., "type":
"stdin_stdout"}]}``, the cases its code reward runs), and open-r1's Codeforces fields: ``official_tests``
(``[{"input": ..., "output": ...}]``, instead of inputs/outputs), ``generated_checker`` (its Python checker:
the ``codeforces-python`` protocol) and ``input_mode``: ``"stdio"``, or ``"file"`` for problems that read
``input.txt`` and write ``output.txt``. In file mode every stdio case is ``io="file"``
(:class:`judgebox.Case`), as open-r1's Codeforces runner judges them: the input is ``input.txt`` in the work
folder and stdin is empty; the output checked (by the checker, or a checker program) is what the program left
in ``output.txt``, where a missing file is an empty output (so WA unless nothing was expected) and what went
to stdout is not judged.

Test data comes from files and requests nobody here wrote, so every reader of it has one bound,
:data:`MAX_RECORD_BYTES`: what one record is, or decodes to (a JSONL line, a packed field inflated, a
Parquet row, test cases given as text), checked while it is decoded, never after; :func:`over_bound` says
so in one wording wherever it is refused. Bytes are not the whole cost of JSON: ``json.loads`` makes some
25 bytes of Python objects of each byte of ``[{},{},...]``, so JSON text is also counted before it is
parsed (:class:`JsonValues`, fed a chunk at a time as the text arrives) and refused past
:data:`MAX_JSON_VALUES` values, :func:`over_values` saying so.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from judgebox import checkers
from judgebox.errors import InvalidCases, JudgeboxError
from judgebox.types import MAX_RECORD_BYTES, Case, Limits, MiB

__all__ = ["MAX_JSON_VALUES", "MAX_RECORD_BYTES", "JsonValues", "Problem", "json_error", "json_values", "load_cases",
           "load_problem", "over_bound", "over_values"]

# The JSON values one record may make (8 Mi): json.loads makes at most ~60 bytes of Python objects of each
# (an empty dict, 64), so a record costs a few times the byte bound once parsed, never 25 times
MAX_JSON_VALUES = MAX_RECORD_BYTES // 8
# What CPython's parser makes of a literal, a node of it (~1 KiB measured for each comma or bracket):
# ast.literal_eval of 7 MiB of "{1}," takes 4 GiB, so a literal's text is weighed before it is parsed
LITERAL_NODE_BYTES = 1536

CASE_KEYS = frozenset({"inputs", "outputs", "fn_name", "assert_case", "official_tests", "test_cases"})
SETTING_KEYS = frozenset({"checker", "interactor", "time_limit", "memory_limit", "language", "input_mode",
                          "generated_checker"})


@dataclass(frozen=True)
class Problem:
    """The cases of a problem and its own settings (None: not set, the caller's or the preset's apply)."""

    cases: tuple[Case, ...]
    checker: Any = None  # a checker setting as given; judgebox.checkers.parse reads it
    interactor: checkers.Interactor | None = None
    time_limit: float | None = None  # seconds
    memory_limit: int | None = None  # MB
    language: str | None = None

    def limits(self, limits: Limits) -> Limits:
        """``limits`` with the problem's own time and memory limits in place of the caller's."""
        changes: dict[str, Any] = {}
        if self.time_limit is not None:
            changes["cpu_time"] = self.time_limit
        if self.memory_limit is not None:
            changes["memory_mb"] = self.memory_limit
        return limits.replace(**changes) if changes else limits


def over_bound(what: str, size: int | None = None) -> str:
    """Why ``what`` (of ``size`` bytes, or at least that many) is refused: the one wording of the bound."""
    told = f" ({size / MiB:.1f} MiB)" if size is not None else ""
    return f"{what}{told} is over the {MAX_RECORD_BYTES // MiB} MiB bound of one record"


def over_values(what: str, count: int) -> str:
    """Why JSON text that makes ``count`` values (or at least that many) is refused, in one wording."""
    return f"{what} ({count} JSON values or more) is over the bound of {MAX_JSON_VALUES} JSON values of one record"


# The escapes that hide a quote from the count, ``\\`` and ``\"``: removed (left to right, as JSON reads them)
# before the quotes are counted, so each quote left opens or closes a string; other escapes (``\n``) stay
_ESCAPE = re.compile(rb"\\[\\\"]")
_ESCAPE_TEXT = re.compile(_ESCAPE.pattern.decode())
_PIECE = 1 << 18  # of a chunk, read at a time (its parts between quotes are objects for a moment)


class JsonValues:
    """Counts the values JSON text will make, fed a chunk at a time (bytes, or str), before it is parsed:
    ``count`` is one plus each ``,`` ``[`` and ``{`` outside strings, which is the number of values (keys
    not counted) plus one for each empty ``[]`` or ``{}``. Nothing inside a string counts, escaped quotes
    included; a string or an escape may span chunks. Each chunk is read by ``re``, ``split`` and
    ``count``, at C speed. Text that is not JSON is counted all the same (json.loads refuses it after)."""

    def __init__(self) -> None:
        self.count = 1
        self._in_string = False
        self._escaped = False  # the last chunk ended on a lone backslash: the next byte is escaped

    @property
    def over(self) -> bool:
        return self.count > MAX_JSON_VALUES

    def feed(self, chunk: bytes | bytearray | memoryview | str) -> int:
        """The count so far, with ``chunk`` (what follows the chunks fed before) counted."""
        for start in range(0, len(chunk), _PIECE):
            self._piece(chunk[start:start + _PIECE])
        return self.count

    def _piece(self, piece: Any) -> None:
        text = isinstance(piece, str)
        if not text:
            piece = bytes(piece)
        if self._escaped:
            piece, self._escaped = piece[1:], False
        backslash, quote = ("\\", '"') if text else (b"\\", b'"')
        if backslash in piece:
            piece = (_ESCAPE_TEXT if text else _ESCAPE).sub(piece[:0], piece)
            if piece.endswith(backslash):  # a lone one, escaping the next chunk's first byte
                piece, self._escaped = piece[:-1], True
        parts = piece.split(quote)
        outside = piece[:0].join(parts[self._in_string::2])
        del parts
        self.count += sum(outside.count(mark) for mark in ((",", "[", "{") if text else (b",", b"[", b"{")))
        self._in_string ^= piece.count(quote) % 2 == 1


def json_values(text: bytes | bytearray | str) -> int:
    """The values the JSON ``text`` will make, as :class:`JsonValues` counts them."""
    return JsonValues().feed(text)


def load_cases(test_cases: Any, limits: Limits | None = None) -> tuple[Case, ...]:
    return load_problem(test_cases, limits).cases


def load_problem(test_cases: Any, limits: Limits | None = None) -> Problem:
    """Test data (a list of ``Case``, or verl's dict or its JSON text, with settings) as a :class:`Problem`."""
    if isinstance(test_cases, Problem):
        return test_cases
    if isinstance(test_cases, (str, bytes)):
        if len(test_cases) > MAX_RECORD_BYTES:
            raise InvalidCases(over_bound("the test cases' text", len(test_cases)))
        if (count := json_values(test_cases)) > MAX_JSON_VALUES:
            raise InvalidCases(over_values("the test cases' text", count))
        try:
            test_cases = json.loads(test_cases)
        except (ValueError, RecursionError) as exc:
            raise InvalidCases(f"test cases are text but not JSON: {json_error(exc)}") from None
    if isinstance(test_cases, Mapping):
        problem = _problem(test_cases, limits)
    elif isinstance(test_cases, Sequence) and all(isinstance(c, Case) for c in test_cases):
        problem = Problem(tuple(test_cases))
    else:
        raise InvalidCases("test cases must be a list of judgebox.Case or a dict with inputs/outputs "
                           f"(verl's form), got {type(test_cases).__name__}")
    if not problem.cases:
        raise InvalidCases("there are no test cases")
    return problem


def _problem(data: Mapping[str, Any], limits: Limits | None) -> Problem:
    unknown = sorted(str(key) for key in data if key not in CASE_KEYS | SETTING_KEYS)
    if unknown:
        known = ", ".join(sorted(CASE_KEYS | SETTING_KEYS))
        raise InvalidCases(f"unknown test-data key {unknown[0]!r}; known: {known}")
    io = data.get("input_mode", "stdio")
    if io not in ("stdio", "file"):
        raise InvalidCases(f'input_mode is "stdio" or "file" (input.txt and output.txt), got {io!r}')
    checker = data.get("checker")
    if data.get("generated_checker") is not None:
        if checker is not None:
            raise InvalidCases("checker and generated_checker are the same setting: give one")
        checker = {"language": "python", "code": data["generated_checker"], "protocol": "codeforces-python"}
    try:
        checkers.parse(checker)  # an unknown checker or option is an error now, before anything runs
        interactor = checkers.interactor(data.get("interactor"))
    except JudgeboxError as exc:
        raise InvalidCases(f"checker setting: {exc}") from None
    language = data.get("language")
    if language is not None and not isinstance(language, str):
        raise InvalidCases(f"language must be a name, got {type(language).__name__}")
    cases = _from_verl(data, limits)
    if io == "file":
        if any(case.kind != "stdio" for case in cases):
            raise InvalidCases('input_mode "file" is for stdin/stdout cases (inputs and outputs)')
        cases = tuple(replace(case, io="file") for case in cases)
    return Problem(cases, checker, interactor, _limit(data, "time_limit", float),
                   _limit(data, "memory_limit", int), language)


def _limit(data: Mapping[str, Any], key: str, kind: type) -> Any:
    """A positive time (s) or memory (MB) limit; open-r1 writes its memory limits as reals (256.0)."""
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InvalidCases(f"{key} must be a positive number, got {value!r}")
    if kind is int and value != int(value):
        raise InvalidCases(f"{key} is whole megabytes, got {value!r}")
    return kind(value)


def _from_verl(data: Mapping[str, Any], limits: Limits | None) -> tuple[Case, ...]:
    listed = [key for key in ("official_tests", "test_cases") if data.get(key) is not None]
    if listed:
        if len(listed) > 1 or "inputs" in data or "outputs" in data:
            raise InvalidCases(f"{listed[0]} and {listed[1] if len(listed) > 1 else 'inputs/outputs'} are two "
                               "forms of the cases: give one")
        data = _listed_tests(data[listed[0]], listed[0])
    asserts = data.get("assert_case")
    if asserts is not None:
        if not _is_list_of(asserts, str):
            raise InvalidCases("assert_case must be a list of strings")
        return tuple(Case.asserts(code, limits) for code in asserts if code.strip())
    inputs, outputs = data.get("inputs"), data.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise InvalidCases("inputs and outputs must be lists")
    if len(inputs) != len(outputs):
        raise InvalidCases(f"{len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = data.get("fn_name")
    if fn_name is None:
        return tuple(Case.stdio(_text(i, "input", n), _text(o, "output", n), limits)
                     for n, (i, o) in enumerate(zip(inputs, outputs)))
    # the arguments and outputs given as JSON text are parsed and kept, all of them: counted together first
    # (an input is a value a line; a raw newline is never inside a JSON string)
    count = (sum(json_values(i) + i.count("\n") for i in inputs if isinstance(i, str))
             + sum(json_values(o) for o in outputs if isinstance(o, str)))
    if count > MAX_JSON_VALUES:
        raise InvalidCases(over_values("the call cases' JSON texts", count))
    return tuple(Case.call(fn_name, i if isinstance(i, list) else _arguments(_text(i, "input", n), n),
                           _literal(o, n) if isinstance(o, str) else o, limits)
                 for n, (i, o) in enumerate(zip(inputs, outputs)))


def _text(value: Any, what: str, index: int) -> str:
    """Stdin and expected output as text: None is no input, a number is its digits."""
    if isinstance(value, str):
        return value
    if value is None and what == "input":
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise InvalidCases(f"{what} {index} must be text, got {type(value).__name__}")


def _arguments(text: str, index: int) -> list[Any]:
    try:
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    except (ValueError, RecursionError) as exc:
        raise InvalidCases(f"input {index}: each line must be one JSON value per argument "
                           f"({json_error(exc)})") from None


def _literal(text: str, index: int) -> Any:
    """An expected value written as JSON, or as a Python literal; else the text itself."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    cost = len(text) + LITERAL_NODE_BYTES * sum(text.count(mark) for mark in ",([{")
    if cost > MAX_RECORD_BYTES:  # an upper bound (marks inside strings count too), only past JSON
        raise InvalidCases(over_bound(f"parsing output {index} as a Python literal", cost))
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def json_error(exc: Exception) -> str:
    """A JSON error as words: nesting deeper than the interpreter's recursion limit is bad JSON too (json
    raises RecursionError for it), not a crash of whatever was reading."""
    return "JSON nested too deeply" if isinstance(exc, RecursionError) else str(exc)


def _is_list_of(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) for v in value)


def _listed_tests(tests: Any, key: str) -> dict[str, Any]:
    """open-r1's lists of cases as inputs and outputs: ``official_tests`` (``[{"input": ..., "output": ...}]``)
    and ``verification_info``'s ``test_cases``, whose cases also say their ``type``: ``stdin_stdout``, the
    one its reward runs (and ``fn_name``: null)."""
    extra = {"type", "fn_name"} if key == "test_cases" else set()
    if not isinstance(tests, list) or not all(isinstance(t, Mapping) and {"input", "output"} <= t.keys()
                                              and t.keys() <= {"input", "output"} | extra for t in tests):
        shape = '{"input": ..., "output": ...' + (', "type": "stdin_stdout"}' if extra else "}")
        raise InvalidCases(f"{key} must be a list of {shape}")
    for index, test in enumerate(tests):
        if test.get("type", "stdin_stdout") != "stdin_stdout" or test.get("fn_name") is not None:
            raise InvalidCases(f"{key}[{index}]: only stdin_stdout cases (fn_name null) are open-r1's form, "
                               f"got type {test.get('type')!r}, fn_name {test.get('fn_name')!r}")
    return {"inputs": [t["input"] for t in tests], "outputs": [t["output"] for t in tests]}

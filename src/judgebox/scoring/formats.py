"""The problem files people have, read into one shape: a :class:`Problem` with verl's test-case dict.

Each format is one entry of :data:`FORMATS`: the keys that tell it apart, every key it may carry (a
record with a key its format does not know is a bad record: a misread field must not pass silently)
and a function that builds the problem. The field names are those of the datasets' published files:

- ``judgebox``: this project's own form (``tests/data``): ``id``, ``test_cases``, ``solutions``...
- ``verl``: verl's RL parquet: ``data_source``, ``prompt`` (chat messages), ``reward_model.ground_truth``
  (the test cases as a JSON string), ``extra_info`` (its ``index`` is the id).
- ``humaneval``: HumanEval and evalplus: ``task_id``, ``prompt``, ``test`` (defines ``check``),
  ``entry_point``, ``canonical_solution`` (a body that completes the prompt).
- ``mbpp``: ``task_id``, ``text`` or ``prompt``, ``code``, ``test_list``, ``test_setup_code``/``test_imports``.
- ``apps``: ``problem_id``, ``question``, ``input_output`` and ``solutions`` as JSON strings.
- ``codecontests``: ``name``, ``public_tests``/``private_tests``/``generated_tests`` (``input``,
  ``output`` lists), ``solutions``/``incorrect_solutions`` (``language`` codes beside ``solution``).
- ``livecodebench``: ``question_id``, ``public_test_cases``/``private_test_cases`` (JSON, or LiveCodeBench's
  base64 + zlib + pickle of that JSON), ``metadata`` (``func_name`` for functional problems).

The files are nobody's here, so each decoder stops at :data:`judgebox.cases.MAX_RECORD_BYTES` while it
decodes: a JSONL line is read up to the bound and the rest of a longer one skipped unread (and so is one
that would make more than :data:`judgebox.cases.MAX_JSON_VALUES` JSON values, counted as it is read, as
is a field of JSON text before it is parsed); a packed field
is inflated a chunk at a time up to the bound; Parquet is decoded in a child process the kernel caps
(:mod:`.parquet`). A bomb costs about the bound and is one bad record; the file's other records are read.
"""

from __future__ import annotations

import base64
import io
import json
import pickletools
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from ..cases import (
    MAX_JSON_VALUES,
    MAX_RECORD_BYTES,
    JsonValues,
    json_error,
    json_values,
    load_problem,
    over_bound,
    over_values,
)
from ..errors import JudgeboxError
from .parquet import read_parquet
from .records import BadRecord, DataOnly, UnreadableFile

INFLATE_CHUNK = 1 << 16  # of a packed field's zlib stream, fed to the inflater at a time
INFLATE_OUT = 1 << 20  # of inflated bytes, made at a time (no call makes a bomb's whole output)
LINE_CHUNK = 1 << 20  # of a JSONL line, read at a time


@dataclass(frozen=True)
class Problem:
    id: str
    source: str
    language: str
    test_cases: dict[str, Any]
    right: tuple[tuple[str, str], ...] = ()  # (language, code) of known-right solutions
    wrong: tuple[tuple[str, str], ...] = ()  # known-wrong ones
    prompt: str = ""  # what a completion continues, for samples that are bodies (HumanEval's `completion`)
    unjudgeable: int = 0  # solutions in a language judgebox does not run (CodeContests' Python 2)
    where: str = ""  # the file and line (or row) it came from, for messages


@dataclass(frozen=True)
class Format:
    name: str
    marks: frozenset[str]  # all present: the record is in this format
    keys: frozenset[str]  # every key the format may carry
    build: Callable[[Mapping[str, Any], str], Problem] = field(repr=False)
    cases_field: str = "test_cases"  # where its test cases are, for messages


def _text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise BadRecord(where, key, f"expected text, got {type(value).__name__}")
    return value


def _texts(record: Mapping[str, Any], key: str, where: str) -> list[str]:
    """A list of strings; a bare string is refused (it would be judged character by character)."""
    value = record.get(key, [])
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise BadRecord(where, key, f"expected a list of programs (strings), got {_shown(value)}")
    return list(value)


def _json(record: Mapping[str, Any], key: str, where: str) -> Any:
    value = record.get(key)
    if isinstance(value, (dict, list)):
        return value
    if not isinstance(value, str):
        raise BadRecord(where, key, f"expected JSON text or an object, got {type(value).__name__}")
    if (count := json_values(value)) > MAX_JSON_VALUES:
        raise BadRecord(where, key, over_values("the JSON text", count))
    try:
        return json.loads(value)
    except (ValueError, RecursionError) as exc:
        raise BadRecord(where, key, f"expected JSON, got {json_error(exc)}") from None


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def _test_cases(value: Any, where: str, key: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not ({"inputs", "assert_case", "official_tests"} & value.keys()):
        raise BadRecord(where, key, f"expected test cases (inputs/outputs or assert_case), got {_shown(value)}")
    return value


def _judgebox(record: Mapping[str, Any], where: str) -> Problem:
    language = record.get("language", "python")
    if not isinstance(language, str):
        raise BadRecord(where, "language", "expected a language name")
    return Problem(str(record["id"]), str(record.get("source", "")), language,
                   _test_cases(record["test_cases"], where, "test_cases"),
                   tuple((language, c) for c in _texts(record, "solutions", where)),
                   tuple((language, c) for c in _texts(record, "wrong_solutions", where)))


def _verl(record: Mapping[str, Any], where: str) -> Problem:
    reward = record["reward_model"]
    if not isinstance(reward, Mapping) or "ground_truth" not in reward:
        raise BadRecord(where, "reward_model", "expected an object with ground_truth")
    cases = _test_cases(_json(reward, "ground_truth", where), where, "reward_model.ground_truth")
    extra = record.get("extra_info") or {}
    index = extra.get("index") if isinstance(extra, Mapping) else None
    ident = str(index) if index is not None else where
    return Problem(ident, str(record["data_source"]), str(cases.get("language", "python")), cases)


def _humaneval(record: Mapping[str, Any], where: str) -> Problem:
    prompt, entry = _text(record, "prompt", where), _text(record, "entry_point", where)
    cases = {"inputs": [""], "outputs": [None], "assert_case": [f"{_text(record, 'test', where)}\n\ncheck({entry})\n"]}
    right = record.get("canonical_solution")
    return Problem(str(record["task_id"]), "humaneval", "python", cases,
                   ((("python", prompt + right),) if isinstance(right, str) else ()), prompt=prompt)


def _mbpp(record: Mapping[str, Any], where: str) -> Problem:
    setup = record.get("test_setup_code") or "\n".join(record.get("test_imports") or [])
    tests = _texts(record, "test_list", where) + _texts(record, "challenge_test_list", where)
    if not tests:
        raise BadRecord(where, "test_list", "expected at least one assert")
    cases = {"inputs": [""], "outputs": [None], "assert_case": [f"{setup}\n" + "\n".join(tests) + "\n"]}
    return Problem(str(record["task_id"]), "mbpp", "python", cases, (("python", _text(record, "code", where)),))


def _apps(record: Mapping[str, Any], where: str) -> Problem:
    cases = _test_cases(_json(record, "input_output", where), where, "input_output")
    solutions = _json(record, "solutions", where) if record.get("solutions") else []
    if not isinstance(solutions, list) or not all(isinstance(s, str) for s in solutions):
        raise BadRecord(where, "solutions", "expected a JSON list of programs")
    return Problem(str(record["problem_id"]), "apps", "python", cases, tuple(("python", s) for s in solutions))


# CodeContests' solution language codes; 1 is Python 2, which judgebox does not run
CODECONTESTS_LANGUAGES = {2: "cpp", 3: "python", 4: "java"}


def _codecontests(record: Mapping[str, Any], where: str) -> Problem:
    inputs: list[str] = []
    outputs: list[str] = []
    for key in ("public_tests", "private_tests", "generated_tests"):
        tests = record.get(key) or {"input": [], "output": []}
        if not isinstance(tests, Mapping) or len(tests.get("input") or []) != len(tests.get("output") or []):
            raise BadRecord(where, key, "expected {input: [...], output: [...]} of the same length")
        inputs += tests.get("input") or []
        outputs += tests.get("output") or []
    if not inputs:
        raise BadRecord(where, "public_tests", "expected at least one test")
    cases: dict[str, Any] = {"inputs": inputs, "outputs": outputs}
    limit = record.get("time_limit")
    if isinstance(limit, Mapping) and (limit.get("seconds") or limit.get("nanos")):
        cases["time_limit"] = float(limit.get("seconds") or 0) + float(limit.get("nanos") or 0) / 1e9
    if isinstance(record.get("memory_limit_bytes"), int) and record["memory_limit_bytes"] > 0:
        cases["memory_limit"] = record["memory_limit_bytes"] // 2**20
    kinds = [_coded_solutions(record, key, where) for key in ("solutions", "incorrect_solutions")]
    skipped = sum(k[1] for k in kinds)
    return Problem(str(record["name"]), "codecontests", "python", cases, kinds[0][0], kinds[1][0], unjudgeable=skipped)


def _coded_solutions(record: Mapping[str, Any], key: str, where: str) -> tuple[tuple[tuple[str, str], ...], int]:
    value = record.get(key) or {"language": [], "solution": []}
    if not isinstance(value, Mapping) or len(value.get("language") or []) != len(value.get("solution") or []):
        raise BadRecord(where, key, "expected {language: [...], solution: [...]} of the same length")
    pairs = list(zip(value.get("language") or [], value.get("solution") or []))
    kept = tuple((CODECONTESTS_LANGUAGES[code], text) for code, text in pairs if code in CODECONTESTS_LANGUAGES)
    return kept, len(pairs) - len(kept)


def _livecodebench(record: Mapping[str, Any], where: str) -> Problem:
    tests = _lcb_tests(record, "public_test_cases", where) + _lcb_tests(record, "private_test_cases", where)
    if not tests:
        raise BadRecord(where, "public_test_cases", "expected at least one test")
    cases: dict[str, Any] = {"inputs": [t["input"] for t in tests], "outputs": [t["output"] for t in tests]}
    if any(t.get("testtype") == "functional" for t in tests):
        metadata = _json(record, "metadata", where) if record.get("metadata") else {}
        name = metadata.get("func_name") if isinstance(metadata, dict) else None
        if not isinstance(name, str):
            raise BadRecord(where, "metadata", "expected func_name for a functional problem")
        cases["fn_name"] = name
    return Problem(str(record["question_id"]), f"livecodebench/{record.get('platform', '')}", "python", cases)


def _lcb_tests(record: Mapping[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    value = record.get(key)
    if not value:
        return []
    if isinstance(value, str) and not value.lstrip().startswith("["):
        value = _unpacked(value, where, key)
    tests = _json({key: value}, key, where)
    if not isinstance(tests, list) or not all(isinstance(t, dict) and {"input", "output"} <= t.keys() for t in tests):
        raise BadRecord(where, key, "expected a list of {input, output, testtype}")
    return tests


# the opcodes that pickle one str (protocols 0 to 5): no class, so no code; no list or memo fetch, so no
# references multiplying what was inflated
STR_OPCODES = frozenset({"PROTO", "FRAME", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "MEMOIZE",
                         "PUT", "BINPUT", "LONG_BINPUT", "STOP"})


def _unpacked(value: str, where: str, key: str) -> str:
    """LiveCodeBench's base64 of zlib of a pickled str, each step bounded before or while it decodes: the
    base64 by its length (3 bytes a 4 characters), the zlib stream by inflating at most the bound, the
    pickle by reading it only if it is one str."""
    if len(value) // 4 * 3 > MAX_RECORD_BYTES:
        raise BadRecord(where, key, over_bound("the base64 text decoded", len(value) // 4 * 3))
    try:
        data = _inflated(base64.b64decode(value))
        if data is None:
            raise BadRecord(where, key, over_bound("the inflated zlib stream") + " (a decompression bomb?)")
        opcode = next((op.name for op, _, _ in pickletools.genops(data) if op.name not in STR_OPCODES), None)
        if opcode is not None:
            raise BadRecord(where, key, f"expected a pickled str, got the pickle opcode {opcode}")
        text = DataOnly(io.BytesIO(data)).load()
    except BadRecord:
        raise
    except Exception as exc:  # any malformed packing is the record's fault
        raise BadRecord(where, key, f"expected JSON or base64 zlib pickle of JSON text ({exc})") from None
    if not isinstance(text, str):
        raise BadRecord(where, key, "expected the packed value to be JSON text")
    return text


def _inflated(data: bytes) -> bytes | None:
    """``data`` inflated, or None past the bound: a megabyte at a time, counted as it comes, so a bomb
    stops at the bound, never past it (one call asked for everything would make it all first)."""
    inflater, parts, size = zlib.decompressobj(), [], 0
    view = memoryview(data)
    for start in range(0, len(data), INFLATE_CHUNK):
        pending: bytes | memoryview = view[start:start + INFLATE_CHUNK]
        while True:
            part = inflater.decompress(pending, INFLATE_OUT)
            size += len(part)
            if size > MAX_RECORD_BYTES:
                return None
            parts.append(part)
            pending = inflater.unconsumed_tail
            if not pending and len(part) < INFLATE_OUT:  # a full part may leave output inside the inflater
                break
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return b"".join(parts)


FORMATS: tuple[Format, ...] = (
    Format("judgebox", frozenset({"id", "test_cases"}),
           frozenset({"id", "source", "language", "prompt", "test_cases", "solutions", "wrong_solutions", "meta"}),
           _judgebox),
    Format("verl", frozenset({"data_source", "reward_model"}),
           frozenset({"data_source", "prompt", "ability", "reward_model", "extra_info"}), _verl,
           "reward_model.ground_truth"),
    Format("humaneval", frozenset({"task_id", "prompt", "test", "entry_point"}),
           frozenset({"task_id", "prompt", "canonical_solution", "test", "entry_point", "contract", "base_input",
                      "plus_input", "atol", "assertion"}), _humaneval, "test"),
    Format("mbpp", frozenset({"task_id", "code", "test_list"}),
           frozenset({"task_id", "text", "prompt", "code", "test_list", "test_setup_code", "challenge_test_list",
                      "test_imports", "source_file"}), _mbpp, "test_list"),
    Format("apps", frozenset({"problem_id", "input_output"}),
           frozenset({"id", "problem_id", "question", "solutions", "input_output", "difficulty", "url",
                      "starter_code"}), _apps, "input_output"),
    Format("codecontests", frozenset({"name", "public_tests"}),
           frozenset({"name", "description", "public_tests", "private_tests", "generated_tests", "source",
                      "difficulty", "solutions", "incorrect_solutions", "cf_contest_id", "cf_index", "cf_points",
                      "cf_rating", "cf_tags", "is_description_translated", "untranslated_description",
                      "time_limit", "memory_limit_bytes", "input_file", "output_file"}), _codecontests,
           "public_tests"),
    Format("livecodebench", frozenset({"question_id", "public_test_cases"}),
           frozenset({"question_title", "question_content", "platform", "question_id", "contest_id",
                      "contest_date", "starter_code", "difficulty", "public_test_cases", "private_test_cases",
                      "metadata"}), _livecodebench, "public_test_cases"),
)


def to_problem(record: Any, where: str) -> Problem:
    """The record's problem, or :class:`BadRecord` saying what is wrong with it."""
    if not isinstance(record, Mapping):
        raise BadRecord(where, "(record)", f"expected a JSON object, got {type(record).__name__}")
    for form in FORMATS:
        if form.marks <= record.keys():
            unknown = sorted(str(k) for k in record if k not in form.keys)
            if unknown:
                raise BadRecord(where, unknown[0], f"not a field of the {form.name} format "
                                                   f"(known: {', '.join(sorted(form.keys))})")
            try:
                problem = replace(form.build(record, where), where=where)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise BadRecord(where, "(record)", f"not a valid {form.name} record: {exc!r}") from None
            try:  # the judge's own reading of the test cases, so bad ones are the record's error, found now
                load_problem(problem.test_cases)
            except JudgeboxError as exc:
                raise BadRecord(where, form.cases_field, f"expected test cases the judge can run: {exc}") from None
            return problem
    closest = max(FORMATS, key=lambda f: len(f.marks & record.keys()))
    if closest.marks & record.keys():
        missing = sorted(closest.marks - record.keys())
        raise BadRecord(where, missing[0], f"missing (a {closest.name} record has {', '.join(sorted(closest.marks))})")
    names = "; ".join(f"{f.name}: {', '.join(sorted(f.marks))}" for f in FORMATS)
    raise BadRecord(where, "(record)", f"no known format has these fields ({', '.join(map(str, record))}); "
                                       f"each format needs: {names}")


ID_KEYS = ("id", "task_id", "problem_id", "question_id", "name")  # a record's id, in any of the formats


def read_records(path: Path) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each record of a JSONL or Parquet file; a line that is not JSON, or is over
    the bound, comes as ``(where, BadRecord)``. :class:`UnreadableFile` if the file itself cannot be read."""
    if path.suffix == ".parquet":

        yield from read_parquet(path)
        return
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UnreadableFile(f"{path}: {exc.strerror or exc}") from None
    with handle:
        for number, line in _lines(handle):
            where = f"{path.name} line {number}"
            if isinstance(line, str):
                yield where, BadRecord(where, "(line)", line)
                continue
            if not line.strip():
                continue
            try:
                yield where, json.loads(line)
            except (ValueError, RecursionError) as exc:
                yield where, BadRecord(where, "(line)", f"expected one JSON object, got invalid JSON "
                                                        f"({json_error(exc)})")


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytearray | str]]:
    """Each line with its number, or why it is refused for a line over the bound (of bytes, or of the JSON
    values it would make): it is read a chunk at a time into one buffer, each chunk counted, and once it is
    past a bound the buffer is dropped and the rest read past, never held."""
    number = 0
    while chunk := handle.readline(LINE_CHUNK):
        number += 1
        line, values = bytearray(chunk), JsonValues()
        values.feed(chunk)
        while (not chunk.endswith(b"\n") and len(line) <= MAX_RECORD_BYTES and not values.over
               and (chunk := handle.readline(LINE_CHUNK))):
            line += chunk
            values.feed(chunk)
        if len(line) - line.endswith(b"\n") <= MAX_RECORD_BYTES and not values.over:
            yield number, line
            continue
        del line
        while not chunk.endswith(b"\n") and (chunk := handle.readline(LINE_CHUNK)):
            pass
        yield number, over_values("the line", values.count) if values.over else over_bound("the line")


def read_problems(path: Path) -> Iterator[Problem | BadRecord]:
    for where, record in read_records(path):
        if isinstance(record, BadRecord):
            yield record
            continue
        ident = next((record[k] for k in ID_KEYS if k in record), None) if isinstance(record, Mapping) else None
        try:
            yield to_problem(record, where if ident is None else f"{where} (id {ident})")
        except BadRecord as bad:
            yield bad

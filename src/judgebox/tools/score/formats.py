"""The problem files people have, read into one shape: a :class:`Problem` with verl's test-case dict.

Each format is one entry of :data:`FORMATS`: the keys that tell it apart, every key it may carry (a
record with a key its format does not know is a bad record: a misread field must not pass silently)
and a function that builds the problem. The field names are those of the datasets' published files:

- ``judgebox``: this project's own form (``tests/data``): ``id``, ``test_cases``, ``solutions``...
- ``verl``: verl's RL parquet: ``data_source``, ``prompt`` (chat messages), ``reward_model.ground_truth``
  (the test cases as a JSON string), ``extra_info`` (its ``index`` is the id).
- ``humaneval``: HumanEval and evalplus: ``task_id``, ``prompt``, ``test`` (defines ``check``),
  ``entry_point``, ``canonical_solution`` (a body that completes the prompt).
- ``evalplus``: HumanEval+ and MBPP+: ``task_id``, ``prompt``, ``entry_point``, ``canonical_solution``,
  ``base_input`` and ``plus_input`` (each a list of argument lists), ``atol``. The expected values are the
  canonical solution's on those inputs, computed in the sandbox before anything is judged
  (:mod:`.references`); the base inputs are the first cases, so a row tells base from plus.
- ``mbpp``: ``task_id``, ``text`` or ``prompt``, ``code``, ``test_list``, ``test_setup_code``/``test_imports``.
- ``apps``: ``problem_id``, ``question``, ``input_output`` and ``solutions`` as JSON strings.
- ``codecontests``: ``name``, ``public_tests``/``private_tests``/``generated_tests`` (``input``,
  ``output`` lists), ``solutions``/``incorrect_solutions`` (``language`` codes beside ``solution``).
- ``livecodebench``: ``question_id``, ``public_test_cases``/``private_test_cases`` (JSON, or LiveCodeBench's
  base64 + zlib + pickle of that JSON), ``metadata`` (``func_name`` for functional problems).

The files are nobody's here, so each decoder stops at :data:`judgebox.judging.cases.MAX_RECORD_BYTES` while it
decodes: a JSONL line is read up to the bound and the rest of a longer one skipped unread (and so is one
that would make more than :data:`judgebox.judging.cases.MAX_JSON_VALUES` JSON values, counted as it is read, as
is a field of JSON text before it is parsed); a packed field
is inflated a chunk at a time up to the bound (:mod:`.packed`); Parquet is decoded in a child process the kernel caps
(:mod:`.parquet`). A bomb costs about the bound and is one bad record; the file's other records are read.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, cast

from judgebox import languages
from judgebox.errors import JudgeboxError, UnknownLanguage
from judgebox.judging.cases import (
    MAX_JSON_VALUES,
    MAX_RECORD_BYTES,
    JsonValues,
    json_error,
    json_values,
    load_problem,
    over_bound,
    over_values,
)
from judgebox.languages.extract import answer_code
from judgebox.tools.score.packed import unpacked
from judgebox.tools.score.parquet import read_parquet
from judgebox.tools.score.records import BadRecord as BadRecord  # re-exported: what the readers raise
from judgebox.tools.score.records import UnreadableFile as UnreadableFile  # re-exported, as BadRecord

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
    form: str = ""  # the name of its format (FORMATS)
    base_cases: int | None = None  # evalplus's: the first cases are its base tests, the rest its plus tests
    differential: Differential | None = None  # outputs still to compute from a reference (None: none)
    cpu_time: float | None = None  # its CPU limit a case, calibrated on its reference (None: the run's)


@dataclass(frozen=True)
class Differential:
    """Test cases whose expected values are a reference solution's (evalplus's differential testing): the
    problem's ``outputs`` are placeholders until :mod:`.references` has run ``reference`` on the inputs."""

    reference: str  # the whole program
    fn_name: str


@dataclass(frozen=True)
class Format:
    name: str
    marks: frozenset[str]  # all present: the record is in this format
    keys: frozenset[str]  # every key the format may carry
    build: Callable[[Mapping[str, Any], str], Problem] = field(repr=False)
    cases_field: str = "test_cases"  # where its test cases are, for messages
    # the record with a problem's time limit (CPU seconds) and memory limit (MiB) where the format keeps
    # them, read back by ``build``; None: the format has no place for them (HumanEval's, MBPP's records)
    with_limits: Callable[[Mapping[str, Any], float, int], dict[str, Any]] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Limited:
    """A problem's limits, as its test data's settings hold them (``time_limit``, ``memory_limit``)."""

    time_limit: float  # CPU seconds per case
    memory_limit: int  # MiB


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


CASE_FORMS = frozenset({"inputs", "assert_case", "official_tests", "test_cases"})  # a key of each form of cases


def _test_cases(value: Any, where: str, key: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not (CASE_FORMS & value.keys()):
        raise BadRecord(where, key, "expected test cases (inputs/outputs, assert_case, or open-r1's official_tests "
                                    f"or test_cases), got {_shown(value)}")
    return value


def _language(value: Any, where: str, key: str) -> str:
    """A record's language: a name judgebox knows (a record in another is no failed solution, it is data
    judgebox cannot judge, and says so)."""
    if not isinstance(value, str):
        raise BadRecord(where, key, "expected a language name")
    try:
        languages.get(value)
    except UnknownLanguage:
        raise BadRecord(where, key, f"unknown language {value!r} (`judgebox languages` lists them)") from None
    return value


def _judgebox(record: Mapping[str, Any], where: str) -> Problem:
    language = _language(record.get("language", "python"), where, "language")
    return Problem(str(record["id"]), str(record.get("source", "")), language,
                   _test_cases(record["test_cases"], where, "test_cases"),
                   tuple((language, c) for c in _texts(record, "solutions", where)),
                   tuple((language, c) for c in _texts(record, "wrong_solutions", where)))


def _settings(cases: Any, time_limit: float, memory_limit: int) -> Any:
    """Test cases (a dict, or JSON text of one: written back as it came) with the two settings in them."""
    amended = dict(json.loads(cases) if isinstance(cases, str) else cases)
    amended.update(time_limit=time_limit, memory_limit=memory_limit)
    return json.dumps(amended) if isinstance(cases, str) else amended


def _judgebox_limits(record: Mapping[str, Any], time_limit: float, memory_limit: int) -> dict[str, Any]:
    return {**record, "test_cases": _settings(record["test_cases"], time_limit, memory_limit)}


def _verl_limits(record: Mapping[str, Any], time_limit: float, memory_limit: int) -> dict[str, Any]:
    reward = dict(record["reward_model"])
    reward["ground_truth"] = _settings(reward["ground_truth"], time_limit, memory_limit)
    return {**record, "reward_model": reward}


def _apps_limits(record: Mapping[str, Any], time_limit: float, memory_limit: int) -> dict[str, Any]:
    return {**record, "input_output": _settings(record["input_output"], time_limit, memory_limit)}


def _codecontests_limits(record: Mapping[str, Any], time_limit: float, memory_limit: int) -> dict[str, Any]:
    seconds = int(time_limit)
    return {**record, "time_limit": {"seconds": seconds, "nanos": round((time_limit - seconds) * 1e9)},
            "memory_limit_bytes": memory_limit * 2**20}


def as_judgebox_record(problem: Problem) -> dict[str, Any]:
    """The problem in judgebox's own form (its settings in ``test_cases``), for a format with no place for
    a setting the problem must carry. That form has one language a record: solutions in another are left
    out; a ``prompt`` is kept as text, not continued (give samples as whole programs)."""
    record: dict[str, Any] = {"id": problem.id, "source": problem.source, "language": problem.language,
                              "test_cases": problem.test_cases}
    if problem.prompt:
        record["prompt"] = problem.prompt
    record["solutions"] = [code for lang, code in problem.right if lang == problem.language]
    record["wrong_solutions"] = [code for lang, code in problem.wrong if lang == problem.language]
    return record


def _verl(record: Mapping[str, Any], where: str) -> Problem:
    reward = record["reward_model"]
    if not isinstance(reward, Mapping) or "ground_truth" not in reward:
        raise BadRecord(where, "reward_model", "expected an object with ground_truth")
    cases = _test_cases(_json(reward, "ground_truth", where), where, "reward_model.ground_truth")
    extra = record.get("extra_info") or {}
    index = extra.get("index") if isinstance(extra, Mapping) else None
    ident = str(index) if index is not None else where
    language = _language(cases.get("language", "python"), where, "reward_model.ground_truth.language")
    return Problem(ident, str(record["data_source"]), language, cases)


def _humaneval(record: Mapping[str, Any], where: str) -> Problem:
    prompt, entry = _text(record, "prompt", where), _text(record, "entry_point", where)
    cases = {"inputs": [""], "outputs": [None], "assert_case": [f"{_text(record, 'test', where)}\n\ncheck({entry})\n"]}
    right = record.get("canonical_solution")
    return Problem(str(record["task_id"]), "humaneval", "python", cases,
                   ((("python", prompt + right),) if isinstance(right, str) else ()), prompt=prompt)


def _evalplus(record: Mapping[str, Any], where: str) -> Problem:
    """HumanEval+ and MBPP+: a call case for each base and plus input, compared as evalplus compares, the
    expected values to come from the canonical solution."""
    prompt, entry = _text(record, "prompt", where), _text(record, "entry_point", where)
    reference = prompt + _text(record, "canonical_solution", where)
    inputs = [_arguments(record, key, where) for key in ("base_input", "plus_input")]
    atol = record.get("atol") or 0
    if isinstance(atol, bool) or not isinstance(atol, (int, float)) or not 0 <= atol < float("inf"):
        raise BadRecord(where, "atol", f"expected a tolerance >= 0, got {_shown(atol)}")
    every = inputs[0] + inputs[1]
    if not every:
        raise BadRecord(where, "base_input", "expected at least one input")
    cases = {"inputs": every, "outputs": [None] * len(every), "fn_name": entry,
             "checker": {"name": "evalplus", "atol": float(atol)}}
    return Problem(str(record["task_id"]), "evalplus", "python", cases, (("python", reference),), prompt=prompt,
                   base_cases=len(inputs[0]), differential=Differential(reference, entry))


def _arguments(record: Mapping[str, Any], key: str, where: str) -> list[list[Any]]:
    value = record.get(key)
    if not isinstance(value, list) or not all(isinstance(arguments, list) for arguments in value):
        raise BadRecord(where, key, f"expected a list of argument lists, got {_shown(value)}")
    return value


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


def _open_r1(record: Mapping[str, Any], where: str) -> Problem:
    """open-r1's verifiable-coding-problems rows: the cases and language in ``verification_info``, the
    known-right program fenced in ``gold_standard_solution``."""
    info = _json(record, "verification_info", where)
    if not isinstance(info, dict) or "test_cases" not in info:
        raise BadRecord(where, "verification_info", 'expected {"language": ..., "test_cases": [...]}')
    language = _language(info.get("language", "python"), where, "verification_info.language")
    gold = record.get("gold_standard_solution")
    if gold is not None and not isinstance(gold, str):
        raise BadRecord(where, "gold_standard_solution", "expected the solution's text")
    code = answer_code(gold, language) if gold else None
    return Problem(str(record["problem_id"]), str(record.get("source", "open-r1")), language, info,
                   ((language, code),) if code else ())


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
        value = unpacked(value, where, key)
    tests = _json({key: value}, key, where)
    if not isinstance(tests, list) or not all(isinstance(t, dict) and {"input", "output"} <= t.keys() for t in tests):
        raise BadRecord(where, key, "expected a list of {input, output, testtype}")
    return tests


FORMATS: tuple[Format, ...] = (
    Format("judgebox", frozenset({"id", "test_cases"}),
           frozenset({"id", "source", "language", "prompt", "test_cases", "solutions", "wrong_solutions", "meta"}),
           _judgebox, with_limits=_judgebox_limits),
    Format("verl", frozenset({"data_source", "reward_model"}),
           frozenset({"data_source", "prompt", "ability", "reward_model", "extra_info"}), _verl,
           "reward_model.ground_truth", _verl_limits),
    # before humaneval's and mbpp's: HumanEval+ and MBPP+ records carry those datasets' fields too
    Format("evalplus", frozenset({"task_id", "prompt", "entry_point", "canonical_solution", "base_input",
                                  "plus_input"}),
           frozenset({"task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input", "atol",
                      "test", "contract", "assertion", "code", "source_file", "test_imports", "test_list"}),
           _evalplus, "base_input"),
    Format("humaneval", frozenset({"task_id", "prompt", "test", "entry_point"}),
           frozenset({"task_id", "prompt", "canonical_solution", "test", "entry_point", "contract"}), _humaneval,
           "test"),
    Format("mbpp", frozenset({"task_id", "code", "test_list"}),
           frozenset({"task_id", "text", "prompt", "code", "test_list", "test_setup_code", "challenge_test_list",
                      "test_imports", "source_file"}), _mbpp, "test_list"),
    Format("apps", frozenset({"problem_id", "input_output"}),
           frozenset({"id", "problem_id", "question", "solutions", "input_output", "difficulty", "url",
                      "starter_code"}), _apps, "input_output", _apps_limits),
    Format("codecontests", frozenset({"name", "public_tests"}),
           frozenset({"name", "description", "public_tests", "private_tests", "generated_tests", "source",
                      "difficulty", "solutions", "incorrect_solutions", "cf_contest_id", "cf_index", "cf_points",
                      "cf_rating", "cf_tags", "is_description_translated", "untranslated_description",
                      "time_limit", "memory_limit_bytes", "input_file", "output_file"}), _codecontests,
           "public_tests", _codecontests_limits),
    Format("open-r1", frozenset({"problem_id", "verification_info"}),
           frozenset({"problem_id", "source", "task_type", "in_source_id", "prompt", "gold_standard_solution",
                      "verification_info", "metadata"}), _open_r1, "verification_info"),
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
                problem = replace(form.build(record, where), where=where, form=form.name)
            except BadRecord:
                raise
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
    """``(where, record)`` for each record of a JSONL file (gzipped where its name ends in ``.gz``, as
    HumanEval ships) or a Parquet file; a line that is not JSON, or is over the bound, comes as ``(where,
    BadRecord)``. :class:`UnreadableFile` if the file itself cannot be read, or its compressed stream breaks
    off (the records before the break have been read)."""
    if path.suffix == ".parquet":

        yield from read_parquet(path)
        return
    try:
        handle = cast(IO[bytes], gzip.open(path, "rb")) if path.suffix == ".gz" else path.open("rb")
    except OSError as exc:
        raise UnreadableFile(f"{path}: {exc.strerror or exc}") from None
    with handle:
        try:
            yield from _json_lines(path, handle)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:  # the lines are bounded as they are inflated
            raise UnreadableFile(f"{path}: not a whole gzip stream ({exc or type(exc).__name__})") from None


def _json_lines(path: Path, handle: IO[bytes]) -> Iterator[tuple[str, Any]]:
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

"""``judgebox calibrate DATA --out DATA2``: a dataset's problems with limits calibrated on their references.

Each problem's known-right solutions in the samples' language (the problem's own, or ``language``) are its
references: the first that passes every case, tried in the file's order (at most :data:`TRIES` of them), is
judged under a generous CPU limit (``reference_cpu_time``: the problem's stated limit is what is being
replaced, and a Python reference often needs more than a limit set for C++). Its CPU times and peak memory
give the problem's limits (:meth:`Calibration.problem_limits`), written where the data's settings hold them:
``time_limit`` / ``memory_limit`` in the test cases (judgebox's ``test_cases``, verl's
``reward_model.ground_truth``, APPS' ``input_output``) or CodeContests' own ``time_limit`` and
``memory_limit_bytes``. verl, TRL, OpenRLHF and ``judgebox score`` read them there with no change. A format
with no place for them (HumanEval, MBPP, LiveCodeBench) is written in judgebox's form.

Nothing is lost: a problem no reference calibrates is written as it was, and so is a record that is not a
problem; each is a row of the table saying why. Only a line that is not JSON at all cannot be written back.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

from judgebox import languages
from judgebox.errors import BadRecord, InvalidInput
from judgebox.judging.judge import Judge
from judgebox.tools.calibrate import DEFAULT_CALIBRATION, Calibration
from judgebox.tools.score.formats import FORMATS, Problem, as_judgebox_record, read_records, to_problem
from judgebox.types import JudgeResult, Limits, Submission

TRIES = 3  # references tried a problem before it is written as it was
REFERENCE_CPU_TIME = 20.0  # seconds: what a reference may take on a case while it is measured
REFERENCE_LIMITS = Limits(cpu_time=REFERENCE_CPU_TIME)


@dataclass(frozen=True)
class Row:
    """One record of the data, as the table shows it."""

    id: str
    where: str
    cases: int = 0
    reference: str = ""  # the language of the reference that calibrated it ("" none)
    slowest: float | None = None  # CPU seconds of the reference's slowest case
    time_before: float | None = None
    time_after: float | None = None
    memory_before: int | None = None
    memory_after: int | None = None
    note: str = ""

    @property
    def calibrated(self) -> bool:
        return self.time_after is not None


@dataclass
class _Entry:
    """A record on its way to the output: as read, and what became of it."""

    record: Any
    where: str
    problem: Problem | None = None
    references: tuple[tuple[str, str], ...] = ()  # (language, code), in the file's order
    tried: int = 0
    failures: tuple[str, ...] = ()
    row: Row | None = None


def calibrate_data(data: Path, out: Path, judge: Judge, calibration: Calibration = DEFAULT_CALIBRATION,
                   language: str | None = None, limit: int | None = None,
                   reference_cpu_time: float = REFERENCE_CPU_TIME, references: Mapping[str, list[str]] | None = None,
                   progress: Callable[[Row], None] | None = None) -> list[Row]:
    """Calibrate the problems of ``data`` (the first ``limit`` records) and write them to ``out`` (JSONL, or
    Parquet by its suffix) in their order; a row for each record, in the file's order. ``references``: more
    known-right programs by problem id, tried before the record's own (verl's files carry none). Raises
    :class:`UnreadableFile` or :class:`InvalidInput` before judging anything, OSError if ``out`` cannot be
    written."""
    if out.resolve() == data.resolve():
        raise InvalidInput(f"--out {out} is the data itself: calibrated data is written beside it, not over it")
    wanted = languages.get(language).name if language else None
    entries = [_read(where, record, wanted, references or {})
               for where, record in islice(read_records(data), limit)]
    base = Limits(cpu_time=reference_cpu_time)
    while waiting := [e for e in entries if e.row is None and e.tried < min(TRIES, len(e.references))]:
        submissions = [_reference_run(entry, base) for entry in waiting]
        for index, result in judge.judge_many(submissions):
            row = _judged(waiting[index], result, calibration)
            if progress is not None and row is not None:
                progress(row)
    for entry in entries:
        if entry.row is None:
            entry.row = _kept(entry)
            if progress is not None:
                progress(entry.row)
    _write(out, [e.record for e in entries if not isinstance(e.record, BadRecord)])
    return [e.row for e in entries if e.row is not None]


def _read(where: str, record: Any, wanted: str | None, given: Mapping[str, list[str]]) -> _Entry:
    if isinstance(record, BadRecord):
        return _Entry(record, where, row=Row("", where, note=f"not written: {record}"))
    try:
        problem = to_problem(record, where)
    except BadRecord as bad:
        return _Entry(record, where, row=Row("", where, note=f"written as it was: {bad}"))
    if problem.differential is not None:  # its expected values are its canonical solution's, computed by score
        return _Entry(record, where, problem, row=Row(problem.id, where, note="written as it was: evalplus's "
                                                      "format has no place for limits; use judgebox score --calibrate"))
    samples = wanted or problem.language
    references = tuple((samples, code) for code in given.get(problem.id, ())) + references_of(problem, samples)
    return _Entry(record, where, problem, references)


def references_of(problem: Problem, language: str) -> tuple[tuple[str, str], ...]:
    """The problem's known-right solutions in ``language`` (any of its names), as (language, code)."""
    wanted = languages.get(language).name
    return tuple((lang, code) for lang, code in problem.right
                 if (spec := languages.lookup(lang)) is not None and spec.name == wanted)


def reference_submission(problem: Problem, language: str, code: str,
                         base: Limits = REFERENCE_LIMITS) -> Submission:
    """The reference's run on the problem's cases, to measure: the stated time limit is the one being
    replaced, so the reference runs under the generous ``base``."""
    cases = {k: v for k, v in problem.test_cases.items() if k != "time_limit"}
    return Judge.submission(code, cases, language, base)


def _reference_run(entry: _Entry, base: Limits) -> Submission:
    assert entry.problem is not None
    language, code = entry.references[entry.tried]
    return reference_submission(entry.problem, language, code, base)


def _judged(entry: _Entry, result: JudgeResult, calibration: Calibration) -> Row | None:
    """The problem's row if the reference passed (its record now carries the limits), else None."""
    problem = entry.problem
    assert problem is not None
    language = entry.references[entry.tried][0]
    entry.tried += 1
    if result.total == 0 or result.passed != result.total:
        failing = next((i for i, c in enumerate(result.cases) if not c.passed), None)
        told = (f"case {failing}: {result.cases[failing].verdict.value}" if failing is not None
                else result.verdict.value + (f": {result.message.splitlines()[0]}" if result.message else ""))
        entry.failures += (f"reference {entry.tried} ({language}) fails {told}",)
        return None
    stated_time, stated_memory = problem.test_cases.get("time_limit"), problem.test_cases.get("memory_limit")
    time_limit, memory_limit = calibration.problem_limits(result, stated_memory)
    form = next(f for f in FORMATS if f.name == problem.form)
    note = ""
    if form.with_limits is not None:
        entry.record = form.with_limits(entry.record, time_limit, memory_limit)
    else:
        cases = {**problem.test_cases, "time_limit": time_limit, "memory_limit": memory_limit}
        entry.record = as_judgebox_record(replace(problem, test_cases=cases))
        note = f"written in judgebox's form (the {form.name} format has no place for limits)"
    entry.row = Row(problem.id, entry.where, len(result.cases), language, max(c.cpu_time for c in result.cases),
                    stated_time, time_limit, stated_memory, memory_limit, note)
    return entry.row


def _kept(entry: _Entry) -> Row:
    problem = entry.problem
    assert problem is not None
    if not entry.references:
        others = f" ({len(problem.right)} in other languages)" if problem.right else ""
        why = f"no known-right solution in {problem.language}{others}"
    else:
        untried = len(entry.references) - entry.tried
        why = "; ".join(entry.failures) + (f"; {untried} more not tried" if untried else "")
    return Row(problem.id, entry.where, len(problem.test_cases.get("inputs") or ()),
               time_before=problem.test_cases.get("time_limit"),
               memory_before=problem.test_cases.get("memory_limit"), note=f"written as it was: {why}")


def _write(out: Path, records: list[Any]) -> None:
    """All of them at once, through a file beside ``out`` renamed over it: an interrupted run leaves no
    half-written data a trainer would read."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        if out.suffix == ".parquet":
            os.close(handle)
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pylist(records), temporary)
        else:
            with os.fdopen(handle, "w", encoding="utf-8") as text:
                for record in records:
                    text.write(json.dumps(record, ensure_ascii=False) + "\n")
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

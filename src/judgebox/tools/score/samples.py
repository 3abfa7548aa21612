"""A model's samples: completions joined to the problems by id, and pass@k over them.

One JSON line holds one completion (``completion``, ``solution``, ``response``, ``code``...) or a list of
them (``completions``, ``responses``, LiveCodeBench's ``code_list``...) for the problem its id names
(``task_id``, ``question_id``, ``problem_id``, ``id`` or ``name``); lines of one id add up, in order.
HumanEval's ``completion`` continues the prompt, so the prompt is put before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebox.datasets.metrics import KS
from judgebox.tools.score.formats import ID_KEYS, BadRecord, read_records

ONE = ("completion", "solution", "response", "code", "generation", "output")
MANY = ("completions", "solutions", "responses", "code_list", "generations", "samples", "outputs")
# what evaluation tools write beside the completions (bigcodebench, evalplus, LiveCodeBench), not read
OTHER_KEYS = frozenset({"index", "sample", "model", "prompt", "raw_solution", "output_list", "question_title",
                        "question_content", "platform", "contest_id", "contest_date", "starter_code",
                        "difficulty", "metadata", "finish_reason"})


@dataclass(frozen=True)
class Completion:
    index: int  # its place among the problem's samples
    text: str
    continues_prompt: bool  # HumanEval's `completion`: a body after the problem's prompt


def read_samples(path: Path) -> tuple[dict[str, list[Completion]], list[BadRecord]]:
    """Every problem id's completions, and the lines that could not be read."""
    by_id: dict[str, list[Completion]] = {}
    bad: list[BadRecord] = []
    for where, record in read_records(path):
        try:
            if isinstance(record, BadRecord):
                raise record
            ident, key, texts = _parse(record, where)
        except BadRecord as exc:
            bad.append(exc)
            continue
        kept = by_id.setdefault(ident, [])
        kept += [Completion(len(kept) + i, text, key == "completion") for i, text in enumerate(texts)]
    return by_id, bad


def _parse(record: Any, where: str) -> tuple[str, str, list[str]]:
    if not isinstance(record, Mapping):
        raise BadRecord(where, "(line)", "expected a JSON object")
    ids = [k for k in ID_KEYS if k in record]
    if len(ids) != 1 or not isinstance(record[ids[0]], (str, int)):
        raise BadRecord(where, ids[0] if ids else "id", f"expected exactly one id (one of {', '.join(ID_KEYS)})")
    where = f"{where} (id {record[ids[0]]})"
    texts = [k for k in (*ONE, *MANY) if k in record]
    if len(texts) != 1:
        raise BadRecord(where, texts[1] if texts else "completion",
                        f"expected exactly one of {', '.join((*ONE, *MANY))}")
    unknown = sorted(str(k) for k in record if k not in {ids[0], texts[0]} | OTHER_KEYS)
    if unknown:
        raise BadRecord(where, unknown[0], "not a field of a samples file")
    value = record[texts[0]]
    values = [value] if texts[0] in ONE else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        shape = "a string" if texts[0] in ONE else "a list of strings"
        raise BadRecord(where, texts[0], f"expected {shape}, got {type(value).__name__}")
    return str(record[ids[0]]), texts[0], values


def unreported_ks(counts: Iterable[tuple[int, int]], ks: Iterable[int] = KS) -> dict[str, str]:
    """Why each k that :func:`pass_at_ks` leaves out is left out."""
    counts = list(counts)
    out = {}
    for k in ks:
        short = [n for n, _ in counts if n < k]
        if counts and short:
            out[f"pass@{k}"] = (f"{len(short)} of {len(counts)} problems have fewer than {k} samples "
                                f"(the fewest: {min(short)})")
    return out

"""A model's samples: completions joined to the problems by id, and pass@k over them.

One JSON line holds one completion (``completion``, ``solution``, ``response``, ``code``...) or a list of
them (``completions``, ``responses``, LiveCodeBench's ``code_list``...) for the problem its id names
(``task_id``, ``question_id``, ``problem_id``, ``id`` or ``name``); lines of one id add up, in order.
HumanEval's ``completion`` continues the prompt, so the prompt is put before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

from .formats import ID_KEYS, BadRecord, read_records

ONE = ("completion", "solution", "response", "code", "generation", "output")
MANY = ("completions", "solutions", "responses", "code_list", "generations", "samples", "outputs")
# what evaluation tools write beside the completions (bigcodebench, evalplus, LiveCodeBench), not read
OTHER_KEYS = frozenset({"index", "sample", "model", "prompt", "raw_solution", "output_list", "question_title",
                        "question_content", "platform", "contest_id", "contest_date", "starter_code",
                        "difficulty", "metadata", "finish_reason"})
KS = (1, 5, 10)


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


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator: the chance that k of the n samples, drawn without replacement, include
    one of the c that passed: 1 - C(n-c, k) / C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs 1 <= k <= n and 0 <= c <= n, got n={n}, c={c}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at_ks(counts: Iterable[tuple[int, int]], ks: Iterable[int] = KS) -> dict[str, dict[str, float]]:
    """``{"pass@k": {"value", "problems"}}`` over the problems' (samples, passed) counts, for each k that
    some problem has at least k samples for (only those problems count towards it)."""
    counts = list(counts)
    out: dict[str, dict[str, float]] = {}
    for k in ks:
        eligible = [(n, c) for n, c in counts if n >= k]
        if eligible:
            value = sum(pass_at_k(n, c, k) for n, c in eligible) / len(eligible)
            out[f"pass@{k}"] = {"value": value, "problems": len(eligible)}
    return out

"""Judge every solution of a dataset file: the engine of ``judgebox score``.

Records are JSON lines with ``id``, ``language``, ``test_cases`` (verl's form) and ``solutions`` (and
optionally ``wrong_solutions``). A record that cannot be judged (bad JSON, bad test data) is reported
with its error and counted, never dropped silently, and never stops the others.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .errors import JudgeboxError
from .judging import Judge
from .types import JudgeResult

KINDS = ("solutions", "wrong_solutions")


@dataclass(frozen=True)
class Item:
    """One solution of one record, with its place in the file."""

    record_id: str
    kind: str  # "solutions" or "wrong_solutions"
    index: int
    language: str
    code: str
    test_cases: Any


@dataclass(frozen=True)
class Scored:
    item: Item
    result: JudgeResult | None = None
    error: str | None = None  # the record could not be judged (invalid input)

    @property
    def score(self) -> float:
        return self.result.score if self.result else 0.0


@dataclass
class Summary:
    solutions: int = 0
    full_score: int = 0
    invalid: int = 0
    cases: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def add(self, scored: Scored) -> None:
        self.solutions += 1
        if scored.result is None:
            self.invalid += 1
            return
        self.full_score += scored.score == 1.0
        self.cases += len(scored.result.cases)
        self.verdicts.update(str(c.verdict) for c in scored.result.cases)

    @property
    def pass_rate(self) -> float:
        return self.full_score / self.solutions if self.solutions else 0.0

    @property
    def cases_per_second(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0


def read_items(lines: Iterable[str], kinds: tuple[str, ...] = ("solutions",)) -> Iterator[Item | Scored]:
    """Items to judge; a line that is not a valid record yields a ``Scored`` with its error instead."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            record_id = str(record.get("id", f"line {number}"))
            for kind in kinds:
                for index, code in enumerate(record.get(kind) or []):
                    yield Item(record_id, kind, index, record.get("language", "python"), code, record["test_cases"])
        except (ValueError, KeyError, AttributeError, TypeError) as exc:
            yield Scored(Item(f"line {number}", "record", 0, "", "", None), error=f"invalid record: {exc!r}")


def score_items(judge: Judge, items: Iterable[Item | Scored], concurrency: int,
                on_result: Callable[[Scored], None]) -> None:
    """Judge items with ``concurrency`` submissions in flight; ``on_result`` sees each as it finishes."""
    def one(item: Item | Scored) -> Scored:
        if isinstance(item, Scored):
            return item
        try:
            return Scored(item, judge.judge(item.code, item.test_cases, item.language))
        except JudgeboxError as exc:
            return Scored(item, error=f"{type(exc).__name__}: {exc}")

    with ThreadPoolExecutor(concurrency) as pool:
        for scored in pool.map(one, items):
            on_result(scored)

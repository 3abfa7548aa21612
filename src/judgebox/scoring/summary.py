"""What a score run found, from its results rows: the one place that turns rows into the figures the
terminal table, ``--json`` and an HTML report show (:func:`summarize`; :func:`summarize_file` for a
results file on disk).

Known-right and known-wrong solutions are kept apart (right ones should pass, wrong ones should be
rejected); a model's samples get pass@k. A sample "passes" when it scored 1.0. A judge failure (SE) is
neither a pass nor a rejection: it is counted on its own, so it cannot hide in either figure.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .results import KINDS, load
from .samples import pass_at_ks

SLOWEST = 5


def summarize(rows: Iterable[dict[str, Any]], bad_records: Iterable[str] = (), seconds: float | None = None,
              interrupted: bool = False) -> dict[str, Any]:
    """The summary as plain data (JSON-ready). ``seconds``: this run's wall time, for its rate."""
    rows = list(rows)
    bad = list(bad_records)
    cases = sum(len(r["cases"]) for r in rows)
    summary: dict[str, Any] = {
        "judged": len(rows), "cases": cases, "interrupted": interrupted,
        "kinds": {kind: _kind(kind, [r for r in rows if r["kind"] == kind])
                  for kind in KINDS if any(r["kind"] == kind for r in rows)},
        "by_language": _breakdown(rows, "language"), "by_source": _breakdown(rows, "source"),
        "slowest": _slowest(rows), "bad_records": len(bad), "bad_record_errors": bad[:100],
    }
    if seconds is not None:
        summary["seconds"] = round(seconds, 3)
    return summary


def summarize_file(path: Path, **kwargs: Any) -> dict[str, Any]:
    return summarize(load(path), **kwargs)


def passed(row: dict[str, Any]) -> bool:
    """A row that passed: it scored 1.0 (and the judge did not fail)."""
    return row["score"] == 1.0 and row["verdict"] != "SE"



def _failed_by_judge(row: dict[str, Any]) -> bool:
    return row["verdict"] == "SE"


def _kind(kind: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    passes = sum(map(passed, rows))
    infra = sum(map(_failed_by_judge, rows))
    out: dict[str, Any] = {
        "judged": len(rows), "passed": passes, "rejected": len(rows) - passes - infra, "judge_failures": infra,
        "verdicts": dict(Counter(str(r["verdict"]) for r in rows).most_common()),
        "case_verdicts": dict(Counter(c[0] for r in rows for c in r["cases"]).most_common()),
        "problems": len({r["id"] for r in rows}),
    }
    if kind == "sample":
        per_problem: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for row in rows:
            per_problem[row["id"]][0] += 1
            per_problem[row["id"]][1] += passed(row)
        out["pass_at_k"] = pass_at_ks(tuple(v) for v in per_problem.values())
    return out


def _breakdown(rows: list[dict[str, Any]], field: str) -> dict[str, dict[str, dict[str, int]]]:
    """``{value: {kind: {"judged", "passed", "rejected"}}}``: per language or per source."""
    table: dict[str, dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: {"judged": 0, "passed": 0, "rejected": 0}))
    for row in rows:
        cell = table[str(row.get(field) or "?")][row["kind"]]
        cell["judged"] += 1
        cell["passed"] += passed(row)
        cell["rejected"] += not passed(row) and not _failed_by_judge(row)
    return {name: dict(kinds) for name, kinds in sorted(table.items())}


def _slowest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The problems that took longest, all their samples' time together."""
    took: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for row in rows:
        took[row["id"]][0] += row["seconds"]
        took[row["id"]][1] += 1
    ranked = sorted(took.items(), key=lambda item: -item[1][0])[:SLOWEST]
    return [{"id": ident, "seconds": round(total, 3), "samples": int(count)} for ident, (total, count) in ranked]

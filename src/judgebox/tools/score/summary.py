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

from judgebox.datasets.metrics import KS, pass_at_ks
from judgebox.tools.score.results import KINDS, load
from judgebox.tools.score.samples import unreported_ks

SLOWEST = 5
FAILURES = 200  # rows of failure detail in a summary: the first of them, in the rows' order


def summarize(rows: Iterable[dict[str, Any]], bad_records: Iterable[str] = (), seconds: float | None = None,
              interrupted: bool = False, ks: Iterable[int] = KS) -> dict[str, Any]:
    """The summary as plain data (JSON-ready). ``seconds``: this run's wall time, for its rate; ``ks``: the
    k of the samples' pass@k."""
    ks = tuple(ks)
    rows = list(rows)
    bad = list(bad_records)
    cases = sum(len(r["cases"]) for r in rows)
    summary: dict[str, Any] = {
        "judged": len(rows), "cases": cases, "interrupted": interrupted,
        # rows that ran no case (nothing in the sample to run, or a preset that refuses it), by verdict
        "not_run": dict(Counter(r["verdict"] for r in rows if not r["cases"]).most_common()),
        "kinds": {kind: _kind(kind, [r for r in rows if r["kind"] == kind], ks)
                  for kind in KINDS if any(r["kind"] == kind for r in rows)},
        "by_language": _breakdown(rows, "language"), "by_source": _breakdown(rows, "source"),
        "slowest": _slowest(rows), "bad_records": len(bad), "bad_record_errors": bad[:100],
    }
    failed = failures(rows)
    summary["failures"] = [{field: row.get(field) for field in ("id", "kind", "sample", "verdict", "error")}
                           for row in failed[:FAILURES]]
    summary["failures_total"] = len(failed)
    if seconds is not None:
        summary["seconds"] = round(seconds, 3)
    return summary


def summarize_file(path: Path | str, **kwargs: Any) -> dict[str, Any]:
    return summarize(load(path), **kwargs)


def passed(row: dict[str, Any]) -> bool:
    """A row that passed: it scored 1.0 (and the judge did not fail). Of an evalplus problem, that is its
    plus score: the base tests and the plus tests passed."""
    return row["score"] == 1.0 and row["verdict"] != "SE"


def passed_base(row: dict[str, Any]) -> bool:
    """An evalplus row that passed its base tests (its first ``base_cases`` cases), as evalplus's base score
    counts it; the cases after a failing one may not have run, but those are plus tests."""
    base = row["base_cases"]
    return row["verdict"] != "SE" and len(row["cases"]) >= base and all(c[0] == "AC" for c in row["cases"][:base])


def failures(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows that did not do what their kind should: right solutions and samples that did not pass, and
    any row the judge failed on (a known-wrong solution rejected is what it should be)."""
    return [row for row in rows if not passed(row) and (row["kind"] != "wrong" or _failed_by_judge(row))]


def _failed_by_judge(row: dict[str, Any]) -> bool:
    return row["verdict"] == "SE"


def _kind(kind: str, rows: list[dict[str, Any]], ks: tuple[int, ...]) -> dict[str, Any]:
    passes = sum(map(passed, rows))
    infra = sum(map(_failed_by_judge, rows))
    out: dict[str, Any] = {
        "judged": len(rows), "passed": passes, "rejected": len(rows) - passes - infra, "judge_failures": infra,
        "verdicts": dict(Counter(str(r["verdict"]) for r in rows).most_common()),
        "case_verdicts": dict(Counter(c[0] for r in rows for c in r["cases"]).most_common()),
        "problems": len({r["id"] for r in rows}),
    }
    if kind == "sample":
        # evalplus's problems have two scores: pass@k is the plus one (base and plus tests), base_pass_at_k
        # the base tests' alone, over the same problems (a problem of another format counts its one score)
        two_scores = any("base_cases" in row for row in rows)
        per_problem: dict[str, dict[str, int]] = defaultdict(
            lambda: {"samples": 0, "passed": 0, **({"base_passed": 0} if two_scores else {})})
        for row in rows:
            figures = per_problem[str(row["id"])]
            figures["samples"] += 1
            figures["passed"] += passed(row)
            if two_scores:
                figures["base_passed"] += passed_base(row) if "base_cases" in row else passed(row)
        for name, count in (("pass_at_k", "passed"), *((("base_pass_at_k", "base_passed"),) if two_scores else ())):
            counts = [(p["samples"], p[count]) for p in per_problem.values()]
            out[name] = pass_at_ks(counts, ks)
        out["pass_at_k_not_reported"] = unreported_ks(counts, ks)
        out["per_problem"] = dict(per_problem)
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

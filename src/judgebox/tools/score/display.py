"""The summary of a score run on a terminal: the headline a newcomer reads first (right solutions that
passed, wrong ones rejected, samples' pass@k), then verdicts, breakdowns and the slowest problems."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

NAMES = {"right": "right solutions", "wrong": "wrong solutions", "sample": "samples"}


def headline(summary: dict[str, Any]) -> list[str]:
    """One line per kind: what was expected of it and how many met it."""
    lines = []
    kinds = summary["kinds"]
    for kind, figures in kinds.items():
        judged, failures = figures["judged"], figures["judge_failures"]
        if kind == "wrong":
            line = f"wrong solutions rejected {figures['rejected']}/{judged} ({_share(figures['rejected'], judged)})"
        else:
            line = f"{NAMES[kind]} passed {figures['passed']}/{judged} ({_share(figures['passed'], judged)})"
        if kind == "sample":
            line += "".join(f", {k} {v['value']:.1%}" for k, v in figures["pass_at_k"].items())
            line += f" over {figures['problems']} problems"
            if "base_pass_at_k" in figures:  # evalplus's two scores: the one above is base and plus tests
                line += " (base and plus tests); base tests alone: " + ", ".join(
                    f"{k} {v['value']:.1%}" for k, v in figures["base_pass_at_k"].items())
            line += "".join(f"; {k} not reported: {why}" for k, why in figures["pass_at_k_not_reported"].items())
        if failures:
            line += f"; {failures} judge failures (SE), counted in neither"
        lines.append(line)
    return lines


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def show(summary: dict[str, Any], title: str, out: Console) -> None:
    top = Table(title=title, show_header=False)
    for line in headline(summary):
        top.add_row(line)
    if summary["bad_records"]:
        top.add_row(f"[red]bad records skipped: {summary['bad_records']} (each reported above)")
    if summary["interrupted"]:
        top.add_row("[yellow]interrupted: these figures are of what was judged before it")
    seconds = summary.get("seconds")
    rate = f", {summary['cases'] / seconds:.0f} cases/s" if seconds else ""
    not_run = summary.get("not_run", {})
    skipped = sum(not_run.values())
    why = ", ".join(f"{verdict} {count}" for verdict, count in not_run.items())
    top.add_row(f"{summary['judged'] - skipped} programs run"
                + (f" ({skipped} samples had none to run: {why})" if skipped else "")
                + f", {summary['cases']} test cases"
                + (f" in {seconds:.1f} s{rate}" if seconds is not None else ""))
    out.print(top)
    if not summary["kinds"]:
        return

    verdicts = Table(title="verdicts")
    verdicts.add_column("kind")
    verdicts.add_column("programs (the first failing case's)")
    verdicts.add_column("test cases")
    for kind, figures in summary["kinds"].items():
        verdicts.add_row(NAMES[kind], _counts(figures["verdicts"]), _counts(figures["case_verdicts"]))
    out.print(verdicts)

    for field, what in (("by_language", "language"), ("by_source", "source")):
        if len(summary[field]) > 1:
            out.print(_breakdown(summary[field], what, list(summary["kinds"])))
    if summary["slowest"]:
        slow = Table(title="slowest problems")
        for column in ("problem", "seconds", "programs"):
            slow.add_column(column)
        for entry in summary["slowest"]:
            slow.add_row(entry["id"], f"{entry['seconds']:.2f}", str(entry["samples"]))
        out.print(slow)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{verdict} {n}" for verdict, n in counts.items())


def _breakdown(table: dict[str, dict[str, dict[str, int]]], what: str, kinds: list[str]) -> Table:
    shown = Table(title=f"per {what}")
    shown.add_column(what)
    for kind in kinds:
        shown.add_column(f"{NAMES[kind]} {'rejected' if kind == 'wrong' else 'passed'}")
    for name, cells in table.items():
        shown.add_row(name, *(f"{cells[k]['rejected' if k == 'wrong' else 'passed']}/{cells[k]['judged']}"
                              if k in cells else "" for k in kinds))
    return shown

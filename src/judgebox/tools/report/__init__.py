"""``judgebox score --report FILE``: one self-contained HTML file of a score run, readable offline.

Built from the results rows and their summary (:func:`judgebox.tools.score.summarize`, the one place that turns
rows into figures): the summary per kind (right, wrong, samples), the verdict breakdown, pass rate per
source, every case's time against its own limit (the one its row records, on that limit's clock), and the
pass@k curve when problems have several samples. No script, no remote asset: bar charts are HTML tables
(:mod:`.bars`), plots inline SVG (:mod:`.svg`), styles inline. Every dataset string (ids, sources,
verdicts, messages) is escaped: a results file is untrusted text.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from judgebox.datasets.metrics import pass_at_ks
from judgebox.tools.report import bars, svg
from judgebox.tools.report.svg import text

VERDICT_COLOURS = {"AC": "#27ae60", "WA": "#e74c3c", "TLE": "#f39c12", "MLE": "#8e44ad", "RE": "#a93226",
                   "OLE": "#a0522d", "CE": "#7f8c8d", "SE": "#17202a"}
OTHER_COLOUR = "#bdc3c7"  # a verdict judgebox does not name (no code in a completion, a preset's own words)
KIND_NAMES = {"right": "known-right solutions", "wrong": "known-wrong solutions", "sample": "model samples"}
MAX_POINTS = 4000  # cases drawn in the time chart (evenly chosen past this): the file stays small
MAX_SOURCES = 40
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 800px; color: #1c2833; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { padding: 2px 10px; text-align: left; }
th { background: #f4f6f7; } tr:nth-child(even) td { background: #fbfcfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.legend span { display: inline-block; margin-right: 1em; font-size: 0.85em; }
.legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em; }
.note { color: #666; font-size: 0.85em; } code { font-size: 0.85em; word-break: break-all; }
table.chart { width: 100%; margin: 0.6em 0; } table.chart tr td { background: none; }
table.chart th { background: none; font-weight: normal; text-align: right; width: 36%; overflow-wrap: anywhere; }
table.chart td.track { width: 54%; } table.chart td.num { white-space: nowrap; text-align: left; color: #555; }
.bar { display: flex; height: 1.1em; } .bar span { display: block; height: 100%; }
.bar.scale { background: #eaeded; }
"""


def colour(verdict: str) -> str:
    return VERDICT_COLOURS.get(verdict, OTHER_COLOUR)


def render(rows: Iterable[dict[str, Any]], summary: dict[str, Any], title: str) -> str:
    """The report's HTML."""
    rows = list(rows)
    sections = [_overview(summary), _verdicts(summary), _sources(summary), _times(rows),
                _pass_at_k(summary), _failures(summary), _bad_records(summary)]
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{text(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{text(title)}</h1><p class=\"note\">judgebox score report, {generated}"
            + (" — <b>interrupted</b>: the figures cover what was judged" if summary.get("interrupted") else "")
            + "</p>" + "".join(s for s in sections if s) + "</body></html>\n")


def write(path: Path, rows: Iterable[dict[str, Any]], summary: dict[str, Any], title: str) -> None:
    path.write_text(render(rows, summary, title), encoding="utf-8")


def _overview(summary: dict[str, Any]) -> str:
    head = "<tr><th>kind</th><th>judged</th><th>problems</th><th>passed</th><th>rejected</th>" \
           "<th>judge failures (SE)</th></tr>"
    body = []
    for kind, k in summary["kinds"].items():
        share = f" ({k['passed'] / k['judged']:.1%})" if k["judged"] else ""
        body.append(f"<tr><td>{text(KIND_NAMES.get(kind, kind))}</td><td class=num>{k['judged']}</td>"
                    f"<td class=num>{k['problems']}</td><td class=num>{k['passed']}{share}</td>"
                    f"<td class=num>{k['rejected']}</td><td class=num>{k['judge_failures']}</td></tr>")
    rate = f", {summary['cases'] / summary['seconds']:.0f} cases/s" if summary.get("seconds") else ""
    figures = "".join(f"<tr><td>{text(name)}</td><td class=num>{value['value']:.1%}</td>"
                      f"<td class=num>{value['problems']}</td></tr>"
                      for name, value in summary["kinds"].get("sample", {}).get("pass_at_k", {}).items())
    pass_table = (f"<h3>pass@k</h3><table><tr><th></th><th>value</th><th>problems</th></tr>{figures}</table>"
                  if figures else "")
    return (f"<h2>Summary</h2><table>{head}{''.join(body)}</table><p class=note>{summary['judged']} judged, "
            f"{summary['cases']} test cases{rate}; a pass is a score of 1.0; an SE (the judge's failure) is "
            f"neither a pass nor a rejection.</p>{pass_table}")


def _legend(verdicts: Iterable[str]) -> str:
    return "<p class=legend>" + "".join(f'<span><i style="background:{colour(v)}"></i>{text(v)}</span>'
                                        for v in verdicts) + "</p>"


def _verdicts(summary: dict[str, Any]) -> str:
    kinds = summary["kinds"]
    if not kinds:
        return ""
    stacks = []
    for field, what in (("verdicts", ""), ("case_verdicts", ", cases")):
        stacks += [(f"{KIND_NAMES.get(kind, kind)}{what}", [(v, n, colour(v)) for v, n in k[field].items()])
                 for kind, k in kinds.items()]
    seen = dict.fromkeys(v for _, parts in stacks for v, _, _ in parts)
    return ("<h2>Verdicts</h2>" + bars.stacked(stacks, "verdict breakdown", "verdicts") + _legend(seen)
            + "<p class=note>A program's verdict is its first failing case's (AC when all pass).</p>")


def _sources(summary: dict[str, Any]) -> str:
    by_source = summary["by_source"]
    if not by_source:
        return ""
    rates = []
    for source, kinds in list(by_source.items())[:MAX_SOURCES]:
        for kind, cell in kinds.items():
            fraction = cell["passed"] / cell["judged"] if cell["judged"] else 0.0
            rates.append((f"{source} ({kind})", fraction, "#e74c3c" if kind == "wrong" else "#2e86c1",
                         f"{cell['passed']}/{cell['judged']} passed, {fraction:.0%}"))
    cut = (f"<p class=note>The first {MAX_SOURCES} of {len(by_source)} sources.</p>"
           if len(by_source) > MAX_SOURCES else "")
    return ("<h2>Pass rate per source</h2>" + bars.fractions(rates, "pass rate per source", "sources") + cut
            + ("<p class=note>Known-wrong solutions (red) should be rejected: their pass rate should be 0%.</p>"
               if any("wrong" in kinds for kinds in by_source.values()) else ""))


# where a case ``[verdict, wall seconds, CPU seconds]`` holds the time of each clock a limit may be on
CLOCK_AT = {"cpu": 2, "wall": 1}
CLOCK_NAMES = {"cpu": "CPU", "wall": "wall"}


def _case_times(rows: list[dict[str, Any]]) -> tuple[list[tuple[float, str, str]], set[tuple[float, str]], int]:
    """Each case as ``(its time over its own limit, colour, tooltip)``, timed on its limit's clock; the
    ``(limit, clock)`` pairs seen; and how many cases could not be set against a limit (a row of an older
    judgebox, which recorded none, or a time the backend did not report)."""
    points, limits, undrawn = [], set(), 0
    for row in rows:
        limit = row.get("limits") or {}
        clock, allowed = str(limit.get("clock")), limit.get("time")
        for i, case in enumerate(row["cases"]):
            seconds = case[CLOCK_AT[clock]] if clock in CLOCK_AT and len(case) > CLOCK_AT[clock] else None
            if not isinstance(seconds, (int, float)) or not isinstance(allowed, (int, float)) or allowed <= 0:
                undrawn += 1
                continue
            limits.add((float(allowed), clock))
            points.append((seconds / allowed, colour(str(case[0])), f"{row['id']} #{row['sample']} case {i}: "
                           f"{case[0]}, {seconds:.3f} s of {CLOCK_NAMES[clock]} time, limit {allowed:g} s"))
    return points, limits, undrawn


def _times(rows: list[dict[str, Any]]) -> str:
    """Each case's time against its own limit, on that limit's clock: a problem's own limit may differ from
    the run's, and a CPU-time limit is set against CPU time, never against the wall clock. With one limit for
    every case the axis reads in seconds; with several, in shares of each case's limit."""
    points, limits, undrawn = _case_times(rows)
    if not points:
        return ""
    drawn = points if len(points) <= MAX_POINTS else points[:: -(-len(points) // MAX_POINTS)]
    over = sum(1 for share, _, _ in points if share >= 1)
    clocks = {CLOCK_NAMES[clock] for _, clock in limits}
    clock = clocks.pop() if len(clocks) == 1 else "own clock's"
    if len(limits) == 1:
        ((allowed, _),) = limits
        chart = svg.sorted_scatter(drawn, 1.0, f"{clock} limit {allowed:g} s", "time per case",
                                   "cases, fastest to slowest", f"{clock} seconds (log scale)",
                                   lambda share: f"{share * allowed:g} s", "times")
        told = f"{over} at or over the {allowed:g} s {clock} limit"
    else:
        chart = svg.sorted_scatter(drawn, 1.0, "each case's own limit", "time per case", "cases, fastest to slowest",
                                   f"share of its {clock} limit (log scale)", lambda share: f"{100 * share:g}%",
                                   "times")
        values = sorted({allowed for allowed, _ in limits})
        told = (f"{over} at or over their own limit; the limits: " + ", ".join(f"{a:g} s" for a in values[:8])
                + (", ..." if len(values) > 8 else "") + f" of {clock} time")
    seen = dict.fromkeys(str(c[0]) for row in rows for c in row["cases"])
    return ("<h2>Time per case against its limit</h2>" + chart + _legend(seen)
            + f"<p class=note>{len(points)} cases" + (f" ({len(drawn)} drawn)" if len(drawn) < len(points) else "")
            + f"; {told}" + (f"; {undrawn} cases not drawn: their rows record no time on their limit's clock"
                             if undrawn else "")
            + ". Each limit is the one its case ran under, as its row records it: on the wall clock under verl's "
              "preset or on a SandboxFusion server, else on CPU time.</p>")


def _pass_at_k(summary: dict[str, Any]) -> str:
    """pass@k for every k from 1 to the fewest samples a problem has (the summary gives the k asked for)."""
    counts = [(p["samples"], p["passed"]) for p in summary["kinds"].get("sample", {}).get("per_problem", {}).values()]
    fewest = min((n for n, _ in counts), default=0)
    if fewest < 2:
        return ""
    curve = pass_at_ks(counts, range(1, fewest + 1))
    points = [(int(name.removeprefix("pass@")), value["value"]) for name, value in curve.items()]
    return ("<h2>pass@k</h2>" + svg.line(points, "pass@k curve", "k (samples drawn)", "pass@k", "passk")
            + "<p class=note>The unbiased estimator over every problem, for each k that every problem has "
              "samples for.</p>")


def _failures(summary: dict[str, Any]) -> str:
    failed, total = summary["failures"], summary["failures_total"]
    if not failed:
        return ""
    lines = "".join(f"<tr><td><code>{text(r['id'])}</code></td><td>{text(r['kind'])}</td>"
                    f"<td class=num>{text(r['sample'])}</td><td>{text(r['verdict'])}</td>"
                    f"<td><code>{text(str(r.get('error') or '')[:300])}</code></td></tr>" for r in failed)
    more = f"<p class=note>The first {len(failed)} of {total}.</p>" if total > len(failed) else ""
    return ("<h2>Failures</h2><p class=note>Right solutions and samples that did not pass, and judge failures."
            f"</p><table><tr><th>id</th><th>kind</th><th>sample</th><th>verdict</th><th>error</th></tr>{lines}"
            f"</table>{more}")


def _bad_records(summary: dict[str, Any]) -> str:
    if not summary["bad_records"]:
        return ""
    items = "".join(f"<li><code>{text(e)}</code></li>" for e in summary["bad_record_errors"])
    return f"<h2>Bad records ({summary['bad_records']}, skipped)</h2><ul>{items}</ul>"

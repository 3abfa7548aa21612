"""``judgebox score --report FILE``: one self-contained HTML file of a score run, readable offline.

Built from the results rows and their summary (:func:`judgebox.scoring.summarize`, the one place that turns
rows into figures): the summary per kind (right, wrong, samples), the verdict breakdown, pass rate per
source, every case's time against the time limit, and the pass@k curve when problems have several samples.
No script, no remote asset: charts are inline SVG (:mod:`.svg`), styles inline. Every dataset string (ids,
sources, verdicts, messages) is escaped: a results file is untrusted text.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..scoring.results import load
from ..scoring.samples import pass_at_ks
from ..scoring.summary import passed, summarize
from . import svg
from .svg import text

VERDICT_COLOURS = {"AC": "#27ae60", "WA": "#e74c3c", "TLE": "#f39c12", "MLE": "#8e44ad", "RE": "#a93226",
                   "OLE": "#a0522d", "CE": "#7f8c8d", "SE": "#17202a"}
OTHER_COLOUR = "#bdc3c7"  # a verdict judgebox does not name (no code in a completion, a preset's own words)
KIND_NAMES = {"right": "known-right solutions", "wrong": "known-wrong solutions", "sample": "model samples"}
MAX_POINTS = 4000  # cases drawn in the time chart (evenly chosen past this): the file stays small
MAX_SOURCES = 40
MAX_FAILURES = 200
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 800px; color: #1c2833; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { padding: 2px 10px; text-align: left; }
th { background: #f4f6f7; } tr:nth-child(even) td { background: #fbfcfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.legend span { display: inline-block; margin-right: 1em; font-size: 0.85em; }
.legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em; }
.note { color: #666; font-size: 0.85em; } code { font-size: 0.85em; word-break: break-all; }
"""


def colour(verdict: str) -> str:
    return VERDICT_COLOURS.get(verdict, OTHER_COLOUR)


def render(rows: Iterable[dict[str, Any]], summary: dict[str, Any], title: str,
           time_limit: float | None = None) -> str:
    """The report's HTML. ``time_limit``: the limit the cases ran under, drawn in the time chart (a problem's
    own limit, where its data sets one, may differ; the note under the chart says so)."""
    rows = list(rows)
    sections = [_overview(summary), _verdicts(summary), _sources(summary), _times(rows, time_limit),
                _pass_at_k(rows), _failures(rows), _bad_records(summary)]
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{text(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{text(title)}</h1><p class=\"note\">judgebox score report, {generated}"
            + (" — <b>interrupted</b>: the figures cover what was judged" if summary.get("interrupted") else "")
            + "</p>" + "".join(s for s in sections if s) + "</body></html>\n")


def write(path: Path, rows: Iterable[dict[str, Any]], summary: dict[str, Any], title: str,
          time_limit: float | None = None) -> None:
    path.write_text(render(rows, summary, title, time_limit), encoding="utf-8")


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
    bars = []
    for field, what in (("verdicts", "samples"), ("case_verdicts", "cases")):
        bars += [(f"{KIND_NAMES.get(kind, kind)}, {what}", [(v, n, colour(v)) for v, n in k[field].items()])
                 for kind, k in kinds.items()]
    seen = dict.fromkeys(v for _, parts in bars for v, _, _ in parts)
    return ("<h2>Verdicts</h2>" + svg.stacked_bars(bars, "verdict breakdown", "verdicts") + _legend(seen)
            + "<p class=note>A sample's verdict is its first failing case's (AC when all pass).</p>")


def _sources(summary: dict[str, Any]) -> str:
    by_source = summary["by_source"]
    if not by_source:
        return ""
    bars = []
    for source, kinds in list(by_source.items())[:MAX_SOURCES]:
        for kind, cell in kinds.items():
            fraction = cell["passed"] / cell["judged"] if cell["judged"] else 0.0
            bars.append((f"{source} ({kind})", fraction, "#e74c3c" if kind == "wrong" else "#2e86c1",
                         f"{cell['passed']}/{cell['judged']} passed, {fraction:.0%}"))
    cut = (f"<p class=note>The first {MAX_SOURCES} of {len(by_source)} sources.</p>"
           if len(by_source) > MAX_SOURCES else "")
    return ("<h2>Pass rate per source</h2>" + svg.fraction_bars(bars, "pass rate per source", "sources") + cut
            + "<p class=note>Known-wrong solutions (red) should be rejected: their pass rate should be 0%.</p>")


def _times(rows: list[dict[str, Any]], time_limit: float | None) -> str:
    points = [(float(seconds), colour(str(verdict)), f"{row['id']} #{row['sample']} case {i}: {verdict} "
               f"{seconds:.3f} s") for row in rows for i, (verdict, seconds) in enumerate(row["cases"])
              if isinstance(seconds, (int, float))]
    if not points:
        return ""
    drawn = points if len(points) <= MAX_POINTS else points[:: -(-len(points) // MAX_POINTS)]
    seen = dict.fromkeys(str(v) for row in rows for v, _ in row["cases"])
    over = sum(1 for value, _, _ in points if time_limit and value > time_limit)
    return ("<h2>Time per case against the limit</h2>"
            + svg.sorted_scatter(drawn, time_limit, "per-case time", "seconds (log scale)", "times") + _legend(seen)
            + f"<p class=note>{len(points)} cases" + (f" ({len(drawn)} drawn)" if len(drawn) < len(points) else "")
            + (f"; {over} above the {time_limit:g} s limit, which is the default: a problem's own limit may "
               "differ" if time_limit else "") + ".</p>")


def _pass_at_k(rows: list[dict[str, Any]]) -> str:
    """pass@k for every k from 1 to the most samples a problem has (the summary gives 1, 5 and 10)."""
    per_problem: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row["kind"] == "sample":
            per_problem[str(row["id"])][0] += 1
            per_problem[str(row["id"])][1] += passed(row)
    most = max((n for n, _ in per_problem.values()), default=0)
    if most < 2:
        return ""
    curve = pass_at_ks((tuple(v) for v in per_problem.values()), range(1, most + 1))
    points = [(int(name.removeprefix("pass@")), value["value"]) for name, value in curve.items()]
    return ("<h2>pass@k</h2>" + svg.line(points, "pass@k curve", "k (samples drawn)", "pass@k", "passk")
            + "<p class=note>The unbiased estimator over the problems with at least k samples.</p>")


def _failures(rows: list[dict[str, Any]]) -> str:
    failed = [r for r in rows if not passed(r) and (r["kind"] != "wrong" or r["verdict"] == "SE")]
    if not failed:
        return ""
    lines = "".join(f"<tr><td><code>{text(r['id'])}</code></td><td>{text(r['kind'])}</td>"
                    f"<td class=num>{text(r['sample'])}</td><td>{text(r['verdict'])}</td>"
                    f"<td><code>{text(str(r.get('error') or '')[:300])}</code></td></tr>"
                    for r in failed[:MAX_FAILURES])
    more = f"<p class=note>The first {MAX_FAILURES} of {len(failed)}.</p>" if len(failed) > MAX_FAILURES else ""
    return ("<h2>Failures</h2><p class=note>Right solutions and samples that did not pass, and judge failures."
            f"</p><table><tr><th>id</th><th>kind</th><th>sample</th><th>verdict</th><th>error</th></tr>{lines}"
            f"</table>{more}")


def _bad_records(summary: dict[str, Any]) -> str:
    if not summary["bad_records"]:
        return ""
    items = "".join(f"<li><code>{text(e)}</code></li>" for e in summary["bad_record_errors"])
    return f"<h2>Bad records ({summary['bad_records']}, skipped)</h2><ul>{items}</ul>"


def write_from_results(path: Path, results: Path, title: str, time_limit: float | None = None) -> None:
    """The report of a results file (``judgebox score --out``), summarised by the one summary."""
    rows = load(results)
    write(path, rows, summarize(rows), title, time_limit)

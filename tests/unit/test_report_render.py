"""The HTML report's renderer without a score run: every field it shows is escaped, each case is drawn against
the limit its row records, on that limit's clock, and long labels stay distinct (tests/cli/test_report.py
renders a real run's report and lays it out in Chromium)."""

from __future__ import annotations

import re

from judgebox.tools.report import render
from judgebox.tools.report.bars import MAX_LABEL, labels
from judgebox.tools.score import summarize


def test_render_escapes_every_field_it_shows() -> None:
    evil = '"><script>x()</script>'
    rows = [{"id": evil, "kind": "sample", "sample": 0, "source": evil, "language": "python", "score": 0.0,
             "verdict": evil, "error": evil, "cases": [[evil, 0.5]], "seconds": 0.5},
            {"id": evil, "kind": "sample", "sample": 1, "source": evil, "language": "python", "score": 1.0,
             "verdict": "AC", "error": "", "cases": [["AC", 0.25]], "seconds": 0.25}]
    page = render(rows, summarize(rows, bad_records=[evil]), evil)
    assert "<script" not in page and evil not in page
    assert page.count("&quot;&gt;&lt;script&gt;") >= 6  # title, id, source, verdict, error, bad record


def row(ident: str, cases: list[list], limits: dict | None, kind: str = "right", source: str = "s") -> dict:
    verdict = next((c[0] for c in cases if c[0] != "AC"), "AC")
    return {"id": ident, "kind": kind, "sample": 0, "source": source, "language": "python",
            "score": float(verdict == "AC"), "verdict": verdict, "error": "", "cases": cases, "limits": limits,
            "seconds": 1.0}


def time_chart(rows: list[dict]) -> str:
    page = render(rows, summarize(rows), "times")
    chart = page[page.index('class="chart times"'):]
    return chart[: chart.index("</svg>")]


def heights(chart: str, css_class: str) -> list[float]:
    return [float(y) for y in re.findall(rf'class="{css_class}"[^>]*? c?y1?="([0-9.]+)"', chart)]


def test_each_case_is_drawn_against_its_own_limit_cpu_time_against_a_cpu_limit() -> None:
    # half of each CPU limit (1 s and 4 s), though one case waited 5 s on the wall clock and the other 0.1 s;
    # verl's preset limits the wall clock: 3 s of wall time is half its 6 s
    rows = [row("slow-to-start", [["AC", 5.0, 0.5]], {"time": 1, "clock": "cpu", "memory_mb": 256}),
            row("own-limit", [["AC", 0.1, 2.0]], {"time": 4, "clock": "cpu", "memory_mb": 256}),
            row("verl", [["AC", 3.0, None]], {"time": 6, "clock": "wall", "memory_mb": 1024})]
    chart = time_chart(rows)
    points, (limit,) = heights(chart, "point"), heights(chart, "limit")
    assert len(points) == 3 and max(points) - min(points) < 0.01 and min(points) > limit  # all alike, under it
    assert "each case&#x27;s own limit" in chart and "share of its own clock&#x27;s limit" in chart
    over = time_chart([row("tle", [["TLE", 0.2, 1.01]], {"time": 1, "clock": "cpu", "memory_mb": 256})])
    (point,), (limit,) = heights(over, "point"), heights(over, "limit")
    assert point < limit and "CPU limit 1 s" in over and ">1 s</text>" in over  # one limit: the axis in seconds


def test_cases_of_rows_that_record_no_limit_are_counted_but_not_drawn() -> None:
    old = row("older", [["AC", 0.5]], None)  # a row of a judgebox that recorded no limits
    rows = [old, row("new", [["AC", 0.5, 0.25]], {"time": 2, "clock": "cpu", "memory_mb": 256})]
    page = render(rows, summarize(rows), "times")
    assert len(heights(time_chart(rows), "point")) == 1 and "1 cases not drawn" in page
    assert 'class="chart times"' not in render([old], summarize([old]), "times")


def test_long_labels_keep_their_ends_and_stay_distinct() -> None:
    family = "verifiable-coding-problems/" + "x" * 300
    names = [family + "/codeforces (right)", family + "/atcoder (right)", "y" * 90 + "z" * 200, "y" * 90 + "w" * 200]
    shown = labels(names)
    assert len(set(shown)) == 4 and all(len(label) <= MAX_LABEL + 5 for label in shown)
    assert shown[0].endswith("/codeforces (right)") and shown[1].endswith("/atcoder (right)")
    assert labels(["a", "b"]) == ["a", "b"]

"""Attacks on ``judgebox score --report`` through what a model's sample controls: its program's stdout and
stderr, which reach the report as a failed row's error (the checker's message quoting the output, the end of
a traceback). The report opens in a browser, so that text must stay text: a correct report holds only the
elements and attributes of its own layout, whatever the samples printed.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from judgebox.tools.cli import main

HOSTILE = ("</code></td></tr></table></svg><script>alert(1)</script><img src=x onerror=alert(2)>"
           "<a href='javascript:alert(3)'>AC</a><style>*{display:none}</style>\u202eCA\u202c &lt;b&gt;")
PROBLEM = {"id": "sum", "source": "attack", "language": "python",
           "test_cases": {"inputs": ["1 2\n"], "outputs": ["3\n"]}, "solutions": [], "wrong_solutions": []}
COMPLETIONS = [
    f"```python\nprint({HOSTILE!r})\n```",  # WA: the checker's message quotes the output
    f"```python\nimport sys\nsys.stderr.write({HOSTILE!r})\nraise SystemExit(1)\n```",  # RE: the end of its stderr
    f"```python\nraise ValueError({HOSTILE!r})\n```",  # RE: a traceback's last line
]
LAYOUT = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "b", "table", "tr", "th", "td",
          "code", "span", "i", "div", "svg", "line", "text", "circle", "polyline", "ul", "li"}


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.update(name for name, _ in attrs)


def test_a_samples_output_in_the_report_is_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problems, samples = tmp_path / "problems.jsonl", tmp_path / "samples.jsonl"
    problems.write_text(json.dumps(PROBLEM) + "\n")
    samples.write_text(json.dumps({"id": "sum", "completions": COMPLETIONS}) + "\n")
    report = tmp_path / "report.html"
    assert main(["score", str(problems), "--samples", str(samples), "--report", str(report)]) == 0
    capsys.readouterr()
    page = report.read_text(encoding="utf-8")
    elements = _Elements()
    elements.feed(page)
    assert set(elements.tags) <= LAYOUT, set(elements.tags) - LAYOUT
    assert elements.tags.count("style") == 1 and elements.tags.count("table") >= 1
    assert not {name for name in elements.attributes if name.startswith("on") or name in ("href", "src")}
    assert page.count("<tr><td><code>sum</code>") == len(COMPLETIONS), "a failed sample's row is missing"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&amp;lt;b&amp;gt;" in page  # an entity the sample printed is shown as it printed it

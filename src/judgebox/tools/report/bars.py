"""The report's bar charts as HTML tables: each row a label, its bar and its figure.

A table rather than SVG because the browser then lays the labels out: a dataset's source names may be of any
length and differ only at their ends, so a label wraps in its cell rather than being cut, and neither a label
nor a figure runs into its bar or off the page. The bars are CSS blocks sized in percent of their cell (the
report's style sheet draws them); each part carries its count as a tooltip.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from judgebox.tools.report.svg import text

MAX_LABEL = 160  # characters of a label shown (its head and its tail); the whole label is its tooltip


def labels(names: Sequence[str]) -> list[str]:
    """The names as shown: a long one keeps its head and its tail (where names of one family differ), and
    labels that would still read the same are numbered in their order."""
    half = MAX_LABEL // 2
    shown = [name if len(name) <= MAX_LABEL else f"{name[:half]}…{name[-half:]}" for name in names]
    alike, seen = Counter(shown), Counter[str]()
    for i, label in enumerate(shown):
        if alike[label] > 1:
            seen[label] += 1
            shown[i] = f"{label} [{seen[label]}]"
    return shown


def _row(name: str, label: str, bar: str, figure: str) -> str:
    return (f'<tr><th scope="row" title="{text(name)}">{text(label)}</th><td class="track">{bar}</td>'
            f'<td class="num">{text(figure)}</td></tr>')


def _table(rows: list[str], title: str, css_class: str) -> str:
    return f'<table class="chart {css_class}" aria-label="{text(title)}">' + "".join(rows) + "</table>"


def stacked(rows: Sequence[tuple[str, Sequence[tuple[str, float, str]]]], title: str,
            css_class: str = "stacked") -> str:
    """One bar a row, its parts side by side in proportion: ``[(label, [(part, count, colour)])]``; each
    bar's length is its total against the largest row's, its figure that total."""
    totals = [sum(c for _, c, _ in parts if c > 0) for _, parts in rows]
    most = max(totals, default=0) or 1
    names = [label for label, _ in rows]
    out = []
    for name, label, (_, parts), total in zip(names, labels(names), rows, totals):
        spans = "".join(f'<span style="width:{100 * count / total:.2f}%;background:{colour}" '
                        f'title="{text(part)}: {text(count)}"></span>'
                        for part, count, colour in parts if count > 0)
        out.append(_row(name, label, f'<div class="bar" style="width:{100 * total / most:.2f}%">{spans}</div>',
                        f"{total:g}"))
    return _table(out, title, css_class)


def fractions(rows: Sequence[tuple[str, float, str, str]], title: str, css_class: str = "fractions") -> str:
    """One bar a row on a 0-100% scale, its whole length shaded: ``[(label, fraction, colour, figure)]``."""
    names = [label for label, _, _, _ in rows]
    out = []
    for name, label, (_, fraction, colour, figure) in zip(names, labels(names), rows):
        bar = (f'<div class="bar scale"><span style="width:{100 * fraction:.2f}%;background:{colour}" '
               f'title="{text(figure)}"></span></div>')
        out.append(_row(name, label, bar, figure))
    return _table(out, title, css_class)

"""The report's charts as inline SVG strings: horizontal bars, stacked bars, a sorted scatter, a line.

Drawn here rather than by a chart library so the report has no script and no remote asset: it reads the
same offline, in a mail attachment, or in a browser that runs no JavaScript. Every label passes through
:func:`text`, since ids, sources and verdict names come from untrusted datasets.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

WIDTH = 760
LABEL_WIDTH = 220  # the left column of bar charts (labels), in px
BAR_HEIGHT, GAP = 18, 6
AXIS = "#555"
GRID = "#e3e3e3"
FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def text(value: object) -> str:
    """Any value as SVG/HTML text: escaped, quotes too (it may land in an attribute)."""
    return html.escape(str(value), quote=True)


def _clip(label: str, chars: int = 32) -> str:
    return label if len(label) <= chars else label[: chars - 1] + "…"


def _frame(height: int, body: list[str], title: str, css_class: str) -> str:
    return (f'<svg class="chart {css_class}" role="img" aria-label="{text(title)}" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" {FONT}>' f"<title>{text(title)}</title>"
            + "".join(body) + "</svg>")


def stacked_bars(rows: Sequence[tuple[str, Sequence[tuple[str, float, str]]]], title: str,
                 css_class: str = "stacked") -> str:
    """One bar a row, its parts side by side in proportion: ``[(label, [(part, count, colour)])]``; each
    bar's parts are scaled to the largest row's total, and carry their count as a tooltip."""
    most = max((sum(c for _, c, _ in parts) for _, parts in rows), default=0) or 1
    span = WIDTH - LABEL_WIDTH - 60
    body = []
    for i, (label, parts) in enumerate(rows):
        y = 10 + i * (BAR_HEIGHT + GAP)
        body.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 13}" text-anchor="end">{text(_clip(label))}</text>')
        x = float(LABEL_WIDTH)
        for part, count, colour in parts:
            if count <= 0:
                continue
            w = span * count / most
            body.append(f'<rect class="part" x="{x:.1f}" y="{y}" width="{max(w, 1):.1f}" height="{BAR_HEIGHT}" '
                        f'fill="{colour}"><title>{text(part)}: {text(count)}</title></rect>')
            x += w
        body.append(f'<text x="{x + 6:.1f}" y="{y + 13}" fill="{AXIS}">{text(sum(c for _, c, _ in parts))}</text>')
    return _frame(20 + len(rows) * (BAR_HEIGHT + GAP), body, title, css_class)


def fraction_bars(rows: Sequence[tuple[str, float, str, str]], title: str, css_class: str = "fractions") -> str:
    """One bar a row on a 0-100% scale: ``[(label, fraction, colour, note)]``; the note is shown after it."""
    span = WIDTH - LABEL_WIDTH - 120
    body = [_grid_x(LABEL_WIDTH, span, 20 + len(rows) * (BAR_HEIGHT + GAP))]
    for i, (label, fraction, colour, note) in enumerate(rows):
        y = 10 + i * (BAR_HEIGHT + GAP)
        body.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 13}" text-anchor="end">{text(_clip(label))}'
                    f"<title>{text(label)}</title></text>")
        body.append(f'<rect class="bar" x="{LABEL_WIDTH}" y="{y}" width="{max(span * fraction, 1):.1f}" '
                    f'height="{BAR_HEIGHT}" fill="{colour}"><title>{text(note)}</title></rect>')
        body.append(f'<text x="{LABEL_WIDTH + span + 6}" y="{y + 13}" fill="{AXIS}">{text(note)}</text>')
    return _frame(20 + len(rows) * (BAR_HEIGHT + GAP) + 16, body, title, css_class)


def _grid_x(left: float, span: float, height: float) -> str:
    """Vertical lines at 0, 25, 50, 75 and 100% of a bar span, labelled under the bars."""
    lines = []
    for q in range(5):
        x = left + span * q / 4
        lines.append(f'<line x1="{x:.1f}" y1="4" x2="{x:.1f}" y2="{height - 4}" stroke="{GRID}"/>'
                     f'<text x="{x:.1f}" y="{height + 10}" text-anchor="middle" fill="{AXIS}">{25 * q}%</text>')
    return "".join(lines)


def sorted_scatter(points: Sequence[tuple[float, str, str]], limit: float | None, title: str, y_label: str,
                   css_class: str = "scatter") -> str:
    """Each point ``(seconds, colour, tooltip)`` at its rank among the values (a distribution curve), with the
    ``limit`` drawn as a dashed line across. The scale is logarithmic: cases of milliseconds and a limit of
    seconds both stay readable."""
    height, left, top, bottom = 300, 56, 14, 34
    plot_w, plot_h = WIDTH - left - 16, height - top - bottom
    ranked = sorted(points, key=lambda p: p[0])
    values = [p[0] for p in ranked if p[0] > 0] + ([limit] if limit else [])
    low = math.floor(math.log10(min(values, default=1e-3)))
    high = max(math.ceil(math.log10(max(values, default=1.0) * 1.2)), low + 1)

    def y_of(value: float) -> float:
        exponent = math.log10(value) if value > 0 else low
        return top + plot_h * (1 - (exponent - low) / (high - low))

    body = [f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="{AXIS}"/>',
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="{AXIS}"/>',
            f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" fill="{AXIS}">'
            f"cases, fastest to slowest ({len(ranked)})</text>",
            f'<text x="12" y="{top + plot_h / 2}" transform="rotate(-90 12 {top + plot_h / 2})" '
            f'text-anchor="middle" fill="{AXIS}">{text(y_label)}</text>']
    for exponent in range(low, high + 1):
        y = y_of(10.0 ** exponent)
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{GRID}"/>'
                    f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="{AXIS}">{10.0 ** exponent:g}</text>')
    step = plot_w / max(len(ranked) - 1, 1)
    for i, (value, colour, tip) in enumerate(ranked):
        body.append(f'<circle class="point" cx="{left + (i * step if len(ranked) > 1 else plot_w / 2):.1f}" '
                    f'cy="{y_of(value):.1f}" r="2.5" fill="{colour}"><title>{text(tip)}</title></circle>')
    if limit:
        body.append(f'<line class="limit" x1="{left}" y1="{y_of(limit):.1f}" x2="{left + plot_w}" '
                    f'y2="{y_of(limit):.1f}" stroke="#c0392b" stroke-dasharray="6 4" stroke-width="1.5"/>'
                    f'<text x="{left + plot_w - 4}" y="{y_of(limit) - 5:.1f}" text-anchor="end" fill="#c0392b">'
                    f"limit {limit:g} s</text>")
    return _frame(height, body, title, css_class)


def line(points: Sequence[tuple[int, float]], title: str, x_label: str, y_label: str,
         css_class: str = "curve") -> str:
    """A curve of ``(k, value in [0, 1])`` points, dots marked and labelled with their value."""
    height, left, top, bottom = 260, 56, 14, 34
    plot_w, plot_h = WIDTH - left - 16, height - top - bottom
    ks = [k for k, _ in points]
    low, high = min(ks, default=1), max(ks, default=1)

    def xy(k: int, value: float) -> tuple[float, float]:
        x = left + (plot_w * (k - low) / (high - low) if high > low else plot_w / 2)
        return x, top + plot_h * (1 - value)

    body = [f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="{AXIS}"/>',
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="{AXIS}"/>',
            f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" fill="{AXIS}">{text(x_label)}</text>',
            f'<text x="12" y="{top + plot_h / 2}" transform="rotate(-90 12 {top + plot_h / 2})" '
            f'text-anchor="middle" fill="{AXIS}">{text(y_label)}</text>']
    for q in range(5):
        y = top + plot_h * (1 - q / 4)
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{GRID}"/>'
                    f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="{AXIS}">{25 * q}%</text>')
    coordinates = [xy(k, v) for k, v in points]
    body.append('<polyline class="line" fill="none" stroke="#2471a3" stroke-width="2" points="'
                + " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates) + '"/>')
    every = -(-len(points) // 20)  # at most about 20 labels under the axis
    for i, ((k, value), (x, y)) in enumerate(zip(points, coordinates)):
        body.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#2471a3">'
                    f"<title>k={k}: {value:.1%}</title></circle>")
        if i % every == 0 or i == len(points) - 1:
            body.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle" fill="{AXIS}">{k}</text>')
    return _frame(height, body, title, css_class)

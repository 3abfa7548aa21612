"""The report's plots as inline SVG strings: a sorted scatter on a log scale, and a line.

Drawn here rather than by a chart library so the report has no script and no remote asset: it reads the
same offline, in a mail attachment, or in a browser that runs no JavaScript. SVG text does not wrap and is
not clipped to a box, so every label is laid out by its measured width (:func:`text_width`): margins are
as wide as their widest tick, and labels under an axis are spaced so that none runs into the next. Every
label passes through :func:`text`, since ids, sources and verdict names come from untrusted datasets.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

WIDTH = 760
FONT_SIZE = 12
AXIS = "#555"
GRID = "#e3e3e3"
FONT = f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}"'
# DejaVu Sans's advance widths in thousandths of an em, by character (measured from DejaVuSans.ttf): it is
# Debian's default face and among the widest of the usual sans faces, so text in another one is narrower.
# A character not listed counts as a full em, more than any of these (a CJK ideograph is one em).
_ADVANCES = {chars: width for width, chars in (
    (275, "'"), (278, "ijl"), (295, "IJ"), (318, " ,."), (337, "/:;\\|"), (352, "f"), (361, "-"), (390, "()[]"),
    (392, "t"), (401, "!"), (411, "r"), (460, '"'), (500, "*_`"), (521, "s"), (525, "z"), (531, "?"), (550, "c"),
    (557, "L"), (575, "F"), (579, "k"), (592, "vxy"), (603, "P"), (611, "TY"), (612, "o"), (613, "a"), (615, "e"),
    (632, "E"), (634, "hnu"), (635, "Sbdgpq"), (636, "$0123456789{}"), (656, "K"), (684, "AV"), (685, "XZ"),
    (686, "B"), (695, "R"), (698, "C"), (732, "U"), (748, "N"), (752, "H"), (770, "D"), (775, "G"), (780, "&"),
    (787, "OQ"), (818, "w"), (838, "#+<=>^~"), (863, "M"), (950, "%"), (974, "m"), (989, "W"))}
ADVANCE = {char: width / 1000 for chars, width in _ADVANCES.items() for char in chars}
LINE_HEIGHT = FONT_SIZE * 1.2


def text(value: object) -> str:
    """Any value as SVG/HTML text: escaped, quotes too (it may land in an attribute)."""
    return html.escape(str(value), quote=True)


def text_width(label: str, size: float = FONT_SIZE) -> float:
    """``label``'s width in px at ``size``: at least what DejaVu Sans takes, the face most machines that draw
    this report without system-ui's own fall back to."""
    return size * sum(ADVANCE.get(char, 1.0) for char in label)


def _frame(height: int, body: list[str], title: str, css_class: str) -> str:
    return (f'<svg class="chart {css_class}" role="img" aria-label="{text(title)}" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" {FONT}>' f"<title>{text(title)}</title>"
            + "".join(body) + "</svg>")


def _axes(left: float, top: float, plot_w: float, plot_h: float, height: int, x_label: str,
          y_label: str) -> list[str]:
    """The two axes, the x label centred under the plot and the y label turned along the left edge."""
    middle = top + plot_h / 2
    return [f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="{AXIS}"/>',
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="{AXIS}"/>',
            f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" fill="{AXIS}">'
            f"{text(x_label)}</text>",
            f'<text x="{FONT_SIZE + 2}" y="{middle:.1f}" transform="rotate(-90 {FONT_SIZE + 2} {middle:.1f})" '
            f'text-anchor="middle" fill="{AXIS}">{text(y_label)}</text>']


def _left_margin(ticks: Sequence[str]) -> float:
    """Room for the turned y label, then the widest tick label, then a gap to the axis."""
    return LINE_HEIGHT + 8 + max((text_width(t) for t in ticks), default=0) + 6


def sorted_scatter(points: Sequence[tuple[float, str, str]], limit: float, limit_label: str, title: str,
                   x_label: str, y_label: str, tick: Callable[[float], str] = "{:g}".format,
                   css_class: str = "scatter") -> str:
    """Each point ``(value, colour, tooltip)`` at its rank among the values (a distribution curve), with the
    ``limit`` drawn as a dashed line across and named by ``limit_label``; ``tick`` names a value on the y
    axis. The scale is logarithmic, so values of milliseconds and a limit of seconds both stay readable; it
    ends well above the limit, so the line and its label never sit on the frame."""
    height, top, bottom = 300, 10, LINE_HEIGHT + 12
    ranked = sorted(points, key=lambda p: p[0])
    positive = [p[0] for p in ranked if p[0] > 0]
    low = math.floor(math.log10(min(positive, default=limit / 1000)))
    high = math.log10(max(max(positive, default=limit), limit) * 2.5)
    exponents = range(low, math.floor(high) + 1)
    labels = [tick(10.0 ** e) for e in exponents]
    left = _left_margin(labels)
    plot_w, plot_h = WIDTH - left - 12, height - top - bottom

    def y_of(value: float) -> float:
        exponent = math.log10(value) if value > 0 else low
        return top + plot_h * (1 - (exponent - low) / (high - low))

    body = _axes(left, top, plot_w, plot_h, height, f"{x_label} ({len(ranked)})", y_label)
    for exponent, label in zip(exponents, labels):
        y = y_of(10.0 ** exponent)
        body.append(f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" stroke="{GRID}"/>'
                    f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" fill="{AXIS}">{text(label)}</text>')
    step = plot_w / max(len(ranked) - 1, 1)
    for i, (value, colour, tip) in enumerate(ranked):
        body.append(f'<circle class="point" cx="{left + (i * step if len(ranked) > 1 else plot_w / 2):.1f}" '
                    f'cy="{y_of(value):.1f}" r="2.5" fill="{colour}"><title>{text(tip)}</title></circle>')
    at = y_of(limit)
    # the label over the line, at its right end, where the slowest cases are; under it if the top is too near
    baseline = at - 5 if at - top > LINE_HEIGHT + 5 else at + LINE_HEIGHT
    body.append(f'<line class="limit" x1="{left:.1f}" y1="{at:.1f}" x2="{left + plot_w:.1f}" y2="{at:.1f}" '
                f'stroke="#c0392b" stroke-dasharray="6 4" stroke-width="1.5"/>'
                f'<text x="{left + plot_w - 4:.1f}" y="{baseline:.1f}" text-anchor="end" fill="#c0392b">'
                f"{text(limit_label)}</text>")
    return _frame(height, body, title, css_class)


def line(points: Sequence[tuple[int, float]], title: str, x_label: str, y_label: str,
         css_class: str = "curve") -> str:
    """A curve of ``(k, value in [0, 1])`` points, dots marked; the k under the axis as many as fit apart."""
    height, top, bottom = 260, 10, LINE_HEIGHT + 26
    ticks = [f"{25 * q}%" for q in range(5)]
    ks = [k for k, _ in points]
    low, high = min(ks, default=1), max(ks, default=1)
    room = text_width(str(high)) + 8  # the widest k and a gap: the labels are at least this far apart
    left = _left_margin(ticks)
    plot_w, plot_h = WIDTH - left - max(16.0, room / 2), height - top - bottom

    def xy(k: int, value: float) -> tuple[float, float]:
        x = left + (plot_w * (k - low) / (high - low) if high > low else plot_w / 2)
        return x, top + plot_h * (1 - value)

    body = _axes(left, top, plot_w, plot_h, height, x_label, y_label)
    for q, label in enumerate(ticks):
        y = top + plot_h * (1 - q / 4)
        body.append(f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" stroke="{GRID}"/>'
                    f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" fill="{AXIS}">{label}</text>')
    coordinates = [xy(k, v) for k, v in points]
    body.append('<polyline class="line" fill="none" stroke="#2471a3" stroke-width="2" points="'
                + " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates) + '"/>')
    spacing = plot_w / max(len(points) - 1, 1)
    every = max(1, math.ceil(room / spacing))
    for i, ((k, value), (x, y)) in enumerate(zip(points, coordinates)):
        body.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#2471a3">'
                    f"<title>k={k}: {value:.1%}</title></circle>")
        last = i == len(points) - 1
        if (i % every == 0 and (last or len(points) - 1 - i >= every)) or last:
            body.append(f'<text x="{x:.1f}" y="{top + plot_h + LINE_HEIGHT + 2:.1f}" text-anchor="middle" '
                        f'fill="{AXIS}">{k}</text>')
    return _frame(height, body, title, css_class)

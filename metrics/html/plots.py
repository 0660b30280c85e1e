"""Inline SVG plots for the HTML reports and the researcher's console: a line plot, a bar chart, a histogram, a
scatter plot and an interval (dot-and-whisker) plot.

One `<figure>` holding an `<svg>` (role="img", named by its `<title>`) with axes, ticks and a caption, no script,
every label escaped. The `viewBox` lets a page scale a plot to its width.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from metrics.html.page import esc

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 60, 20, 15, 50
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
BAR = "#1f77b4"
POINT = "#d62728"
DASHED = "6 4"


def nice_max(value: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is >= value (1.0 for value <= 0)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


def _open(caption: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" aria-label="{esc(caption)}"><title>{esc(caption)}</title>']


def _close(parts: list[str], caption: str) -> str:
    parts.append("</svg>")
    return f'<figure>{"".join(parts)}<figcaption>{esc(caption)}</figcaption></figure>'


def _y_axis(parts: list[str], y_max: float, label: str, y_min: float = 0.0, ticks: int = 5) -> None:
    for tick in range(ticks + 1):
        value = y_min + (y_max - y_min) * tick / ticks
        y = TOP + PLOT_H - tick / ticks * PLOT_H
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(_number(value))}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + PLOT_H}" stroke="#222"/>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP + PLOT_H}" x2="{LEFT + PLOT_W}" y2="{TOP + PLOT_H}" stroke="#222"/>')
    middle = TOP + PLOT_H / 2
    parts.append(f'<text class="y-label" x="14" y="{middle:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {middle:.1f})">'
                 f"{esc(label)}</text>")


def _x_label(parts: list[str], label: str) -> None:
    parts.append(f'<text x="{LEFT + PLOT_W / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">{esc(label)}</text>')


def bar_chart(bars: Sequence[tuple[str, float]], y_label: str, caption: str, *, x_label: str = "",
              label_every: int = 1, values: bool = True, widest: float | None = None) -> str:
    """One bar per (label, value). `values`: the value printed above each bar; `label_every`: only every n-th
    label under the bars (the first one included), for long series such as one bar per day; `widest`: the
    widest a bar may be (a series of one or two bars then does not fill the plot)."""
    parts = _open(caption)
    y_max = nice_max(max((value for _, value in bars), default=0.0))
    if not values:
        y_max = max(y_max, 5.0)  # whole-number ticks for small counts
    _y_axis(parts, y_max, y_label)
    slot = PLOT_W / max(len(bars), 1)
    bar_w = min(slot * 0.6, widest) if widest else slot * 0.6
    for index, (label, value) in enumerate(bars):
        height = max(value, 0.0) / y_max * PLOT_H
        middle = LEFT + (index + 0.5) * slot
        x = middle - bar_w / 2
        y = TOP + PLOT_H - height
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{height:.1f}" fill="{BAR}">'
                     f"<title>{esc(label)}: {esc(_number(value))}</title></rect>")
        if values:
            parts.append(f'<text x="{middle:.1f}" y="{y - 4:.1f}" text-anchor="middle">'
                         f"{esc(_number(value))}</text>")
        if index % max(label_every, 1) == 0:
            parts.append(f'<text x="{middle:.1f}" y="{TOP + PLOT_H + 17}" text-anchor="middle">'
                         f"{esc(label)}</text>")
    if x_label:
        _x_label(parts, x_label)
    return _close(parts, caption)


def bin_counts(values: Sequence[float], bins: int, low: float, high: float) -> list[int]:
    """Counts of `values` in `bins` equal bins over [low, high] (values outside are clamped to the end bins)."""
    counts = [0] * bins
    width = (high - low) / bins
    for value in values:
        counts[min(max(int((value - low) / width), 0), bins - 1)] += 1
    return counts


def histogram(values: Sequence[float], bins: int, low: float, high: float, x_label: str, caption: str, *,
              y_label: str = "stories", marker: tuple[float, str] | None = None) -> str:
    """Counts of `values` in `bins` equal bins over [low, high] (see `bin_counts`). `marker`: (value, label),
    a dashed vertical line at that value (e.g. the median) with its label."""
    counts = bin_counts(values, bins, low, high)
    width = (high - low) / bins
    parts = _open(caption)
    y_max = max(nice_max(max(counts, default=0)), 5.0)  # at least 5 so that the ticks are whole numbers
    _y_axis(parts, y_max, y_label)
    bar_w = PLOT_W / bins
    for index, count in enumerate(counts):
        height = count / y_max * PLOT_H
        x = LEFT + index * bar_w
        start, end = low + index * width, low + (index + 1) * width
        parts.append(f'<rect x="{x + 1:.1f}" y="{TOP + PLOT_H - height:.1f}" width="{bar_w - 2:.1f}" '
                     f'height="{height:.1f}" fill="{BAR}"><title>[{start:.2f}, {end:.2f}): {count}</title></rect>')
    for tick in range(0, bins + 1, max(bins // 5, 1)):
        x = LEFT + tick * bar_w
        parts.append(f'<text x="{x:.1f}" y="{TOP + PLOT_H + 17}" text-anchor="middle">'
                     f"{esc(_number(round(low + tick * width, 4)))}</text>")
    if marker is not None:
        value, label = marker
        x = LEFT + (min(max(value, low), high) - low) / ((high - low) or 1.0) * PLOT_W
        anchor = "end" if x > LEFT + PLOT_W * 0.7 else "start"
        shift = -4 if anchor == "end" else 4
        parts.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + PLOT_H}" stroke="{POINT}" '
                     f'stroke-width="2" stroke-dasharray="6 4"/>')
        parts.append(f'<text x="{x + shift:.1f}" y="{TOP + 14}" text-anchor="{anchor}">{esc(label)}</text>')
    _x_label(parts, x_label)
    return _close(parts, caption)


def scatter(points: Sequence[tuple[float, float]], x_range: tuple[float, float], y_range: tuple[float, float],
            x_label: str, y_label: str, caption: str) -> str:
    """One dot per (x, y) point."""
    (x_low, x_high), (y_low, y_high) = x_range, y_range
    x_span, y_span = (x_high - x_low) or 1.0, (y_high - y_low) or 1.0
    parts = _open(caption)
    whole = float(y_span).is_integer() and 2 <= y_span <= 10  # e.g. a 1-5 rating scale: one tick per point
    _y_axis(parts, y_high, y_label, y_min=y_low, ticks=int(y_span) if whole else 5)
    for tick in range(6):
        x = LEFT + tick / 5 * PLOT_W
        parts.append(f'<text x="{x:.1f}" y="{TOP + PLOT_H + 17}" text-anchor="middle">'
                     f"{esc(_number(round(x_low + x_span * tick / 5, 4)))}</text>")
    for x_value, y_value in points:
        x = LEFT + (min(max(x_value, x_low), x_high) - x_low) / x_span * PLOT_W
        y = TOP + PLOT_H - (min(max(y_value, y_low), y_high) - y_low) / y_span * PLOT_H
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{POINT}" fill-opacity="0.5"/>')
    _x_label(parts, x_label)
    return _close(parts, caption)


@dataclass(frozen=True)
class Series:
    label: str
    colour: str
    points: list[tuple[float, float]]
    dashed: bool = False


@dataclass(frozen=True)
class LegendEntry:
    label: str
    colour: str
    dashed: bool = False


def line_plot(series: Sequence[Series], legend: Sequence[LegendEntry], x_max: int, y_label: str, caption: str) -> str:
    """An SVG line plot of y in [0, 1] against k = 1..x_max, with axes, ticks and a legend on the right."""
    width, height = 720, 360
    left, right, top, bottom = 55, 190, 15, 45
    plot_w, plot_h = width - left - right, height - top - bottom
    x_span = max(x_max - 1, 1)

    def sx(x: float) -> float:
        return left + (x - 1) / x_span * plot_w

    def sy(y: float) -> float:
        return top + (1 - min(max(y, 0.0), 1.0)) * plot_h

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="{esc(caption)}">']
    for tick in range(6):  # y grid and ticks 0, 0.2, .., 1
        y = tick / 5
        parts.append(f'<line x1="{left}" y1="{sy(y):.1f}" x2="{left + plot_w}" y2="{sy(y):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    step = 1 if x_max <= 20 else (x_max + 19) // 20
    for k in range(1, x_max + 1, step):
        parts.append(f'<line x1="{sx(k):.1f}" y1="{top + plot_h}" x2="{sx(k):.1f}" y2="{top + plot_h + 4}" '
                     f'stroke="#222"/>')
        parts.append(f'<text x="{sx(k):.1f}" y="{top + plot_h + 17}" text-anchor="middle">{k}</text>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#222"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#222"/>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">k (boxes selected)</text>')
    parts.append(f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{esc(y_label)}</text>')
    for line in series:
        coordinates = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in line.points)
        dash = f' stroke-dasharray="{DASHED}"' if line.dashed else ""
        parts.append(f'<polyline fill="none" stroke="{esc(line.colour)}" stroke-width="2"{dash} '
                     f'points="{coordinates}"><title>{esc(line.label)}</title></polyline>')
    legend_x = left + plot_w + 15
    for index, entry in enumerate(legend):
        y = top + 10 + index * 18
        dash = f' stroke-dasharray="{DASHED}"' if entry.dashed else ""
        parts.append(f'<line x1="{legend_x}" y1="{y}" x2="{legend_x + 24}" y2="{y}" stroke="{esc(entry.colour)}" '
                     f'stroke-width="2"{dash}/>')
        parts.append(f'<text x="{legend_x + 30}" y="{y + 4}">{esc(entry.label)}</text>')
    parts.append("</svg>")
    return f'<figure>{"".join(parts)}<figcaption>{esc(caption)}</figcaption></figure>'


@dataclass(frozen=True)
class Estimate:
    """One row of an interval plot: a label, its estimate and the interval's ends (None when undefined)."""
    label: str
    value: float
    low: float | None
    high: float | None


def interval_plot(rows: Sequence[Estimate], x_range: tuple[float, float], x_label: str, caption: str, *,
                  digits: int = 2, value_header: str = "estimate", label_header: str = "system") -> str:
    """One horizontal line per row, top to bottom: a dot at the estimate and a whisker over its interval, on a
    shared x axis; then a table with the same figures (what a screen reader or a copy reads). The left margin
    fits the longest label (long labels are cut, the table keeps them whole)."""
    x_low, x_high = x_range
    x_span = (x_high - x_low) or 1.0
    longest = max((len(row.label) for row in rows), default=4)
    left = min(max(60, 7 * min(longest, 28) + 14), 220)
    row_h, top, bottom, right = 26, 10, 45, 20
    height = top + bottom + row_h * max(len(rows), 1)
    plot_w = WIDTH - left - right

    def sx(value: float) -> float:
        return left + (min(max(value, x_low), x_high) - x_low) / x_span * plot_w

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{WIDTH}" height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}" aria-label="{esc(caption)}"><title>{esc(caption)}</title>']
    bottom_y = top + row_h * max(len(rows), 1)
    ticks = int(x_span) if float(x_span).is_integer() and 2 <= x_span <= 10 else 5  # a rating scale: every point
    for tick in range(ticks + 1):
        value = x_low + x_span * tick / ticks
        x = sx(value)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom_y}" stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{bottom_y + 17}" text-anchor="middle">'
                     f"{esc(_number(round(value, 4)))}</text>")
    parts.append(f'<line x1="{left}" y1="{bottom_y}" x2="{left + plot_w}" y2="{bottom_y}" stroke="#222"/>')
    for index, row in enumerate(rows):
        y = top + (index + 0.5) * row_h
        label = row.label if len(row.label) <= 28 else row.label[:27] + "\u2026"
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{esc(label)}</text>')
        interval = ""
        if row.low is not None and row.high is not None:
            interval = f" [{row.low:.{digits}f}, {row.high:.{digits}f}]"
            parts.append(f'<line x1="{sx(row.low):.1f}" y1="{y:.1f}" x2="{sx(row.high):.1f}" y2="{y:.1f}" '
                         f'stroke="{BAR}" stroke-width="2"/>')
            for end in (row.low, row.high):
                parts.append(f'<line x1="{sx(end):.1f}" y1="{y - 6:.1f}" x2="{sx(end):.1f}" y2="{y + 6:.1f}" '
                             f'stroke="{BAR}" stroke-width="2"/>')
        parts.append(f'<circle cx="{sx(row.value):.1f}" cy="{y:.1f}" r="5" fill="{POINT}">'
                     f"<title>{esc(row.label)}: {row.value:.{digits}f}{interval}</title></circle>")
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">{esc(x_label)}</text>')
    parts.append("</svg>")

    def ends(row: Estimate) -> str:
        if row.low is None or row.high is None:
            return "—"
        return f"[{row.low:.{digits}f}, {row.high:.{digits}f}]"

    body = "".join(f'<tr><th scope="row">{esc(row.label)}</th><td class="num">{row.value:.{digits}f}</td>'
                   f'<td class="num">{ends(row)}</td></tr>' for row in rows)
    table = (f'<div class="scroll"><table aria-label="{esc(caption)} (figures)">'
             f'<thead><tr><th scope="col">{esc(label_header)}</th><th scope="col">{esc(value_header)}</th>'
             f'<th scope="col">interval</th></tr></thead><tbody>{body}</tbody></table></div>')
    return f'<figure>{"".join(parts)}<figcaption>{esc(caption)}</figcaption>{table}</figure>'

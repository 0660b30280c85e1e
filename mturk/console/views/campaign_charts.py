"""The campaign page's charts section (submissions over time, time on task, effective hourly pay), and the
submissions plot the dashboard shares with it. The plots are metrics' inline SVG (no script)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from metrics.html.plots import bar_chart, bin_counts, histogram, nice_max

from ...models import Campaign
from ...selectors.campaigns import time_and_pay
from ..selectors import Series, campaign_submissions, seconds_on_task

TIME_BINS = 10
WIDEST_BAR = 48.0  # a series of a few periods keeps narrow bars
LABELS_PER_AXIS = 6  # at most this many period labels under the bars, so that they stay readable on a phone


@dataclass(frozen=True)
class Plot:
    """An SVG figure and the same figures as a small table (for the page's <details>)."""

    figure: SafeString
    summary: str
    table: list[tuple[str, int]]


def period_label(period: datetime | date, unit: str, long: bool = False) -> str:
    if unit == "hour":
        return period.strftime("%d %b %H:00") if long or (isinstance(period, datetime) and period.hour == 0) \
            else period.strftime("%H:00")
    return period.strftime("%a %d %b %Y" if long else "%d %b")


def submissions_plot(series: Series, caption: str) -> Plot | None:
    """Bars of submissions per period, or None when there is none."""
    busiest = series.busiest
    if busiest is None:
        return None
    bars = [(period_label(period, series.unit), count) for period, count in series.counts]
    figure = bar_chart(bars, "submissions", caption, x_label="hour" if series.unit == "hour" else "day",
                       label_every=-(-len(bars) // LABELS_PER_AXIS), values=False,  # counts: in <title>s, the table
                       widest=WIDEST_BAR)
    periods = f"{len(series.counts)} {series.unit}{'s' if len(series.counts) > 1 else ''}"
    summary = (f"{series.total} submission(s) over {periods}; the busiest "
               f"{series.unit}: {period_label(busiest[0], series.unit, long=True)} with {busiest[1]}.")
    table = [(period_label(period, series.unit, long=True), count) for period, count in series.counts if count]
    return Plot(mark_safe(figure), summary, table)  # noqa: S308 - metrics escapes every label


def _time_plot(seconds: list[float], median: float | None) -> Plot | None:
    if not seconds:
        return None
    in_minutes = max(seconds) > 600
    scale, unit = (60.0, "min") if in_minutes else (1.0, "s")
    values = [value / scale for value in seconds]
    high = nice_max(max(*values, 10.0))  # at least 0-10 s: ticks of whole seconds, even for instant answers
    marker = (median / scale, f"median {median / scale:.1f} {unit}") if median is not None else None
    caption = f"Time on task of {len(values)} submission(s), in {'minutes' if in_minutes else 'seconds'}"
    figure = histogram(values, TIME_BINS, 0.0, high, f"time on task ({unit})", caption,
                       y_label="submissions", marker=marker)
    step = high / TIME_BINS
    table = [(f"{step * index:g}–{step * (index + 1):g} {unit}", count)
             for index, count in enumerate(bin_counts(values, TIME_BINS, 0.0, high))]
    summary = (f"{len(values)} submission(s) took from {min(values):.1f} to {max(values):.1f} {unit}"
               + (f", median {median / scale:.1f} {unit}." if median is not None else "."))
    return Plot(mark_safe(figure), summary, table)  # noqa: S308 - metrics escapes every label


def campaign_section(campaign: Campaign) -> dict[str, Any]:
    """Context of mturk/campaign/charts.html: two queries whatever the number of assignments."""
    seconds = seconds_on_task(campaign)
    median, hourly_pay = time_and_pay(campaign, seconds)  # as the dataset card computes them
    return {
        "charts": {
            "submissions": submissions_plot(campaign_submissions(campaign),
                                            f"Submissions to {campaign.name} over time"),
            "time_on_task": None if campaign.is_simulated else _time_plot(seconds, median),  # generated times
            "reward": campaign.reward,
            "median_seconds": median,
            "hourly_pay": hourly_pay,
            "simulated": campaign.is_simulated,
        },
    }

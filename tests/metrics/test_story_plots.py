"""The inline SVG plots of the stories report: axis scale, bin counts, one mark per value, escaped labels."""
from __future__ import annotations

import re

import pytest

from metrics.story_plots import bar_chart, histogram, nice_max, scatter


@pytest.mark.parametrize("value, expected", [(0, 1.0), (-3, 1.0), (0.3, 0.5), (1, 1), (3, 5), (7, 10), (12, 20),
                                             (13800, 20000), (18200, 20000), (50, 50)])
def test_nice_max(value, expected):
    assert nice_max(value) == pytest.approx(expected)


def test_histogram_counts_each_value_once_and_clamps_the_ends():
    svg = histogram([0.0, 0.05, 0.1, 0.55, 1.0, 1.2, -0.1], 10, 0.0, 1.0, "METEOR", "caption")
    counts = [int(count) for count in re.findall(r"\): (\d+)</title>", svg)]
    assert counts == [3, 1, 0, 0, 0, 1, 0, 0, 0, 2]  # -0.1 clamped into the first bin, 1.0 and 1.2 into the last
    assert svg.count("<rect") == 10 and svg.startswith("<figure><svg") and "<figcaption>caption</figcaption>" in svg


def test_bar_chart_and_scatter_escape_labels():
    bars = bar_chart([("<DII>", 13800), ("SIS", 18200)], "vocabulary & size", "a <caption>")
    assert bars.count("<rect") == 2 and "&lt;DII&gt;" in bars and "<DII>" not in bars
    assert "vocabulary &amp; size" in bars and "a &lt;caption&gt;" in bars
    assert ">20000</text>" in bars  # the y axis goes to the next round number
    dots = scatter([(0.2, 1.0), (0.9, 5.0), (2.0, 9.0)], (0.0, 1.0), (1.0, 5.0), "METEOR", "rating", "c")
    assert dots.count("<circle") == 3
    assert all(float(x) <= 620 and float(y) >= 15 for x, y in re.findall(r'cx="([\d.]+)" cy="([\d.]+)"', dots))

"""The inline SVG plots of the stories report: axis scale, bin counts, one mark per value, escaped labels."""
from __future__ import annotations

import re

import pytest

from metrics.html.plots import bar_chart, bin_counts, histogram, nice_max, scatter


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


def test_every_plot_is_an_image_named_by_its_title():
    for svg in (bar_chart([("a", 1)], "n", "Bars & more"), histogram([0.5], 2, 0, 1, "x", "Bars & more"),
                scatter([(0.5, 0.5)], (0, 1), (0, 1), "x", "y", "Bars & more")):
        assert re.search(r'<svg [^>]*role="img"[^>]*viewBox="0 0 640 320"[^>]*><title>Bars &amp; more</title>', svg)


def test_bar_chart_can_label_every_nth_bar_and_leave_the_values_out():
    bars = [(f"d{n}", n % 3) for n in range(30)]
    svg = bar_chart(bars, "submissions", "c", x_label="day", label_every=7, values=False)
    labels = re.findall(r'text-anchor="middle">(d\d+)</text>', svg)
    assert labels == ["d0", "d7", "d14", "d21", "d28"] and svg.count("<rect") == 30
    assert ">day</text>" in svg and ">5</text>" in svg  # whole-number ticks up to at least 5 for small counts
    assert not re.search(r'text-anchor="middle">[0-2]</text>', svg)  # no value above the bars


def test_bin_counts_and_the_histogram_marker():
    assert bin_counts([30, 60, 90, 120, 300, 900], 10, 0, 500) == [1, 2, 1, 0, 0, 0, 1, 0, 0, 1]
    svg = histogram([30, 60, 90], 10, 0, 500, "seconds", "c", y_label="submissions", marker=(90, "median <90> s"))
    line = re.search(r'<line x1="([\d.]+)" y1="15" x2="([\d.]+)" y2="270" stroke="#d62728"', svg)
    assert line is not None and float(line.group(1)) == pytest.approx(60 + 90 / 500 * 560, abs=0.1)
    assert "median &lt;90&gt; s" in svg and ">submissions</text>" in svg
    late = histogram([450], 10, 0, 500, "s", "c", marker=(450, "median"))
    assert 'text-anchor="end">median</text>' in late  # near the right edge the label goes to the left of the line


def test_bars_can_be_kept_narrow_and_centred_in_their_slot():
    wide = bar_chart([("one", 3)], "n", "c")
    narrow = bar_chart([("one", 3)], "n", "c", widest=48)
    assert re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="336.0"', wide)  # 0.6 of the 560 px plot
    x = re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="48.0"', narrow)
    assert x is not None and float(x.group(1)) == pytest.approx(60 + 280 - 24)  # centred on the plot's middle

"""The HTML report page: table values, one SVG per figure, escaping of data strings."""
from __future__ import annotations

from metrics.baselines import content_selection_report
from metrics.content_selection_report_html import render_html
from tests.metrics import make_image


def images(concept="woman", key="a"):
    return [
        make_image(key, [concept, "dress", "car", "tree"], [[0, 1], [0, 2], [0], []]),
        make_image("b", ["man", "dog", "dog"], [[0, 1, 2], [1, 0]]),
        make_image("c", [concept, "car"], [[0, 1]]),
    ]


def test_page_contains_the_table_values_and_three_figures():
    report = content_selection_report(images(), k_max=5)
    page = render_html(report, "Content selection")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for row in report["table"]:
        assert row["p"] in page and row["r"] in page and row["f"] in page
    assert page.count("<svg") == 3 and page.count("</svg>") == 3
    for name in report["baselines"]:
        assert name in page
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "left out of M" in page  # the edge cases


def test_data_strings_are_escaped():
    report = content_selection_report(images(concept="<script>alert(1)</script>", key="<b>k</b>"), k_max=2)
    page = render_html(report, 'Run <script>alert("t")</script>')
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the concept, in the statistics
    assert "&lt;b&gt;k&lt;/b&gt;" in page  # the image key, in the per-image table
    assert "Run &lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;" in page


def test_empty_report_renders():
    page = render_html(content_selection_report([], k_max=3), "Empty")
    assert page.count("<svg") == 0 and "0.00 ± 0.00" not in page  # no figure over no image
    assert "No image has two gold descriptions that reference a box." in page
    assert "No figure: no image has a description with word-to-box links" in page

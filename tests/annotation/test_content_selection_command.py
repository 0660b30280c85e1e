"""`manage.py report_content_selection`: report.json and report.html on a tiny, hand-computed data set."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Box, Concept, Correspondence, Description, Image, WordLink
from metrics.baselines import SYSTEMS
from mturk.services.campaigns import create_campaign
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db


def gold_image(key: str, sizes: list[int]) -> Image:
    """Boxes 0, 1, ... of the given side lengths (so bbox_size ranks them by size)."""
    image = make_image(f"{key}.png")
    for number, side in enumerate(sizes):
        concept = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name=f"c{number}")[0]
        Box.objects.create(image=image, number=number, concept=concept,
                           x=0, y=0, width=side, height=side)
    return image


def gold_description(image: Image, *correspondences: dict[int, int]) -> Description:
    tokens = [f"w{i}" for i in range(8)]
    description = Description.objects.create(image=image, text=" ".join(tokens), tokens=tokens)
    for links in correspondences:
        correspondence = Correspondence.objects.create(description=description)
        for token, number in links.items():
            WordLink.objects.create(correspondence=correspondence, token_index=token,
                                    box=Box.objects.get(image=image, number=number))
    return description


@pytest.fixture
def gold() -> dict[str, Image]:
    alpha = gold_image("alpha", [30, 20, 10])
    gold_description(alpha, {0: 0, 1: 1}, {0: 0})  # G = {0, 1}; a second worker linked only token 0
    gold_description(alpha, {3: 0})  # G = {0}
    gold_description(alpha)  # awaiting correspondence
    bravo = gold_image("bravo", [10, 20])
    gold_description(bravo, {0: 0})
    gold_description(bravo, {5: 0})
    gold_description(bravo, {2: 1})
    charlie = gold_image("charlie", [10, 20])
    gold_description(charlie, {1: 0})  # one description: no upper bound for charlie
    make_image("no-boxes.png")
    return {"alpha": alpha, "bravo": bravo, "charlie": charlie}


def run(*args) -> str:
    out = StringIO()
    call_command("report_content_selection", *map(str, args), stdout=out, stderr=out)
    return out.getvalue()


def test_report_upper_bound_baselines_and_agreement(tmp_path, gold):
    out = tmp_path / "report"
    output = run("--out", out)
    # Upper bound, each description held out against the others of its image:
    #   alpha: S={0,1} vs [{0}] -> P .5, R 1, F 2/3;  S={0} vs [{0,1}] -> P 1, R .5, F 2/3;  mean P .75 R .75 F 2/3
    #   bravo: S={0} vs [{0},{1}] -> P .5, R .5, F .5 (twice);  S={1} vs [{0},{0}] -> 0;    mean P R F 1/3
    #   charlie: one description -> skipped
    # Over alpha and bravo: P = R = 0.5417 ± 0.2083, F = 0.5 ± 0.1667.
    assert output.splitlines() == [
        "3 images, 6 linked descriptions; human upper bound P = 0.54 ± 0.21, R = 0.54 ± 0.21, F = 0.50 ± 0.17 "
        "over 2 images",
        f"Wrote {out / 'report.json'} and {out / 'report.html'}",
    ]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    upper = report["upper_bound"]
    assert upper["images"] == 2
    assert upper["p_mean"] == pytest.approx(13 / 24) and upper["p_std"] == pytest.approx(5 / 24)
    assert upper["r_mean"] == pytest.approx(13 / 24) and upper["r_std"] == pytest.approx(5 / 24)
    assert upper["f_mean"] == pytest.approx(0.5) and upper["f_std"] == pytest.approx(1 / 6)
    assert [(row["key"], row["p"], row["r"]) for row in report["per_image"]] == [
        ("alpha", pytest.approx(0.75), pytest.approx(0.75)), ("bravo", pytest.approx(1 / 3), pytest.approx(1 / 3))]
    assert report["skipped"] == [
        {"key": "charlie", "reason": "fewer than 2 gold descriptions reference a box (upper bound only)"}]

    assert report["k_max"] == 15 and report["seed"] == 0
    assert set(report["baselines"]) == set(SYSTEMS)
    for name, rows in report["baselines"].items():
        assert [row["k"] for row in rows] == list(range(1, 16)), name
    # bbox_size at k = 1 picks the largest box: alpha {0} -> P 1, R .75, F 6/7; bravo {1} -> P R F 1/3;
    # charlie {1} vs [{0}] -> 0.
    first = report["baselines"]["bbox_size"][0]
    assert first["p_mean"] == pytest.approx((1 + 1 / 3) / 3)
    assert first["r_mean"] == pytest.approx((0.75 + 1 / 3) / 3)
    assert first["f_mean"] == pytest.approx((6 / 7 + 1 / 3) / 3)
    # At k = 15 every image's boxes are all selected by the systems that rank every box:
    # alpha P (2/3 + 1/3)/2 = .5, R 1; bravo P .5, R 1; charlie P .5, R 1 -> F 2/3 everywhere.
    for name in ("random", "bbox_size", "bbox_position", "unigram", "unigram+position", "bigram+position"):
        last = report["baselines"][name][-1]
        assert (last["p_mean"], last["p_std"], last["r_mean"], last["r_std"], last["f_mean"]) == (
            pytest.approx(0.5), pytest.approx(0), pytest.approx(1), pytest.approx(0), pytest.approx(2 / 3)), name

    stats = report["statistics"]
    assert (stats["images"], stats["descriptions"], stats["descriptions_awaiting_correspondence"]) == (3, 6, 1)
    # alpha's first description: pair F = 2 * 1 / (2 + 1); tokens agree on 7 of 8 (all but token 1).
    assert report["link_agreement"] == {"descriptions": 1, "pair_f_mean": pytest.approx(2 / 3),
                                        "token_agreement_mean": pytest.approx(7 / 8)}
    assert report["simulated"] is False

    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert "Content selection" in page and "bbox_size" in page and "<svg" in page


def test_campaign_scope_and_k_max(tmp_path, gold):
    create_campaign(name="alpha only", task_kind="describe_image", items=[{"image": gold["alpha"].pk}])
    out = tmp_path / "alpha"
    output = run("--campaign", "alpha only", "--out", out, "--k-max", "3")
    assert output.splitlines()[0] == (
        "1 images, 2 linked descriptions; human upper bound P = 0.75 ± 0.00, R = 0.75 ± 0.00, F = 0.67 ± 0.00 "
        "over 1 images")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["k_max"] == 3
    assert all([row["k"] for row in rows] == [1, 2, 3] for rows in report["baselines"].values())
    assert report["skipped"] == []


def test_unknown_campaign_is_refused_and_nothing_written(tmp_path, gold):
    with pytest.raises(CommandError, match="no campaign named or numbered 'nope'"):
        run("--campaign", "nope", "--out", tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_no_gold_data_still_writes_a_report_with_no_figure_over_no_image(tmp_path):
    out = tmp_path / "empty"
    output = run("--out", out)
    assert output.splitlines()[0] == (
        "0 images, 0 linked descriptions; no human upper bound: it needs an image with at least two linked "
        "descriptions")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["upper_bound"] == {"images": 0, "p_mean": None, "p_std": None, "r_mean": None, "r_std": None,
                                     "f_mean": None, "f_std": None}
    assert report["scored_images"] == 0 and report["table"] == []
    assert all(rows == [] for rows in report["baselines"].values())
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "No figure: no image has a description with word-to-box links" in page and "0.00 ± 0.00" not in page

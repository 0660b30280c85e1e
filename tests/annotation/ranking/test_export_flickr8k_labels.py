"""Flickr8k export: each crowd-judged pair's aggregated label (CrowdLabels.txt) by majority (the default) or by
Dawid-Skene (option aggregation), the official judgement files unchanged, and a bad option refused."""
from __future__ import annotations

import pytest

from annotation.models import Description, Image
from annotation.ranking.flickr8k_export import judge_of
from annotation.ranking.models import CaptionJudgement
from mturk.datasets.formats import ExportError, check_scope
from tests.annotation.ranking.test_export_flickr8k import described, export, image_file, text

pytestmark = pytest.mark.django_db

WRONG = {"cid": {0, 1, 2, 8, 9}, "dan": {3, 4, 5, 8, 9}, "eve": {6, 7, 0, 8, 9}}


def judged_pairs() -> list[tuple[str, str, bool]]:
    """Ten exported pairs judged by five imported judges: ann and bob always right, cid, dan and eve each wrong on
    three of pairs 0-7 and all three wrong on pairs 8 and 9 (where the majority, 3 to 2, is therefore wrong).
    Returns per pair (image file, caption id, truth)."""
    campaign = described(images=2, per_image=5)
    del campaign
    images = list(Image.objects.order_by("key"))
    captions = [(image, n, d) for image in images
                for n, d in enumerate(Description.objects.filter(image=image).order_by("pk"))]
    pairs = []
    for number in range(10):
        image = images[number % 2]
        owner, n, caption = captions[number]
        truth = number % 2 == 0
        for judge in ("ann", "bob", "cid", "dan", "eve"):
            CaptionJudgement.objects.create(image=image, description=caption, source="imported", judge=judge,
                                            relevant=truth != (number in WRONG.get(judge, set())))
        pairs.append((image_file(image), f"{image_file(owner)}#{n}", truth))
    return pairs


def labels_file(archive) -> dict[tuple[str, str], tuple[int, str]]:
    rows = [line.split("\t") for line in text(archive, "CrowdLabels.txt").splitlines()]
    return {(image, caption): (int(label), confidence) for image, caption, label, confidence in rows}


def test_majority_is_the_default_and_dawid_skene_follows_the_reliable_judges():
    pairs = judged_pairs()
    by_majority = export([])
    labels = labels_file(by_majority)
    truth = {(image, caption): int(value) for image, caption, value in pairs}
    wrong = sorted(key for key, (label, _) in labels.items() if label != truth[key])
    assert wrong == sorted((image, caption) for image, caption, _ in pairs[8:])
    assert {confidence for _, confidence in labels.values()} == {"0.6", "0.8"}  # 3 or 4 of 5 votes
    card = text(by_majority, "README.md")
    # pair 8 (yes) became no and pair 9 (no) became yes: still 5 relevant pairs
    assert "aggregation `majority`" in card and "- Crowd relevant pairs: 5" in card

    by_model = export([], aggregation="dawid_skene")
    modelled = labels_file(by_model)
    assert {key: label for key, (label, _) in modelled.items()} == truth
    assert all(float(confidence) > 0.99 for _, confidence in modelled.values())
    card = text(by_model, "README.md")
    assert "aggregation `dawid_skene`: Dawid-Skene (crowd-kit)" in card and "- Crowd relevant pairs: 5" in card
    # the official file is the same whatever the aggregation: fraction of yes, yes, no
    assert text(by_model, "CrowdFlowerAnnotations.txt") == text(by_majority, "CrowdFlowerAnnotations.txt")
    first = text(by_model, "CrowdFlowerAnnotations.txt").splitlines()[0].split("\t")
    assert len(first) == 5


def test_a_tie_is_left_out_by_majority_and_counted():
    described(images=1, per_image=1)
    image = Image.objects.get()
    caption = Description.objects.get()
    for relevant in (True, False):
        CaptionJudgement.objects.create(image=image, description=caption, source="imported", relevant=relevant)
    archive = export([])
    assert text(archive, "CrowdLabels.txt") == ""
    assert "- Crowd unlabelled pairs (ties): 1" in text(archive, "README.md")
    assert len(labels_file(export([], aggregation="dawid_skene"))) == 1  # the model decides (to the smaller: no)


def test_who_judged():
    assert judge_of(1, 7, "") == ("worker", 7)
    assert judge_of(1, None, "expert-a") == ("judge", "expert-a")
    assert judge_of(1, None, "") == ("judgement", 1)


@pytest.mark.parametrize("value", ["mace", 3, True])
def test_a_bad_aggregation_is_refused(value):
    campaign = described(images=1, per_image=1)
    with pytest.raises(ExportError, match="option aggregation must be majority or dawid_skene"):
        check_scope("flickr8k", [campaign], {"aggregation": value})

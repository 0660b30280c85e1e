"""The content-selection baselines: the paper's worked example, the bigram chain, priors, random, the report."""
from __future__ import annotations

import json
import re

import pytest

from metrics.baselines import (
    SYSTEMS,
    Priors,
    average_ranks,
    bigram_ranking,
    combine_rankings,
    content_selection_report,
    count_priors,
    position_ranking,
    priors_by_image,
    random_ranking,
    size_ranking,
    system_rankings,
    unigram_ranking,
)
from metrics.content_selection import NO_LINKED_GOLD, TOO_FEW_FOR_UPPER_BOUND, evaluate_selections
from tests.metrics import make_image

DRESS, WHEEL, WOMAN, CAR, HAIR, BOOT, SIGN = range(7)
SLIDE_CONCEPTS = ["dress", "wheel", "woman", "car", "hair", "boot", "sign"]
# 800 x 600 image, 20 x 20 boxes whose centres are 0, 50, 100, .. 300 pixels from the image centre (400, 300):
# woman, car, dress, wheel, sign, hair, boot.
SLIDE_GEOMETRY = [
    (390, 390, 20, 20),  # dress: centre (400, 400), 100 away
    (240, 290, 20, 20),  # wheel: (250, 300), 150
    (390, 290, 20, 20),  # woman: (400, 300), 0
    (440, 290, 20, 20),  # car: (450, 300), 50
    (640, 290, 20, 20),  # hair: (650, 300), 250
    (90, 290, 20, 20),  # boot: (100, 300), 300
    (390, 90, 20, 20),  # sign: (400, 100), 200
]


def slide_image(descriptions=((WOMAN, DRESS), (WOMAN, CAR))):
    return make_image("slide", SLIDE_CONCEPTS, descriptions, SLIDE_GEOMETRY, size=(800, 600))


def test_combined_ranks_of_the_slides_worked_example():
    bigram = [WOMAN, DRESS, BOOT, CAR]  # ranks woman 1, dress 2, boot 3, car 4; the other three unselected
    position = [WOMAN, CAR, DRESS, WHEEL, SIGN, HAIR, BOOT]
    ranks = average_ranks(bigram, position)
    assert ranks[WHEEL][1] == ranks[HAIR][1] == ranks[SIGN][1] == 0.5 * ((7 + 1) - 4) + 4 == 6
    assert {box: average for box, (average, _) in ranks.items()} == {
        WOMAN: 1, DRESS: 2.5, CAR: 3, BOOT: 5, WHEEL: 5, SIGN: 5.5, HAIR: 6}
    combined = combine_rankings(bigram, position)
    assert combined == [WOMAN, DRESS, CAR, BOOT, WHEEL, SIGN, HAIR]  # boot before wheel: text rank 3 < 6
    assert combined[:3] == [WOMAN, DRESS, CAR]


def test_slides_example_end_to_end_from_a_development_set():
    development = [make_image("dev", SLIDE_CONCEPTS, [[WOMAN, DRESS, BOOT, CAR]])]
    image = slide_image()
    priors = count_priors(development)
    assert position_ranking(image) == [WOMAN, CAR, DRESS, WHEEL, SIGN, HAIR, BOOT]
    assert bigram_ranking(image, priors) == [WOMAN, DRESS, BOOT, CAR]
    assert system_rankings(image, priors)["bigram+position"] == [WOMAN, DRESS, CAR, BOOT, WHEEL, SIGN, HAIR]
    report = content_selection_report([image], k_max=3, priors_from=development)
    # k = 3 selects woman, dress, car; golds {woman, dress}, {woman, car}: P = 2/3, R = 1, F = 0.8.
    k3 = report["baselines"]["bigram+position"][2]
    assert (k3["p_mean"], k3["r_mean"], k3["f_mean"]) == pytest.approx((2 / 3, 1.0, 0.8))
    assert report["priors"] == "development set of 1 images"


def test_combine_rejects_boxes_outside_the_visual_ranking():
    with pytest.raises(ValueError):
        combine_rankings([9], [0, 1])


def bigram_corpus():
    return [
        make_image("dev1", ["dog", "dog", "ball"], [[0, 1, 2], [0, 1, 2]]),
        make_image("dev2", ["man", "dog"], [[0, 1]]),
    ]


def test_bigram_counts_of_a_tiny_corpus():
    priors = count_priors(bigram_corpus())
    assert priors.bigram_count("<start>", "dog") == 2
    assert priors.bigram_count("dog", "dog") == 2
    assert priors.bigram_count("dog", "ball") == 2
    assert priors.bigram_count("ball", "<end>") == 2
    assert priors.bigram_count("man", "dog") == 1
    assert priors.bigram_count("dog", "<end>") == 1
    assert priors.unigram_count("dog") == 5  # two unique dog boxes in each dev1 description, one in dev2's
    assert priors.unigram_count("ball") == 2


def test_bigram_greedy_chain_ties_and_stopping():
    priors = count_priors(bigram_corpus())
    image = make_image("test", ["ball", "dog", "dog", "man", "tree"], [[1]])
    # <start> -> dog (2 > man's 1), the lower-numbered dog first; after dog: dog and ball both follow twice, dog has
    # the higher unigram frequency; then ball; nothing follows ball, so man and tree are never selected.
    assert bigram_ranking(image, priors) == [1, 2, 0]


def test_bigram_with_no_evidence_selects_nothing():
    priors = count_priors(bigram_corpus())
    image = make_image("test", ["tree", "sky"], [[0]])
    assert bigram_ranking(image, priors) == []
    assert combine_rankings([], position_ranking(image)) == position_ranking(image)


def test_unigram_ranking_by_frequency_then_number():
    priors = count_priors(bigram_corpus())
    image = make_image("test", ["tree", "ball", "dog", "man", "ball"], [[0]])
    assert unigram_ranking(image, priors) == [2, 1, 4, 3, 0]


def test_priors_are_leave_one_image_out():
    images = [*bigram_corpus(), make_image("dev3", ["ball", "man"], [[0, 1], [1], []])]
    per_image = priors_by_image(images)
    for index in range(len(images)):
        expected = count_priors(images[:index] + images[index + 1:])
        for concept in ("dog", "ball", "man", "tree"):
            assert per_image[index].unigram_count(concept) == expected.unigram[concept]
        for pair in [("<start>", "dog"), ("dog", "dog"), ("dog", "ball"), ("ball", "man"), ("man", "<end>"),
                     ("<start>", "man"), ("man", "dog")]:
            assert per_image[index].bigram_count(*pair) == expected.bigram[pair]
    # "ball": dev1 mentions it twice, dev3 once; no image's own mentions count for it.
    assert [p.unigram_count("ball") for p in per_image] == [1, 2 + 1, 2]


def test_explicit_development_set_overrides_leave_one_out():
    images = bigram_corpus()
    development = [make_image("other", ["tree"], [[0]])]
    per_image = priors_by_image(images, priors_from=development)
    assert all(p.unigram_count("tree") == 1 and p.unigram_count("dog") == 0 for p in per_image)


def test_random_is_seeded_and_a_permutation():
    image = make_image("img-7", [f"c{i}" for i in range(10)], [[0]])
    first = random_ranking(image, seed=0)
    assert first == random_ranking(image, seed=0)
    assert sorted(first) == list(range(10))
    assert first != random_ranking(image, seed=1)
    other = make_image("img-8", [f"c{i}" for i in range(10)], [[0]])
    assert random_ranking(other, seed=0) != first


def test_size_and_position_ties_by_box_number():
    geometry = [(0, 0, 10, 10), (80, 80, 20, 20), (90, 0, 10, 10), (45, 45, 10, 10)]
    image = make_image("g", ["a", "b", "c", "d"], [[0]], geometry)
    assert size_ranking(image) == [1, 0, 2, 3]
    assert position_ranking(image) == [3, 1, 0, 2]  # 0 and 2 are equally far from the centre


def report_images():
    return [
        make_image("a", ["woman", "dress", "car", "tree"], [[0, 1], [0, 2], [0], []]),
        make_image("b", ["man", "dog", "dog"], [[0, 1, 2], [1, 0]]),
        make_image("c", ["woman", "car"], [[0, 1]]),
        make_image("d", ["tree"], [[]]),
    ]


def test_report_shape_and_consistency_with_direct_scoring():
    images = report_images()
    report = content_selection_report(images, k_max=4)
    json.dumps(report)
    assert set(report) == {"metric", "k_max", "seed", "priors", "statistics", "scored_images", "upper_bound",
                           "baselines", "table", "per_image", "skipped"}
    assert list(report["baselines"]) == list(SYSTEMS)
    assert report["priors"] == "leave-one-image-out"
    for rows in report["baselines"].values():
        assert [row["k"] for row in rows] == [1, 2, 3, 4]
        assert set(rows[0]) == {"k", "p_mean", "p_std", "r_mean", "r_std", "f_mean", "f_std"}
    assert report["skipped"] == [
        {"key": "c", "reason": TOO_FEW_FOR_UPPER_BOUND}, {"key": "d", "reason": NO_LINKED_GOLD}]
    assert report["upper_bound"]["images"] == 2 and [s["key"] for s in report["per_image"]] == ["a", "b"]
    for k in (1, 2, 3, 4):
        selections = {image.key: frozenset(size_ranking(image)[:k]) for image in images}
        _, summary, _ = evaluate_selections(images, selections)
        row = report["baselines"]["bbox_size"][k - 1]
        assert row["p_mean"] == pytest.approx(summary.p_mean) and row["f_std"] == pytest.approx(summary.f_std)
    assert report["table"][0]["name"] == "human upper bound" and report["table"][0]["k"] is None
    assert len(report["table"]) == 1 + len(SYSTEMS) * 4
    assert all(re.fullmatch(r"\d\.\d\d ± \d\.\d\d", row[field]) for row in report["table"] for field in "prf")


def test_report_of_no_images():
    report = content_selection_report([], k_max=2)
    json.dumps(report)
    assert report["upper_bound"]["images"] == 0 and report["upper_bound"]["f_mean"] is None  # no figure, not 0
    assert report["baselines"]["random"] == [] and report["table"] == [] and report["scored_images"] == 0


def test_priors_without_held_out():
    priors = Priors(count_priors(bigram_corpus()).unigram, count_priors(bigram_corpus()).bigram)
    assert priors.without(count_priors(bigram_corpus())).unigram_count("dog") == 0

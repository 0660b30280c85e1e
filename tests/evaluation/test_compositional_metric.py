"""Compositional Recall@K as an automatic metric of a human evaluation on a compositional test set: the provider
compositional registers adds an uploaded system's average Recall@K when the system has a done compositional
evaluation of the same split, nothing otherwise, and the analysis correlates it at system level (it has no item
scores). The corpus is the compositional tests' COCO fixture (parsed by the real parser): its evaluation images
are 303 (small_dog), 305 (eat_horse) and 307 (black_cat)."""
from __future__ import annotations

import json

import pytest

from annotation.compositional.services import evaluations as compositional
from annotation.compositional.services.caption_parses import parse_all
from annotation.compositional.services.concept_pairs import load_seed_pairs
from annotation.compositional.services.evaluations import run_evaluation, submit_evaluation
from annotation.image_sets.models import ImageSet, ImageSetMember
from annotation.models import ImageOrigin
from annotation.services.coco_import.importer import import_coco
from evaluation.selectors import automatic_scores
from evaluation.services.evaluations import create_evaluation
from evaluation.services.uploads import upload_outputs
from metrics.human_eval import analyse
from metrics.meteor import JAVA_MISSING, MeteorError
from tests.annotation.compositional.services.test_evaluations import FIXTURE

pytestmark = pytest.mark.django_db

# One caption per evaluation image (K = 1): every held-out pair recalled, two of three, none.
CAPTIONS = {
    "good": {"303": "A small dog on the sand.", "305": "A horse eating grass.", "307": "A black cat on a car."},
    "fair": {"303": "A white dog on the sand.", "305": "A horse eating grass.", "307": "A black cat on a car."},
    "poor": {"303": "A dog on the sand.", "305": "A horse next to a man.", "307": "A cat on a car."},
}
RATING = {"good": 4, "fair": 3, "poor": 1, "human reference": 4}


@pytest.fixture
def corpus(monkeypatch):
    def missing() -> None:
        raise MeteorError(f"{JAVA_MISSING} (no 'java' executable found)")

    monkeypatch.setattr(compositional, "Meteor", missing)
    import_coco(FIXTURE / "captions.json")
    load_seed_pairs()
    parse_all()


def _scored(system: str, captions: dict[str, str], **options):
    upload = json.dumps({key: [text] for key, text in captions.items()}).encode()
    evaluation = run_evaluation(submit_evaluation(system=system, content=upload, k=1, background=False, **options))
    assert evaluation.status == "done", evaluation.error
    return evaluation


def _upload(evaluation, system: str, captions: dict[str, str]):
    content = json.dumps([{"image_id": int(key), "caption": text} for key, text in captions.items()]).encode()
    return upload_outputs(evaluation, system=system, content=content, file_name=f"{system}.json")


def _human_evaluation(base):
    return create_evaluation(name="compositional-he", test_set=f"compositional:{base.pk}", attention_rate=0)


def test_an_upload_under_the_evaluated_name_gets_its_recall_and_another_name_none(corpus):
    base = _scored("good", CAPTIONS["good"])
    fair = _scored("fair", CAPTIONS["fair"])
    _scored("other", CAPTIONS["good"], group="4")  # another split (the pairs of held-out group 4): not this one
    evaluation = _human_evaluation(base)
    assert sorted(evaluation.items.values_list("name", flat=True)) == ["303", "305", "307"]

    good = _upload(evaluation, "good", CAPTIONS["good"]).automatic
    assert good["compositional_recall"]["system"] == base.result["recall"]["average"]["recall"]
    assert good["compositional_recall"]["items"] == {"303": 1.0, "305": 1.0, "307": 1.0}  # every pair recalled
    assert good["compositional_recall"]["evaluation"] == base.pk
    assert {"bleu4", "cider", "meteor"} <= set(good)  # the scores against the references stay
    recall = _upload(evaluation, "fair", CAPTIONS["fair"]).automatic["compositional_recall"]
    assert recall["system"] == fair.result["recall"]["average"]["recall"]
    assert recall["system"] != good["compositional_recall"]["system"]  # two of the three pairs against all three
    assert recall["items"] == {"303": 0.0, "305": 1.0, "307": 1.0}  # "a white dog" is not a small dog
    assert "compositional_recall" not in _upload(evaluation, "unknown", CAPTIONS["poor"]).automatic
    assert "compositional_recall" not in _upload(evaluation, "other", CAPTIONS["good"]).automatic
    reference = evaluation.systems.get(role="reference").automatic
    assert "compositional_recall" not in reference


def test_the_same_images_in_a_test_set_of_another_source_get_no_recall(corpus):
    _scored("good", CAPTIONS["good"])
    collection = ImageSet.objects.create(name="the evaluation images")
    for origin in ImageOrigin.objects.filter(external_id__in=[303, 305, 307], subset="val2014"):
        ImageSetMember.objects.create(image_set=collection, image_id=origin.image_id)
    evaluation = create_evaluation(name="images", test_set=f"image_set:{collection.pk}", attention_rate=0)
    assert sorted(evaluation.items.values_list("name", flat=True)) == ["303", "305", "307"]
    assert "compositional_recall" not in _upload(evaluation, "good", CAPTIONS["good"]).automatic


def test_the_analysis_correlates_the_recall_at_segment_and_system_level(corpus):
    evaluations = {system: _scored(system, captions) for system, captions in CAPTIONS.items()}
    evaluation = _human_evaluation(evaluations["good"])
    for system, captions in CAPTIONS.items():
        _upload(evaluation, system, captions)
    scores = automatic_scores(evaluation)
    assert scores["automatic"]["compositional_recall"]["poor"] == {"303": 0.0, "305": 0.0, "307": 0.0}
    assert scores["automatic_systems"]["compositional_recall"] == {
        system: stored.result["recall"]["average"]["recall"] for system, stored in evaluations.items()}
    items = list(evaluation.items.values_list("name", flat=True))
    records = [{"design": "rating", "system": system, "item": item, "judge": f"w{judge}", "aspect": "overall",
                "value": max(1, rating - (judge == 2))}
               for system, rating in RATING.items() for item in items for judge in range(3)]
    analysis = analyse(records, seed=1, scale=[1, 2, 3, 4], **scores)
    correlation = analysis["ratings"]["overall"]["correlation"]
    assert {"compositional_recall", "bleu4"} <= set(correlation["segment"])
    assert correlation["segment"]["compositional_recall"]["n"] == 9  # 3 systems x 3 items (not the reference)
    system_level = correlation["system"]["compositional_recall"]
    assert system_level["n"] == 3  # the three systems; the human reference has no compositional evaluation
    assert system_level["spearman_rho"] == pytest.approx(1.0)  # recall and rating rank the systems alike

"""The demo's human evaluations (evaluation/demo.py, a part of `manage.py seed_demo`): analysed, their
leaderboards ordered as the captioners' simulated quality, seeded once, and their console pages open for the demo
researcher. METEOR is the conftest's stand-in (no JVM); shared_meteor gives the scores one scorer would."""
from __future__ import annotations

import json
import re
from io import StringIO
from statistics import fmean

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.demo.grounded import seed_grounded_demo
from annotation.demo.scenes import scene_contents
from annotation.demo.seed import BOXED_IMAGE_COUNT, seed_concepts, seed_images
from annotation.image_sets.models import ImageSet, ImageSetMember
from evaluation import demo, exports
from evaluation.demo_judges import opinion
from evaluation.models import EvaluatedSystem, HumanEvaluation, HumanJudgement, SystemOutput
from evaluation.selectors import leaderboard
from evaluation.services import automatic
from mturk.models import HIT, Assignment, Campaign, GoldItem

pytestmark = pytest.mark.django_db
CAPTIONERS = {demo.ACCURATE, demo.CONFUSED, demo.GENERIC_NAME}


@pytest.fixture
def seeded():
    """The demo images and the grounded demo's descriptions (what seed_demo seeds before the parts), then the
    human evaluation part."""
    images = seed_images(seed_concepts()).images
    seed_grounded_demo(images[:BOXED_IMAGE_COUNT])
    return demo.seed_human_eval_part()


def simulated_quality(evaluation: HumanEvaluation) -> list[str]:
    """The captioners, best first, by the judges' mean opinion of their outputs without noise."""
    scenes = demo.described_scenes()
    mean = {}
    for system in evaluation.systems.filter(role=EvaluatedSystem.Role.SYSTEM):
        outputs = SystemOutput.objects.filter(system=system).select_related("item")
        mean[system.name] = fmean(opinion(o.text, scene_contents(scenes[o.item.images[0]])) for o in outputs)
    return sorted(mean, key=lambda name: -mean[name])


def test_the_part_seeds_analysed_evaluations_ordered_as_the_simulated_quality(seeded):
    rating = HumanEvaluation.objects.get(name=demo.RATING)
    pairwise = HumanEvaluation.objects.get(name=demo.PAIRWISE)
    collection = ImageSet.objects.get(name=demo.COLLECTION)
    assert collection.is_demo and rating.test_set == f"image_set:{collection.pk}"
    assert ImageSetMember.objects.filter(image_set=collection).count() == BOXED_IMAGE_COUNT  # the described ones
    assert (rating.design, rating.aspects, rating.judges) == ("rating", ["describes"], 3)
    for evaluation in (rating, pairwise):
        assert evaluation.status == "launched" and evaluation.analysed_at is not None
        assert evaluation.campaign.provider == "local" and evaluation.campaign.is_simulated
        assert GoldItem.objects.filter(scope=f"human_evaluation:{evaluation.pk}").exists()  # attention checks
        work = Assignment.objects.filter(hit__campaign=evaluation.campaign)
        assert work.exists() and not work.exclude(status="approved").exists()
        assert not work.filter(is_simulated=False).exists()
        assert evaluation.analysed_judgements == HumanJudgement.objects.filter(evaluation=evaluation).count()
    # every output of the 4 judged systems rated by 3 judges; every pair of the 3 captioners compared by 3
    assert rating.analysed_judgements == BOXED_IMAGE_COUNT * 4 * 3
    assert pairwise.analysed_judgements == BOXED_IMAGE_COUNT * 3 * 3

    order = simulated_quality(rating)
    assert order[0] == demo.ACCURATE and order[-1] == demo.GENERIC_NAME  # the quality built in, as intended
    for evaluation in (rating, pairwise):
        rows = [row for row in leaderboard(evaluation)["rows"] if row["system"] in CAPTIONERS]
        assert [row["system"] for row in rows] == order
        figures = [row["human"]["describes"] for row in rows]
        assert figures[1]["high"] < figures[0]["low"] or figures[2]["high"] < figures[1]["low"]
        assert all("meteor" in row["automatic"] for row in rows)
    assert seeded.notes and all(re.search(r"/human-evaluations/\d+/$", note) for note in seeded.notes)


def test_seeding_twice_adds_nothing(seeded):
    def state():
        return ([(e.pk, e.analysed_at, e.analysed_judgements) for e in HumanEvaluation.objects.order_by("pk")],
                *(model.objects.count() for model in (EvaluatedSystem, SystemOutput, HumanJudgement, Campaign, HIT,
                                                      Assignment, GoldItem, ImageSet, ImageSetMember)))

    before = state()
    again = demo.seed_human_eval_part()
    assert state() == before and again == seeded


def test_an_interrupted_seeding_is_finished(seeded):
    """An evaluation left half-way (here: analysed never) is taken up where it stopped."""
    rating = HumanEvaluation.objects.get(name=demo.RATING)
    HumanEvaluation.objects.filter(pk=rating.pk).update(analysis={}, analysed_at=None, analysed_judgements=0)
    judgements = HumanJudgement.objects.count()
    demo.seed_human_eval_part()
    rating.refresh_from_db()
    assert rating.analysed_at is not None and rating.analysis and HumanJudgement.objects.count() == judgements


def test_shared_meteor_starts_one_scorer_and_gives_the_same_scores(monkeypatch):
    started = []

    class Counting(automatic.Meteor):  # the conftest's stand-in
        def __init__(self) -> None:
            started.append(self)

    monkeypatch.setattr(automatic, "Meteor", Counting)
    runs = [({"a": "a dog runs", "b": "two cats"}, {"a": ["a dog runs"], "b": ["a cat sleeps"]}),
            ({"a": "a dog", "b": "two cats"}, {"a": ["a dog runs"], "b": ["two cats"]})]
    alone = [automatic.automatic_scores("caption", outputs, refs) for outputs, refs in runs]
    assert len(started) == 2
    with automatic.shared_meteor():
        shared = [automatic.automatic_scores("caption", outputs, refs) for outputs, refs in runs]
    assert len(started) == 3 and shared == alone


def test_the_console_page_of_the_demo_evaluation_loads_for_the_demo_researcher(django_capture_on_commit_callbacks):
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo", stdout=out)
    rating = HumanEvaluation.objects.get(name=demo.RATING)
    page = reverse("human-evaluation-page", args=[rating.pk])
    assert f"{page}\n" in out.getvalue()
    client = Client()
    client.force_login(get_user_model().objects.get(username="researcher"))  # the demo's researcher
    response = client.get(page)
    assert response.status_code == 200
    body = response.content.decode()
    assert all(name in body for name in CAPTIONERS) and "human reference" in body
    report = client.get(reverse("human-evaluation-report-page", args=[rating.pk]))
    assert report.status_code == 200 and demo.ACCURATE in report.content.decode()
    # simulated, and said so wherever the evaluation shows; completed (its campaign closed with every judgement
    # in), not just "Launched"
    assert re.search(r"<dt>Status</dt><dd>Completed: <a [^>]+>Human evaluation: Demo: captions \(rating\)</a> "
                     r"\(simulated: the judgements were generated", body)
    assert re.search(r"<th scope=\"row\">Simulated</th><td>yes: the judgements were generated", report.content.decode())
    listing = client.get(reverse("human-evaluations-page")).content.decode()
    for evaluation in HumanEvaluation.objects.all():
        row = re.search(rf">{re.escape(evaluation.name)}</a>(.*?)</tr>", listing, re.S)
        assert row is not None and row.group(1).startswith(" <em") and "(simulated)" in row.group(1)
        assert "<td>Completed</td>" in row.group(1) and "Launched" not in row.group(1)
    assert json.loads(exports.analysis_json(rating))["simulated"] is True
    for evaluation in HumanEvaluation.objects.all():  # the review of the judges' answers, attention checks included
        gold = Assignment.objects.filter(hit__campaign=evaluation.campaign, hit__gold_item__isnull=False).first()
        assert gold is not None, evaluation.name
        review = client.get(reverse("campaign-review", args=[evaluation.campaign.pk]) + f"?assignment={gold.pk}")
        assert review.status_code == 200 and '<span class="flag">Attention check</span>' in review.content.decode()

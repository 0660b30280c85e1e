"""End to end: three systems of known quality (the human reference, a good system, a bad one) on 30 images, an
evaluation of each design created, uploaded and launched through the services, judged by simulated judges with noise
through the worker's real path (the campaign link, the start button, the task page, the submit endpoint: what a
browser does), approved, analysed and reported.

A simulated judge decides from the task page alone: the picture it shows and the texts of the outputs. What it
thinks of a caption comes from what a person would see: a reference of the picture is good, the good system's
caption a little less good, anything else (the bad system's caption, which describes another picture, or an
attention check's reference of another picture) unrelated. So the judge cannot judge well unless the page shows the
right texts with the right picture, and it knows nothing of systems: every page and response is also checked to
name none."""
from __future__ import annotations

import html
import json
import re
from collections import Counter

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from annotation.image_sets.models import ImageSet, ImageSetMember
from annotation.models import Description
from evaluation.exports import report_html
from evaluation.models import HumanJudgement
from evaluation.selectors import leaderboard
from evaluation.services.analysis import analyse_evaluation
from evaluation.services.evaluations import ATTENTION_NAME, REFERENCE_NAME, create_evaluation
from evaluation.services.launch import launch_evaluation
from evaluation.services.uploads import upload_outputs
from mturk.models import Assignment
from mturk.services.review import approve_submitted
from tests.factories import make_image
from tests.worker_flow import press_start, submit, token_of

pytestmark = pytest.mark.django_db

ITEMS = 30
COLOURS = ["red", "blue", "green", "yellow", "white", "black"]
THINGS = ["dog", "bicycle", "boat", "kite", "horse"]
SYSTEMS = {"good": "system-good-7f3", "bad": "system-bad-2c9"}
# What a person makes of a caption of a picture, on the 4-point scale of the seed's question.
QUALITY = {"reference": 3.7, "good": 2.9, "unrelated": 1.2}
TEXT = re.compile(r'<p class="he-text" id="he-(\d+)-text">(.*?)</p>', re.S)
PICTURE = re.compile(r'<figure class="he-picture">\s*<img src="([^"]+)"')


def subject(index: int) -> str:
    return f"{COLOURS[index % len(COLOURS)]} {THINGS[index // len(COLOURS)]}"


def references(index: int) -> list[str]:
    return [f"A {subject(index)} stands in the middle of the picture.", f"There is a {subject(index)} here."]


def good_caption(index: int) -> str:
    return f"A photo of a {subject(index)} outside."


@pytest.fixture
def test_set(settings):
    """A collection of 30 pictures, two human captions each; returns it and each picture's address -> index."""
    settings.ARRIVAL_RATE = "100000/m"  # the judges all arrive from 127.0.0.1
    collection = ImageSet.objects.create(name="e2e pictures")
    where: dict[str, int] = {}
    for index in range(ITEMS):
        image = make_image(f"e2e-{index}.png")
        ImageSetMember.objects.create(image_set=collection, image=image)
        for text in references(index):
            Description.objects.create(image=image, text=text, source="import")
        where[image.display_url] = index
    return collection, where


def with_outputs(collection: ImageSet, name: str, design: str, judges: int):
    evaluation = create_evaluation(name=name, test_set=f"image_set:{collection.pk}", design=design, judges=judges,
                                   attention_rate=0.1, seed="e2e")
    names = {item.images[0]: item.name for item in evaluation.items.all()}
    images = sorted(names)  # image pks in creation order: index i is the i-th picture
    runs = {"good": [{"image_id": names[pk], "caption": good_caption(i)} for i, pk in enumerate(images)],
            # the bad system describes another picture
            "bad": [{"image_id": names[pk], "caption": good_caption((i + 7) % ITEMS)} for i, pk in enumerate(images)]}
    for role, run in runs.items():
        upload_outputs(evaluation, system=SYSTEMS[role], content=json.dumps(run).encode())
    return evaluation


def opinion(picture: int, text: str) -> float:
    if text in references(picture):
        return QUALITY["reference"]
    return QUALITY["good"] if text == good_caption(picture) else QUALITY["unrelated"]


class Judge:
    """One simulated judge: a browser session of its own, a leniency, and noise."""

    def __init__(self, number: int, rng: np.random.Generator, where: dict[str, int]) -> None:
        self.client, self.rng, self.where = Client(), rng, where
        self.leniency = float(rng.normal(0, 0.25))
        self.seen: list[str] = []  # every page and response body, for the blindness check

    def next_page(self, campaign) -> tuple[str, str] | None:
        response = press_start(self.client, campaign)
        if response.status_code != 303:  # no task left for this judge
            self.seen.append(response.content.decode())
            return None
        token = token_of(response)
        page = self.client.get(reverse("task-page") + f"?t={token}")
        assert page.status_code == 200
        body = page.content.decode()
        self.seen.append(body)
        return token, body

    def read(self, body: str) -> tuple[int, list[str]]:
        picture = PICTURE.search(body)
        assert picture, "the task page shows the picture"
        texts = [html.unescape(text) for _, text in sorted(TEXT.findall(body), key=lambda found: int(found[0]))]
        return self.where[html.unescape(picture.group(1))], texts

    def send(self, token: str, answer: dict) -> None:
        response = submit(self.client, {"token": token, "answer": answer})
        assert response.status_code == 201, response.content
        self.seen.append(response.content.decode())

    def rate(self, campaign) -> int:
        done = 0
        while (task := self.next_page(campaign)) is not None:
            token, body = task
            picture, texts = self.read(body)
            values = [int(np.clip(round(opinion(picture, text) + self.leniency + self.rng.normal(0, 0.5)), 1, 4))
                      for text in texts]
            self.send(token, {"ratings": [{"describes": value} for value in values]})
            done += 1
        return done

    def compare(self, campaign) -> int:
        done = 0
        while (task := self.next_page(campaign)) is not None:
            token, body = task
            picture, texts = self.read(body)
            assert len(texts) == 2
            margin = opinion(picture, texts[0]) - opinion(picture, texts[1]) + self.rng.normal(0, 0.6)
            choice: int | str = "tie" if abs(margin) < 0.2 else 0 if margin > 0 else 1
            self.send(token, {"preferences": {"describes": choice}})
            done += 1
        return done


def judge_all(evaluation, judges: int, design: str, where: dict[str, int]) -> list[Judge]:
    campaign = launch_evaluation(evaluation, provider="local", publish=True)
    rng = np.random.default_rng(28)
    crowd = [Judge(number, rng, where) for number in range(judges)]
    for judge in crowd:
        (judge.rate if design == "rating" else judge.compare)(campaign)
    assert not Assignment.objects.filter(hit__campaign=campaign, status="accepted").exists()
    # the attention checks were met, looked like any task, and the attentive judges passed them
    checks = Assignment.objects.filter(hit__campaign=campaign, hit__gold_item__isnull=False)
    assert checks.count() >= judges and all("gold_failed" not in (a.check_flags or []) for a in checks)
    approve_submitted(campaign)
    return crowd


def assert_blind(crowd: list[Judge], evaluation) -> None:
    pages = "\n".join(body for judge in crowd for body in judge.seen)
    assert pages.count('class="he-text"') >= 30  # the pages were read
    names = [*SYSTEMS.values(), REFERENCE_NAME, ATTENTION_NAME, evaluation.name]
    for name in names:
        assert name not in pages, f"{name!r} reached a worker's page or a response"
    assert "system" not in pages.lower()


def test_ratings_order_the_three_systems_and_separate_the_bad_one(test_set):
    collection, where = test_set
    evaluation = with_outputs(collection, "e2e ratings", "rating", judges=3)
    crowd = judge_all(evaluation, 5, "rating", where)
    assert_blind(crowd, evaluation)
    # every judged output of every item rated by 3 judges; no judge rated an item twice
    judgements = HumanJudgement.objects.filter(evaluation=evaluation)
    per_output = Counter(judgements.values_list("output_id", flat=True))
    assert len(per_output) == ITEMS * 3 and set(per_output.values()) == {3}
    per_judge_item = Counter(judgements.values_list("worker_id", "item_id", "output_id"))
    assert set(per_judge_item.values()) == {1}
    assert not judgements.filter(output__system__role="attention").exists()

    analysis = analyse_evaluation(evaluation)
    systems = analysis["ratings"]["describes"]["systems"]
    assert set(systems) == {REFERENCE_NAME, *SYSTEMS.values()}
    board = leaderboard(evaluation)
    assert [row["system"] for row in board["rows"]] == [REFERENCE_NAME, SYSTEMS["good"], SYSTEMS["bad"]]
    good, bad = systems[SYSTEMS["good"]], systems[SYSTEMS["bad"]]
    assert bad["high"] < good["low"] and bad["high"] < systems[REFERENCE_NAME]["low"]
    evaluation.refresh_from_db()  # the report reads the stored analysis
    report = report_html(evaluation)
    assert report.index(REFERENCE_NAME) < report.index(SYSTEMS["good"]) < report.index(SYSTEMS["bad"])


def test_preferences_order_the_three_systems_and_separate_the_bad_one(test_set):
    collection, where = test_set
    evaluation = with_outputs(collection, "e2e preferences", "pairwise", judges=2)
    crowd = judge_all(evaluation, 4, "pairwise", where)
    assert_blind(crowd, evaluation)
    judgements = HumanJudgement.objects.filter(evaluation=evaluation)
    # 30 items x 3 pairs, 2 judges each; each system shown first about half of the time
    assert judgements.count() == ITEMS * 3 * 2
    first = Counter(judgements.values_list("output__system__name", flat=True))
    assert all(abs(first[name] - ITEMS * 2) <= 2 * 2 for name in (REFERENCE_NAME, *SYSTEMS.values())), first

    analysis = analyse_evaluation(evaluation)
    scores = analysis["preferences"]["describes"]["bradley_terry"]
    board = leaderboard(evaluation)
    assert [row["system"] for row in board["rows"]] == [REFERENCE_NAME, SYSTEMS["good"], SYSTEMS["bad"]]
    assert scores[SYSTEMS["bad"]]["high"] < scores[SYSTEMS["good"]]["low"]
    evaluation.refresh_from_db()
    report = report_html(evaluation)
    assert "win matrix" in report.lower()
    assert report.index(REFERENCE_NAME) < report.index(SYSTEMS["good"]) < report.index(SYSTEMS["bad"])

"""A human evaluation run on Prolific, end to end, against the fake Prolific over HTTP.

A rating evaluation of two uploaded systems (and the human reference) on the small caption test set, launched
with provider "prolific" and published with settings that pass Prolific's pay floor (a bundle of two tasks per
submission, an estimate of 3 minutes). The study is created once; participants start it on Prolific, open its
link, press Start task, read each task page (the picture and the texts of its outputs), rate them through
POST /task/submit/, follow the continue link to the completion page and enter the code on Prolific. The sync
learns the submissions await review, the researcher approves them all, the decision reaches Prolific, and each
approved answer of a real item is stored as human judgements. No page or response a participant sees, and nothing
of the study Prolific shows them, names a system."""
from __future__ import annotations

import html
import json
import re
from decimal import Decimal
from io import StringIO
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from evaluation.models import HumanJudgement
from evaluation.services.evaluations import (
    ATTENTION_NAME,
    REFERENCE_NAME,
    EvaluationError,
    create_evaluation,
)
from evaluation.services.launch import launch_evaluation
from evaluation.services.uploads import upload_outputs
from mturk.models import Assignment, Campaign
from mturk.providers.prolific.models import ProlificStudy, ProlificSubmission
from mturk.services.review import approve_submitted
from mturk.states import AssignmentStatus
from mturk.work.services.marketplace_sync import sync_all
from tests.mturk.providers.prolific.participant_flow import MAX_STEPS, study_link
from tests.prolific_fake.fixtures import prolific_fake  # noqa: F401 - registers the fixture
from tests.prolific_fake.state import FakeProlific
from tests.worker_flow import submit

from .conftest import REFERENCES, item_names

pytestmark = pytest.mark.django_db

SYSTEMS = {"close": "captioner-close-4b1", "off": "captioner-off-9d7"}
CLOSE = {0: "a dog running on a beach", 1: "two cats asleep on a sofa", 2: "a man on a red bike"}
# 0.30 per task, two tasks per submission, about 3 minutes: 12.00 per hour, above Prolific's floor of 6.00.
REWARD = Decimal("0.30")
SETTINGS = {"tasks_per_submission": 2, "qualifications": {"estimated_minutes": 3}}
TEXT = re.compile(r'<p class="he-text" id="he-(\d+)-text">(.*?)</p>', re.S)
PICTURE = re.compile(r'<figure class="he-picture">\s*<img src="([^"]+)"')


def page_texts(body: str) -> list[str]:
    """The outputs' texts of a rate_output task page, in the page's order (it carries no task-payload script)."""
    return [html.unescape(text) for _, text in sorted(TEXT.findall(body), key=lambda found: int(found[0]))]


def rating(picture: int, text: str) -> int:
    """What a careful person gives on the 4-point scale: a reference of the picture 4, a close caption 3, else 1."""
    return 4 if text in REFERENCES[picture] else 3 if text == CLOSE[picture] else 1


class Participant:
    """One Prolific participant's browser (own address); every body it sees is kept for the blindness check."""

    def __init__(self, number: int, fake: FakeProlific, pictures: dict[str, int]) -> None:
        self.client = Client(REMOTE_ADDR=f"10.1.0.{number + 1}")
        self.fake, self.pictures = fake, pictures
        self.seen: list[str] = []
        self.answered, self.code, self.submission_id = 0, "", ""

    def get(self, url: str):
        response = self.client.get(url)
        self.seen.append(response.content.decode())
        return response

    def take_part(self, study_id: str) -> None:
        remote = self.fake.start(study_id)
        self.submission_id = remote.id
        link = study_link(self.fake, study_id, remote.participant_id, remote.id)
        start = self.get(link)
        assert start.status_code == 200 and 'id="start-task"' in start.content.decode()
        ids = {name: values[0] for name, values in parse_qs(urlsplit(link).query).items()}
        response = self.client.post(link.split("?", 1)[0], ids)  # "Start task"
        continue_link = ""
        for _ in range(MAX_STEPS):
            if response.status_code in (302, 303):
                location = response["Location"]
                if location.startswith(reverse("task-page") + "?t="):
                    continue_link = self.rate(location)
                    response = self.get(continue_link)
                else:
                    response = self.get(location)
                continue
            body = response.content.decode()
            assert response.status_code == 200, body
            if response.has_header("Refresh"):  # the completion page: back to Prolific with the code
                [self.code] = parse_qs(urlsplit(response["Refresh"].split("url=", 1)[1]).query)["cc"]
                self.fake.complete(self.submission_id, self.code)
                return
            assert 'id="next-task"' in body and continue_link, body
            response = self.client.post(continue_link)
            self.seen.append(response.content.decode())
        raise AssertionError("never reached the completion page")

    def rate(self, task_url: str) -> str:
        """Read the task page, send the ratings; the continue link."""
        page = self.get(task_url)
        body = page.content.decode()
        assert page.status_code == 200 and 'id="task-form"' in body, body
        picture = PICTURE.search(body)
        assert picture, "the task page shows the picture"
        index = self.pictures[html.unescape(picture.group(1))]
        texts = page_texts(body)
        assert len(texts) >= 2, body
        token = parse_qs(urlsplit(task_url).query)["t"][0]
        stored = submit(self.client, {"token": token, "answer": {
            "ratings": [{"describes": rating(index, text)} for text in texts]}})
        self.seen.append(stored.content.decode())
        assert stored.status_code == 201, stored.content
        self.answered += 1
        return stored.json()["next_url"]


def evaluation_with_outputs(collection, images, name="prolific captions"):
    evaluation = create_evaluation(name=name, test_set=f"image_set:{collection.pk}", judges=2,
                                   attention_rate=0.3, seed="prolific")
    names = item_names(images)
    runs = {"close": [{"image_id": names[i], "caption": CLOSE[i]} for i in range(3)],
            "off": [{"image_id": names[i], "caption": CLOSE[(i + 1) % 3]} for i in range(3)]}  # another picture's
    for role, run in runs.items():
        upload_outputs(evaluation, system=SYSTEMS[role], content=json.dumps(run).encode())
    return evaluation


def test_a_rating_evaluation_runs_on_prolific(caption_set, prolific_fake, settings,  # noqa: F811 - the fixture
                                              django_capture_on_commit_callbacks):
    fake, capture = prolific_fake, django_capture_on_commit_callbacks
    settings.PUBLIC_BASE_URL = "https://crowd.example.org"
    collection, images = caption_set
    evaluation = evaluation_with_outputs(collection, images)

    with capture(execute=True):
        campaign = launch_evaluation(evaluation, provider="prolific", reward=REWARD, publish=True, settings=SETTINGS)
    campaign = Campaign.objects.get(pk=campaign.pk)
    assert (campaign.tasks_per_submission, campaign.qualifications) == (2, {"estimated_minutes": 3})
    study = ProlificStudy.objects.get(campaign=campaign)
    [remote] = fake.studies.values()
    assert remote["id"] == study.external_id and remote["status"] == "ACTIVE"
    assert remote["reward"] == 60 and remote["estimated_completion_time"] == 3  # a bundle of two tasks
    hits = campaign.hits.count()
    checks = campaign.hits.filter(gold_item__isnull=False).count()
    assert hits - checks == 3 and checks >= 1
    slots = hits * 2
    assert remote["total_available_places"] == study.places == -(-slots // 2)

    pictures = {image.display_url: index for index, image in enumerate(images)}
    crowd = []
    for number in range(study.places):
        participant = Participant(number, fake, pictures)
        participant.take_part(study.external_id)
        crowd.append(participant)
    assert sum(p.answered for p in crowd) == slots and all(p.answered in (1, 2) for p in crowd)
    assert all(p.code == study.completion_code for p in crowd)
    assert not Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.ACCEPTED).exists()
    # attentive participants pass the attention checks
    gold = Assignment.objects.filter(hit__campaign=campaign, hit__gold_item__isnull=False)
    assert gold.count() == checks * 2 and all("gold_failed" not in (a.check_flags or []) for a in gold)

    with capture(execute=True):
        sync_all()  # Prolific now awaits our review of every submission
    assert set(ProlificSubmission.objects.filter(study=study).values_list("status", flat=True)) == {"AWAITING REVIEW"}
    with capture(execute=True):
        review = approve_submitted(campaign)
    assert (review.approved, review.failed) == (slots, {})
    assert sorted(id for ids in fake.bulk_approvals for id in ids) == sorted(p.submission_id for p in crowd)
    for participant in crowd:
        assert fake.submission(participant.submission_id).status == "APPROVED"
    assert all(s.decision_sent for s in ProlificSubmission.objects.filter(study=study))

    # every judged output of each of the 3 items rated by 2 participants, each on the one aspect
    judgements = HumanJudgement.objects.filter(evaluation=evaluation)
    assert judgements.count() == 3 * 3 * 2
    assert not judgements.filter(output__system__role="attention").exists()
    mean = {name: sum(judgements.filter(output__system__name=name).values_list("value", flat=True)) / 6
            for name in (REFERENCE_NAME, *SYSTEMS.values())}
    assert mean == {REFERENCE_NAME: 4, SYSTEMS["close"]: 3, SYSTEMS["off"]: 1}

    # blind: the participants' pages and responses, and the study Prolific shows them, name no system
    pages = "\n".join(body for participant in crowd for body in participant.seen)
    assert pages.count('class="he-text"') >= slots * 2
    shown = pages + "\n" + json.dumps({key: remote[key] for key in ("name", "description")})
    for name in (*SYSTEMS.values(), REFERENCE_NAME, ATTENTION_NAME, evaluation.name):
        assert name not in shown, f"{name!r} reached a participant"
    assert "system" not in shown.lower()


def test_a_launch_below_prolific_pay_floor_launches_nothing(caption_set, prolific_fake):  # noqa: F811
    collection, images = caption_set
    evaluation = evaluation_with_outputs(collection, images)
    # 0.10 per task, one task per submission, about 4 minutes (a quarter of the 15-minute limit): 1.50 per hour
    with pytest.raises(EvaluationError, match="below Prolific's minimum"):
        launch_evaluation(evaluation, provider="prolific", reward=Decimal("0.10"), publish=True)
    evaluation.refresh_from_db()
    assert evaluation.status == "draft" and evaluation.campaign is None
    assert not Campaign.objects.exists() and not prolific_fake.studies
    with pytest.raises(EvaluationError, match="unknown launch setting.*assignments_per_hit"):
        launch_evaluation(evaluation, provider="prolific", reward=REWARD, settings={"assignments_per_hit": 5})
    assert not Campaign.objects.exists()


def test_the_api_and_the_command_pass_the_campaign_settings(api, caption_set):
    """Drafts on Prolific (nothing is asked of Prolific before publishing); bad settings change nothing."""
    collection, images = caption_set
    first = evaluation_with_outputs(collection, images)
    url = f"/api/human-evaluations/{first.pk}/launch/"
    refused = api.post(url, {"provider": "prolific", "settings": {"judges": 5}}, format="json")
    assert refused.status_code == 400 and "unknown launch setting(s) judges" in refused.json()["detail"]
    assert not Campaign.objects.exists()
    response = api.post(url, {"provider": "prolific", "settings": {**SETTINGS, "budget_cap": 4.2}}, format="json")
    assert response.status_code == 201, response.json()
    campaign = Campaign.objects.get(pk=response.json()["campaign"])
    assert (campaign.tasks_per_submission, campaign.qualifications, campaign.budget_cap) == (
        2, {"estimated_minutes": 3}, Decimal("4.20"))

    second = evaluation_with_outputs(collection, images, name="cli prolific")
    with pytest.raises(CommandError, match="--campaign-settings: not JSON"):
        call_command("launch_human_eval", "cli prolific", "--campaign-settings", "{tasks: 2}")
    with pytest.raises(CommandError, match="--campaign-settings: a JSON object is needed"):
        call_command("launch_human_eval", "cli prolific", "--campaign-settings", "[2]")
    with pytest.raises(CommandError, match="unknown launch setting"):
        call_command("launch_human_eval", "cli prolific", "--campaign-settings", '{"gold_rate": 0.5}')
    assert Campaign.objects.count() == 1
    call_command("launch_human_eval", str(second.pk), "--provider", "prolific",
                 "--campaign-settings", json.dumps(SETTINGS), stdout=StringIO())
    second.refresh_from_db()
    assert second.campaign.tasks_per_submission == 2


@pytest.mark.django_db(transaction=True)  # the launch commits: the study job runs in-process as it does
def test_a_503_while_a_launch_creates_the_study_is_said_by_the_command_the_api_and_the_campaign(
        caption_set, prolific_fake, api):  # noqa: F811
    """Without a task queue the study is created as the launch commits: Prolific's 503 ends the command with one
    line naming the cause, and the API with a 502; the evaluation stays launched, its campaign records the failure,
    and publishing it again creates the study."""
    collection, images = caption_set
    first = evaluation_with_outputs(collection, images)
    prolific_fake.fail("studies/", "503", method="POST")
    with pytest.raises(CommandError) as failed:
        call_command("launch_human_eval", str(first.pk), "--provider", "prolific", "--reward", str(REWARD),
                     "--publish", "--campaign-settings", json.dumps(SETTINGS), stdout=StringIO())
    message = str(failed.value)
    assert "\n" not in message and "Retry" not in message
    assert message.startswith(f"evaluation '{first.name}' is launched and campaign 'Human evaluation: {first.name}' "
                              "published here, but creating or updating the Prolific study failed: ")
    assert "(503)" in message and "publish the campaign again to retry" in message
    first.refresh_from_db()
    assert first.status == "launched" and "(503)" in first.campaign.marketplace_error
    assert prolific_fake.studies == {}

    second = evaluation_with_outputs(collection, images, name="api prolific")
    prolific_fake.fail("studies/", "503", method="POST")
    response = api.post(f"/api/human-evaluations/{second.pk}/launch/",
                        {"provider": "prolific", "reward": str(REWARD), "publish": True, "settings": SETTINGS},
                        format="json")
    assert response.status_code == 502
    second.refresh_from_db()
    assert response.json()["campaign"] == second.campaign_id and "(503)" in response.json()["detail"]
    assert prolific_fake.studies == {}

    call_command("publish_campaign", first.campaign.name, stdout=StringIO())
    first.campaign.refresh_from_db()
    assert first.campaign.marketplace_error == "" and len(prolific_fake.studies) == 1

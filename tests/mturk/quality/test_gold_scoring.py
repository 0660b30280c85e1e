"""Scoring an answer at submission: a gold HIT against its known answer, a real HIT by its inline gold parts;
the score stored and "gold_failed" flagged below the pass mark (never twice); the submission still one read and
one write; the marketplace's answers scored the same way; a gold HIT's approval pays but makes no record."""
from __future__ import annotations

import json
from unittest import mock

import pytest
from django.db import connection

from annotation.models import Description
from mturk.measures import _QUALITY
from mturk.models import HIT, Assignment, Campaign
from mturk.providers.base import MarketplaceAssignment
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.services.gold import score_submission, with_flags
from mturk.services.review import approve_assignment
from mturk.states import AssignmentStatus, CampaignStatus, HITStatus
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from mturk.work.services.marketplace_sync import SyncReport, reconcile
from tests.factories import make_image
from tests.worker_flow import start_task, submit

from . import gold_kind
from .gold_kind import BAD, GOOD, HALF, InlineGold, gold_item

pytestmark = pytest.mark.django_db
required_words = gold_kind.required_words  # fixture
no_quality = gold_kind.no_quality  # fixture


def one_gold_and_one_real(**fields) -> tuple[Campaign, HIT, HIT]:
    """A published campaign of one real HIT and one gold HIT (known words: dog, beach), one assignment each."""
    known = gold_item(("dog", "beach"))
    campaign = create_campaign(name="scored", task_kind="describe_image", assignments_per_hit=1, gold_rate=0.5,
                               items=[{"image": make_image().pk}], **fields)
    if campaign.provider == "local":
        publish_campaign(campaign)
        campaign.refresh_from_db()
    return campaign, campaign.hits.get(gold_item=known), campaign.hits.get(gold_item=None)


@pytest.mark.parametrize("text, expected", [
    (GOOD, (1.0, [])),
    (HALF, (0.5, [])),  # exactly the pass mark passes
    (BAD, (0.0, ["gold_failed"])),
])
def test_a_gold_hit_is_scored_against_its_known_answer(required_words, text, expected):
    campaign, gold_hit, real_hit = one_gold_and_one_real()
    assert score_submission(campaign, gold_hit, {"text": text}) == expected
    assert score_submission(campaign, real_hit, {"text": text}) == (None, [])


@pytest.mark.parametrize("text, expected", [
    (HALF, (0.75, [])),  # brown, dog and sun of dog, beach, sun, brown
    ("A tall grey house stands next to a red car today.", (0.0, ["gold_failed"])),
    ("A dog sleeps on the grass next to an old red car.", (0.25, ["gold_failed"])),
])
def test_a_real_hit_is_scored_by_its_inline_gold(monkeypatch, text, expected):
    monkeypatch.setitem(_QUALITY._items, "describe_image", InlineGold())
    campaign, _, real_hit = one_gold_and_one_real()
    assert score_submission(campaign, real_hit, {"text": text}) == expected


def test_a_kind_without_gold_scoring_scores_nothing(no_quality):
    image = make_image()
    campaign = create_campaign(name="plain", task_kind="describe_image", items=[{"image": image.pk}])
    assert score_submission(campaign, campaign.hits.get(), {"text": BAD}) == (None, [])


def test_flags_are_added_once():
    assert with_flags(["too_short", "gold_failed"], ["gold_failed"]) == ["too_short", "gold_failed"]
    assert with_flags(["too_short"], ["gold_failed"]) == ["too_short", "gold_failed"]
    assert with_flags([], []) == []


def answer_both(campaign: Campaign, texts: dict[int, str]) -> dict[int, Assignment]:
    """A new worker takes the campaign's two HITs (in the order given) and submits texts[hit id] to each."""
    worker = new_local_worker()
    done = {}
    for _ in texts:
        assignment = assign_next_hit(campaign, worker)
        done[assignment.hit_id] = submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                                                answer={"text": texts[assignment.hit_id]}).assignment
    return done


def test_a_submission_stores_the_gold_score_and_the_flag(required_words):
    campaign, gold_hit, real_hit = one_gold_and_one_real()
    answer_both(campaign, {gold_hit.pk: BAD, real_hit.pk: BAD})
    failed = Assignment.objects.get(hit=gold_hit)
    assert (failed.gold_score, failed.check_flags) == (0.0, ["gold_failed"])
    real = Assignment.objects.get(hit=real_hit)
    assert (real.gold_score, real.check_flags) == (None, [])


def test_a_gold_flag_already_raised_by_the_kinds_checks_is_not_repeated(required_words):
    campaign, gold_hit, real_hit = one_gold_and_one_real()
    with mock.patch("annotation.task_kinds.describe_image.DescribeImage.hit_checks", return_value=["gold_failed"]):
        answer_both(campaign, {gold_hit.pk: BAD, real_hit.pk: GOOD})
    assert Assignment.objects.get(hit=gold_hit).check_flags == ["gold_failed"]


def test_a_gold_submission_is_still_one_read_and_one_write(required_words, client, django_assert_num_queries):
    campaign, gold_hit, real_hit = one_gold_and_one_real()
    for _ in range(2):  # two workers: one takes the real HIT, the other the gold HIT (in either order)
        token = start_task(client, campaign)
        assignment = Assignment.objects.latest("pk")
        with django_assert_num_queries(4) as captured:
            assert submit(client, {"token": token, "answer": {"text": HALF}}).status_code == 201
        selects = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT")]
        assert len(selects) == 1 and "mturk_golditem" in selects[0]
        assignment.refresh_from_db()
        assert assignment.gold_score == (0.5 if assignment.hit_id == gold_hit.pk else None)
        if connection.vendor == "postgresql":
            assert selects[0].endswith('FOR UPDATE OF "mturk_assignment"')
        client = type(client)()  # the next task by another worker
    assert {a.hit_id for a in Assignment.objects.all()} == {gold_hit.pk, real_hit.pk}


def test_a_marketplace_answer_to_a_gold_hit_is_scored(required_words):
    campaign, gold_hit, _ = one_gold_and_one_real(provider="mturk")
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE)
    HIT.objects.filter(campaign=campaign).update(status=HITStatus.PUBLISHED)
    gold_hit = HIT.objects.select_related("campaign").get(pk=gold_hit.pk)
    remote = MarketplaceAssignment("A1", "W1", "Submitted", answers={"answer": json.dumps({"text": BAD})})
    stored = reconcile(gold_hit, remote, SyncReport())
    stored.refresh_from_db()
    assert (stored.status, stored.gold_score, stored.check_flags) == (AssignmentStatus.SUBMITTED, 0.0,
                                                                      ["gold_failed"])
    unread = MarketplaceAssignment("A2", "W2", "Submitted", answers={"other": "x"})
    kept_raw = reconcile(gold_hit, unread, SyncReport())
    kept_raw.refresh_from_db()
    assert (kept_raw.gold_score, kept_raw.check_flags) == (None, ["answer_not_on_platform"])


def test_approving_a_gold_answer_pays_but_makes_no_dataset_record(required_words):
    campaign, gold_hit, real_hit = one_gold_and_one_real()
    answers = answer_both(campaign, {gold_hit.pk: GOOD, real_hit.pk: GOOD})
    gold_answer, real_answer = answers[gold_hit.pk], answers[real_hit.pk]
    with mock.patch("mturk.services.review.feed_next_stages") as feed:
        approve_assignment(gold_answer)
        assert feed.call_count == 0
        approve_assignment(real_answer)
        assert feed.call_count == 1
    assert Assignment.objects.get(pk=gold_answer.pk).status == AssignmentStatus.APPROVED
    assert list(Description.objects.values_list("image_id", flat=True)) == [real_hit.items["image"]]


def test_a_fault_in_a_kinds_scoring_stores_the_answer_unscored(required_words, monkeypatch, caplog):
    campaign, gold_hit, real_hit = one_gold_and_one_real()

    def broken(*args):
        raise KeyError("words")

    monkeypatch.setattr(required_words, "score_gold", broken)
    answers = answer_both(campaign, {gold_hit.pk: GOOD, real_hit.pk: GOOD})
    stored = Assignment.objects.get(pk=answers[gold_hit.pk].pk)
    assert (stored.status, stored.answer, stored.gold_score) == (AssignmentStatus.SUBMITTED, {"text": GOOD}, None)
    assert f"gold scoring of an answer to HIT {gold_hit.pk} (describe_image) failed" in caplog.text

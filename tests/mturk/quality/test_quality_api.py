"""The worker-quality API: a campaign's quality and aggregated items, its review rule (read, save with field
errors, dry run, apply, audit), a worker's quality; constant queries on every list."""
from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mturk.models import QualityDecision, QualityRule
from mturk.quality.services.computation import compute_quality
from mturk.quality.services.review_rules.applying import apply_rule
from mturk.quality.services.review_rules.rule import save_rule
from mturk.states import AssignmentStatus

from . import quality_fakes
from .quality_fakes import REJECT_MESSAGE, answer, rule_crowd, rule_data, worker

text_quality = quality_fakes.text_quality  # fixture
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


@pytest.fixture
def crowd():
    return rule_crowd()


def queries(api, method: str, url: str, **kwargs) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as ctx:
        response = getattr(api, method)(url, **kwargs)
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries), response.json()


def more_work(campaign, n: int) -> None:
    """n more workers answering "cat" to the first HIT and the gold HIT right (more workers, items, decisions:
    the same queries)."""
    hit = campaign.hits.filter(gold_item__isnull=True).order_by("position").first()
    gold = campaign.hits.filter(gold_item__isnull=False).get()
    for i in range(n):
        extra = worker(f"extra-{campaign.pk}-{i}")
        answer(hit, extra, "cat")
        answer(gold, extra, "known", gold_score=1.0)


def test_the_campaign_quality_before_and_after_computing(api, crowd):
    campaign, _, _ = crowd
    before = api.get(f"/api/campaigns/{campaign.pk}/quality/").json()
    assert (before["measure"], before["computed_at"], before["workers"], before["rule"]) == (None, None, [], None)
    assert (before["gold_hits"], before["onboarding_hits"], before["gold_answers"]) == (1, 0, 4)
    computed = api.post(f"/api/campaigns/{campaign.pk}/quality/compute/").json()
    assert computed == {"measure": "exact text match", "answers": 12, "items": 2, "workers": 5, "aggregated": 2}
    after = api.get(f"/api/campaigns/{campaign.pk}/quality/").json()
    assert after["measure"] == "exact text match" and after["answers"] == 12
    # best gold accuracy first, then agreement: good1 (1, 0.67), good2 (1, 0.33), unsure (0.6), bad (0), newbie
    assert [w["worker"] for w in after["workers"]] == ["good1", "good2", "unsure", "bad", "newbie"]
    good1 = after["workers"][0]
    assert (good1["gold_items"], good1["gold_accuracy"], good1["compared_items"], good1["pay"]) == (
        1, 1.0, 2, "0.00")
    assert good1["agreement"] == pytest.approx(2 / 3)


def test_the_campaign_quality_reads_constant_queries(api, crowd):
    campaign, _, _ = crowd
    save_rule(campaign, rule_data())
    compute_quality(campaign)
    url = f"/api/campaigns/{campaign.pk}/quality/"
    small, body = queries(api, "get", url)
    more_work(campaign, 4)
    compute_quality(campaign)
    large, body = queries(api, "get", url)
    assert len(body["workers"]) == 9 and large == small


def test_items_lowest_agreement_first_in_pages(api, crowd):
    campaign, _, _ = crowd
    compute_quality(campaign)
    first, second = campaign.hits.filter(gold_item__isnull=True).order_by("position")
    url = f"/api/campaigns/{campaign.pk}/quality/items/"
    count, body = queries(api, "get", url)
    assert (body["count"], body["page"], body["pages"]) == (2, 1, 1)
    # HIT 1: cat, cat, dog, cat -> 3 of 6 pairs agree; HIT 2: sun, moon, sun, sun -> 3 of 6 as well: by position
    assert [r["hit_id"] for r in body["results"]] == [first.pk, second.pk]
    assert body["results"][0] == {"hit_id": first.pk, "position": first.position, "answers": 4, "agreement": 0.5,
                                  "method": "most common text", "summary": body["results"][0]["summary"],
                                  "details": {"votes": 3}}
    assert "cat" in body["results"][0]["summary"]
    more_work(campaign, 3)  # HIT 1 gets to 6 of 7 cat: 15 of 21 pairs, now above HIT 2
    compute_quality(campaign)
    larger, body = queries(api, "get", url)
    assert [r["hit_id"] for r in body["results"]] == [second.pk, first.pk] and larger == count
    assert api.get(url, {"page": "x"}).status_code == 400
    assert api.get(url, {"page": "0"}).json() == {"page": ["'0' is not a page number (a whole number from 1)."]}


def test_the_rule_is_read_saved_and_refused_field_by_field(api, crowd):
    campaign, _, _ = crowd
    url = f"/api/campaigns/{campaign.pk}/review-rule/"
    assert api.get(url).status_code == 404
    refused = api.put(url, rule_data(approve_min_gold=2), format="json")
    assert refused.status_code == 400
    assert refused.json() == {"approve_min_gold": ["must be a number from 0 to 1 (got 2)."]}
    assert api.put(url, [1, 2], format="json").status_code == 400
    assert not QualityRule.objects.exists()
    saved = api.put(url, rule_data(enabled=True), format="json")
    assert saved.status_code == 200
    body = saved.json()
    assert (body["enabled"], body["approve_min_gold"], body["bonus_amount"], body["reject_message"]) == (
        True, 0.8, "0.50", REJECT_MESSAGE)
    assert api.get(url).json() == body
    updated_by = QualityRule.objects.get(campaign=campaign).updated_by
    assert updated_by is not None and updated_by.username == "alice"


def test_the_preview_says_what_would_happen_and_changes_nothing(api, crowd):
    campaign, people, work = crowd
    save_rule(campaign, rule_data())
    url = f"/api/campaigns/{campaign.pk}/review-rule/preview/"
    never = api.get(url).json()
    assert never["computed_at"] is None and "not been computed" in never["problems"][0]
    compute_quality(campaign)
    preview = api.get(url).json()
    assert (preview["approve"], preview["reject"], preview["bonus"], preview["left"], preview["cost"]) == (
        6, 2, 1, 4, "1.10")
    assert preview["problems"] == [] and preview["computed_at"]
    bonus = next(d for d in preview["decisions"] if d["action"] == "bonus")
    assert (bonus["worker"], bonus["amount"], bonus["assignment_id"]) == ("good1", "0.50", work["good1"][-1].pk)
    assert {d["worker"] for d in preview["leaves"]} == {"unsure", "newbie"}
    assert not QualityDecision.objects.exists()
    assert not campaign.hits.filter(assignments__status=AssignmentStatus.APPROVED).exists()


def test_apply_then_the_decisions_in_pages_with_constant_queries(api, crowd, researcher):
    campaign, _, work = crowd
    save_rule(campaign, rule_data())
    result = api.post(f"/api/campaigns/{campaign.pk}/review-rule/apply/").json()
    assert result == {"done": 9, "failed": {}, "skipped": 0}
    assert QualityDecision.objects.filter(source="api", decided_by=researcher).count() == 9
    url = f"/api/campaigns/{campaign.pk}/review-rule/decisions/"
    count, body = queries(api, "get", url)
    assert body["count"] == 9 and {r["action"] for r in body["results"]} == {"approve", "reject", "bonus"}
    rejection = next(r for r in body["results"] if r["action"] == "reject")
    assert rejection["evidence"]["why"] == ["gold accuracy 0.00 < 0.5"] and rejection["state"] == "done"
    # more decisions: the same queries
    more_work(campaign, 3)
    # the extras (gold 1, agreement 5/6 on HIT 1) are approved (2 answers each); the first ranks above good1 and
    # gets the top-10% bonus (ceil(0.1 x 5 workers) = 1)
    assert apply_rule(campaign, source="api").done == 7
    larger, body = queries(api, "get", url)
    assert body["count"] == 16 and larger == count


def test_apply_without_a_rule_is_refused(api, crowd):
    campaign, _, _ = crowd
    refused = api.post(f"/api/campaigns/{campaign.pk}/review-rule/apply/")
    assert (refused.status_code, refused.json()) == (400, {"detail": "This campaign has no review rule."})
    assert not campaign.hits.filter(assignments__status=AssignmentStatus.APPROVED).exists()


def test_a_workers_quality_in_every_campaign(api, crowd):
    campaign, people, _ = crowd
    other, _, _ = rule_crowd()
    compute_quality(campaign)
    compute_quality(other)
    url = f"/api/workers/{people['good1'].pk}/quality/"
    count, body = queries(api, "get", url)
    assert [row["campaign"] for row in body] == [other.pk, campaign.pk]  # newest campaign first
    assert body[0]["campaign_name"] == other.name and body[0]["gold_accuracy"] == 1.0
    third, _, _ = rule_crowd()
    compute_quality(third)
    larger, body = queries(api, "get", url)
    assert len(body) == 3 and larger == count
    assert api.get("/api/workers/999999/quality/").status_code == 404


def test_unknown_campaigns_and_anonymous_callers(client, api):
    assert api.get("/api/campaigns/99999999/quality/").status_code == 404
    assert api.get(f"/api/campaigns/{2**64}/review-rule/").status_code == 404
    assert client.get("/api/campaigns/1/quality/").status_code in (401, 403)

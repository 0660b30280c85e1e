"""The worker page: who, quality per campaign and per task kind (hand-computed), latest answers linking to their
review cards, block and unblock after a confirmation, constant queries."""
from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from mturk.models import Campaign, Worker, WorkerScore
from mturk.states import AssignmentStatus
from tests.mturk.quality.quality_fakes import answer, gold_hit, quality_campaign, real_hits, worker
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def page_of(client, who: Worker, query: str = "") -> str:
    response = client.get(f"/workers/{who.pk}/{query}")
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def rows(page: str, table: str) -> list[dict[str, str]]:
    """The rows of one table (by class) as {label: text}."""
    start = page.index(f'class="quality-table {table}"')
    body = page[start:page.index("</table>", start)]
    found = []
    for row in re.findall(r"<tr class=\"[\w-]+\">(.*?)</tr>", body, re.S):
        cells = re.findall(r'<td data-label="([^"]+)"[^>]*>(.*?)</td>', row, re.S)
        found.append({label: " ".join(re.sub(r"<[^>]+>", " ", text).split()) for label, text in cells})
    return found


def score(campaign: Campaign, who: Worker, **figures) -> WorkerScore:
    return WorkerScore.objects.create(campaign=campaign, worker=who, **figures)


def test_the_url_and_the_login(client, django_user_model):
    who = worker("w1")
    assert reverse("worker-page", args=[who.pk]) == f"/workers/{who.pk}/"
    assert reverse("worker-page-block", args=[who.pk]) == f"/workers/{who.pk}/block/"
    for url in (f"/workers/{who.pk}/", f"/workers/{who.pk}/block/?action=block&reason=x"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    response = client.post(f"/workers/{who.pk}/block/", {"action": "block", "reason": "spam"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(django_user_model.objects.create_user("bob", password="pw-123456"))  # not staff
    assert client.get(f"/workers/{who.pk}/").status_code == 302
    assert not Worker.objects.get(pk=who.pk).blocked


def test_an_unknown_worker_is_a_404(researcher_client):
    assert researcher_client.get("/workers/999999/").status_code == 404
    assert researcher_client.post("/workers/999999/block/", {"action": "block", "reason": "x"}).status_code == 404


def test_quality_per_campaign_and_totals_per_task_kind(researcher_client):
    who = worker("A1B2C3", provider="mturk")
    older = quality_campaign(images=1, name="Captions one")
    newer = quality_campaign(images=1, name="Captions two")
    score(older, who, items=10, compared_items=3, gold_items=2, gold_accuracy=1.0, agreement=0.5, skill=0.9,
          median_seconds=42.4, approved=9, rejected=1, pay=Decimal("0.90"))
    score(newer, who, items=4, compared_items=1, gold_items=1, gold_accuracy=0.4, agreement=0.9,
          median_seconds=None, approved=2, rejected=0, pay=Decimal("0.35"))
    page = page_of(researcher_client, who)
    assert "<h1>Worker A1B2C3</h1>" in page
    assert "<dt>Provider</dt><dd>MTurk</dd>" in page and "<dd id=\"worker-status\">Not blocked</dd>" in page
    campaigns = rows(page, "worker-scores")
    assert campaigns == [  # newest campaign first
        {"Campaign": "Captions two review their answers · all workers", "Task kind": "Describe an image", "Items": "4",
         "Gold items": "1", "Gold accuracy": "0.40", "Agreement": "0.90", "Skill": "–", "Median time": "–",
         "Approved": "2", "Rejected": "0", "Pay": "0.35"},
        {"Campaign": "Captions one review their answers · all workers", "Task kind": "Describe an image", "Items": "10",
         "Gold items": "2", "Gold accuracy": "1.00", "Agreement": "0.50", "Skill": "0.90", "Median time": "42 s",
         "Approved": "9", "Rejected": "1", "Pay": "0.90"},
    ]
    assert f'<a href="/campaigns/{newer.pk}/review/?worker={who.pk}">review their answers</a>' in page
    assert f'<a href="/campaigns/{newer.pk}/quality/">all workers</a>' in page
    # gold accuracy weighted by gold items: (2 * 1.0 + 1 * 0.4) / 3 = 0.80;
    # agreement by compared items: (3 * 0.5 + 1 * 0.9) / 4 = 0.60
    assert rows(page, "kind-totals") == [
        {"Task kind": "Describe an image", "Campaigns": "2", "Items": "14", "Gold items": "3",
         "Gold accuracy": "0.80", "Agreement": "0.60", "Approved": "11", "Rejected": "1", "Pay": "1.25"}]


def test_totals_of_several_kinds_and_missing_figures(researcher_client):
    from tests.mturk.review_builders import stories_campaign

    who = worker("w9")
    captions = quality_campaign(images=1, name="captions")
    stories = stories_campaign(1, name="stories")
    score(captions, who, items=3, gold_items=0, gold_accuracy=None, agreement=None, pay=Decimal("0.30"))
    score(stories, who, items=1, compared_items=0, agreement=0.25, pay=Decimal("1.00"))
    totals = {row["Task kind"]: row for row in rows(page_of(researcher_client, who), "kind-totals")}
    assert totals["Describe an image"]["Gold accuracy"] == "–" and totals["Describe an image"]["Agreement"] == "–"
    story = totals["Tell a story about an album"]
    assert (story["Agreement"], story["Items"], story["Pay"]) == ("0.25", "1", "1.00")  # nothing compared: weight 1


def test_no_quality_yet(researcher_client):
    page = page_of(researcher_client, worker("new"))
    assert "No quality measured for this worker yet" in page and "No submitted answer yet." in page


def test_latest_answers_link_to_their_review_cards(researcher_client):
    who = worker("w1")
    campaign = quality_campaign(images=2, name="bikes")
    first, second = real_hits(campaign)
    approved = answer(first, who, "A bike.", status=AssignmentStatus.APPROVED)
    on_gold = answer(gold_hit(campaign), who, "known", gold_score=1.0)
    answer(second, who, "", status=AssignmentStatus.ACCEPTED)  # not submitted: not an answer
    answer(second, worker("w2"), "someone else's")
    page = page_of(researcher_client, who)
    shown = rows(page, "worker-answers")
    assert [row["Review"] for row in shown] == [f"Assignment {on_gold.pk}", f"Assignment {approved.pk}"]
    assert shown[0]["Status"] == "Submitted · gold" and shown[0]["Gold score"] == "1.00"
    assert (shown[1]["Answer"], shown[1]["Campaign"], shown[1]["Status"]) == (
        "A bike.", "bikes · Describe an image", "Approved")
    link = f"/campaigns/{campaign.pk}/review/?assignment={approved.pk}#assignment-{approved.pk}"
    assert f'<a href="{link}">Assignment {approved.pk}</a>' in page
    card = researcher_client.get(link.split("#")[0]).content.decode()
    assert re.findall(r'id="assignment-(\d+)"', card) == [str(approved.pk)]
    assert "<dd>2 submitted</dd>" in page


def test_answers_are_paged(researcher_client):
    who = worker("busy")
    campaign = quality_campaign(images=25, assignments=1)
    for hit in real_hits(campaign):
        answer(hit, who, "x")
    first = page_of(researcher_client, who)
    assert len(rows(first, "worker-answers")) == 20 and '<a href="?page=2" rel="next">older answers</a>' in first
    assert len(rows(page_of(researcher_client, who, "?page=2"), "worker-answers")) == 5


def test_queries_do_not_grow_with_campaigns_or_answers(researcher_client):
    def worker_in(campaigns: int, name: str) -> Worker:
        who = worker(name)
        for n in range(campaigns):
            campaign = quality_campaign(images=1, name=f"{name}-{n}")
            answer(gold_hit(campaign), who, "known", gold_score=0.5)
            answer(real_hits(campaign)[0], who, "A bike.", status=AssignmentStatus.APPROVED)
            score(campaign, who, items=1, gold_items=1, gold_accuracy=0.5, pay=Decimal("0.10"))
        return who

    one, ten = worker_in(1, "one"), worker_in(10, "ten")
    few = queries_for(researcher_client, f"/workers/{one.pk}/")
    many = queries_for(researcher_client, f"/workers/{ten.pk}/")
    assert few == many <= 6  # session, user, worker, scores with campaigns, answers counted, a page of answers
    assert len(rows(page_of(researcher_client, ten), "worker-scores")) == 10


def test_blocking_asks_first_then_blocks_with_the_reason(researcher_client):
    who = worker("w1")
    step = researcher_client.get(f"/workers/{who.pk}/block/", {"action": "block", "reason": "Copied answers"})
    text = html.unescape(step.content.decode())
    assert step.status_code == 200 and 'id="confirm-action"' in text
    assert "Block worker w1?" in text and "<dt>Reason</dt><dd>Copied answers</dd>" in text
    assert '<input type="hidden" name="reason" value="Copied answers">' in text
    assert f'<form method="post" action="/workers/{who.pk}/block/">' in text and "Block worker w1</button>" in text
    assert not Worker.objects.get(pk=who.pk).blocked  # asking changes nothing
    response = researcher_client.post(f"/workers/{who.pk}/block/", {"action": "block", "reason": "Copied answers"},
                                      follow=True)
    assert response.redirect_chain == [(f"/workers/{who.pk}/", 302)]
    who.refresh_from_db()
    assert (who.blocked, who.block_reason) == (True, "Copied answers")
    page = html.unescape(response.content.decode())
    assert "Worker w1 blocked." in page
    assert '<dd id="worker-status"><span class="blocked">Blocked</span>: Copied answers</dd>' in page
    assert "Unblock worker w1</button>" in page


def test_blocking_needs_a_reason(researcher_client):
    who = worker("w1")
    step = html.unescape(researcher_client.get(f"/workers/{who.pk}/block/", {"action": "block", "reason": " "})
                         .content.decode())
    assert "Not possible now: blocking needs a reason." in step and "data-confirm-submit" not in step
    response = researcher_client.post(f"/workers/{who.pk}/block/", {"action": "block", "reason": "  "}, follow=True)
    assert "Worker w1 unchanged: Blocking a worker needs a reason." in html.unescape(response.content.decode())
    assert not Worker.objects.get(pk=who.pk).blocked


def test_unblocking(researcher_client):
    who = Worker.objects.create(provider="local", external_id="w1", blocked=True, block_reason="spam")
    step = html.unescape(researcher_client.get(f"/workers/{who.pk}/block/", {"action": "unblock"}).content.decode())
    assert "Unblock worker w1?" in step and "can take your tasks on the local crowd again" in step
    response = researcher_client.post(f"/workers/{who.pk}/block/", {"action": "unblock"}, follow=True)
    who.refresh_from_db()
    assert (who.blocked, who.block_reason) == (False, "")
    assert "Worker w1 unblocked." in html.unescape(response.content.decode())


def test_the_block_form_goes_through_the_confirmation(researcher_client):
    who = worker("w1")
    page = page_of(researcher_client, who)
    assert f'<form method="get" action="/workers/{who.pk}/block/" class="worker-block" data-confirm>' in page
    assert '<label for="block-reason">Reason for blocking worker w1</label>' in page
    assert 'src="/static/js/confirm.js"' in page

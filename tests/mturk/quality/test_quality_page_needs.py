"""The quality page when figures are missing: what would produce each one (overlap, gold from approved answers) with
the button that does it (a confirmation step for the one that spends money, POST with CSRF), the figures once two
workers answered the same pilot items (the careless worker named), and a constant number of queries."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from mturk.models import GoldItem
from mturk.quality.services.computation import compute_quality
from mturk.states import AssignmentStatus
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import make_campaign
from tests.mturk.quality.quality_fakes import (  # noqa: F401 (text_quality is a fixture)
    answer,
    real_hits,
    text_quality,
    worker,
)
from tests.mturk.quality.test_quality_page import page_of, section, text, url
from tests.queries import queries_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


def test_without_overlap_or_gold_each_missing_figure_says_what_would_produce_it(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    answer(real_hits(campaign)[0], worker("a"), "a cat")
    page = page_of(researcher_client, campaign)
    needs = section(page, "needs")
    assert "What the missing figures need" in needs
    assert "Agreement: –. Needs overlap: every item goes to one worker" in text(needs)
    assert "Give the first 10 items to 3 workers each (a pilot)" in text(needs)
    # the overlap button: a labelled GET form opening the confirmation step (it spends money)
    form = re.search(r'<form method="get" action="([^"]+)" class="need-action" data-confirm>(.*?)</form>', needs, re.S)
    assert form and form.group(1) == url(campaign, "campaign-quality-overlap")
    assert '<label for="overlap-items">' in form.group(2) and '<label for="overlap-workers">' in form.group(2)
    # no approved answer yet: no gold button, a way to the review
    assert "Gold accuracy: –. Needs gold" in text(needs) and "approve some in the review" in text(needs)
    assert url(campaign, "campaign-quality-gold") not in needs
    # near the figures: the items table and the summary point to the explanation
    assert 'href="#need-agreement"' in section(page, "items")
    assert 'href="#need-gold"' in section(page, "summary")


def test_an_approved_answer_offers_the_gold_button_which_makes_gold(researcher_client):
    campaign = make_campaign(images=2, assignments=1)
    answer(real_hits(campaign)[0], worker("a"), "a cat", status=AssignmentStatus.APPROVED)
    needs = section(page_of(researcher_client, campaign), "needs")
    assert "Make gold from approved answers (1 item(s) have one)" in text(needs)
    form = re.search(r'<form method="post" action="([^"]+)" class="need-action">(.*?)</form>', needs, re.S)
    assert form and form.group(1) == url(campaign, "campaign-quality-gold")
    assert "csrfmiddlewaretoken" in form.group(2) and ">Make gold from approved answers</button>" in form.group(2)
    response = researcher_client.post(url(campaign, "campaign-quality-gold"), follow=True)
    assert "1 gold item(s) of describe_image made from approved answers" in text(response.content.decode())
    assert GoldItem.objects.get().answer == {"text": "a cat"}
    # nothing left to make gold from
    response = researcher_client.post(url(campaign, "campaign-quality-gold"), follow=True)
    assert "No gold made:" in text(response.content.decode()) and GoldItem.objects.count() == 1


def test_the_overlap_button_confirms_the_cost_then_gives_the_items_to_more_workers(researcher_client, researcher):
    campaign = make_campaign(images=3, assignments=1)
    step = researcher_client.get(url(campaign, "campaign-quality-overlap", "?first=2&workers=3"))
    assert step.status_code == 200
    body = text(step.content.decode())
    assert "Give the first 2 item(s) of campaign" in body and "Extra cost with fees $0.40" in body
    assert 'id="confirm-action"' in step.content.decode() and "Give 2 item(s) to 3 workers for $0.40" in body
    assert [h.max_assignments for h in real_hits(campaign)] == [1, 1, 1]  # the step changes nothing
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(researcher)
    assert strict.post(url(campaign, "campaign-quality-overlap"), {"first": "2", "workers": "3"}).status_code == 403
    response = researcher_client.post(url(campaign, "campaign-quality-overlap"), {"first": "2", "workers": "3"},
                                      follow=True)
    assert "The first 2 item(s) now go to 3 workers each (4 assignment(s) added)" in text(response.content.decode())
    assert [(h.max_assignments, h.pilot) for h in real_hits(campaign)] == [(3, True), (3, True), (1, False)]
    # now the page waits for a second answer instead of offering overlap
    needs = text(section(response.content.decode(), "needs"))
    assert "3 HIT(s) take several workers (2 pilot HIT(s), handed out first)" not in needs
    assert "2 HIT(s) take several workers (2 pilot HIT(s), handed out first)" in needs
    assert "Pilot: 2 HIT(s) go to 3 workers each" in needs


def _work(campaign, texts: dict[str, list[str]]) -> None:
    """Each named local worker takes their next HITs in turn and submits the given texts."""
    for name, answers in texts.items():
        member = new_local_worker()
        member.external_id = name
        member.save(update_fields=["external_id"])
        for body in answers:
            assignment = assign_next_hit(campaign, member)
            submit_answer(assignment_id=assignment.pk, worker_external_id=name, answer={"text": body})


def test_after_two_workers_answered_the_pilot_the_figures_show_and_the_careless_worker_stands_out(
        researcher_client):
    campaign = make_campaign(images=6, assignments=1, pilot_items=2, pilot_assignments=3)
    cat, dog = "A small grey cat sleeps on a red sofa by the window.", "A brown dog runs along the wet sand of a beach."
    junk = ["Good good good good good good good good good good.", "Nice picture nice picture nice picture nice one."]
    _work(campaign, {"careful-1": [cat, dog], "careful-2": [cat, dog], "junk": junk})
    page = page_of(researcher_client, campaign)
    assert "compute quality to see agreement" in text(section(page, "needs"))
    compute_quality(campaign)
    page = page_of(researcher_client, campaign)
    needs = text(section(page, "needs"))
    assert "Agreement: –" not in needs and "Agreement: 2 item(s) have answers from two or more workers." in needs
    assert "Lowest: junk at 0.00 (workers' mean 0.33): review their answers" in needs
    workers = text(section(page, "workers"))
    assert "careful-1 2 2 0 – 0.50" in workers and "junk 2 2 0 – 0.00" in workers
    campaign_page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert "the first 2 item(s) go to 3 workers each and are handed out first" in text(campaign_page)


def _needing(size: int):
    """A campaign of `size` items each answered once and approved: both figures missing, gold offered."""
    campaign = make_campaign(images=size, assignments=1, name=f"needing {size}")
    for i, hit in enumerate(real_hits(campaign)):
        answer(hit, worker(f"n{size}-{i}"), "text", status=AssignmentStatus.APPROVED)
    compute_quality(campaign)
    return campaign


def test_the_page_makes_the_same_queries_for_2_and_20_items_with_figures_missing(researcher_client):
    small, large = _needing(2), _needing(20)
    assert "Make gold from approved answers (20 item(s) have one)" in text(page_of(researcher_client, large))
    counts = [queries_for(researcher_client, url(campaign)) for campaign in (small, large)]
    assert counts[0] == counts[1], counts

"""The review page of the story kinds of a simulated workflow: strips in story order, ratings with every aspect."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from mturk.models import Assignment
from storyboard.models import Photo, Storylet
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from storyboard.task_kinds.rate_story import ASPECTS, QUESTION
from tests.factories import make_album
from tests.mturk.review_builders import card_html

pytestmark = pytest.mark.django_db


@pytest.fixture
def stages():
    campaigns = create_story_workflow("Stories", [make_album(6)], ratings=True, publish=True, is_simulated=True)
    rate = campaigns["rate"]
    rate.options = {**rate.options, "aspects": True}  # the judges also rate the six aspects
    rate.save(update_fields=["options"])
    run_story_workflow(campaigns, seed=3)
    return campaigns


def shown_photos(html: str) -> list[str]:
    return re.findall(r'alt="Photo \d+: ([^"]+)"', html)


def captions(html: str) -> list[str]:
    return [" ".join(t.split()) for t in re.findall(r'<span class="position">\d+</span>(.*?)</figcaption>', html, re.S)]


def titles(photo_ids) -> list[str]:
    by_id = dict(Photo.objects.filter(pk__in=photo_ids).values_list("pk", "title"))
    return [by_id[pk] for pk in photo_ids]


def test_retell_and_describe_sequence_show_the_strip_in_story_order(researcher_client, stages):
    for stage in ("retell", "dis"):
        campaign = stages[stage]
        page = researcher_client.get(reverse("campaign-review", args=[campaign.pk])).content.decode()
        assignments = list(Assignment.objects.filter(hit__campaign=campaign, answer__isnull=False))
        assert assignments, stage
        for assignment in assignments:
            html = card_html(page, assignment.pk)
            story = assignment.answer["sequence"] if stage == "retell" else assignment.hit.items["sequence"]
            order = list(Storylet.objects.filter(story_id=story).order_by("order").values_list("photo_id", flat=True))
            assert shown_photos(html) == titles(order), stage
            assert captions(html) == assignment.answer["texts"], stage


def test_rate_story_shows_the_story_and_every_aspect(researcher_client, stages):
    campaign = stages["rate"]
    page = researcher_client.get(reverse("campaign-review", args=[campaign.pk])).content.decode()
    rated = Assignment.objects.filter(hit__campaign=campaign, answer__isnull=False).first()
    html = card_html(page, rated.pk)
    assert len(shown_photos(html)) == len(captions(html)) > 0
    ratings = re.findall(r"<dt>(.*?)</dt><dd>.*?<strong>(\d)</strong> / 5</dd>", html, re.S)
    expected = [(QUESTION, str(rated.answer["rating"]))]
    expected += [(text, str(rated.answer["aspects"][name])) for name, text in ASPECTS.items()
                 if name in rated.answer.get("aspects", {})]
    assert [(statement.replace("&#x27;", "'"), value) for statement, value in ratings] == expected
    assert len(expected) == 1 + len(ASPECTS)


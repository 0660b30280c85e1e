"""A worker cannot tell a gold HIT from a real one: for a gold HIT and a real HIT showing the same image, the
start, the task page and the submission's answer differ only in the assignment id and the signed tokens; the
word "gold" is nowhere on the page; gold HITs' ids and positions interleave with the real ones'."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from mturk.models import Assignment, Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from tests.factories import make_image
from tests.worker_flow import campaign_link, press_start, submit, token_of

from . import gold_kind
from .gold_kind import GOOD, campaign_ids, gold_item

pytestmark = pytest.mark.django_db
required_words = gold_kind.required_words  # fixture


def normalised(text: str, assignment: Assignment, tokens: list[str]) -> str:
    """The text with this worker's tokens, assignment id and running clock replaced by placeholders."""
    for n, token in enumerate(tokens):
        text = text.replace(token, f"<token {n}>")
    text = re.sub(r'data-identity="[^"]+"', 'data-identity="<this worker>"', text)  # per worker, not per HIT
    text = re.sub(r'data-seconds-left="\d+"', 'data-seconds-left="<s>"', text)
    text = re.sub(r'id="time-left"([^>]*)>[\d:]+<', r'id="time-left"\1><clock><', text)
    text = text.replace(f'data-draft-key="draft:{assignment.hit.campaign_id}:a{assignment.pk}"',
                        'data-draft-key="draft:<campaign>:a<assignment>"')
    return text.replace(f'"assignment": {assignment.pk},', '"assignment": <assignment>,')


def work(campaign: Campaign) -> tuple[Assignment, str, str]:
    """A new worker starts a task: their assignment, the normalised task page and the normalised answer."""
    client = Client()
    start = client.get(campaign_link(campaign))
    assert start.status_code == 200
    started = press_start(client, campaign)
    token = token_of(started)
    assignment = Assignment.objects.select_related("hit").latest("pk")
    page = client.get(f"/task/?t={token}")
    assert page.status_code == 200
    response = submit(client, {"token": token, "answer": {"text": GOOD}})
    assert response.status_code == 201
    body = response.json()
    found = re.search(r"w=([^\"&]+)", body["next_url"])
    assert found is not None
    worker_link = found.group(1)
    tokens = [token, worker_link]
    html = page.content.decode()
    return assignment, normalised(html, assignment, tokens), normalised(
        json.dumps(body, sort_keys=True) + started["Location"], assignment, tokens)


def test_a_gold_hit_and_a_real_hit_of_the_same_image_look_the_same(required_words):
    image = make_image()
    known = gold_item(("dog", "beach"), image=image.pk)
    campaign = create_campaign(name="twins", task_kind="describe_image", assignments_per_hit=1, gold_rate=0.5,
                               items=[{"image": image.pk}])
    publish_campaign(campaign)
    first, first_page, first_answer = work(campaign)
    second, second_page, second_answer = work(campaign)
    assert {first.hit.gold_item_id, second.hit.gold_item_id} == {None, known.pk}  # one of each
    assert first.hit.items == second.hit.items == {"image": image.pk}
    assert first_page == second_page
    assert first_answer == second_answer
    assert "a<assignment>" in first_page and "<token 0>" in first_page  # what differed was normalised
    for page in (first_page, second_page):
        assert "gold" not in page.lower()
    gold_answer = Assignment.objects.get(hit__gold_item=known)
    assert gold_answer.gold_score == 1.0  # scored on the server only


def test_gold_ids_and_positions_interleave_with_the_real_ones(required_words):
    gold_item(("dog",))
    gold_item(("cat",))
    campaign = create_campaign(name="interleaved", task_kind="describe_image", gold_rate=0.2,
                               items=[{"image": make_image().pk} for _ in range(20)])
    rows = campaign_ids(campaign)
    assert len(rows) == 25 and [position for _, position, _ in rows] == list(range(1, 26))
    assert [pk for pk, _, _ in rows] == sorted(pk for pk, _, _ in rows)
    gold_positions = [position for _, position, gold in rows if gold is not None]
    real_positions = [position for _, position, gold in rows if gold is None]
    assert len(gold_positions) == 5
    assert min(real_positions) < max(gold_positions) and min(gold_positions) < max(real_positions)

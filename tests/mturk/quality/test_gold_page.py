"""The gold page (items per kind, use and mean score, filters, the active toggle, formats), the review's
"Use as gold" action and what a review card shows of gold and agreement."""
from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from mturk.models import HIT, Assignment, GoldItem
from mturk.states import AssignmentStatus, HITStatus
from tests.mturk.quality.quality_fakes import (
    answer,
    gold_hit,
    quality_campaign,
    real_hits,
    text_quality,  # noqa: F401 (fixture)
    worker,
)
from tests.mturk.review_builders import card_html
from tests.queries import queries_for

pytestmark = pytest.mark.django_db
APPROVED, SUBMITTED = AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED
GOLD_URL = "/gold/"


def text_of(response) -> str:
    return html.unescape(response.content.decode())


def row_html(page: str, item: GoldItem | None) -> str:
    assert item is not None
    start = page.index(f'<tr id="gold-{item.pk}"')
    return page[start:page.index("</tr>", start)]


def cells(row: str) -> dict[str, str]:
    """The row's cells by their label, as text (tags dropped, spaces collapsed)."""
    found = re.findall(r'<td data-label="([^"]+)"[^>]*>(.*?)</td>', row, re.S)
    return {label: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for label, body in found}


def test_the_urls_are_where_the_console_expects_them():
    assert reverse("gold-page") == GOLD_URL
    assert reverse("gold-active", args=[3]) == "/gold/3/active/"
    assert reverse("gold-from-assignment", args=[4]) == "/gold/from-assignment/4/"


def test_everything_needs_a_staff_login(client, django_user_model):
    item = GoldItem.objects.create(task_kind="describe_image", items={"image": 1}, answer={"text": "a"})
    targets = [("get", GOLD_URL), ("post", f"/gold/{item.pk}/active/"), ("post", "/gold/from-assignment/1/")]
    for method, url in targets:
        response = getattr(client, method)(url, {"active": "0"} if method == "post" else None)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    client.force_login(django_user_model.objects.create_user("bob", password="pw-123456"))  # not staff
    for method, url in targets:
        assert getattr(client, method)(url).status_code == 302, url
    assert GoldItem.objects.get().active


def test_the_actions_take_a_post_only(researcher_client):
    item = GoldItem.objects.create(task_kind="describe_image", items={"image": 1}, answer={"text": "a"})
    assert researcher_client.get(f"/gold/{item.pk}/active/").status_code == 405
    assert researcher_client.get("/gold/from-assignment/1/").status_code == 405
    assert researcher_client.post("/gold/999999/active/", {"active": "0"}).status_code == 404
    assert researcher_client.post("/gold/from-assignment/999999/").status_code == 404


@pytest.mark.usefixtures("text_quality")
def test_each_item_shows_its_use_and_mean_score(researcher_client):
    campaign = quality_campaign(images=1)
    used = gold_hit(campaign, "A red kite.")
    second = HIT.objects.create(campaign=campaign, position=2000, items=used.items, gold_item=used.gold_item,
                                max_assignments=3, status=HITStatus.PUBLISHED)
    answer(used, worker("w1"), "A red kite.", gold_score=1.0)
    answer(used, worker("w2"), "A kite.", gold_score=0.5)
    answer(second, worker("w3"), "A dog.", gold_score=0.0)
    answer(second, worker("w4"), "not scored yet")  # no gold score: not counted
    unused = GoldItem.objects.create(task_kind="describe_image", purpose="onboarding", items={"image": 1},
                                     answer={"text": "Two cats."}, note="checked by hand", active=False)
    page = text_of(researcher_client.get(GOLD_URL))
    assert "2 item(s)" in page
    # 3 scored answers: (1.0 + 0.5 + 0.0) / 3 = 0.50
    assert cells(row_html(page, used.gold_item)) | {"Active": ""} == {
        "Item": f"Gold item {used.gold_item_id}", "Task kind": "Describe an image describe_image", "Purpose": "gold",
        "Known answer": f'A red kite. Items of item {used.gold_item_id} {{"image":{used.items["image"]}}}',
        "Note": "–", "HITs": "2", "Answers scored": "3", "Mean score": "0.50", "Active": ""}
    row = cells(row_html(page, unused))
    assert (row["Purpose"], row["Note"], row["HITs"], row["Answers scored"], row["Mean score"]) == (
        "onboarding", "checked by hand", "0", "0", "–")
    assert row["Known answer"].startswith("Two cats.")
    assert "Active Deactivate" in cells(row_html(page, used.gold_item))["Active"]
    assert "Inactive Activate" in row["Active"]


def test_a_known_answer_the_kind_cannot_summarise_is_shown_as_json(researcher_client):
    item = GoldItem.objects.create(task_kind="rate_story", items={"story": 5}, answer={"aspects": {"focus": 3}})
    row = cells(row_html(text_of(researcher_client.get(GOLD_URL)), item))
    assert row["Known answer"].startswith('{"aspects":{"focus":3}}')  # rate_story's summary reads "rating"


def test_filters_by_kind_purpose_activity_and_item(researcher_client):
    boxes = GoldItem.objects.create(task_kind="draw_boxes", items={"image": 1}, answer={"boxes": []})
    text = GoldItem.objects.create(task_kind="describe_image", items={"image": 1}, answer={"text": "a"})
    onboarding = GoldItem.objects.create(task_kind="describe_image", purpose="onboarding", items={"image": 2},
                                         answer={"text": "b"}, active=False)

    def shown(query: str) -> list[int]:
        page = researcher_client.get(GOLD_URL + query).content.decode()
        return [int(pk) for pk in re.findall(r'<tr id="gold-(\d+)"', page)]

    assert shown("") == [text.pk, onboarding.pk, boxes.pk]  # by kind, then id
    assert shown("?kind=describe_image") == [text.pk, onboarding.pk]
    assert shown("?purpose=onboarding") == [onboarding.pk]
    assert shown("?active=yes") == [text.pk, boxes.pk]
    assert shown("?active=no&kind=describe_image") == [onboarding.pk]
    assert shown(f"?item={boxes.pk}") == [boxes.pk]
    assert shown("?kind=nonsense&purpose=x&active=maybe&item=-3") == [text.pk, onboarding.pk, boxes.pk]


def test_pages_keep_the_filters(researcher_client):
    for n in range(27):
        GoldItem.objects.create(task_kind="describe_image", items={"image": n}, answer={"text": str(n)})
    page = researcher_client.get(GOLD_URL + "?kind=describe_image&active=yes").content.decode()
    assert page.count('class="gold-row') == 25
    assert 'href="?kind=describe_image&amp;active=yes&amp;page=2" rel="next"' in page
    second = researcher_client.get(GOLD_URL + "?kind=describe_image&active=yes&page=2").content.decode()
    assert second.count('class="gold-row') == 2 and "page 2 of 2" in second


@pytest.mark.usefixtures("text_quality")
def test_queries_do_not_grow_with_the_items(researcher_client):
    campaign = quality_campaign(images=1)
    hit = gold_hit(campaign)
    answer(hit, worker("w1"), "known", gold_score=1.0)
    few = queries_for(researcher_client, GOLD_URL)
    for n in range(20):
        extra = gold_hit(campaign, f"known {n}")
        answer(extra, worker(f"x{n}"), "known", gold_score=0.0)
    many = queries_for(researcher_client, GOLD_URL)
    assert few == many <= 5  # session, user, count, the page's rows with their figures


@pytest.mark.usefixtures("text_quality")
def test_the_formats_and_the_way_to_import(researcher_client):
    page = text_of(researcher_client.get(GOLD_URL))
    section = page[page.index('id="gold-formats"'):]
    assert '<dt id="format-describe_image">describe_image' in section
    assert '<pre>{"text": "..."}</pre>Scored: 1 when the text is the known text, else 0' in section
    assert re.search(r'<a href="/imports/(#import-[\w-]+-title)?">Import gold items \(JSON Lines\)', page)
    assert '<a href="/gold/">Gold</a>' in page  # the console's menu


def test_the_active_toggle(researcher_client):
    item = GoldItem.objects.create(task_kind="describe_image", items={"image": 1}, answer={"text": "a"})
    url = f"/gold/{item.pk}/active/"
    response = researcher_client.post(url, {"active": "0", "next": "/gold/?kind=describe_image"})
    assert response.status_code == 302 and response["Location"] == "/gold/?kind=describe_image"
    item.refresh_from_db()
    assert not item.active
    page = text_of(researcher_client.get(GOLD_URL))
    assert f"Gold item {item.pk} is inactive: no longer mixed into new campaigns." in page
    response = researcher_client.post(url, {"active": "1", "next": "https://elsewhere.example/"})
    assert response["Location"] == GOLD_URL  # another site is never a way back
    item.refresh_from_db()
    assert item.active


def test_a_toggle_without_a_clear_value_changes_nothing(researcher_client):
    item = GoldItem.objects.create(task_kind="describe_image", items={"image": 1}, answer={"text": "a"})
    response = researcher_client.post(f"/gold/{item.pk}/active/", {"active": "off"}, follow=True)
    assert f"Gold item {item.pk}: say active=1 or active=0." in text_of(response)
    item.refresh_from_db()
    assert item.active


def approved_answer(text_quality_campaign) -> Assignment:
    [hit] = real_hits(text_quality_campaign)
    return answer(hit, worker("good"), "A man rides a bike.", status=APPROVED)


@pytest.mark.usefixtures("text_quality")
def test_use_as_gold_makes_a_gold_item_from_an_approved_answer(researcher_client):
    campaign = quality_campaign(images=1)
    assignment = approved_answer(campaign)
    review = f"/campaigns/{campaign.pk}/review/?status=approved"
    response = researcher_client.post(f"/gold/from-assignment/{assignment.pk}/",
                                      {"purpose": "gold", "next": review}, follow=True)
    assert response.redirect_chain == [(review, 302)]
    item = GoldItem.objects.get()
    assert (item.task_kind, item.purpose, item.items, item.answer, item.source_assignment_id) == (
        "describe_image", "gold", assignment.hit.items, {"text": "A man rides a bike."}, assignment.pk)
    page = text_of(response)
    assert f"The answer of assignment {assignment.pk} is now gold item {item.pk} (describe_image)." in page
    # the card now names the item instead of offering the buttons again
    card = card_html(page, assignment.pk)
    assert f'This answer is <a href="/gold/?item={item.pk}">gold item {item.pk}</a>.' in card
    assert "Use as gold" not in card
    again = researcher_client.post(f"/gold/from-assignment/{assignment.pk}/", {"purpose": "gold"}, follow=True)
    assert f"The answer of assignment {assignment.pk} already was gold item {item.pk}" in text_of(again)
    assert GoldItem.objects.count() == 1
    assert again.redirect_chain[0][0] == f"/campaigns/{campaign.pk}/review/?assignment={assignment.pk}"


@pytest.mark.usefixtures("text_quality")
def test_use_for_onboarding(researcher_client):
    assignment = approved_answer(quality_campaign(images=1))
    researcher_client.post(f"/gold/from-assignment/{assignment.pk}/", {"purpose": "onboarding"})
    assert GoldItem.objects.get().purpose == "onboarding"


@pytest.mark.usefixtures("text_quality")
def test_use_as_gold_refusals_are_said_and_store_nothing(researcher_client):
    campaign = quality_campaign(images=1)
    [hit] = real_hits(campaign)
    waiting = answer(hit, worker("w1"), "A bike.", status=SUBMITTED)
    on_gold = answer(gold_hit(campaign), worker("w2"), "known", status=APPROVED, gold_score=1.0)
    approved = answer(hit, worker("w3"), "A bike.", status=APPROVED)
    cases = [
        (waiting, "gold", f"Assignment {waiting.pk} was not made a gold item: assignment {waiting.pk} is submitted: "
                          "only approved answers can become gold"),
        (on_gold, "gold", f"Assignment {on_gold.pk} was not made a gold item: assignment {on_gold.pk} answers a "
                          f"gold HIT: its known answer is already gold item {on_gold.hit.gold_item_id}"),
        (approved, "bonus", f"Assignment {approved.pk}: the purpose is gold or onboarding, not 'bonus'."),
    ]
    before = GoldItem.objects.count()
    for assignment, purpose, message in cases:
        response = researcher_client.post(f"/gold/from-assignment/{assignment.pk}/", {"purpose": purpose},
                                          follow=True)
        assert message in text_of(response)
    assert GoldItem.objects.count() == before


def test_a_kind_without_gold_scoring_is_refused(researcher_client, monkeypatch):
    from mturk.measures import _QUALITY

    monkeypatch.delitem(_QUALITY._items, "describe_image", raising=False)
    [hit] = real_hits(quality_campaign(images=1))
    assignment = answer(hit, worker("a1"), "A bike.", status=APPROVED)
    response = researcher_client.post(f"/gold/from-assignment/{assignment.pk}/", {"purpose": "gold"}, follow=True)
    assert (f"Assignment {assignment.pk} was not made a gold item: task kind 'describe_image' has no gold scoring"
            in text_of(response))
    assert not GoldItem.objects.exists()


@pytest.mark.usefixtures("text_quality")
def test_the_review_card_shows_gold_agreement_and_use_as_gold(researcher_client):
    campaign = quality_campaign(images=1)
    [hit] = real_hits(campaign)
    gold = gold_hit(campaign)
    scored = answer(gold, worker("g1"), "known?", gold_score=0.5)
    unscored = answer(gold_hit(campaign, onboarding=True), worker("g2"), "known")
    approved = answer(hit, worker("a1"), "A bike.", status=APPROVED)
    Assignment.objects.filter(pk=approved.pk).update(agreement=2 / 3)
    waiting = answer(hit, worker("a2"), "A bike.")
    page = researcher_client.get(f"/campaigns/{campaign.pk}/review/").content.decode()
    card = card_html(page, scored.pk)
    assert (f'<span class="flag gold-mark">gold</span> <a href="/gold/?item={gold.gold_item_id}">item '
            f"{gold.gold_item_id}</a>: gold score <strong>0.50</strong>") in card
    assert "Use as gold" not in card
    assert "onboarding</span>" in card_html(page, unscored.pk) and "not scored yet" in card_html(page, unscored.pk)
    mine = card_html(page, approved.pk)
    assert "agreement with the other answers <strong>0.67</strong>" in mine and "gold-mark" not in mine
    assert f'action="/gold/from-assignment/{approved.pk}/"' in mine and ">Use as gold</button>" in mine
    assert "Use as gold" not in card_html(page, waiting.pk) and "agreement" not in card_html(page, waiting.pk)
    assert f'<a href="/workers/{approved.worker_id}/">Worker a1</a>' in mine


def test_no_use_as_gold_for_a_kind_without_gold_scoring(researcher_client, monkeypatch):
    from mturk.measures import _QUALITY

    monkeypatch.delitem(_QUALITY._items, "describe_image", raising=False)
    campaign = quality_campaign(images=1)
    [hit] = real_hits(campaign)
    approved = answer(hit, worker("a1"), "A bike.", status=APPROVED)
    page = researcher_client.get(f"/campaigns/{campaign.pk}/review/").content.decode()
    assert "Use as gold" not in card_html(page, approved.pk)


@pytest.mark.usefixtures("text_quality")
def test_review_queries_do_not_grow_with_approved_answers(researcher_client):
    """Approved answers of a kind with gold scoring add one constant query: the gold items made from them."""
    def campaign_with(answers: int, name: str):
        campaign = quality_campaign(images=answers, name=name, assignments=1)
        for n, hit in enumerate(real_hits(campaign)):
            answer(hit, worker(f"{name}{n}"), "A bike.", status=APPROVED)
        return campaign

    few, many = campaign_with(1, "few"), campaign_with(10, "many")
    assert queries_for(researcher_client, f"/campaigns/{few.pk}/review/") == queries_for(
        researcher_client, f"/campaigns/{many.pk}/review/")


@pytest.mark.usefixtures("text_quality")
def test_the_review_shows_one_worker_or_one_assignment(researcher_client):
    campaign = quality_campaign(images=2, assignments=2)
    first, second = real_hits(campaign)
    alice, bob = worker("alice"), worker("bob")
    a1, a2 = answer(first, alice, "one"), answer(second, alice, "two")
    b1 = answer(first, bob, "three")
    review = f"/campaigns/{campaign.pk}/review/"

    def cards(query: str) -> set[int]:
        return {int(pk) for pk in re.findall(r'id="assignment-(\d+)"', researcher_client.get(review + query)
                                             .content.decode())}

    assert cards("") == {a1.pk, a2.pk, b1.pk}
    assert cards(f"?worker={alice.pk}") == {a1.pk, a2.pk}
    assert cards(f"?assignment={b1.pk}") == {b1.pk}
    assert cards(f"?hit={first.pk}") == {a1.pk, b1.pk}
    assert cards(f"?hit={first.pk}&worker={bob.pk}") == {b1.pk}
    assert cards("?worker=abc&assignment=&hit=-1") == {a1.pk, a2.pk, b1.pk}
    page = text_of(researcher_client.get(review + f"?worker={alice.pk}"))
    assert "Only the answers of worker alice" in page and f'<a href="/workers/{alice.pk}/">the worker' in page
    assert f'<input type="hidden" name="worker" value="{alice.pk}">' in page
    assert f"Only the answers to HIT {first.pk}" in text_of(researcher_client.get(review + f"?hit={first.pk}"))

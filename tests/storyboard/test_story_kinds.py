"""The storyboard task kinds: payloads, validation of answers (bad input refused, nothing stored),
and the task page's query count for albums of any size."""
from __future__ import annotations

import json

import pytest
from django.urls import reverse

from mturk.models import Assignment
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.services.review import approve_submitted
from mturk.work.services.assignments import assign_next_hit, get_or_create_worker, submit_answer
from storyboard.models import Setting, Story
from tests.factories import make_album
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db

TEXTS = ["We arrived early at the lake.", "The boat was waiting for us.", "Grandpa caught a huge fish.",
         "We cooked it on the fire.", "Everyone slept well that night."]


def campaign_of(kind: str, items: list[dict], **fields):
    campaign = create_campaign(name=f"{kind}-{json.dumps(items)}", task_kind=kind, items=items, **fields)
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


def page_payload(client, token: str) -> dict:
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    start = page.index('<script id="task-payload" type="application/json">') + len(
        '<script id="task-payload" type="application/json">')
    return json.loads(page[start:page.index("</script>", start)])


@pytest.fixture
def album():
    return make_album(8)


@pytest.fixture
def tell(album):
    return campaign_of("tell_story", [{"album": album.pk}])


def cards(album, order=(0, 1, 2, 3, 4), texts=TEXTS):
    photos = list(album.photos.order_by("datetaken").values_list("pk", flat=True))
    return [{"photo": photos[i], "text": t} for i, t in zip(order, texts, strict=True)]


def test_tell_story_payload_lists_the_album_in_time_order_with_thumbnails(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # thumbnails are made after the import commits
        album = make_album(8)
    tell = campaign_of("tell_story", [{"album": album.pk}])
    token = start_task(client, tell)
    payload = page_payload(client, token)
    assert payload["album"] == {"id": album.pk, "title": "A day out"}
    times = [p["datetaken"] for p in payload["photos"]]
    assert len(times) == 8 and times == sorted(times)
    assert [p["id"] for p in payload["photos"]] == list(album.photos.order_by("datetaken").values_list("pk", flat=True))
    assert all("/media/images/320/" in p["url"] and "/media/images/1024/" in p["large"] for p in payload["photos"])


def test_task_page_query_count_does_not_grow_with_the_album(client):
    counts = []
    for size in (5, 50):
        campaign = campaign_of("tell_story", [{"album": make_album(size).pk}])
        token = start_task(client, campaign)
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1] <= 8


@pytest.mark.parametrize("answer, field, message", [
    ({"cards": []}, "cards", "Your story needs exactly 5 photos (you chose 0)."),
    ("six", "cards", "Your story needs exactly 5 photos (you chose 6)."),
    ("foreign", "cards", "is not in this album"),
    ("duplicate", "cards", "this photo is already on the storyboard"),
    ("empty", "cards", "Card 3 is empty"),
    ("repeated", "cards", "Cards 1 and 4 have the same text"),
    ("short", "cards", "Your story is too short: write at least 15 words in total (you wrote 5)."),
    ({"skip": True, "reason": ""}, "reason", "Please say why this album is not storyable."),
    ({"cards": [], "extra": 1}, "extra", "Unknown field."),
])
def test_bad_stories_are_refused_and_nothing_is_stored(client, album, tell, answer, field, message):
    other = make_album(5)
    if answer == "six":
        answer = {"cards": cards(album, (0, 1, 2, 3, 4, 5), TEXTS + ["One more sentence here."])}
    elif answer == "foreign":
        answer = {"cards": cards(album)[:4] + [{"photo": other.photos.first().pk, "text": "Elsewhere today."}]}
    elif answer == "duplicate":
        answer = {"cards": cards(album, (0, 1, 2, 3, 0))}
    elif answer == "empty":
        answer = {"cards": cards(album, texts=TEXTS[:2] + ["  "] + TEXTS[3:])}
    elif answer == "repeated":
        answer = {"cards": cards(album, texts=TEXTS[:3] + ["we arrived early at the lake!"] + TEXTS[4:])}
    elif answer == "short":
        answer = {"cards": cards(album, texts=["One.", "Two.", "Three.", "Four.", "Five."])}
    token = start_task(client, tell)
    response = submit(client, {"token": token, "answer": answer})
    assert response.status_code == 400, response.content
    assert message in json.dumps(response.json()["fields"][field], ensure_ascii=False)
    assert not Assignment.objects.exclude(answer=None).exists()


def test_a_lone_surrogate_in_a_card_is_refused_where_it_is(client, album, tell):
    answer = {"cards": cards(album, texts=TEXTS[:4] + ["Bad \ud800 text that is long enough."])}
    response = submit(client, {"token": start_task(client, tell), "answer": answer})
    assert response.status_code == 400, response.content
    assert response.json()["error"].startswith("The answer was refused: $.answer.cards[4].text: ")
    assert not Assignment.objects.exclude(answer=None).exists()


def test_non_utf8_body_is_refused(client, tell):
    token = start_task(client, tell)
    body = b'{"token": "' + token.encode() + b'", "answer": {"skip": true, "reason": "caf\xe9"}}'
    response = submit(client, None, raw=body)
    assert response.status_code == 400
    assert not Assignment.objects.exclude(answer=None).exists()


def test_a_good_story_is_stored_in_the_workers_order_and_recorded_on_approval(client, album, tell):
    token = start_task(client, tell)
    answer = {"cards": cards(album, (3, 0, 1, 5, 7))}
    response = submit(client, {"token": token, "answer": answer})
    assert response.status_code == 201, response.json()
    approve_submitted(tell)
    story = Story.objects.get()
    assert story.setting == Setting.TELL
    assert [(s.photo_id, s.original_text) for s in story.storylets.order_by("order")] == [
        (c["photo"], c["text"]) for c in answer["cards"]]
    assert story.storylets.get(order=2).text == "grandpa caught a huge fish ."


def test_skip_is_stored_with_its_reason_and_flagged(client, tell):
    token = start_task(client, tell)
    response = submit(client, {"token": token, "answer": {"skip": True, "reason": "  Only   blurry shots "}})
    assert response.status_code == 201
    assignment = Assignment.objects.exclude(answer=None).get()
    assert assignment.answer == {"skip": True, "reason": "Only blurry shots"}
    assert assignment.check_flags == ["skipped"]
    approve_submitted(tell)
    assert not Story.objects.exists()


def test_card_limits_are_campaign_options(client, album):
    campaign = campaign_of(
        "tell_story", [{"album": album.pk}], options={"min_cards": 3, "max_cards": 6, "min_words": 5}
    )
    token = start_task(client, campaign)
    response = submit(client, {"token": token, "answer": {"cards": cards(album, (0, 1), TEXTS[:2])}})
    assert response.json()["fields"]["cards"] == ["Your story needs between 3 and 6 photos (you chose 2)."]
    assert submit(client, {"token": token, "answer": {"cards": cards(album, (0, 1, 2), TEXTS[:3])}}).status_code == 201


def stage_one(album, workers=2):
    tell = campaign_of("tell_story", [{"album": album.pk}])
    for number, order in zip(range(workers), ((0, 1, 2, 3, 4), (7, 6, 5, 4, 3)), strict=False):
        worker = get_or_create_worker("local", f"teller-{album.pk}-{number}")
        assignment = assign_next_hit(tell, worker)
        submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                      answer={"cards": cards(album, order)})
    approve_submitted(tell)
    return tell, list(Story.objects.filter(album=album).order_by("pk"))


def test_retell_shows_both_sequences_and_checks_the_answer(client, album):
    tell, stories = stage_one(album)
    retell = campaign_of("retell_story", [{"album": album.pk}], source_stage=tell)
    token = start_task(client, retell)
    payload = page_payload(client, token)
    assert [s["id"] for s in payload["sequences"]] == [s.pk for s in stories]
    assert [p["id"] for p in payload["sequences"][1]["photos"]] == [c["photo"] for c in cards(album, (7, 6, 5, 4, 3))]
    bad = submit(client, {"token": token, "answer": {"sequence": 999999, "texts": TEXTS}})
    assert bad.json()["fields"]["sequence"] == ["Choose one of the photo sequences shown."]
    bad = submit(client, {"token": token, "answer": {"sequence": stories[1].pk, "texts": TEXTS[:4]}})
    assert bad.json()["fields"]["texts"] == ["Write one sentence for each of the 5 photos."]
    good = submit(client, {"token": token, "answer": {"sequence": stories[1].pk, "texts": TEXTS}})
    assert good.status_code == 201
    approve_submitted(retell)
    retold = Story.objects.get(setting=Setting.RETELL)
    assert retold.sequence_of_id == stories[1].pk
    assert list(retold.storylets.order_by("order").values_list("photo_id", flat=True)) == [
        c["photo"] for c in cards(album, (7, 6, 5, 4, 3))]


def test_identical_sequences_are_shown_once(client, album):
    tell = campaign_of("tell_story", [{"album": album.pk}])
    for number in range(2):
        worker = get_or_create_worker("local", f"same-{number}")
        assignment = assign_next_hit(tell, worker)
        submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                      answer={"cards": cards(album, texts=[t.replace(".", f" {number}.") for t in TEXTS])})
    approve_submitted(tell)
    retell = campaign_of("retell_story", [{"album": album.pk}], source_stage=tell)
    payload = page_payload(client, start_task(client, retell))
    assert len(payload["sequences"]) == 1


def test_rate_story_requires_every_aspect_when_asked(client, album):
    _, stories = stage_one(album)
    rate = campaign_of("rate_story", [{"story": stories[0].pk}], options={"aspects": True})
    token = start_task(client, rate)
    payload = page_payload(client, token)
    assert [c["text"] for c in payload["story"]["cards"]] == TEXTS
    bad = submit(client, {"token": token, "answer": {"rating": 4, "aspects": {"focused": 6}}})
    problems = bad.json()["fields"]["aspects"]
    assert 'Rate "The story is focused." from 1 to 5.' in problems and len(problems) == 6
    assert submit(client, {"token": token, "answer": {"rating": 0}}).json()["fields"]["rating"] == [
        "Choose a rating from 1 (strongly disagree) to 5 (strongly agree)."]
    aspects = dict.fromkeys(("focused", "coherent", "would_share", "human_like", "grounded", "detail"), 3)
    assert submit(client, {"token": token, "answer": {"rating": 4, "aspects": aspects}}).status_code == 201


def test_describe_sequence_needs_one_description_per_photo(client, album):
    _, stories = stage_one(album)
    dis = campaign_of("describe_sequence", [{"sequence": stories[0].pk}])
    token = start_task(client, dis)
    assert len(page_payload(client, token)["sequence"]["photos"]) == 5
    bad = submit(client, {"token": token, "answer": {"texts": ["A lake.", *TEXTS[1:]]}})
    assert bad.json()["fields"]["texts"] == ["Description 1: write at least 5 words (you wrote 2)."]
    assert submit(client, {"token": token, "answer": {"texts": TEXTS}}).status_code == 201


def test_items_are_checked_when_added():
    from mturk.services.campaigns import CampaignError

    with pytest.raises(CampaignError, match="unknown album id"):
        create_campaign(name="x", task_kind="tell_story", items=[{"album": 424242}])
    with pytest.raises(CampaignError, match="unknown storytelling story id"):
        create_campaign(name="y", task_kind="describe_sequence", items=[{"sequence": 424242}])
    with pytest.raises(CampaignError, match="min_cards must not be more than max_cards"):
        create_campaign(name="z", task_kind="tell_story", options={"min_cards": 6, "max_cards": 5})
    with pytest.raises(CampaignError, match="option discard_after_skips must be a whole number of at least 1"):
        create_campaign(name="z", task_kind="tell_story", options={"discard_after_skips": 0})
    with pytest.raises(CampaignError, match="option min_words must be a whole number of at least 0"):
        create_campaign(name="z", task_kind="retell_story", options={"min_words": "many"})


@pytest.mark.parametrize("kind", ["retell_story", "describe_sequence", "rate_story"])
def test_later_stage_pages_have_a_constant_small_query_count(client, kind):
    counts = []
    for size in (8, 50):
        album = make_album(size)
        tell, stories = stage_one(album)
        item = {"retell_story": {"album": album.pk}, "describe_sequence": {"sequence": stories[0].pk},
                "rate_story": {"story": stories[1].pk}}[kind]
        campaign = campaign_of(kind, [item], source_stage=tell if kind == "retell_story" else None)
        token = start_task(client, campaign)
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1] <= 8

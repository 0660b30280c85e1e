"""The gold items API (/api/gold-items/): staff only; list (paged, filtered, constant queries), create, retrieve,
switch on or off, mark an approved answer, import JSON Lines (all or nothing); bad input is a 400 that changes
nothing. The campaign API and create_campaign take the gold settings."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from mturk.models import Campaign, GoldItem
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, make_image, submitted

from . import gold_kind
from .gold_kind import GOOD, gold_item

pytestmark = pytest.mark.django_db
required_words = gold_kind.required_words  # fixture
URL = "/api/gold-items/"


def test_gold_items_are_for_staff_only(required_words):
    user = get_user_model().objects.create_user("bob", "bob@example.org", "pw-123456", is_staff=False)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert client.get(URL).status_code == 403
    assert APIClient().get(URL).status_code == 401
    assert client.post(URL, {}, format="json").status_code == 403


def test_create_and_retrieve(api, researcher, required_words):
    image = make_image()
    response = api.post(URL, {"task_kind": "describe_image", "items": {"image": image.pk},
                              "answer": {"words": ["Dog"]}, "note": "by hand"}, format="json")
    assert response.status_code == 201, response.data
    item = GoldItem.objects.get()
    assert response.data == {"id": item.pk, "task_kind": "describe_image", "purpose": "gold",
                             "items": {"image": image.pk}, "answer": {"words": ["dog"]}, "note": "by hand",
                             "active": True, "source_assignment": None, "created_by": "alice",
                             "created_at": response.data["created_at"], "hits": 0}
    assert item.created_by == researcher
    assert api.get(f"{URL}{item.pk}/").data == response.data
    assert api.get(f"{URL}999999/").status_code == 404


@pytest.mark.parametrize("body, field", [
    ({"task_kind": "describe_image", "items": {"image": 1}}, "answer"),
    ({"task_kind": "paint", "items": {"image": 1}, "answer": {}}, "task_kind"),
    ({"task_kind": "describe_image", "items": {"image": 1}, "answer": {}, "purpose": "x"}, "purpose"),
    ({"task_kind": "describe_image", "items": {"image": 1}, "answer": {}, "colour": "red"}, "colour"),
])
def test_malformed_creates_are_refused_by_field(api, required_words, body, field):
    response = api.post(URL, body, format="json")
    assert response.status_code == 400 and field in response.data
    assert not GoldItem.objects.exists()


def test_a_create_the_kind_refuses_is_a_400_with_the_reason(api, required_words):
    response = api.post(URL, {"task_kind": "describe_image", "items": {"image": 424242},
                              "answer": {"words": ["dog"]}}, format="json")
    assert response.status_code == 400
    assert response.data["detail"] == "items: unknown image id(s): 424242"
    assert not GoldItem.objects.exists()


def test_list_is_paged_filtered_and_costs_constant_queries(api, required_words, django_assert_num_queries):
    for _ in range(3):
        gold_item()
    onboarding = gold_item(purpose="onboarding")
    off = gold_item()
    off.active = False
    off.save()
    with django_assert_num_queries(3):  # the token's user, the count, the page
        page = api.get(URL, {"limit": 2}).data
    assert page["count"] == 5 and len(page["results"]) == 2 and page["next"]
    for _ in range(5):
        gold_item()
    with django_assert_num_queries(3):
        assert len(api.get(URL, {"limit": 100}).data["results"]) == 10
    assert [r["id"] for r in api.get(URL, {"purpose": "onboarding"}).data["results"]] == [onboarding.pk]
    assert [r["id"] for r in api.get(URL, {"active": "0"}).data["results"]] == [off.pk]
    assert api.get(URL, {"task_kind": "draw_boxes"}).data["count"] == 0
    assert api.get(URL, {"purpose": "attention"}).status_code == 400
    assert api.get(URL, {"active": "maybe"}).status_code == 400


def test_the_hits_made_from_an_item_are_counted(api, required_words):
    known = gold_item()
    make_campaign(images=2, gold_rate=0.5)  # 2 gold HITs, both from the one item
    assert api.get(f"{URL}{known.pk}/").data["hits"] == 2


def test_patch_switches_an_item_on_and_off(api, required_words):
    item = gold_item()
    response = api.patch(f"{URL}{item.pk}/", {"active": False}, format="json")
    assert response.status_code == 200 and response.data["active"] is False
    item.refresh_from_db()
    assert item.active is False
    assert api.patch(f"{URL}{item.pk}/", {"note": "x"}, format="json").status_code == 400
    assert api.put(f"{URL}{item.pk}/", {"active": True}, format="json").status_code == 405
    assert api.delete(f"{URL}{item.pk}/").status_code == 405


def test_from_assignment(api, required_words):
    campaign = make_campaign(images=1, assignments=2)
    waiting = submitted(campaign, GOOD)
    response = api.post(f"{URL}from-assignment/", {"assignment": waiting.pk}, format="json")
    assert response.status_code == 400
    assert response.data["detail"] == f"assignment {waiting.pk} is submitted: only approved answers can become gold"
    approve_assignment(waiting)
    response = api.post(f"{URL}from-assignment/", {"assignment": waiting.pk, "purpose": "onboarding"},
                        format="json")
    assert response.status_code == 201
    assert (response.data["source_assignment"], response.data["purpose"], response.data["items"]) == (
        waiting.pk, "onboarding", waiting.hit.items)
    assert api.post(f"{URL}from-assignment/", {"assignment": 999999}, format="json").status_code == 400


def upload(text: str, name: str = "gold.jsonl") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="application/octet-stream")


def test_import(api, required_words):
    first, second = make_image(), make_image()
    text = "\n".join(json.dumps({"items": {"image": i.pk}, "answer": {"words": ["dog"]}}) for i in (first, second))
    response = api.post(f"{URL}import/", {"file": upload(text), "task_kind": "describe_image",
                                          "purpose": "onboarding"}, format="multipart")
    assert response.status_code == 201, response.data
    assert response.data["imported"] == 2
    assert sorted(response.data["ids"]) == sorted(GoldItem.objects.filter(purpose="onboarding")
                                                  .values_list("pk", flat=True))


def test_an_import_with_a_bad_line_names_it_and_stores_nothing(api, required_words):
    good = json.dumps({"items": {"image": make_image().pk}, "answer": {"words": ["dog"]}})
    response = api.post(f"{URL}import/", {"file": upload(good + "\n{oops\n"), "task_kind": "describe_image"},
                        format="multipart")
    assert response.status_code == 400
    assert [error.split(":")[0] for error in response.data["errors"]] == ["line 2"]
    assert not GoldItem.objects.exists()
    not_text = api.post(f"{URL}import/", {"file": SimpleUploadedFile("g.jsonl", b"\xff\xfe\x00"),
                                          "task_kind": "describe_image"}, format="multipart")
    assert not_text.status_code == 400 and "not UTF-8" in not_text.data["detail"]


def test_an_oversized_import_is_refused_before_reading(api, required_words, settings):
    settings.IMAGE_MAX_BYTES = 10
    response = api.post(f"{URL}import/", {"file": upload("x" * 11), "task_kind": "describe_image"},
                        format="multipart")
    assert response.status_code == 400 and response.data["detail"] == "the file is larger than 10 bytes"


def test_the_campaign_api_takes_the_gold_settings(api, required_words):
    gold_item()
    gold_item(purpose="onboarding")
    body = {"name": "gold via api", "task_kind": "describe_image", "gold_rate": 0.25, "onboarding_items": 1,
            "onboarding_pass": 0.6, "items": [{"image": make_image().pk} for _ in range(3)]}
    response = api.post("/api/campaigns/", body, format="json")
    assert response.status_code == 201, response.data
    assert (response.data["gold_rate"], response.data["onboarding_items"], response.data["onboarding_pass"]) == (
        0.25, 1, 0.6)
    campaign = Campaign.objects.get(name="gold via api")
    assert campaign.hits.filter(onboarding=True).count() == 1
    assert campaign.hits.filter(onboarding=False).exclude(gold_item=None).count() == 1  # round(3 / 3)
    refused = api.post("/api/campaigns/", {**body, "name": "too much", "gold_rate": 0.6}, format="json")
    assert refused.status_code == 400 and "gold_rate" in refused.data
    turk = api.post("/api/campaigns/", {**body, "name": "turk", "provider": "mturk"}, format="json")
    assert turk.status_code == 400 and "mturk hands out its HITs itself" in turk.data["detail"]
    assert Campaign.objects.count() == 1


def test_create_campaign_command_takes_the_gold_settings(required_words):
    gold_item()
    out = StringIO()
    call_command("create_campaign", "--name", "cli gold", "--kind", "describe_image", "--gold-rate", "0.1",
                 "--onboarding-pass", "0.7", stdout=out)
    campaign = Campaign.objects.get(name="cli gold")
    assert (campaign.gold_rate, campaign.onboarding_items, campaign.onboarding_pass) == (0.1, 0, 0.7)


def test_hits_and_assignments_say_what_is_gold_and_its_score(api, required_words):
    known = gold_item(("dog", "beach"))
    campaign = make_campaign(images=1, assignments=1, gold_rate=0.5)
    answers = [submitted(campaign, GOOD), submitted(campaign, GOOD)]
    hits = {row["id"]: row for row in api.get("/api/hits/", {"campaign": campaign.pk}).data["results"]}
    assert sorted((row["gold_item"], row["onboarding"]) for row in hits.values()
                  if row["gold_item"]) == [(known.pk, False)]
    rows = {row["id"]: row for row in api.get("/api/assignments/", {"campaign": campaign.pk}).data["results"]}
    assert sorted(rows[a.pk]["gold_score"] for a in answers if a.hit.gold_item_id) == [1.0]
    assert [rows[a.pk]["gold_score"] for a in answers if not a.hit.gold_item_id] == [None]

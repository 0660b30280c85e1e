"""The API (staff only) and the commands: create, list (constant queries), read, upload (400 naming the entry),
budget, launch, test sets; the commands' errors name the file and the entry."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from evaluation.models import HumanEvaluation
from mturk.task_kinds import UnknownTaskKind, get_task_kind
from tests.queries import queries_for

pytestmark = pytest.mark.django_db
URL = "/api/human-evaluations/"


def entries(images, system="a"):
    return [{"image_id": 391895 if i == 0 else images[i].key, "caption": f"{system} caption {i}"} for i in range(3)]


def create(api, collection, name="he", **fields):
    return api.post(URL, {"name": name, "test_set": f"image_set:{collection.pk}", **fields}, format="json")


def upload(api, pk, system, body):
    return api.post(f"{URL}{pk}/systems/", {"system": system, "file": SimpleUploadedFile("out.json", body)},
                    format="multipart")


def test_staff_only(client, caption_set):
    assert client.get(URL).status_code in (401, 403)


def test_create_upload_read_and_budget(api, caption_set):
    collection, images = caption_set
    response = create(api, collection, design="pairwise", judges=2)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["items"], body["systems"], body["design"]) == (3, 1, "pairwise")  # the reference
    pk = body["id"]
    assert create(api, collection).json() == {"detail": "name: an evaluation named 'he' already exists"}
    bad = [*entries(images), {"image_id": 999, "caption": "x"}]
    response = upload(api, pk, "a", json.dumps(bad).encode())
    assert response.status_code == 400 and response.json()["errors"] == ["[3]: image_id 999 is not in the test set"]
    response = upload(api, pk, "a", json.dumps(entries(images)).encode())
    assert response.status_code == 201 and set(response.json()["automatic"]) == {"bleu4", "cider", "meteor"}
    detail = api.get(f"{URL}{pk}/").json()
    assert [s["name"] for s in detail["system_list"]] == ["human reference", "attention check", "a"]
    budget = api.get(f"{URL}{pk}/budget/?reward=0.20&provider=local").json()
    # 2 judged systems: 1 pair x 3 items = 3 HITs; 0.1: round(3 x 0.1 / 0.9) = 0 attention; 2 judges
    assert (budget["hits"], budget["attention_hits"], budget["assignments"], budget["cost"]) == (3, 0, 6, "1.20")
    assert api.get(f"{URL}{pk}/budget/?reward=abc").status_code == 400


def test_list_in_constant_queries(api, researcher, caption_set):
    collection, _images = caption_set
    api.force_authenticate(researcher)
    create(api, collection, name="one")
    one = queries_for(api, URL)
    create(api, collection, name="two")
    create(api, collection, name="three")
    assert queries_for(api, URL) == one
    assert [row["name"] for row in api.get(URL).json()["results"]] == ["three", "two", "one"]


def test_test_sets_lists_each_source_and_its_choices(api, caption_set):
    collection, _images = caption_set
    sources = {row["source"]: row for row in api.get(f"{URL}test-sets/").json()}
    assert set(sources) == {"albums", "compositional", "image_set", "test_pool"}
    assert sources["image_set"]["choices"] == [{"key": str(collection.pk), "label": "he-test",
                                                "test_set": f"image_set:{collection.pk}"}]


def test_launch_is_refused_with_fewer_than_two_systems(api, caption_set):
    collection, _images = caption_set
    pk = create(api, collection, include_reference=False, attention_rate=0).json()["id"]
    response = api.post(f"{URL}{pk}/launch/", {"provider": "local"}, format="json")
    assert response.status_code == 400 and "0 judged system(s)" in response.json()["detail"]
    assert HumanEvaluation.objects.get(pk=pk).status == "draft"


def _kinds_ready() -> bool:
    try:
        get_task_kind("rate_output")
    except UnknownTaskKind:
        return False
    return True


@pytest.mark.skipif(not _kinds_ready(), reason="the rate_output and compare_outputs task kinds are not installed")
def test_launch_makes_the_campaign_with_its_own_attention_checks(api, caption_set):
    collection, images = caption_set
    pk = create(api, collection, attention_rate=0.25).json()["id"]
    assert upload(api, pk, "a", json.dumps(entries(images)).encode()).status_code == 201
    response = api.post(f"{URL}{pk}/launch/", {"provider": "local", "reward": "0.10"}, format="json")
    assert response.status_code == 201, response.json()
    evaluation = HumanEvaluation.objects.get(pk=pk)
    campaign = evaluation.campaign
    assert evaluation.status == "launched" and campaign.task_kind == "rate_output" and campaign.gold_rate == 0.25
    assert campaign.hits.filter(gold_item__isnull=True).count() == 3
    gold = list(campaign.hits.filter(gold_item__isnull=False))
    assert len(gold) == 1 and gold[0].items["item"] in set(evaluation.items.values_list("pk", flat=True))
    assert api.post(f"{URL}{pk}/launch/", {}, format="json").status_code == 400  # once


def test_commands(caption_set, tmp_path):
    collection, images = caption_set
    out = StringIO()
    call_command("create_human_eval", "cli", "--test-set", f"image_set:{collection.pk}", "--design", "rating",
                 "--aspect", "coco", "--judges", "2", "--attention-rate", "0", "--seed", "s", stdout=out)
    assert "3 caption items of Collection: he-test" in out.getvalue()
    with pytest.raises(CommandError, match="unknown test set source 'nowhere'"):
        call_command("create_human_eval", "x", "--test-set", "nowhere:1")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([*entries(images)[:2], {"image_id": 7, "caption": "x"}]))
    with pytest.raises(CommandError) as caught:
        call_command("upload_outputs", "cli", "a", str(bad))
    assert str(caught.value) == f"{bad}: [2]: image_id 7 is not in the test set"
    broken = tmp_path / "bad1.json"
    broken.write_text("[{")
    with pytest.raises(CommandError) as caught:
        call_command("upload_outputs", "cli", "a", str(broken))
    message = str(caught.value)  # the file named once, by its path
    assert message.startswith(f"{broken}: not valid JSON: malformed JSON") and message.count("bad1.json") == 1
    good = tmp_path / "good.json"
    good.write_text(json.dumps(entries(images)))
    out = StringIO()
    call_command("upload_outputs", "cli", "a", str(good), stdout=out)
    assert "system 'a': 3 outputs; bleu4" in out.getvalue()
    out = StringIO()
    call_command("estimate_human_eval", "cli", "--reward", "0.25", "--provider", "local", stdout=out)
    assert "HITs 3 + 0 attention; assignments 6; judgements 36" in out.getvalue()  # 3 items x 2 judges x 2 x 3
    with pytest.raises(CommandError, match="there is no human evaluation named 'nope'"):
        call_command("launch_human_eval", "nope")
    call_command("create_human_eval", "solo", "--test-set", f"image_set:{collection.pk}", "--no-reference",
                 "--attention-rate", "0", stdout=StringIO())
    with pytest.raises(CommandError, match="'solo' has 0 judged system"):
        call_command("launch_human_eval", "solo", "--provider", "local", "--reward", "0.10")


def test_each_launch_mixes_in_its_own_attention_checks_only(caption_set):
    from evaluation.services.evaluations import create_evaluation
    from evaluation.services.launch import launch_evaluation
    from evaluation.services.uploads import upload_outputs
    from mturk.models import GoldItem

    collection, images = caption_set
    launched = []
    for name in ("first", "second"):
        evaluation = create_evaluation(name=name, test_set=f"image_set:{collection.pk}", design="pairwise",
                                       attention_rate=0.25)
        upload_outputs(evaluation, system="a", content=json.dumps(entries(images)).encode())
        campaign = launch_evaluation(evaluation, provider="local")
        launched.append((evaluation, campaign))
    for evaluation, campaign in launched:
        assert campaign.task_kind == "compare_outputs" and campaign.assignments_per_hit == 3
        outputs = set(evaluation.systems.values_list("outputs", flat=True))
        real = list(campaign.hits.filter(gold_item__isnull=True))
        gold = list(campaign.hits.filter(gold_item__isnull=False))
        # 2 judged systems (reference, a): 1 pair x 3 items; round(3 x 0.25 / 0.75) = 1 attention check
        assert (len(real), len(gold)) == (3, 1)
        assert all(set(hit.items["outputs"]) <= outputs for hit in real + gold)
    for evaluation, campaign in launched:  # each evaluation's checks are in its own scope, and stay active
        scoped = GoldItem.objects.filter(task_kind="compare_outputs", active=True,
                                         scope=f"human_evaluation:{evaluation.pk}")
        assert set(campaign.hits.filter(gold_item__isnull=False).values_list("gold_item", flat=True)) <= \
            set(scoped.values_list("pk", flat=True)) and scoped.exists()
    assert not GoldItem.objects.filter(task_kind="compare_outputs", scope="").exists()


def test_the_status_follows_the_campaign_and_simulated_judgements_are_said(api, researcher_client, caption_set):
    """Launched, paused or closed as its campaign stands (Completed once every judgement is in and the campaign
    closed: the demo's, test_demo); simulated when its campaign is, in the API and on the pages."""
    from django.urls import reverse

    from evaluation.listing import status_labels
    from mturk.models import Campaign
    from mturk.services.campaigns import set_campaign_status

    collection, images = caption_set
    pk = create(api, collection).json()["id"]
    for system in ("a", "b"):
        assert upload(api, pk, system, json.dumps(entries(images, system)).encode()).status_code == 201
    evaluation = HumanEvaluation.objects.get(pk=pk)
    assert status_labels([evaluation]) == {pk: "Collecting outputs"}
    assert api.post(f"{URL}{pk}/launch/", {"provider": "local", "reward": "0.10", "publish": True},
                    format="json").status_code == 201
    evaluation.refresh_from_db()
    assert status_labels([evaluation]) == {pk: "Launched"}
    set_campaign_status(evaluation.campaign, "paused")
    assert status_labels([evaluation]) == {pk: "Launched, paused"}
    set_campaign_status(evaluation.campaign, "closed")  # no judgement in
    assert status_labels([evaluation]) == {pk: "Launched, closed before every judgement was in"}
    assert api.get(f"{URL}{pk}/").json()["simulated"] is False
    assert "(simulated)" not in researcher_client.get(reverse("human-evaluations-page")).content.decode()
    Campaign.objects.filter(pk=evaluation.campaign_id).update(is_simulated=True)
    assert api.get(URL).json()["results"][0]["simulated"] is True
    page = researcher_client.get(reverse("human-evaluation-page", args=[pk])).content.decode()
    assert "(simulated: the judgements were generated for demonstration, not collected from people)" in page

"""The console's write forms of human evaluation, through the same services as the API: a new evaluation on a
test set, a refused then an accepted upload, the budget and the launch."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation.models import HumanEvaluation
from tests.evaluation.conftest import REFERENCES, item_names

pytestmark = pytest.mark.django_db


def _outputs(images, extra: list | None = None) -> SimpleUploadedFile:
    entries = [{"image_id": name, "caption": REFERENCES[index][1]} for index, name in enumerate(item_names(images))]
    return SimpleUploadedFile("a.json", json.dumps(entries + (extra or [])).encode(), "application/json")


def test_create_upload_estimate_and_launch_from_the_console(researcher_client, caption_set):
    collection, images = caption_set
    page = researcher_client.get("/human-evaluations/")
    assert f'value="image_set:{collection.pk}"' in page.content.decode()
    response = researcher_client.post("/human-evaluations/", {
        "name": "console eval", "test_set": f"image_set:{collection.pk}", "design": "rating", "aspects": "",
        "judges": 2, "include_reference": "on", "attention_rate": 0.25, "seed": "s"}, follow=True)
    evaluation = HumanEvaluation.objects.get(name="console eval")
    assert "created: upload the systems&#x27; outputs." in response.content.decode()
    url = f"/human-evaluations/{evaluation.pk}/"

    response = researcher_client.post(url, {"action": "upload", "system": "a",
                                            "file": _outputs(images, [{"image_id": 999, "caption": "x"}])})
    assert response.status_code == 400
    assert "[3]: image_id 999 is not in the test set" in response.content.decode()
    assert not evaluation.systems.filter(name="a").exists()
    response = researcher_client.post(url, {"action": "upload", "system": "a", "file": _outputs(images)}, follow=True)
    assert "a&#x27;s outputs stored and scored." in response.content.decode()

    budget = researcher_client.get(f"{url}?reward=0.20&provider=local").content.decode()
    # 3 items -> 3 HITs; round(3 x 0.25 / 0.75) = 1 attention HIT; 2 judges -> 8 assignments at $0.20
    assert "3 and 1 attention check, on local" in budget and "$1.60" in budget
    assert "reward" in researcher_client.get(f"{url}?reward=-1&provider=local").content.decode()



def _draft(client, collection) -> HumanEvaluation:
    client.post("/human-evaluations/", {"name": "draft", "test_set": f"image_set:{collection.pk}",
                                        "design": "rating", "judges": 2, "include_reference": "on",
                                        "attention_rate": 0.1, "seed": "s"})
    return HumanEvaluation.objects.get(name="draft")


def test_a_refused_launch_says_why_and_changes_nothing(researcher_client, caption_set):
    evaluation = _draft(researcher_client, caption_set[0])  # only the reference is judged so far
    response = researcher_client.post(f"/human-evaluations/{evaluation.pk}/", {
        "action": "launch", "provider": "local", "reward": "0.10"})
    assert response.status_code == 400
    assert "Not launched:" in response.content.decode()
    assert "until at least 2 systems are judged" in response.content.decode()
    evaluation.refresh_from_db()
    assert evaluation.status == "draft" and evaluation.campaign is None


def test_launch_from_the_console(researcher_client, caption_set):
    collection, images = caption_set
    evaluation = _draft(researcher_client, collection)
    url = f"/human-evaluations/{evaluation.pk}/"
    researcher_client.post(url, {"action": "upload", "system": "a", "file": _outputs(images)})
    response = researcher_client.post(url, {"action": "launch", "provider": "local", "reward": "0.10"}, follow=True)
    evaluation.refresh_from_db()
    assert evaluation.status == "launched" and evaluation.campaign is not None
    assert f"Campaign &#x27;{evaluation.campaign.name}&#x27; made" in response.content.decode()
    assert "Upload a system" not in response.content.decode()  # not a draft any more


def test_a_refused_evaluation_names_the_problem(researcher_client, caption_set):
    collection, _ = caption_set
    data = {"name": "twice", "test_set": f"image_set:{collection.pk}", "design": "rating", "judges": 2,
            "attention_rate": 0.1, "seed": "s", "aspects": "share_experience"}
    response = researcher_client.post("/human-evaluations/", data)
    assert response.status_code == 400
    assert "share_experience" in response.content.decode()
    assert not HumanEvaluation.objects.exists()


def test_a_prolific_launch_from_the_console_takes_the_bundle_and_the_estimate(researcher_client, caption_set):
    collection, images = caption_set
    evaluation = _draft(researcher_client, collection)
    url = f"/human-evaluations/{evaluation.pk}/"
    researcher_client.post(url, {"action": "upload", "system": "a", "file": _outputs(images)})
    researcher_client.post(url, {"action": "launch", "provider": "prolific", "reward": "0.30",
                                 "tasks_per_submission": "2", "estimated_minutes": "3"})
    evaluation.refresh_from_db()
    campaign = evaluation.campaign
    assert campaign.provider == "prolific" and campaign.status == "draft"
    assert (campaign.tasks_per_submission, campaign.qualifications) == (2, {"estimated_minutes": 3})

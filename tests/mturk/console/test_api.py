"""REST API: authentication, campaigns, HITs, assignments, review actions, images, schema."""
import io
import zipfile

import pytest
from rest_framework.test import APIClient

from annotation.services.image_files import inspect_image
from mturk.models import Assignment, Campaign
from mturk.states import AssignmentStatus
from tests.factories import image_bytes, make_campaign, make_image, submitted
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def test_api_needs_a_token():
    assert APIClient().get("/api/campaigns/").status_code == 401
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token nope")
    assert bad.get("/api/campaigns/").status_code == 401


def test_openapi_schema_is_served(api):
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    for path in ("/api/campaigns/", "/api/campaigns/{id}/publish/", "/api/assignments/{id}/reject/",
                 "/api/images/", "/api/hits/", "/api/workers/{id}/block/"):
        assert path in schema["paths"], path


def test_create_publish_and_follow_a_campaign(api):
    images = [make_image(f"{i}.png") for i in range(3)]
    response = api.post("/api/campaigns/", {
        "name": "via api", "task_kind": "describe_image", "reward": "0.12", "assignments_per_hit": 2,
        "items": [{"image": i.pk} for i in images],
    }, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["hit_count"] == 3 and body["status"] == "draft"
    published = api.post(f"/api/campaigns/{body['id']}/publish/", {}, format="json").json()
    assert published["published"] == 3 and published["status"] == "active"
    assert published["worker_link"].startswith("http://127.0.0.1:8000/w/")
    assert published["progress"]["max_cost"] == "0.72"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "x", "task_kind": "paint"}, "task_kind"),
        ({"name": "x", "task_kind": "describe_image", "reward": "-1"}, "reward"),
        ({"name": "x", "task_kind": "describe_image", "colour": "red"}, "colour"),
    ],
)
def test_bad_campaign_input_gets_400_and_stores_nothing(api, payload, field):
    response = api.post("/api/campaigns/", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert Campaign.objects.count() == 0


def test_unknown_image_in_items_is_refused(api):
    response = api.post("/api/campaigns/", {"name": "x", "task_kind": "describe_image",
                                            "items": [{"image": 12345}]}, format="json")
    assert response.status_code == 400 and "unknown image id" in response.json()["detail"]
    assert Campaign.objects.count() == 0


def test_review_actions(api):
    campaign = make_campaign(images=2, assignments=1)
    one, two = submitted(campaign), submitted(campaign)
    refused = api.post(f"/api/assignments/{one.pk}/reject/", {}, format="json")
    assert refused.status_code == 400 and "feedback" in refused.json()["detail"]
    assert api.post(f"/api/assignments/{one.pk}/reject/", {"feedback": "off topic"},
                    format="json").json()["status"] == "rejected"
    assert api.post(f"/api/assignments/{two.pk}/approve/", {}, format="json").json()["status"] == "approved"
    conflict = api.post(f"/api/assignments/{two.pk}/reject/", {"feedback": "late"}, format="json")
    assert conflict.status_code == 409
    bonus = api.post(f"/api/assignments/{two.pk}/bonus/", {"amount": "0.20", "reason": "great"}, format="json")
    assert bonus.status_code == 201
    worker = two.worker
    assert api.post(f"/api/workers/{worker.pk}/block/", {"reason": "spam"}, format="json").json()["blocked"]
    assert dict(Assignment.objects.values_list("pk", "status")) == {
        one.pk: AssignmentStatus.REJECTED, two.pk: AssignmentStatus.APPROVED}


def upload(name: str, data: bytes) -> io.BytesIO:
    file = io.BytesIO(data)
    file.name = name
    return file


def test_image_upload_refuses_the_whole_batch_and_names_each_bad_file(api):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("good.png", image_bytes())
        z.writestr("../escape.png", image_bytes())
    files = [upload("batch.zip", archive.getvalue()), upload("photo.jpg", image_bytes("JPEG")),
             upload("notes.png", b"not an image")]
    response = api.post("/api/images/", {"files": files}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert "nothing was imported" in body["detail"]
    assert {p["name"] for p in body["problems"]} == {"../escape.png", "notes.png"}
    assert api.get("/api/images/").json()["count"] == 0


def test_one_good_image_and_a_corrupt_zip_store_nothing(api):
    files = [upload("photo.jpg", image_bytes("JPEG")), upload("broken.zip", b"PK\x03\x04 not really a zip")]
    response = api.post("/api/images/", {"files": files}, format="multipart")
    assert response.status_code == 400
    assert [p["name"] for p in response.json()["problems"]] == ["broken.zip"]
    assert "not a readable zip" in response.json()["problems"][0]["reason"]
    assert api.get("/api/images/").json()["count"] == 0


def test_a_good_batch_is_imported_whole(api):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("good.png", image_bytes())
    files = [upload("batch.zip", archive.getvalue()), upload("photo.jpg", image_bytes("JPEG"))]
    response = api.post("/api/images/", {"files": files}, format="multipart")
    assert response.status_code == 201
    assert sorted(i["name"] for i in response.json()["imported"]) == ["good.png", "photo.jpg"]
    assert api.get("/api/images/").json()["count"] == 2


def test_each_image_of_a_batch_is_decoded_once(api, monkeypatch):
    from annotation.services import image_batch, images

    decoded: list[int] = []

    def counting(data):
        decoded.append(len(data))
        return inspect_image(data)

    monkeypatch.setattr(image_batch, "inspect_image", counting)
    monkeypatch.setattr(images, "inspect_image", counting)
    files = [upload("a.jpg", image_bytes("JPEG")), upload("b.png", image_bytes())]
    assert api.post("/api/images/", {"files": files}, format="multipart").status_code == 201
    assert len(decoded) == 2


def test_image_upload_answers_match_the_declared_schema(api):
    responses = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    schema = responses["paths"]["/api/images/"]["post"]["responses"]
    components = responses["components"]["schemas"]

    def declared(code: str) -> dict:
        return components[schema[code]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]]

    created = api.post("/api/images/", {"files": [upload("a.png", image_bytes())]}, format="multipart").json()
    refused = api.post("/api/images/", {"files": [upload("b.png", b"nope")]}, format="multipart").json()
    empty = api.post("/api/images/", {}, format="multipart").json()
    for body, code in ((created, "201"), (refused, "400"), (empty, "400")):
        properties = declared(code)["properties"]
        assert set(body) <= set(properties), (code, body)
        assert set(declared(code).get("required", [])) <= set(body), (code, body)


@pytest.mark.parametrize("url", ["/api/campaigns/", "/api/hits/", "/api/assignments/", "/api/images/",
                                 "/api/workers/"])
def test_list_endpoints_have_constant_query_counts(api, url):
    campaign = make_campaign(images=1)
    submitted(campaign)
    few = queries_for(api, url)
    for _ in range(4):
        campaign = make_campaign(images=3)
        submitted(campaign)
        submitted(campaign)
    many = queries_for(api, url)
    assert few == many

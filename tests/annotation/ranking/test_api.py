"""The ranking API: test pools, submissions (errors named, nothing stored), leaderboard, imported judgements."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Description
from annotation.ranking.models import CaptionJudgement, RankingSubmission, TestPool
from tests.annotation.ranking.pool import SCORES, build_pool, npy
from tests.factories import make_image

pytestmark = pytest.mark.django_db


def test_create_list_and_read_a_pool(api):
    image = make_image("one.png")
    caption = Description.objects.create(image=image, text="A red square.", source="imported")
    created = api.post("/api/test-pools/", {"name": "p", "all_descriptions": True}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["images"] == 1 and created.json()["captions"] == 1
    assert api.post("/api/test-pools/", {"name": "p", "all_descriptions": True}, format="json").status_code == 400
    listed = api.get("/api/test-pools/").json()
    assert [p["name"] for p in listed["results"]] == ["p"]
    pool = api.get(f"/api/test-pools/{created.json()['id']}/").json()
    assert pool["images"] == [{"id": image.pk, "key": image.key, "url": image.display_url, "index": 0}]
    assert pool["captions"] == [{"id": caption.pk, "text": "A red square.", "index": 0, "image": image.pk}]


def test_submission_and_leaderboard(api):
    pool, _, _ = build_pool()
    url = f"/api/test-pools/{pool.pk}/submissions/"
    bad = api.post(url, {"system": "s", "file": SimpleUploadedFile("s.npy", npy(SCORES[:, :5]))}, format="multipart")
    assert bad.status_code == 400
    assert bad.json()["errors"] == ["s.npy: the array has shape (3, 5), expected (3, 6) (images, captions)"]
    assert not RankingSubmission.objects.exists()
    good = api.post(url, {"system": "s", "file": SimpleUploadedFile("s.npy", npy(SCORES))}, format="multipart")
    assert good.status_code == 201, good.content
    assert good.json()["metrics"]["description"]["R@1"] == pytest.approx(2 / 3)
    board = api.get(f"/api/test-pools/{pool.pk}/leaderboard/").json()
    assert [s["system"] for s in board["systems"]] == ["s"]


def test_too_large_a_submission_is_refused_before_it_is_read(api, settings):
    pool, _, _ = build_pool()
    settings.RANKING_MAX_BYTES = 10
    response = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                        {"system": "s", "file": SimpleUploadedFile("s.npy", npy(SCORES))}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"detail": "the submission is larger than 10 bytes"}
    assert not RankingSubmission.objects.exists()


def test_rankings_json_is_read_with_the_platform_limits(api, settings):
    pool, _, _ = build_pool()
    settings.JSON_MAX_DEPTH = 3
    nested = b'{"description": {"1": [[[[1]]]]}}'
    response = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                        {"system": "s", "file": SimpleUploadedFile("s.json", nested)}, format="multipart")
    assert response.status_code == 400
    assert "nested deeper than 3 levels" in str(response.json()["errors"])
    assert not RankingSubmission.objects.exists()


def test_rankings_with_a_key_given_twice_are_a_400(api):
    pool, images, captions = build_pool()
    a = images[0].pk
    ranked = [c.pk for c in captions]
    doc = (f'{{"description": {{"{a}": {ranked}, "{images[1].pk}": {ranked}, "{images[2].pk}": {ranked}, '
           f'"0{a}": {ranked}}}}}')
    response = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                        {"system": "s", "file": SimpleUploadedFile("s.json", doc.encode())}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"] == [f'description["0{a}"]: image id {a} is ranked twice (also as "{a}")']
    response = api.post(f"/api/test-pools/{pool.pk}/submissions/",
                        {"system": "s", "file": SimpleUploadedFile("s.json", doc.replace(f'"0{a}"', f'"{a}"')
                                                                    .encode())}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"] == [f'not JSON: $.description: the key "{a}" is given twice']
    assert not RankingSubmission.objects.exists()


def test_import_judgements(api):
    _, images, captions = build_pool()
    body = f"image,caption,relevant,judge\n{images[0].pk},{captions[3].pk},no,x\n{images[0].pk},oops,1,x\n"
    refused = api.post("/api/judgements/", {"file": SimpleUploadedFile("j.csv", body.encode())}, format="multipart")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        f"line 3: image and caption must be ids (numbers), got '{images[0].pk}', 'oops'"]
    assert not CaptionJudgement.objects.exists()
    ok = api.post("/api/judgements/", {"file": SimpleUploadedFile("j.csv", body.encode().rsplit(b"\n", 2)[0] + b"\n")},
                  format="multipart")
    assert ok.status_code == 201 and ok.json() == {"imported": 1}


def test_anonymous_is_refused(client):
    assert client.get("/api/test-pools/").status_code in (401, 403)
    assert not TestPool.objects.exists()

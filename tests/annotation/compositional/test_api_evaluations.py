"""The evaluations API (/api/compositional/evaluations/): upload (202, scored in the background), problems named
with nothing stored, follow one, its HTML report (409 until done), the list at a constant query count, staff only."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.compositional import api_evaluations
from annotation.compositional.models import CompositionalEvaluation
from mturk.datasets.views.exports import REPORT_CSP
from tests.annotation.compositional.services.test_evaluations import GENERATED, body, corpus, no_java  # noqa: F401
from tests.queries import queries_for

pytestmark = pytest.mark.django_db
URL = "/api/compositional/evaluations/"


def upload(api, content: bytes, **fields: object):
    return api.post(URL, {"file": SimpleUploadedFile("butd.json", content), "system": "BUTD", **fields},
                    format="multipart")


def test_upload_follow_and_report(api, corpus, no_java, django_capture_on_commit_callbacks):  # noqa: F811
    with django_capture_on_commit_callbacks(execute=True):
        created = upload(api, body(GENERATED), k="2", pairs="black_cat, small_dog,eat_horse")
        assert created.status_code == 202, created.content
        data = created.json()
        assert (data["status"], data["progress"], data["report"]) == ("queued", {"done": 0, "total": 0}, None)
        assert data["pairs"] == ["black_cat", "small_dog", "eat_horse"] and data["k"] == 2
        assert api.get(f"{URL}{data['id']}/report/").status_code == 409  # not scored yet
    evaluation = api.get(f"{URL}{data['id']}/").json()  # the hand-off ran once the upload was stored
    assert evaluation["status"] == "done", evaluation["error"]
    assert evaluation["progress"] == {"done": 65, "total": 65}  # the corpus's 60 captions, 5 generated
    assert evaluation["report"] == f"{URL}{data['id']}/report/"
    recall = evaluation["result"]["recall"]
    assert [(row["name"], row["recall"]) for row in recall["pairs"]] == [
        ("black_cat", 1.0), ("small_dog", 0.0), ("eat_horse", 1.0)]
    assert recall["average"]["recall"] == pytest.approx(2 / 3)
    report = api.get(evaluation["report"])
    assert report.status_code == 200 and report["Content-Type"] == "text/html; charset=utf-8"
    assert report["Content-Security-Policy"] == REPORT_CSP  # every report page's policy: sandboxed, no script
    assert "<th scope=row>black_cat</th>" in report.content.decode()


def test_problems_are_a_400_and_nothing_is_stored(api, corpus):  # noqa: F811
    refused = upload(api, body([{"image_id": 307, "caption": ""}]), pairs="black_cat")
    assert refused.status_code == 400
    assert refused.json() == {"detail": "the upload has errors",
                              "errors": ["[0] (image 307): the caption is empty"]}
    refused = upload(api, body({"307": ["a cat"]}), pairs="purple_cow")
    assert refused.json()["errors"] == ["unknown concept pair(s): purple_cow"]
    assert upload(api, body({"307": ["a cat"]}), k="0").status_code == 400  # the form: k from 1
    refused = upload(api, body({"307": ["a cat"]}), pairs="black_cat", eval_share="1.5")
    assert refused.json()["errors"] == ["eval_share: must be a number between 0 and 1 (both excluded)"]
    refused = upload(api, body({"307": ["a cat"]}), campaigns="99999")
    assert refused.status_code == 400 and "campaigns" in refused.json()
    assert api.post(URL, {"system": "s"}, format="multipart").status_code == 400  # no file
    refused = upload(api, b'{"307": ["a black cat"], "307": ["a dog"]}', pairs="black_cat")
    assert refused.status_code == 400
    assert refused.json()["errors"] == ['not valid JSON: $: the key "307" is given twice']
    refused = upload(api, b'{"307": ["a black cat"], " 307": ["a dog"]}', pairs="black_cat")
    assert refused.json()["errors"] == ['" 307": image 307 is named twice (also as "307")']
    assert not CompositionalEvaluation.objects.exists()


def test_too_large_an_upload_is_refused_before_it_is_read(api, monkeypatch):
    monkeypatch.setattr(api_evaluations, "MAX_BYTES", 10)
    refused = upload(api, body({"307": ["a black cat sitting"]}))
    assert refused.status_code == 400 and refused.json() == {"detail": "the file is larger than 10 bytes"}
    assert not CompositionalEvaluation.objects.exists()


def test_list_at_a_constant_query_count(api):
    def evaluation(system: str) -> CompositionalEvaluation:
        return CompositionalEvaluation.objects.create(system=system, pairs=["black_cat"], generated={"1": ["x"]})

    evaluation("first")
    one = queries_for(api, URL)
    for n in range(4):
        evaluation(f"more {n}")
    assert queries_for(api, URL) == one
    listed = api.get(URL).json()
    assert listed["count"] == 5 and listed["results"][0]["system"] == "more 3"
    assert "result" not in listed["results"][0] and "generated" not in listed["results"][0]
    assert api.get(f"{URL}999999/").status_code == 404


def test_staff_only(client, django_user_model):
    assert client.get(URL).status_code in (401, 403)
    worker = get_user_model().objects.create_user("bob", "bob@example.org", "pw-pw-pw-pw")
    token, _ = Token.objects.get_or_create(user=worker)
    not_staff = APIClient()
    not_staff.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert not_staff.get(URL).status_code == 403
    assert upload(not_staff, b"{}").status_code == 403

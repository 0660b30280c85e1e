"""The storyboard API: albums and launching the story workflow."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from mturk.models import HIT, Campaign
from tests.factories import make_album
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def test_albums_are_listed_with_photo_counts_in_constant_queries(api):
    make_album(3)
    small = queries_for(api, "/api/albums/")
    albums = [make_album(photos) for photos in (4, 5, 6)]
    assert queries_for(api, "/api/albums/") == small
    listed = {row["external_id"]: row["photos"] for row in api.get("/api/albums/").json()["results"]}
    assert [listed[a.external_id] for a in albums] == [4, 5, 6]


def test_a_workflow_is_launched_chained_and_published(api):
    albums = [make_album(6), make_album(7)]
    response = api.post("/api/story-workflows/", {
        "name": "Trip", "albums": [a.pk for a in albums], "ratings": True, "publish": True,
        "settings": {"retell": {"assignments_per_hit": 5}, "tell": {"options": {"discard_after_skips": 1}}},
    }, format="json")
    assert response.status_code == 201, response.content
    stages = response.json()
    assert list(stages) == ["tell", "retell", "dii", "dis", "rate"]
    tell, retell = Campaign.objects.get(pk=stages["tell"]["id"]), Campaign.objects.get(pk=stages["retell"]["id"])
    assert tell.status == "active" and retell.source_stage == tell and retell.assignments_per_hit == 5
    assert tell.options["discard_after_skips"] == 1
    assert Campaign.objects.get(pk=stages["rate"]["id"]).source_stage == retell
    assert sorted(h.items["album"] for h in HIT.objects.filter(campaign=tell)) == sorted(a.pk for a in albums)


@pytest.mark.parametrize("body, message", [
    ({"settings": {"colour": {"reward": "1"}}}, "unknown stage(s) colour"),
    ({"settings": {"rate": {"reward": "1"}}}, "unknown stage(s) rate"),  # no ratings asked
    ({"settings": {"tell": {"shoe_size": 3}}}, "stage tell: unknown setting(s) shoe_size"),
    ({"provider": "nowhere"}, "unknown provider 'nowhere'"),
])
def test_bad_workflows_are_refused_and_create_nothing(api, body, message):
    album = make_album(6)
    response = api.post("/api/story-workflows/", {"name": "Bad", "albums": [album.pk], **body}, format="json")
    assert response.status_code == 400 and message in response.json()["detail"]
    assert not Campaign.objects.exists()


def test_story_api_needs_a_researcher():
    assert APIClient().get("/api/albums/").status_code in (401, 403)
    assert APIClient().post("/api/story-workflows/", {}, format="json").status_code in (401, 403)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"output_stories": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested deeper than"),
        (b'{"output_stories": [], "team_name": ' + b"9" * 5000 + b"}", "$.team_name: a number with more than"),
        (b'{"output_stories": [], "evaluation_info": {"x": 1e999}}', "$.evaluation_info.x: the number 1e999"),
    ],
)
def test_a_story_submission_beyond_the_json_limits_is_a_400(api, body, message):
    response = api.post("/api/story-evaluations/", {"submission": SimpleUploadedFile("s.json", body)},
                        format="multipart")
    assert response.status_code == 400
    assert any(message in error for error in response.json()["errors"]), response.json()

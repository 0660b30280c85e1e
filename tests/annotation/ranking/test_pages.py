"""The test pools page and a pool's leaderboard page with its upload form."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.ranking.models import RankingSubmission
from annotation.ranking.services.submissions import submit_ranking
from tests.annotation.ranking.pool import SCORES, build_pool, npy

pytestmark = pytest.mark.django_db


def test_pools_page_links_each_leaderboard(researcher_client, django_assert_max_num_queries):
    pool, _, _ = build_pool()
    other, _, _ = build_pool("second")
    with django_assert_max_num_queries(5):  # session, user, the pools with their counts, the campaigns, their captions
        page = researcher_client.get("/pools/")
    html = page.content.decode()
    assert f'href="/pools/{pool.pk}/leaderboard/"' in html and f'href="/pools/{other.pk}/leaderboard/"' in html
    assert 'href="/pools/"' in researcher_client.get("/").content.decode()


def test_leaderboard_page_shows_systems_and_takes_uploads(researcher_client):
    pool, _, _ = build_pool()
    submit_ranking(pool, "baseline", npy(SCORES), "s.npy")
    url = f"/pools/{pool.pk}/leaderboard/"
    page = researcher_client.get(url).content.decode()
    assert "baseline" in page and "0.667" in page  # description R@1 = 2/3
    refused = researcher_client.post(url, {"system": "new", "file": SimpleUploadedFile("s.npy", npy(SCORES[:1]))})
    assert refused.status_code == 400
    assert "the array has shape (1, 6), expected (3, 6)" in refused.content.decode()
    assert RankingSubmission.objects.count() == 1
    twice = b'{"description": {"1": [1], "1": [2]}}'
    refused = researcher_client.post(url, {"system": "new", "file": SimpleUploadedFile("r.json", twice)})
    assert refused.status_code == 400
    assert "the key &quot;1&quot; is given twice" in refused.content.decode()
    assert RankingSubmission.objects.count() == 1
    done = researcher_client.post(url, {"system": "new", "file": SimpleUploadedFile("s.npy", npy(SCORES))})
    assert done.status_code == 302
    assert RankingSubmission.objects.filter(system="new").exists()


def test_pages_need_a_researcher(client):
    pool, _, _ = build_pool()
    assert client.get(f"/pools/{pool.pk}/leaderboard/").status_code == 302


def test_generated_captions_table(researcher_client):
    pool, images, captions = build_pool()
    doc = {"description": {str(i.pk): [c.pk for c in captions] for i in images},
           "captions": {str(i.pk): captions[2 * n].text for n, i in enumerate(images)}}
    submit_ranking(pool, "writer", json.dumps(doc).encode(), "r.json")
    page = researcher_client.get(f"/pools/{pool.pk}/leaderboard/").content.decode()
    assert "Generated captions" in page and "<td>1.000</td>" in page  # BLEU-4 of copies of a reference

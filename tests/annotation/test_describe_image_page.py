"""The describe_image task page through the one task route."""
import pytest
from django.urls import reverse

from mturk.work.tokens import preview_token
from tests.factories import GOOD_TEXT, make_campaign
from tests.queries import queries_for
from tests.worker_flow import campaign_link, press_start, start_task, submit

pytestmark = pytest.mark.django_db


def test_page_shows_image_instructions_and_text_box(client):
    campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    response = client.get(reverse("task-page") + f"?t={token}")
    page = response.content.decode()
    assert response.status_code == 200
    assert "describe all the important parts of the scene" in page.lower()
    assert '<textarea id="answer-text" name="text"' in page
    assert 'data-min-words="8"' in page
    assert f'data-token="{token}"' in page
    assert 'alt="The image to describe"' in page
    # Frameable by the marketplaces only; no cookie is set.
    assert "X-Frame-Options" not in response.headers
    assert response["Content-Security-Policy"].startswith("frame-ancestors 'self' https://worker.mturk.com")
    assert not response.cookies


def test_other_pages_refuse_framing(client):
    assert client.get(reverse("login"))["X-Frame-Options"] == "DENY"


def test_page_uses_thumbnail_not_original(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        campaign = make_campaign(images=1)
    token = start_task(client, campaign)
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    assert "/media/images/1024/" in page and "/originals/" not in page


def test_task_page_query_count_is_constant(client):
    small = make_campaign(images=1)
    large = make_campaign(images=40, assignments=5)
    counts = []
    for campaign in (small, large):
        token = start_task(client, campaign)
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1] <= 3  # the assignment, the image, the frame's count of the worker's answers


def test_submitted_task_page_says_so(client):
    campaign = make_campaign(images=2)
    token = start_task(client, campaign)
    submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    page = client.get(reverse("task-page") + f"?t={token}").content.decode()
    assert "Already submitted" in page and 'id="next-task"' in page


def test_no_task_left_message(client):
    campaign = make_campaign(images=1, assignments=1)
    token = start_task(client, campaign)
    submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    response = press_start(client, campaign)
    assert response.status_code == 200
    assert "There is no task left for you" in response.content.decode()


def test_bad_links_get_clear_pages(client):
    assert client.get(reverse("task-page") + "?t=garbage").status_code == 403
    assert client.get(reverse("task-page") + "?preview=garbage").status_code == 403
    assert client.get("/w/garbage/").status_code == 400
    campaign = make_campaign(images=1)
    assert client.get(campaign_link(campaign) + "?w=forged").status_code == 400
    hit = campaign.hits.get()
    assert client.get(reverse("task-page") + f"?preview={preview_token(hit.pk)}").status_code == 200


def test_expired_assignment_page_says_so(client):
    from mturk.models import Assignment
    from mturk.states import AssignmentStatus

    campaign = make_campaign(images=2)
    token = start_task(client, campaign)
    Assignment.objects.update(status=AssignmentStatus.EXPIRED)
    response = client.get(reverse("task-page") + f"?t={token}")
    assert response.status_code == 410
    assert "was expired and can no longer be done" in response.content.decode()
    assert 'id="next-task"' in response.content.decode()

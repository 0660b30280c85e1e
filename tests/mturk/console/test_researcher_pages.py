"""Dashboard and campaign pages: access, content, review actions, constant query counts."""
import pytest
from django.urls import reverse

from mturk.models import Assignment
from mturk.states import AssignmentStatus
from tests.factories import GOOD_TEXT, make_campaign, submitted
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def test_pages_need_a_staff_login(client, django_user_model):
    campaign = make_campaign(images=1)
    for url in (reverse("dashboard"), reverse("campaign-page", args=[campaign.pk])):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    django_user_model.objects.create_user("bob", password="pw-123456")
    logged_in = client.post(reverse("login"), {"username": "bob", "password": "pw-123456"})  # the throttled form
    assert logged_in.status_code == 302  # a refused login renders the form again (200)
    assert client.get(reverse("dashboard")).status_code == 302  # not staff


def test_dashboard_shows_progress_and_cost(researcher_client):
    campaign = make_campaign(images=2, assignments=2, name="Beach photos")
    submitted(campaign)
    page = researcher_client.get(reverse("dashboard")).content.decode()
    assert "Beach photos" in page
    assert "1 / 4" in page  # submitted / required
    assert "$0.10" in page and "$0.40" in page  # cost so far, max cost


def test_review_page_lists_answers_escaped(researcher_client):
    campaign = make_campaign(images=1)
    submitted(campaign, "<script>alert(1)</script> a man rides a red bicycle down the street")
    page = researcher_client.get(reverse("campaign-review", args=[campaign.pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page


def test_review_actions_from_the_page(researcher_client):
    campaign = make_campaign(images=2, assignments=1)
    one, two = submitted(campaign), submitted(campaign)
    url = lambda a: reverse("assignment-review", args=[campaign.pk, a.pk])  # noqa: E731
    response = researcher_client.post(url(one), {"action": "reject", "feedback": ""}, follow=True)
    assert "needs a feedback text" in response.content.decode()
    one.refresh_from_db()
    assert one.status == AssignmentStatus.SUBMITTED
    researcher_client.post(url(one), {"action": "reject", "feedback": "Not about the image"})
    researcher_client.post(url(two), {"action": "approve"})
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert statuses == {one.pk: AssignmentStatus.REJECTED, two.pk: AssignmentStatus.APPROVED}


def test_review_redirect_stays_on_site(researcher_client):
    campaign = make_campaign(images=1)
    one = submitted(campaign)
    response = researcher_client.post(reverse("assignment-review", args=[campaign.pk, one.pk]),
                                      {"action": "approve", "next": "https://evil.example/"})
    assert response["Location"] == reverse("campaign-page", args=[campaign.pk])


def test_dashboard_queries_do_not_grow_with_campaigns(researcher_client):
    make_campaign(images=1)
    few = queries_for(researcher_client, reverse("dashboard"))
    for _ in range(5):
        campaign = make_campaign(images=3)
        submitted(campaign)
    many = queries_for(researcher_client, reverse("dashboard"))
    assert few == many <= 6


def test_campaign_page_queries_do_not_grow_with_assignments(researcher_client):
    campaign = make_campaign(images=12, assignments=3)
    submitted(campaign)
    url = reverse("campaign-page", args=[campaign.pk])
    few = queries_for(researcher_client, url)
    for _ in range(20):
        submitted(campaign, GOOD_TEXT)
    many = queries_for(researcher_client, url)
    assert few == many <= 9

"""The exports page: requesting every kind of format with its options, refusals, the list and its query count."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from mturk.models import DatasetExport
from storyboard.services.workflow import create_story_workflow
from tests.factories import make_album, make_campaign
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def post(client, data: dict):
    return client.post(reverse("exports"), data)


def test_non_staff_users_are_sent_to_the_login_page(client):
    export = DatasetExport.objects.create(format="imageclef")
    user = get_user_model().objects.create_user("bob", password="pw-bob-123")  # not staff
    for logged_in in (False, True):
        if logged_in:
            client.force_login(user)
        for url in (reverse("exports"), reverse("export-status", args=[export.pk]),
                    reverse("export-report", args=[export.pk, "README.md"])):
            response = client.get(url)
            assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url
    assert post(client, {"format": "imageclef"}).status_code == 302
    assert DatasetExport.objects.count() == 1


def test_the_form_shows_every_format_and_each_option_with_its_meaning(researcher_client):
    page = researcher_client.get(reverse("exports")).content.decode()
    for name in ("assignments-jsonl", "imageclef", "coco", "flickr30k", "sind"):
        assert f'<label for="format-{name}">{name}</label>' in page
    assert "Exports draw_boxes, describe_image, link_words campaigns." in page
    assert '<legend>Options of sind</legend>' in page
    assert '<label for="id_sind__images">Images:</label>' in page
    assert 'type="checkbox" name="sind__images"' in page
    assert '<label for="id_sind__split_seed">Split seed:</label>' in page
    assert '<label for="id_sind__report_sample">Report sample:</label>' in page
    assert 'aria-describedby="id_sind__report_sample-help"' in page
    assert 'id="id_sind__report_sample-help">Stories in the report&#x27;s agreement sample' in page
    assert 'id="format-imageclef" value="imageclef"' in page


@pytest.mark.parametrize("format_name", ["assignments-jsonl", "imageclef", "coco", "flickr30k"])
def test_requesting_a_format_of_the_campaigns_queues_it(researcher_client, researcher, format_name):
    campaign = make_campaign(images=1, name="street")
    make_campaign(images=1, name="other")
    response = post(researcher_client, {"format": format_name, "campaigns": [campaign.pk]})
    assert response.status_code == 302 and response["Location"] == reverse("exports")
    export = DatasetExport.objects.get()
    assert (export.format, list(export.campaigns.all()), export.options, export.created_by) == (
        format_name, [campaign], {}, researcher)
    assert export.status == DatasetExport.Status.QUEUED  # built once the request is committed
    page = researcher_client.get(reverse("exports")).content.decode()
    assert f"Export #{export.pk} ({format_name}) requested." in page


def test_sind_options_are_read_from_their_fields(researcher_client):
    campaigns = create_story_workflow("Stories", [make_album(6)], publish=False)
    chosen = campaigns["tell"]
    response = post(researcher_client, {
        "format": "sind", "campaigns": [chosen.pk], "sind__images": "on", "sind__split_seed": " abc ",
        "sind__report_sample": "0",
    })
    assert response.status_code == 302
    export = DatasetExport.objects.get()
    assert export.options == {"images": True, "split_seed": "abc", "report_sample": 0}
    assert list(export.campaigns.all()) == [chosen]


def test_empty_option_fields_leave_the_defaults(researcher_client):
    tell = create_story_workflow("Stories", [make_album(6)], publish=False)["tell"]
    assert post(researcher_client, {"format": "sind", "campaigns": [tell.pk], "sind__split_seed": "",
                                    "sind__report_sample": ""}).status_code == 302
    assert DatasetExport.objects.get().options == {}


@pytest.mark.parametrize("data, message", [
    ({"format": "sind", "sind__report_sample": "many"}, "report_sample must be a whole number."),
    ({"format": "sind", "sind__report_sample": "-1"},
     "option report_sample must be a whole number of stories, 0 or more (0 = all), not -1"),
    ({"format": "nope"}, "Select a valid choice. nope is not one of the available choices."),
    ({}, "This field is required."),
])
def test_a_bad_request_says_why_and_queues_nothing(researcher_client, data, message):
    tell = create_story_workflow("Stories", [make_album(6)], publish=False)["tell"]
    response = post(researcher_client, {**data, "campaigns": [tell.pk]})
    assert response.status_code == 400
    page = response.content.decode()
    assert message.replace("'", "&#x27;") in page
    assert 'role="alert"' in page
    assert DatasetExport.objects.count() == 0


def test_a_campaign_the_format_cannot_export_is_refused(researcher_client):
    tell = create_story_workflow("Stories", [make_album(6)], publish=False)["tell"]
    response = post(researcher_client, {"format": "imageclef", "campaigns": [tell.pk]})
    assert response.status_code == 400
    assert ("format &#x27;imageclef&#x27; exports draw_boxes, describe_image, link_words campaigns, not: "
            f"{tell.name}") in response.content.decode()
    assert DatasetExport.objects.count() == 0


def test_a_bad_value_in_another_formats_option_does_not_matter(researcher_client):
    campaign = make_campaign(images=1, publish=False)
    response = post(researcher_client, {"format": "imageclef", "campaigns": [campaign.pk],
                                        "sind__report_sample": "many"})
    assert response.status_code == 302
    assert DatasetExport.objects.get().options == {}


def test_the_list_shows_each_export_with_its_campaigns_options_and_state(researcher_client):
    campaign = make_campaign(images=1, name="street")
    queued = DatasetExport.objects.create(format="sind", options={"split_seed": "abc"})
    failed = DatasetExport.objects.create(format="imageclef", status=DatasetExport.Status.FAILED,
                                          error="images that cannot be exported: <b>bad</b>")
    failed.campaigns.set([campaign])
    running = DatasetExport.objects.create(format="coco", status=DatasetExport.Status.RUNNING, progress_done=3,
                                           progress_total=12)
    page = researcher_client.get(reverse("exports")).content.decode()
    assert f'data-status-url="{reverse("export-status", args=[queued.pk])}"' in page
    assert "<code>split_seed=abc</code>" in page and "every campaign" in page
    assert f'<a href="{reverse("campaign-page", args=[campaign.pk])}">street</a>' in page
    assert "images that cannot be exported: &lt;b&gt;bad&lt;/b&gt;" in page
    assert (f'aria-label="Progress of export #{running.pk}" aria-valuemin="0" aria-valuemax="100" '
            'aria-valuenow="25"') in page
    assert "25% (3 / 12 steps)" in page
    assert "Download zip" not in page  # nothing is done


def test_the_page_makes_the_same_queries_for_2_or_20_exports(researcher_client):
    campaigns = [make_campaign(images=1, publish=False) for _ in range(3)]

    def add(count: int) -> None:
        for number in range(count):
            export = DatasetExport.objects.create(format="imageclef", options={"n": number},
                                                  status=DatasetExport.Status.FAILED, error="no")
            export.campaigns.set(campaigns[: number % 3 + 1])

    add(2)
    few = queries_for(researcher_client, reverse("exports"))
    add(18)
    many = queries_for(researcher_client, reverse("exports"))
    assert few == many

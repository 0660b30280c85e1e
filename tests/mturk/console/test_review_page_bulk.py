"""Deciding a selection from the review page: first the confirmation step (how many, how many the checks flagged
and by which check, flagged ones left out by default), then approve or reject many, each refusal reported and
changing nothing for that assignment; on Prolific a category and at least 100 characters of feedback."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from mturk.models import Assignment
from mturk.services.review import approve_assignment
from mturk.states import AssignmentStatus
from mturk.work.services.marketplace_sync import sync_campaign
from tests.factories import make_campaign, submitted
from tests.mturk.providers.prolific.study_helpers import WHY, published_campaign, tasks_of, work
from tests.prolific_fake.fixtures import prolific_fake  # noqa: F401 - registers the fixture

pytestmark = pytest.mark.django_db


def bulk_url(campaign) -> str:
    return reverse("campaign-review-bulk", args=[campaign.pk])


def review_url(campaign) -> str:
    return reverse("campaign-review", args=[campaign.pk])


def decide(client, campaign, assignments, action: str, confirmed: bool = True, **fields: str):
    data = {"assignment": [str(a.pk) for a in assignments], "action": action,
            "next": review_url(campaign) + "?status=submitted", **fields}
    if confirmed:
        data["confirmed"] = "1"
    return client.post(bulk_url(campaign), data, follow=True)


SHOUTED = "A WOMAN IN A RED DRESS WALKS HER BROWN DOG ALONG THE BEACH."  # flagged mostly_uppercase
REPEATED = "dog dog dog dog dog dog dog dog on the beach"  # flagged repeated_words


def statuses(*assignments) -> list[str]:
    return [Assignment.objects.get(pk=a.pk).status for a in assignments]


def test_approving_a_selection(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    one, two, three = submitted(campaign), submitted(campaign), submitted(campaign)
    response = decide(researcher_client, campaign, [one, two], "approve")
    assert response.redirect_chain[-1][0] == review_url(campaign) + "?status=submitted"
    assert f"2 assignment(s) approved: {one.pk}, {two.pk}." in response.content.decode()
    assert statuses(one, two, three) == [AssignmentStatus.APPROVED, AssignmentStatus.APPROVED,
                                         AssignmentStatus.SUBMITTED]


def test_rejecting_needs_feedback_and_changes_nothing_without(researcher_client):
    campaign = make_campaign(images=2, assignments=1)
    one, two = submitted(campaign), submitted(campaign)
    page = decide(researcher_client, campaign, [one, two], "reject", feedback="  ").content.decode()
    assert f"Unchanged, assignment(s) {one.pk}, {two.pk}: Rejecting needs a feedback text" in page
    assert statuses(one, two) == [AssignmentStatus.SUBMITTED, AssignmentStatus.SUBMITTED]
    page = decide(researcher_client, campaign, [one], "reject", feedback="Not about the image.").content.decode()
    assert f"1 assignment(s) rejected: {one.pk}." in page
    rejected = Assignment.objects.get(pk=one.pk)
    assert (rejected.status, rejected.feedback) == (AssignmentStatus.REJECTED, "Not about the image.")


def test_each_refusal_is_reported_and_the_others_are_decided(researcher_client):
    campaign, other = make_campaign(images=2, assignments=1), make_campaign(images=1, assignments=1)
    waiting, done = submitted(campaign), submitted(campaign)
    approve_assignment(done)
    stranger = submitted(other)
    page = decide(researcher_client, campaign, [waiting, done, stranger], "reject",
                  feedback="Please describe the whole scene.").content.decode()
    assert f"1 assignment(s) rejected: {waiting.pk}." in page
    assert f"Unchanged, assignment(s) {done.pk}: " in page  # approved work cannot be rejected
    assert f"Unchanged, assignment(s) {stranger.pk}: not an assignment of this campaign." in page
    assert statuses(waiting, done, stranger) == [AssignmentStatus.REJECTED, AssignmentStatus.APPROVED,
                                                 AssignmentStatus.SUBMITTED]


def test_nothing_selected_or_an_unknown_action(researcher_client):
    campaign = make_campaign(images=1, assignments=1)
    one = submitted(campaign)
    page = decide(researcher_client, campaign, [], "approve").content.decode()
    assert "Select at least one assignment first." in page
    page = decide(researcher_client, campaign, [one], "delete").content.decode()
    assert "Unknown review action." in page
    assert statuses(one) == [AssignmentStatus.SUBMITTED]


def test_the_selection_endpoint_needs_a_researcher_and_a_post(researcher_client):
    campaign = make_campaign(images=1, assignments=1)
    one = submitted(campaign)
    response = Client().post(bulk_url(campaign), {"assignment": [one.pk], "action": "approve"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert researcher_client.get(bulk_url(campaign)).status_code == 405
    assert statuses(one) == [AssignmentStatus.SUBMITTED]


def test_prolific_needs_a_category_and_100_characters(prolific_fake, researcher_client,  # noqa: F811
                                                      django_capture_on_commit_callbacks):
    campaign = published_campaign(prolific_fake, images=4, assignments=1, tasks=2,
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    session = work(prolific_fake, campaign)
    sync_campaign(campaign)
    first, second = tasks_of(session)
    page = researcher_client.get(review_url(campaign)).content.decode()
    assert '<select id="bulk-category" name="category">' in page and "Low effort" in page
    assert "at least 100 characters" in page
    response = decide(researcher_client, campaign, [first, second], "reject", feedback="No.", category="LOW_EFFORT")
    assert "at least 100 characters" in response.content.decode()
    assert statuses(first, second) == [AssignmentStatus.SUBMITTED, AssignmentStatus.SUBMITTED]
    with django_capture_on_commit_callbacks(execute=True):
        decide(researcher_client, campaign, [first, second], "reject", feedback=WHY, category="FAILED_INSTRUCTIONS")
    assert statuses(first, second) == [AssignmentStatus.REJECTED, AssignmentStatus.REJECTED]
    assert Assignment.objects.get(pk=first.pk).rejection_category == "FAILED_INSTRUCTIONS"
    assert prolific_fake.submission(session.submission_id).rejection_category == "FAILED_INSTRUCTIONS"


def test_approving_first_says_how_many_are_flagged_and_by_which_check(researcher_client):
    campaign = make_campaign(images=4, assignments=1)
    good, shouted, repeated, other = (submitted(campaign), submitted(campaign, SHOUTED),
                                      submitted(campaign, REPEATED), submitted(campaign))
    assert (shouted.check_flags, repeated.check_flags) == (["mostly_uppercase"], ["repeated_words"])
    step = decide(researcher_client, campaign, [good, shouted, repeated], "approve", confirmed=False)
    page = step.content.decode()
    assert step.redirect_chain == [] and 'id="confirm-action"' in page
    assert "Approve 3 assignment(s)?" in page
    assert "2 of 3: mostly_uppercase (1), repeated_words (1)" in page
    # the box that leaves the flagged out is there and ticked; the step sends the selection on, confirmed
    assert '<input type="checkbox" name="leave_flagged" value="1" checked> Leave out the 2 flagged (approve 1)' in page
    assert page.count('<input type="hidden" name="assignment"') == 3
    assert '<input type="hidden" name="confirmed" value="1">' in page
    assert statuses(good, shouted, repeated, other) == [AssignmentStatus.SUBMITTED] * 4  # the step decides nothing


def test_the_flagged_are_left_out_when_the_box_is_ticked(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    good, shouted, repeated = submitted(campaign), submitted(campaign, SHOUTED), submitted(campaign, REPEATED)
    page = decide(researcher_client, campaign, [good, shouted, repeated], "approve", leave_flagged="1")
    text = page.content.decode()
    assert f"1 assignment(s) approved: {good.pk}." in text
    assert (f"Left out, flagged by the checks: mostly_uppercase (assignment {shouted.pk}); "
            f"repeated_words (assignment {repeated.pk}).") in text
    assert statuses(good, shouted, repeated) == [AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED,
                                                 AssignmentStatus.SUBMITTED]
    # untick the box: the flagged are approved too
    decide(researcher_client, campaign, [shouted, repeated], "approve")
    assert statuses(shouted, repeated) == [AssignmentStatus.APPROVED, AssignmentStatus.APPROVED]


def test_a_selection_without_flags_says_so(researcher_client):
    campaign = make_campaign(images=2, assignments=1)
    one, two = submitted(campaign), submitted(campaign)
    page = decide(researcher_client, campaign, [one, two], "approve", confirmed=False).content.decode()
    assert "None of them is flagged by the automatic checks." in page and "leave_flagged" not in page


def test_rejecting_is_confirmed_with_the_feedback(researcher_client):
    campaign = make_campaign(images=1, assignments=1)
    one = submitted(campaign)
    page = decide(researcher_client, campaign, [one], "reject", confirmed=False,
                  feedback="Not about the image.").content.decode()
    assert "Reject 1 assignment(s)?" in page and "Not about the image." in page
    assert '<input type="hidden" name="feedback" value="Not about the image.">' in page
    assert statuses(one) == [AssignmentStatus.SUBMITTED]


def test_the_step_of_another_campaigns_answers_is_refused(researcher_client):
    campaign, other = make_campaign(images=1, assignments=1), make_campaign(images=1, assignments=1)
    stranger = submitted(other)
    page = decide(researcher_client, campaign, [stranger], "approve", confirmed=False).content.decode()
    assert "Not possible now: none of the selected assignments is of this campaign." in page
    assert "data-confirm-submit" not in page


def test_approve_all_first_names_the_flagged_and_leaves_them_out(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    good, shouted, repeated = submitted(campaign), submitted(campaign, SHOUTED), submitted(campaign, REPEATED)
    url = reverse("campaign-approve-all", args=[campaign.pk])
    step = researcher_client.get(url).content.decode()
    assert "3 submitted assignment(s) are approved without being looked at" in step
    assert "2 of 3: mostly_uppercase (1), repeated_words (1)" in step
    assert '<input type="checkbox" name="passing" value="1" checked> Leave out the 2 flagged (approve 1)' in step
    assert statuses(good, shouted, repeated) == [AssignmentStatus.SUBMITTED] * 3  # the step decides nothing
    page = researcher_client.post(url, {"passing": "1"}, follow=True).content.decode()
    assert "1 assignment(s) approved. 2 flagged by the checks are left for you." in page
    assert statuses(good, shouted, repeated) == [AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED,
                                                 AssignmentStatus.SUBMITTED]


def test_the_campaign_page_puts_approve_all_in_the_danger_zone(researcher_client):
    campaign = make_campaign(images=1, assignments=1)
    submitted(campaign)
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    everyday, danger = page.split('<section class="danger-zone"')
    action = f'action="{reverse("campaign-approve-all", args=[campaign.pk])}"'
    assert action not in everyday and f'<form method="get" {action} data-confirm>' in danger
    assert "Approve all 1 submitted…" in danger and ">Close</button>" in danger

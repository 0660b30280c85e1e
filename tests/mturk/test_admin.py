"""The admin cannot break invariants: task kind and provider are choices of the registries, statuses change only
through the services (admin actions), computed fields are read-only; every registered model's pages load."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import models
from django.test import RequestFactory
from django.urls import reverse

from annotation.models import Box, Concept, Description
from mturk.models import (
    HIT,
    Assignment,
    Bonus,
    Campaign,
    DatasetExport,
    ImportJob,
    MarketplaceEvent,
    MarketplaceHITType,
    MarketplaceQualification,
    QualificationGrant,
)
from mturk.providers.prolific.models import ProlificStudy, ProlificSubmission
from mturk.states import AssignmentStatus, CampaignStatus
from tests.factories import label_vocabulary, make_album, make_campaign, make_image, submitted

pytestmark = pytest.mark.django_db

OUR_APPS = {"mturk", "annotation", "evaluation", "storyboard"}
REGISTERED = sorted(admin.site._registry, key=lambda model: model._meta.label)


def change_url(obj: models.Model) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def changelist_url(model: type[models.Model]) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


def one_of_each() -> None:
    """At least one row of every model our apps register in the admin."""
    campaign = make_campaign(images=1, name="Everything")
    assignment = submitted(campaign)
    Bonus.objects.create(assignment=assignment, amount=Decimal("0.50"), reason="Careful work", unique_token="t-1")
    MarketplaceHITType.objects.create(campaign=campaign, config_hash="0" * 64, external_id="TYPE1")
    qualification = MarketplaceQualification.objects.create(provider="mturk", scope="campaign:1", external_id="Q1")
    QualificationGrant.objects.create(qualification=qualification, worker=assignment.worker, granted=True)
    MarketplaceEvent.objects.create(provider="mturk", event_doc_id="doc-1", event_type="AssignmentSubmitted")
    DatasetExport.objects.create(format="coco").campaigns.add(campaign)
    ImportJob.objects.create(importer="images", file="imports/photos.zip", original_name="photos.zip")
    study = ProlificStudy.objects.create(campaign=make_campaign(images=1, publish=False, provider="prolific",
                                                                qualifications={"estimated_minutes": 2}))
    ProlificSubmission.objects.create(study=study, submission_id="S1", worker=assignment.worker,
                                      status="AWAITING REVIEW")
    image = make_image("gold.png")
    concept = Concept.objects.create(vocabulary=label_vocabulary(), name="dog")
    Box.objects.create(image=image, number=1, concept=concept, x=1, y=2, width=10, height=12)
    Description.objects.create(image=image, text="A dog.", tokens=["A", "dog", "."], source="gold")
    make_album(photos=2)


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model._meta.label)
def test_every_admin_page_loads_for_a_superuser(admin_client, model):
    one_of_each()
    assert admin_client.get(changelist_url(model)).status_code == 200
    obj = model._default_manager.first()
    if model._meta.app_label in OUR_APPS:
        assert obj is not None, f"one_of_each() makes no {model._meta.label}"
    if obj is not None:
        assert admin_client.get(change_url(obj)).status_code == 200


def form_data(obj: models.Model) -> dict[str, Any]:
    """The admin change form's fields with their current values, as the browser would post them back."""
    model_admin = admin.site._registry[type(obj)]
    request = RequestFactory().get("/")
    request.user = get_user_model().objects.get(username="admin")
    form = model_admin.get_form(request, obj)(instance=obj)
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue  # empty, or an unchecked box: not posted
        data[name] = "on" if value is True else value
    return data


def test_the_change_form_refuses_an_unknown_task_kind_or_provider(admin_client):
    campaign = make_campaign(images=1, publish=False)
    url = change_url(campaign)
    data = form_data(campaign)
    for field, value in (("task_kind", "paint_the_fence"), ("provider", "nowhere")):
        response = admin_client.post(url, {**data, field: value})
        assert response.status_code == 200  # the form again, with the error
        assert "Select a valid choice." in response.content.decode()
    stored = Campaign.objects.get(pk=campaign.pk)
    assert (stored.task_kind, stored.provider) == ("describe_image", "local")
    response = admin_client.post(url, {**data, "instructions": "Describe the whole photo."})
    assert response.status_code == 302  # the same form with only valid values is saved
    assert Campaign.objects.get(pk=campaign.pk).instructions == "Describe the whole photo."


def test_the_change_form_refuses_options_the_task_kind_does_not_have(admin_client):
    campaign = make_campaign(images=1, publish=False)
    data = form_data(campaign)
    response = admin_client.post(change_url(campaign), {**data, "options": '{"colour": "red"}'})
    assert response.status_code == 200 and "unknown option(s) for describe_image: colour" in response.content.decode()


def test_a_status_cannot_be_changed_through_the_admin_form(admin_client):
    draft = make_campaign(images=1, publish=False)
    data = form_data(draft)
    assert "status" not in data and "assignments_per_hit" not in data and "task_kind" in data
    response = admin_client.post(change_url(draft), {**data, "status": CampaignStatus.CLOSED})
    assert response.status_code == 302
    assert Campaign.objects.get(pk=draft.pk).status == CampaignStatus.DRAFT
    live = make_campaign(images=1)
    data = form_data(live)
    assert set(data) <= {"name", "instructions", "budget_cap", "auto_approve_passing"}
    response = admin_client.post(change_url(live), {**data, "status": CampaignStatus.DRAFT, "reward": "9.00",
                                                    "task_kind": "draw_boxes", "budget_cap": "5.00"})
    assert response.status_code == 302
    stored = Campaign.objects.get(pk=live.pk)
    assert (stored.status, stored.reward, stored.task_kind) == (CampaignStatus.ACTIVE, Decimal("0.10"),
                                                                "describe_image")
    assert stored.budget_cap == Decimal("5.00")  # what may change on a live campaign does


def test_assignment_and_hit_statuses_and_computed_fields_are_read_only(admin_client):
    assignment = submitted(make_campaign(images=1))
    assert form_data(assignment) == {}
    response = admin_client.post(change_url(assignment), {"status": AssignmentStatus.APPROVED,
                                                          "answer": '{"text": "forged"}'})
    assert response.status_code == 302
    stored = Assignment.objects.get(pk=assignment.pk)
    assert stored.status == AssignmentStatus.SUBMITTED and stored.answer == assignment.answer
    hit = assignment.hit
    admin_client.post(change_url(hit), {"status": "disposed", "taken_slots": "0", "max_assignments": "9"})
    stored_hit = HIT.objects.get(pk=hit.pk)
    assert (stored_hit.status, stored_hit.taken_slots, stored_hit.max_assignments) == (
        hit.status, hit.taken_slots, hit.max_assignments)


def test_records_the_services_keep_are_view_only(admin_client):
    one_of_each()
    bonus = Bonus.objects.get()
    assert admin_client.post(change_url(bonus), {"amount": "99.00", "state": "paid"}).status_code == 403
    assert Bonus.objects.get().amount == Decimal("0.50")
    for model in (Campaign, HIT, Assignment, Bonus, DatasetExport, ImportJob, ProlificStudy):
        add = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
        assert admin_client.get(add).status_code == 403  # the services create them, with what goes with them


def test_pause_and_close_go_through_the_state_machine(admin_client):
    active, draft = make_campaign(images=1), make_campaign(images=1, publish=False)
    url = changelist_url(Campaign)
    response = admin_client.post(url, {"action": "pause_campaigns", "_selected_action": [active.pk, draft.pk]},
                                 follow=True)
    page = response.content.decode()
    assert "1 campaign(s) paused." in page
    assert "cannot go from &#x27;draft&#x27; to &#x27;paused&#x27;" in page  # the state machine refused the draft
    assert Campaign.objects.get(pk=active.pk).status == CampaignStatus.PAUSED
    assert Campaign.objects.get(pk=draft.pk).status == CampaignStatus.DRAFT
    response = admin_client.post(url, {"action": "close_campaigns", "_selected_action": [active.pk]})
    assert response.status_code == 200 and "Close 1 campaign(s) for good" in response.content.decode()
    assert Campaign.objects.get(pk=active.pk).status == CampaignStatus.PAUSED  # nothing until confirmed
    admin_client.post(url, {"action": "close_campaigns", "_selected_action": [active.pk], "confirmed": "1"})
    assert Campaign.objects.get(pk=active.pk).status == CampaignStatus.CLOSED


def test_approving_selected_assignments_goes_through_the_review_service(admin_client):
    campaign = make_campaign(images=2, assignments=1)
    first, second = submitted(campaign), submitted(campaign)
    Assignment.objects.filter(pk=second.pk).update(status=AssignmentStatus.ACCEPTED)  # still being worked on
    response = admin_client.post(changelist_url(Assignment), {"action": "approve_assignments",
                                                              "_selected_action": [first.pk, second.pk]},
                                 follow=True)
    assert "1 assignment(s) approved." in response.content.decode()
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert statuses == {first.pk: AssignmentStatus.APPROVED, second.pk: AssignmentStatus.ACCEPTED}


def test_a_published_campaign_cannot_be_deleted(admin_client):
    live, draft = make_campaign(images=1), make_campaign(images=1, publish=False)
    assert admin_client.get(reverse("admin:mturk_campaign_delete", args=[live.pk])).status_code == 403
    assert admin_client.get(reverse("admin:mturk_campaign_delete", args=[draft.pk])).status_code == 200
    assert "delete_selected" not in admin_client.get(changelist_url(Campaign)).content.decode()

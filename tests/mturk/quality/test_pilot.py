"""Pilots: the setting (service, wizard, API, CLI, workflow stage) gives the first N real HITs K assignments and
marks them; pilot HITs are handed out first so two workers answer the same item; giving overlap later goes through
the add-assignments service within the budget cap; gold from approved answers."""
from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from mturk.models import HIT, Campaign, GoldItem
from mturk.quality.services.pilot import PilotError, give_overlap, plan_overlap
from mturk.services.campaigns import CampaignError, add_hits, create_campaign
from mturk.services.gold import GoldError, gold_from_approved
from mturk.states import AssignmentStatus, HITStatus
from mturk.work.services.assignments import assign_next_hit
from tests.factories import make_campaign, make_image
from tests.mturk.quality.quality_fakes import (  # noqa: F401 (text_quality is a fixture)
    answer,
    real_hits,
    text_quality,
    worker,
)

pytestmark = pytest.mark.django_db


def sizes(campaign: Campaign) -> list[tuple[int, bool]]:
    """(max_assignments, pilot) of the campaign's real HITs in position order."""
    return [(h.max_assignments, h.pilot) for h in real_hits(campaign)]


def images(n: int) -> list[dict[str, int]]:
    return [{"image": make_image(f"p{i}.png").pk} for i in range(n)]


def test_the_setting_gives_the_first_n_hits_k_assignments():
    campaign = create_campaign(name="Pilot", task_kind="describe_image", assignments_per_hit=1, items=images(5),
                               pilot_items=2, pilot_assignments=4)
    assert (campaign.pilot_items, campaign.pilot_assignments) == (2, 4)
    assert sizes(campaign) == [(4, True), (4, True), (1, False), (1, False), (1, False)]


def test_hits_added_later_continue_the_pilot_and_the_default_is_three_workers():
    campaign = create_campaign(name="Later", task_kind="describe_image", assignments_per_hit=1, items=images(1),
                               pilot_items=3)
    add_hits(campaign, [{"image": make_image(f"late{i}.png").pk} for i in range(4)])
    assert sizes(campaign) == [(3, True)] * 3 + [(1, False)] * 2


def test_a_pilot_of_one_worker_is_refused():
    with pytest.raises(CampaignError, match="pilot_assignments"):
        create_campaign(name="One", task_kind="describe_image", items=images(2), pilot_items=2, pilot_assignments=1)
    assert not Campaign.objects.exists()


def test_pilot_hits_are_handed_out_first_so_two_workers_answer_the_same_item():
    campaign = make_campaign(images=4, assignments=1, pilot_items=2, pilot_assignments=2)
    first, second = real_hits(campaign)[:2]
    a, b, c = worker("a"), worker("b"), worker("c")
    assert assign_next_hit(campaign, a).hit == first
    assert assign_next_hit(campaign, b).hit == first  # not the untouched HITs: the pilot first
    assert assign_next_hit(campaign, c).hit == second
    # without a pilot the untouched HITs come first: no overlap after three workers
    plain = make_campaign(images=4, assignments=2)
    hits = {assign_next_hit(plain, w).hit_id for w in (worker("d"), worker("e"), worker("f"))}
    assert len(hits) == 3


def test_the_api_and_the_command_take_the_setting(api):
    items = images(3)
    body = {"name": "Via API", "task_kind": "describe_image", "assignments_per_hit": 1, "items": items,
            "pilot_items": 2, "pilot_assignments": 3}
    response = api.post("/api/campaigns/", body, format="json")
    assert response.status_code == 201, response.data
    assert (response.data["pilot_items"], response.data["pilot_assignments"]) == (2, 3)
    created = Campaign.objects.get(name="Via API")
    assert sizes(created) == [(3, True), (3, True), (1, False)]
    hits = api.get(f"/api/hits/?campaign={created.pk}").data
    assert [h["pilot"] for h in hits["results"]] == [True, True, False]
    refused = api.post("/api/campaigns/", {**body, "name": "Bad", "pilot_assignments": 1}, format="json")
    assert refused.status_code == 400 and "pilot_assignments" in refused.data
    call_command("create_campaign", "--name", "Via CLI", "--kind", "describe_image", "--all-images",
                 "--assignments", "1", "--pilot-items", "2", "--pilot-workers", "3", stdout=StringIO())
    assert sizes(Campaign.objects.get(name="Via CLI")) == [(3, True), (3, True), (1, False)]


def test_a_workflow_stage_takes_the_setting(researcher_client):
    for i in range(3):
        make_image(f"w{i}.png")
    response = researcher_client.post("/campaigns/new/", {
        "step": "draft", "flow": "grounded", "source": "all_images", "provider": "local", "name": "Grounded",
        "stage-boxes-pilot_items": "2", "stage-boxes-pilot_assignments": "2"})
    assert response.status_code == 302
    boxes = Campaign.objects.get(name="Grounded · boxes")
    assert sorted(sizes(boxes)) == [(1, False), (2, True), (2, True)]


def test_the_wizard_takes_the_setting_and_explains_it(researcher_client):
    form = researcher_client.get("/campaigns/new/").content.decode()
    assert 'id="wz-pilot"' in form and "handed out first" in form and 'name="pilot_items"' in form
    for i in range(3):
        make_image(f"z{i}.png")
    post = {"flow": "campaign", "kind": "describe_image", "source": "all_images", "provider": "local",
            "name": "Wizard pilot", "assignments_per_hit": "1", "pilot_items": "2", "pilot_assignments": "3"}
    review = researcher_client.post("/campaigns/new/", {**post, "step": "review"}).content.decode()
    assert "the first 2 item(s) go to 3 workers each" in review
    assert researcher_client.post("/campaigns/new/", {**post, "step": "draft"}).status_code == 302
    assert sizes(Campaign.objects.get(name="Wizard pilot")) == [(3, True), (3, True), (1, False)]
    bad = researcher_client.post("/campaigns/new/", {**post, "name": "Bad", "pilot_assignments": "1",
                                                     "step": "review"})
    assert bad.status_code == 400 and 'id="err-pilot_assignments"' in bad.content.decode()


# ----- overlap later: through add-assignments, within the budget cap -----------------------------------------------

def test_give_overlap_extends_the_first_published_hits_and_marks_them():
    campaign = make_campaign(images=4, assignments=1)
    plan = plan_overlap(campaign, 2, 3)
    assert (plan.hits, plan.extended, plan.added, plan.new_pilot) == (2, 2, 4, 2)
    assert plan.cost == Decimal("0.40")  # 4 more assignments at 0.10, no fee locally
    done = give_overlap(campaign, 2, 3)
    assert (done.hits, done.added) == (2, 4)
    assert sizes(campaign) == [(3, True), (3, True), (1, False), (1, False)]
    campaign.refresh_from_db()
    assert (campaign.pilot_items, campaign.pilot_assignments) == (2, 3)
    assert give_overlap(campaign, 2, 3).added == 0  # again: nothing more
    first = real_hits(campaign)[0]
    assert assign_next_hit(campaign, worker("x")).hit == first and assign_next_hit(campaign, worker("y")).hit == first


def test_give_overlap_changes_draft_hits_without_a_marketplace():
    campaign = make_campaign(images=3, assignments=1, publish=False)
    give_overlap(campaign, 5, 2)
    assert sizes(campaign) == [(2, True)] * 3
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.DRAFT}


def test_give_overlap_is_refused_over_the_budget_cap_and_changes_nothing():
    campaign = make_campaign(images=3, assignments=1, budget_cap=Decimal("0.50"))
    with pytest.raises(PilotError, match="budget cap"):
        give_overlap(campaign, 3, 3)  # 0.30 committed + 0.60 more
    assert sizes(campaign) == [(1, False)] * 3
    with pytest.raises(PilotError, match="2 to 20 workers"):
        give_overlap(campaign, 3, 1)


def test_the_overlap_api_and_command(api):
    campaign = make_campaign(images=3, assignments=1)
    response = api.post(f"/api/campaigns/{campaign.pk}/quality/overlap/", {"items": 1, "workers": 2}, format="json")
    assert response.status_code == 200 and response.data == {"hits": 1, "added": 1}
    assert sizes(campaign) == [(2, True), (1, False), (1, False)]
    assert api.post(f"/api/campaigns/{campaign.pk}/quality/overlap/", {"workers": 1},
                    format="json").status_code == 400
    out = StringIO()
    call_command("show_quality_needs", str(campaign.pk), "--overlap", "3", "2", stdout=out)
    assert "The first 3 item(s)" in out.getvalue() and "Agreement: waiting" in out.getvalue()
    assert sizes(campaign) == [(2, True)] * 3


# ----- gold from approved answers -----------------------------------------------------------------------------------

@pytest.mark.usefixtures("text_quality")
def test_gold_from_approved_makes_one_per_item_the_most_agreed_first_and_then_the_next():
    campaign = make_campaign(images=3, assignments=2)
    first, second, third = real_hits(campaign)
    low = answer(first, worker("a"), "cat", status=AssignmentStatus.APPROVED)
    high = answer(first, worker("b"), "cat", status=AssignmentStatus.APPROVED)
    low.agreement, high.agreement = 0.1, 0.9
    low.save(update_fields=["agreement"])
    high.save(update_fields=["agreement"])
    answer(second, worker("a"), "sun")  # submitted, not approved: never gold
    answer(third, worker("c"), "sea", status=AssignmentStatus.APPROVED)
    made = gold_from_approved(campaign, limit=1)
    assert [(g.source_assignment_id, g.answer, g.items) for g in made] == [(high.pk, {"text": "cat"}, first.items)]
    made = gold_from_approved(campaign)
    assert [g.items for g in made] == [third.items]  # the first item is gold already
    with pytest.raises(GoldError, match="no approved answer"):
        gold_from_approved(campaign)
    assert GoldItem.objects.filter(task_kind="describe_image", purpose="gold").count() == 2


@pytest.mark.usefixtures("text_quality")
def test_the_gold_api_and_command(api):
    campaign = make_campaign(images=2, assignments=1)
    first, second = real_hits(campaign)
    answer(first, worker("a"), "cat", status=AssignmentStatus.APPROVED)
    response = api.post(f"/api/campaigns/{campaign.pk}/quality/gold-from-approved/", {}, format="json")
    assert response.status_code == 201 and len(response.data["gold_items"]) == 1
    assert api.post(f"/api/campaigns/{campaign.pk}/quality/gold-from-approved/", {},
                    format="json").status_code == 400
    answer(second, worker("b"), "sun", status=AssignmentStatus.APPROVED)
    out = StringIO()
    call_command("show_quality_needs", campaign.name, "--gold-from-approved", stdout=out)
    assert "1 gold item(s) made" in out.getvalue()
    with pytest.raises(CommandError, match="no approved answer"):
        call_command("show_quality_needs", campaign.name, "--gold-from-approved", stdout=StringIO())
    needs = api.get(f"/api/campaigns/{campaign.pk}/quality/needs/").data
    assert needs["agreement"]["state"] == "overlap" and needs["gold_accuracy"]["state"] == "approve"
    assert HIT.objects.filter(campaign=campaign, gold_item__isnull=False).count() == 0

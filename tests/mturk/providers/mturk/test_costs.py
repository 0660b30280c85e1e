"""MTurk's fees, the cost shown before publishing, and the budget cap (bonuses included)."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from mturk.models import HIT, Assignment, Bonus, Campaign, Worker
from mturk.providers.mturk.provider import MTurkProvider
from mturk.providers.registry import get_provider
from mturk.services.campaigns import (
    CampaignError,
    committed_spend,
    estimate_cost,
    plan_publication,
    publish_campaign,
)
from mturk.states import HITStatus
from tests.factories import make_campaign

from .helpers import hit_id, hit_request, hit_response, hit_type_request, type_id

D = Decimal


def campaign_with(reward: str, assignments: int = 3, **qualifications) -> Campaign:
    return Campaign(reward=D(reward), assignments_per_hit=assignments, qualifications=qualifications)


# ---- fees ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("reward", "assignments", "masters", "fee"), [
    ("0.10", 3, False, "0.02"),   # 20%
    ("0.10", 9, False, "0.02"),
    ("0.10", 10, False, "0.04"),  # 40% from 10 assignments per HIT
    ("1.00", 3, False, "0.20"),
    ("1.00", 12, False, "0.40"),
    ("1.00", 3, True, "0.25"),    # +5% with Masters
    ("1.00", 10, True, "0.45"),
    ("0.10", 3, True, "0.03"),    # 0.025 rounds half up
    ("0.02", 3, False, "0.01"),   # 0.004: the $0.01 minimum
    ("0.02", 10, False, "0.01"),  # 0.008 -> 0.01
    ("0.00", 3, False, "0.01"),
])
def test_assignment_fee(reward, assignments, masters, fee):
    spec = {"masters": True} if masters else {}
    assert MTurkProvider().assignment_fee(campaign_with(reward, assignments, **spec)) == D(fee)


def test_assignment_fee_for_a_given_number_of_assignments_per_hit():
    campaign = campaign_with("1.00", 3)
    assert MTurkProvider().assignment_fee(campaign, assignments_per_hit=10) == D("0.40")


@pytest.mark.parametrize(("amount", "fee"), [
    ("1.00", "0.20"), ("0.50", "0.10"), ("2.35", "0.47"), ("0.03", "0.01"), ("0.01", "0.01"), ("0.12", "0.02"),
])
def test_bonus_fee_is_20_percent_and_at_least_a_cent(amount, fee):
    assert MTurkProvider().bonus_fee(D(amount)) == D(fee)


def test_the_local_crowd_has_no_fees():
    local = get_provider("local")
    assert local.assignment_fee(campaign_with("1.00")) == D("0.00")
    assert local.bonus_fee(D("1.00")) == D("0.00")


# ---- estimates -------------------------------------------------------------------------------

@pytest.mark.django_db
def test_estimate_cost_counts_rewards_and_fees_per_assignment():
    campaign = make_campaign(images=2, publish=False, assignments=3, provider="mturk")
    estimate = estimate_cost(campaign, 6)
    assert (estimate.assignments, estimate.rewards, estimate.fees, estimate.total) == (
        6, D("0.60"), D("0.12"), D("0.72"))


@pytest.mark.django_db
def test_estimate_cost_with_masters_and_many_assignments():
    campaign = make_campaign(images=1, publish=False, assignments=10, provider="mturk", reward=D("0.50"),
                             qualifications={"masters": True})
    estimate = estimate_cost(campaign, 10)
    # 45% of $0.50 = $0.225 -> $0.23 per assignment
    assert (estimate.rewards, estimate.fees, estimate.total) == (D("5.00"), D("2.30"), D("7.30"))


# ---- the budget cap --------------------------------------------------------------------------

def statuses(campaign: Campaign) -> list[str]:
    return list(campaign.hits.order_by("position").values_list("status", flat=True))


@pytest.mark.django_db
def test_publishing_stops_before_crossing_the_budget_cap(django_capture_on_commit_callbacks):
    # each HIT: 3 assignments x ($0.10 + $0.02) = $0.36
    campaign = make_campaign(images=4, publish=False, assignments=3, provider="mturk", budget_cap=D("1.00"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = publish_campaign(campaign)
    assert statuses(campaign) == [HITStatus.PUBLISHED, HITStatus.PUBLISHED, HITStatus.DRAFT, HITStatus.DRAFT]
    assert (result.published, result.left_in_draft, result.stopped_by_budget) == (2, 2, True)
    assert (result.cost.assignments, result.cost.total) == (6, D("0.72"))
    assert len(callbacks) == 1  # the job that creates the two HITs on MTurk
    assert committed_spend(campaign, get_provider("mturk")) == D("0.72")


@pytest.mark.django_db
def test_a_budget_cap_reached_exactly_is_not_crossed(django_capture_on_commit_callbacks):
    campaign = make_campaign(images=3, publish=False, assignments=3, provider="mturk", budget_cap=D("0.72"))
    with django_capture_on_commit_callbacks(execute=False):
        result = publish_campaign(campaign)
    assert (result.published, result.left_in_draft) == (2, 1)


@pytest.mark.django_db
def test_a_cap_below_one_hit_is_refused_and_the_campaign_stays_a_draft(django_capture_on_commit_callbacks):
    campaign = make_campaign(images=2, publish=False, assignments=3, provider="mturk", budget_cap=D("0.35"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with pytest.raises(CampaignError, match=r"nothing to publish within its budget cap: \$0.35 \(with \$0.00 "
                                                r"committed\) leaves none of its 2 draft HIT\(s\) room"):
            publish_campaign(campaign)
    assert statuses(campaign) == [HITStatus.DRAFT, HITStatus.DRAFT]
    campaign.refresh_from_db()
    assert (campaign.status, campaign.published_at) == ("draft", None)
    assert callbacks == []


@pytest.mark.django_db
def test_only_the_hits_within_the_cap_are_created_on_mturk(stub, django_capture_on_commit_callbacks):
    campaign = make_campaign(images=3, publish=False, assignments=3, provider="mturk", budget_cap=D("0.80"))
    first, second, third = campaign.hits.order_by("position")
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, hit_type_request())
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(first, type_id(1)))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)),
                      hit_request(second, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    assert list(campaign.hits.order_by("position").values_list("external_id", "status")) == [
        (hit_id(1), HITStatus.PUBLISHED), (hit_id(2), HITStatus.PUBLISHED), ("", HITStatus.DRAFT)]


def pay_bonus(hit: HIT, amount: str) -> Bonus:
    worker = Worker.objects.create(provider="mturk", external_id=f"WORKER{hit.pk}")
    assignment = Assignment.objects.create(hit=hit, worker=worker, external_id=f"ASSIGN{hit.pk}",
                                           deadline=timezone.now())
    return Bonus.objects.create(assignment=assignment, amount=D(amount), reason="Great work",
                                unique_token=f"bonus-{hit.pk}")


@pytest.mark.django_db
def test_bonuses_and_their_fees_count_against_the_cap(django_capture_on_commit_callbacks):
    campaign = make_campaign(images=4, publish=False, assignments=3, provider="mturk", budget_cap=D("0.72"))
    mturk = get_provider("mturk")
    with django_capture_on_commit_callbacks(execute=False):
        publish_campaign(campaign)
    first = campaign.hits.order_by("position").first()
    pay_bonus(first, "0.20")  # + $0.04 fee
    pay_bonus(campaign.hits.order_by("position")[1], "0.02")  # + $0.01 minimum fee
    assert committed_spend(campaign, mturk) == D("0.72") + D("0.24") + D("0.03")

    # Raising the cap by one HIT's cost ($0.36) is not enough any more: the bonuses used $0.27 of it.
    Campaign.objects.filter(pk=campaign.pk).update(budget_cap=D("1.08"))
    campaign.refresh_from_db()
    to_publish, drafts = plan_publication(campaign, mturk)
    assert (to_publish, len(drafts)) == ([], 2)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = publish_campaign(campaign)
    assert (result.published, result.left_in_draft, result.stopped_by_budget) == (0, 2, True)
    assert (result.resumed, len(callbacks)) == (2, 1)  # the 2 HITs no job has created yet are queued again

    # With room for the bonuses and one more HIT, exactly one more HIT is published.
    Campaign.objects.filter(pk=campaign.pk).update(budget_cap=D("1.35"))
    with django_capture_on_commit_callbacks(execute=False):
        result = publish_campaign(campaign)
    assert (result.published, result.left_in_draft) == (1, 1)
    assert statuses(campaign) == [HITStatus.PUBLISHED] * 3 + [HITStatus.DRAFT]

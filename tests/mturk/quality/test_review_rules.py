"""Review rules: saving (every field checked, the marketplace's rejection rules enforced), the dry-run plan
(approve, reject, leave with why, bonus of the top share, cost, budget cap) and applying it once."""
from __future__ import annotations

from decimal import Decimal

import pytest

from mturk.models import Assignment, Bonus, Campaign, QualityDecision, QualityRule
from mturk.quality.services.computation import compute_quality
from mturk.quality.services.review_rules.applying import apply_rule
from mturk.quality.services.review_rules.planning import plan_rule
from mturk.quality.services.review_rules.rule import RuleError, save_rule
from mturk.states import AssignmentStatus

from . import quality_fakes
from .quality_fakes import REJECT_MESSAGE, rule_crowd, rule_data

text_quality, provider_calls = quality_fakes.text_quality, quality_fakes.provider_calls  # fixtures

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


@pytest.fixture
def crowd():
    return rule_crowd()


def ids(assignments):
    return sorted(a.pk for a in assignments)


def test_the_plan_approves_rejects_leaves_and_bonuses_as_worked_out_by_hand(crowd):
    campaign, people, work = crowd
    save_rule(campaign, rule_data())
    compute_quality(campaign)
    plan = plan_rule(campaign)
    assert plan.problems == [] and plan.computed_at is not None
    assert (plan.approve, plan.reject, plan.bonus, plan.left) == (6, 2, 1, 4)
    by_action: dict[str, list] = {}
    for decision in plan.decisions:
        by_action.setdefault(decision.action, []).append(decision)
    assert sorted(d.assignment_id for d in by_action["approve"]) == ids(work["good1"] + work["good2"])
    assert sorted(d.assignment_id for d in by_action["reject"]) == ids(work["bad"])
    assert {d.message for d in by_action["reject"]} == {REJECT_MESSAGE}
    assert by_action["reject"][0].evidence["why"] == ["gold accuracy 0.00 < 0.5"]
    [bonus] = by_action["bonus"]
    assert (bonus.worker, bonus.key, bonus.amount) == ("good1", f"bonus:{campaign.pk}:{people['good1'].pk}",
                                                        Decimal("0.50"))
    assert bonus.assignment_id == work["good1"][-1].pk  # the latest of the work to be approved
    assert (bonus.evidence["rank"], bonus.evidence["ranked"], bonus.evidence["top"]) == (1, 2, 1)
    assert bonus.evidence["agreement"] == pytest.approx(2 / 3)
    leaves = {(d.worker, tuple(d.evidence["why"])) for d in plan.leaves}
    assert leaves == {("unsure", ("gold accuracy 0.60 < 0.8",)),
                      ("newbie", ("0 scored gold item(s), the rule needs 1",))}
    assert plan.cost == Decimal("1.10")  # 6 approvals at 0.10 and a 0.50 bonus; the local crowd has no fees
    assert Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED).count() == 12


def test_too_few_items_leave_a_bound_unchecked(crowd):
    campaign, _, _ = crowd
    save_rule(campaign, rule_data(min_gold_items=2))  # nobody has 2 scored gold answers
    compute_quality(campaign)
    plan = plan_rule(campaign)
    assert (plan.approve, plan.reject, plan.bonus, plan.left) == (0, 0, 0, 12)
    assert {tuple(d.evidence["why"]) for d in plan.leaves if d.worker == "bad"} == {
        ("1 scored gold item(s), the rule needs 2", "agreement 0.00 < 0.3")}


def test_an_agreement_bound_alone_rejects_and_approves(crowd):
    campaign, _, _ = crowd
    save_rule(campaign, rule_data(approve_min_gold=None, reject_below_gold=None, approve_min_agreement=0.5,
                                  reject_below_agreement=0.1, bonus_top_share=None, bonus_amount=None,
                                  bonus_reason=""))
    compute_quality(campaign)
    plan = plan_rule(campaign)
    # good1, unsure, newbie at 0.67 approved (3 + 3 + 1); bad at 0 rejected (2); good2 at 0.33 left (3)
    assert (plan.approve, plan.reject, plan.bonus, plan.left) == (7, 2, 0, 3)


def test_the_plan_says_when_nothing_was_computed_and_when_there_is_no_rule(crowd):
    campaign, _, _ = crowd
    assert plan_rule(campaign).problems == ["This campaign has no review rule."]
    save_rule(campaign, rule_data())
    plan = plan_rule(campaign)
    assert plan.computed_at is None and "not been computed" in plan.problems[0]
    assert (plan.approve, plan.reject, plan.left) == (0, 0, 12)


def test_apply_makes_each_decision_once_with_its_marketplace_call(crowd, provider_calls):
    campaign, people, work = crowd
    save_rule(campaign, rule_data())
    result = apply_rule(campaign, source="api")
    assert (result.done, result.failed, result.skipped) == (9, {}, 0)
    approvals = [target for name, target in provider_calls if name == "approve"]
    assert sorted(approvals) == ids(work["good1"] + work["good2"])
    assert sorted(t for n, t in provider_calls if n == "reject") == ids(work["bad"])
    assert len([n for n, _ in provider_calls if n == "bonus"]) == 1
    # the approvals are handed off once as a batch; each rejection hands itself off
    assert [n for n, _ in provider_calls].count("decisions_recorded") == 3
    for assignment in work["bad"]:
        assignment.refresh_from_db()
        assert (assignment.status, assignment.feedback) == (AssignmentStatus.REJECTED, REJECT_MESSAGE)
    [bonus] = Bonus.objects.filter(assignment__hit__campaign=campaign)
    assert (bonus.assignment_id, bonus.amount, bonus.paid) == (work["good1"][-1].pk, Decimal("0.50"), True)
    left = Assignment.objects.filter(worker__in=[people["unsure"], people["newbie"]])
    assert set(left.values_list("status", flat=True)) == {AssignmentStatus.SUBMITTED}

    provider_calls.clear()
    again = apply_rule(campaign, source="periodic")
    assert (again.done, again.failed) == (0, {}) and provider_calls == []
    assert Bonus.objects.filter(assignment__hit__campaign=campaign).count() == 1
    assert QualityDecision.objects.filter(campaign=campaign).count() == 9


def test_prolific_rejections_are_checked_when_the_rule_is_saved(db):
    campaign = Campaign.objects.create(name="on prolific", task_kind="describe_image", provider="prolific",
                                       reward=Decimal("1.00"))
    with pytest.raises(RuleError) as short:
        save_rule(campaign, rule_data(reject_message="Too many wrong answers.", reject_category="LOW_EFFORT"))
    assert short.value.field == "reject_message" and "at least 100 characters" in short.value.message
    with pytest.raises(RuleError) as uncategorised:
        save_rule(campaign, rule_data())
    assert uncategorised.value.field == "reject_category" and "category" in str(uncategorised.value)
    assert not QualityRule.objects.filter(campaign=campaign).exists()
    rule = save_rule(campaign, rule_data(reject_category="failed_check"))
    assert (rule.reject_category, rule.reject_message) == ("FAILED_CHECK", REJECT_MESSAGE)


@pytest.mark.parametrize(("fields", "field", "words"), [
    ({"approve_min_gold": 1.5}, "approve_min_gold", "from 0 to 1"),
    ({"approve_min_agreement": -1.5}, "approve_min_agreement", "from -1 to 1"),
    ({"reject_below_gold": "lots"}, "reject_below_gold", "number"),
    ({"reject_below_gold": 0.9}, "reject_below_gold", "approved and rejected at once"),
    ({"reject_message": "  "}, "reject_message", "needs the message"),
    ({"min_gold_items": 0}, "min_gold_items", "from 1 to 32767"),
    ({"min_items": "two"}, "min_items", "whole number"),
    ({"bonus_amount": None}, "bonus_amount", "needs an amount"),
    ({"bonus_amount": "0.505"}, "bonus_amount", "2 decimals"),
    ({"bonus_amount": "-1"}, "bonus_amount", "at least 0.01"),
    ({"bonus_reason": ""}, "bonus_reason", "reason"),
    ({"bonus_top_share": 0}, "bonus_top_share", "share"),
    ({"enabled": "maybe"}, "enabled", "true or false"),
    ({"colour": "red"}, "colour", "unknown rule field"),
])
def test_a_bad_field_is_named_and_nothing_is_saved(crowd, fields, field, words):
    campaign, _, _ = crowd
    with pytest.raises(RuleError) as refused:
        save_rule(campaign, rule_data(**fields))
    assert refused.value.field == field and words in refused.value.message
    assert not QualityRule.objects.filter(campaign=campaign).exists()


def test_saving_again_changes_only_the_given_fields_and_empty_clears_a_bound(crowd):
    campaign, _, _ = crowd
    save_rule(campaign, rule_data(enabled=True))
    rule = save_rule(campaign, {"approve_min_agreement": "", "min_items": "3"})
    assert (rule.enabled, rule.approve_min_gold, rule.approve_min_agreement, rule.min_items) == (True, 0.8, None, 3)
    assert QualityRule.objects.filter(campaign=campaign).count() == 1


def test_bonuses_over_the_budget_cap_are_left_out_and_said(crowd, provider_calls):
    campaign, _, _ = crowd
    # committed: 2 real HITs and the gold HIT, 4 slots each at 0.10 = 1.20; the bonus would make it 1.70
    Campaign.objects.filter(pk=campaign.pk).update(budget_cap=Decimal("1.50"))
    campaign.refresh_from_db()
    save_rule(campaign, rule_data())
    compute_quality(campaign)
    plan = plan_rule(campaign)
    assert plan.bonus == 0 and plan.cost == Decimal("0.60")
    assert len(plan.problems) == 1 and "$1.70, over its budget cap of $1.50" in plan.problems[0]
    result = apply_rule(campaign, source="command")
    assert result.done == 8 and not Bonus.objects.exists()
    assert "bonus" not in [name for name, _ in provider_calls]


prolific_fake = __import__("tests.prolific_fake.fixtures", fromlist=["prolific_fake"]).prolific_fake  # fixture


def test_on_prolific_approvals_go_in_one_call_rejections_with_category_and_nothing_twice(
        prolific_fake, django_capture_on_commit_callbacks):
    """Three participants describe the same photo alike; hand-set gold scores 1, 1, 0: two approved in one bulk
    call, one rejected with the rule's category and message, the better-ranked (tie: first) bonused once."""
    from mturk.work.services.marketplace_sync import sync_campaign
    from tests.mturk.providers.prolific.study_helpers import WHY, published_campaign, tasks_of, work

    campaign = published_campaign(prolific_fake, images=1, assignments=3, tasks=1,
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    sessions = [work(prolific_fake, campaign) for _ in range(3)]
    sync_campaign(campaign)
    tasks = [tasks_of(s)[0] for s in sessions]
    for task, score in zip(tasks, (1.0, 1.0, 0.0), strict=True):
        Assignment.objects.filter(pk=task.pk).update(gold_score=score)
    save_rule(campaign, rule_data(reject_message=WHY, reject_category="low_effort", approve_min_agreement=None,
                                  bonus_top_share=0.34, bonus_amount="0.20"))
    with django_capture_on_commit_callbacks(execute=True):
        result = apply_rule(campaign, source="api")
    assert (result.done, result.failed) == (4, {})
    assert [sorted(ids) for ids in prolific_fake.bulk_approvals] == [
        sorted(s.submission_id for s in sessions[:2])]
    rejected = prolific_fake.submission(sessions[2].submission_id)
    assert (rejected.status, rejected.rejection_category, rejected.message) == ("REJECTED", "LOW_EFFORT", WHY)
    [bonus] = Bonus.objects.filter(assignment__hit__campaign=campaign)
    assert bonus.assignment_id == min(tasks[:2], key=lambda t: t.worker_id).pk and bonus.amount == Decimal("0.20")
    assert bonus.paid and len(prolific_fake.received("POST", "submissions/bonus-payments")) == 1
    assert len(prolific_fake.received("POST", "bulk-bonus-payments/{id}/pay")) == 1
    posts = len(prolific_fake.received("POST"))
    with django_capture_on_commit_callbacks(execute=True):
        again = apply_rule(campaign, source="periodic")
    assert (again.done, again.failed) == (0, {})
    assert len(prolific_fake.received("POST")) == posts  # nothing sent twice
    assert len(prolific_fake.bulk_approvals) == 1


def test_a_preview_never_asks_the_marketplace_for_its_fees(prolific_fake, crowd):
    from tests.mturk.providers.prolific.study_helpers import WHY

    campaign, _, _ = crowd
    Campaign.objects.filter(pk=campaign.pk).update(provider="prolific")  # no study yet: its fees are not known
    campaign.refresh_from_db()
    save_rule(campaign, rule_data(reject_message=WHY, reject_category="LOW_EFFORT"))
    compute_quality(campaign)
    plan = plan_rule(campaign)
    assert plan.problems == ["The marketplace's fees are not known yet: the cost leaves them out, and the budget "
                             "cap is checked when the rule is applied."]
    assert (plan.approve, plan.reject, plan.bonus, plan.cost) == (6, 2, 1, Decimal("1.10"))
    assert prolific_fake.calls == []

"""The audit of a rule's decisions: one QualityDecision per decision with the evidence and the rule behind it,
stored before the marketplace call; a run that stopped half-way is finished without repeating a call; a
decision a person made meanwhile is left as it is."""
from __future__ import annotations

from decimal import Decimal

import pytest

from mturk.models import Bonus, QualityDecision
from mturk.models.quality import DecisionState
from mturk.quality.services.review_rules import applying
from mturk.quality.services.review_rules.applying import apply_rule
from mturk.quality.services.review_rules.planning import plan_rule
from mturk.quality.services.review_rules.rule import rule_snapshot, save_rule
from mturk.selectors.quality import decisions as decision_page
from mturk.services.review import grant_bonus, reject_assignment
from mturk.states import AssignmentStatus

from . import quality_fakes
from .quality_fakes import REJECT_MESSAGE, rule_crowd, rule_data

text_quality, provider_calls = quality_fakes.text_quality, quality_fakes.provider_calls  # fixtures
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


@pytest.fixture
def crowd():
    return rule_crowd()


def test_every_decision_is_audited_with_its_evidence_and_the_rule(crowd, researcher):
    campaign, people, work = crowd
    rule = save_rule(campaign, rule_data(), user=researcher)
    apply_rule(campaign, source="console", user=researcher)
    records = {r.key: r for r in QualityDecision.objects.filter(campaign=campaign)}
    assert len(records) == 9
    rejection = records[f"reject:{work['bad'][0].pk}"]
    assert (rejection.action, rejection.state, rejection.source, rejection.decided_by) == (
        "reject", DecisionState.DONE, "console", researcher)
    assert rejection.message == REJECT_MESSAGE and rejection.done_at is not None and rejection.error == ""
    evidence = rejection.evidence
    assert (evidence["gold_accuracy"], evidence["gold_items"], evidence["agreement"],
            evidence["compared_items"]) == (0.0, 1, 0.0, 1)
    assert evidence["why"] == ["gold accuracy 0.00 < 0.5"]
    assert rejection.rule["id"] == rule.pk and rejection.rule["reject_below_gold"] == 0.5
    assert rejection.rule["bonus_amount"] == "0.50"
    bonus = records[f"bonus:{campaign.pk}:{people['good1'].pk}"]
    assert (bonus.amount, bonus.message, bonus.assignment_id) == (
        Decimal("0.50"), "Among the most careful workers of this campaign.", work["good1"][-1].pk)
    assert bonus.evidence["rank"] == 1
    page = decision_page(campaign)
    assert page.paginator.count == 9 and page.object_list[0].worker.external_id


def test_a_decision_a_person_made_meanwhile_is_left_as_it_is(crowd, provider_calls, monkeypatch):
    campaign, people, work = crowd
    save_rule(campaign, rule_data())
    by_hand = work["good2"][0]
    real_plan = applying.plan_rule

    def plan_then_a_person_rejects(c, **options):
        plan = real_plan(c, **options)
        reject_assignment(by_hand, "Looked at by a person: the caption is about another picture.")
        return plan

    monkeypatch.setattr(applying, "plan_rule", plan_then_a_person_rejects)
    result = apply_rule(campaign, source="api")
    assert (result.done, result.skipped, result.failed) == (8, 1, {})
    by_hand.refresh_from_db()
    assert by_hand.status == AssignmentStatus.REJECTED  # not overridden by the rule's approval
    assert ("approve", by_hand.pk) not in provider_calls
    assert not QualityDecision.objects.filter(key=f"approve:{by_hand.pk}").exists()


def test_a_run_that_stopped_half_way_is_finished_without_a_second_call(crowd, provider_calls):
    campaign, people, work = crowd
    save_rule(campaign, rule_data())
    from mturk.quality.services.computation import compute_quality

    compute_quality(campaign)
    plan = plan_rule(campaign)
    snapshot = rule_snapshot(campaign.quality_rule)
    by_key = {d.key: d for d in plan.decisions}
    # stopped after storing an approval decision, before its call
    pending = by_key[f"approve:{work['good1'][0].pk}"]
    applying._record(campaign, pending, snapshot, "periodic", None)
    # stopped after the bonus was stored and paid, before the decision was marked done
    bonus_decision = by_key[f"bonus:{campaign.pk}:{people['good1'].pk}"]
    record, _ = applying._record(campaign, bonus_decision, snapshot, "periodic", None)
    grant_bonus(work["good1"][-1], Decimal("0.50"), bonus_decision.message, token=applying.bonus_token(record))
    provider_calls.clear()
    result = apply_rule(campaign, source="periodic")
    assert result.done == 9 and result.failed == {}
    assert [t for n, t in provider_calls if n == "approve"].count(work["good1"][0].pk) == 1
    assert "bonus" not in [n for n, _ in provider_calls]  # paid already: not paid again
    assert Bonus.objects.filter(assignment__hit__campaign=campaign).count() == 1
    record.refresh_from_db()
    assert record.state == DecisionState.DONE


def test_a_refused_call_is_audited_as_failed_and_tried_again_next_time(crowd, monkeypatch):
    campaign, _, work = crowd
    save_rule(campaign, rule_data())
    from mturk.providers.base import ProviderError
    from mturk.providers.local.provider import LocalProvider

    down = [True]

    def refuse(self, assignment, feedback):
        if down:
            raise ProviderError("the marketplace is down")

    monkeypatch.setattr(LocalProvider, "reject", refuse)
    result = apply_rule(campaign, source="api")
    keys = [f"reject:{a.pk}" for a in work["bad"]]
    assert result.failed == {key: "the marketplace is down" for key in keys} and result.done == 7
    failed = QualityDecision.objects.get(key=keys[0])
    assert (failed.state, failed.error, failed.done_at) == (DecisionState.FAILED, "the marketplace is down", None)
    down.clear()  # the marketplace is back
    again = apply_rule(campaign, source="api")
    assert (again.done, again.failed) == (2, {})
    failed.refresh_from_db()
    assert failed.state == DecisionState.DONE and failed.error == ""


def test_one_application_at_a_time_on_postgresql(crowd, api):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the advisory lock is PostgreSQL's (SQLite writes one transaction at a time)")
    import psycopg2

    campaign, _, _ = crowd
    save_rule(campaign, rule_data())
    params = connection.get_connection_params()
    other = psycopg2.connect(**{k: v for k, v in params.items() if k in ("dbname", "user", "host", "port",
                                                                        "password")})
    try:
        with other.cursor() as cursor:  # another job is applying the rule
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [applying._LOCK_SPACE, campaign.pk % 2**31])
        with pytest.raises(applying.RuleBusy, match="being applied right now"):
            apply_rule(campaign, source="console")
        busy = api.post(f"/api/campaigns/{campaign.pk}/review-rule/apply/")
        assert busy.status_code == 409 and "being applied right now" in busy.json()["detail"]
        assert not QualityDecision.objects.exists()
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [applying._LOCK_SPACE, campaign.pk % 2**31])
    finally:
        other.close()
    assert apply_rule(campaign, source="console").done == 9


def test_a_bonus_the_marketplace_refused_is_paid_next_time_under_the_same_token(crowd, monkeypatch):
    campaign, people, _ = crowd
    save_rule(campaign, rule_data())
    from mturk.providers.base import ProviderError
    from mturk.providers.local.provider import LocalProvider

    down, paid = [True], []

    def bonus(self, bonus):
        if down:
            raise ProviderError("the marketplace is down")
        paid.append(bonus.unique_token)

    monkeypatch.setattr(LocalProvider, "bonus", bonus)
    key = f"bonus:{campaign.pk}:{people['good1'].pk}"
    first = apply_rule(campaign, source="api")
    assert key in first.failed and "recorded but not paid yet" in first.failed[key]
    stored = Bonus.objects.get(assignment__hit__campaign=campaign)
    record = QualityDecision.objects.get(key=key)
    assert (stored.paid, stored.unique_token) == (False, applying.bonus_token(record))
    down.clear()
    again = apply_rule(campaign, source="api")
    assert key not in again.failed
    assert paid == [stored.unique_token]  # the stored bonus paid once, no second bonus
    assert list(Bonus.objects.filter(assignment__hit__campaign=campaign).values_list("pk", "paid")) == [
        (stored.pk, True)]

"""Onboarding: each worker first does the campaign's onboarding HITs (every worker once, never in the normal
queue); a mean score below the pass mark ends their work politely; only providers that let this server route
workers may have it; onboarding HITs are published with the campaign but cost only what workers take."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mturk.models import HIT, Assignment, Campaign
from mturk.providers.registry import get_provider
from mturk.selectors.publication import preview_publication
from mturk.services.campaigns import CampaignError, committed_spend, create_campaign, publish_campaign
from mturk.states import HITStatus
from mturk.work.services.assignments import (
    NoTaskAvailable,
    assign_next_hit,
    new_local_worker,
    return_assignment,
    submit_answer,
)
from mturk.work.services.slots import candidate_hits
from tests.factories import make_image

from . import gold_kind
from .gold_kind import BAD, GOOD, HALF, gold_item

pytestmark = pytest.mark.django_db
required_words = gold_kind.required_words  # fixture
no_quality = gold_kind.no_quality  # fixture

FAILED = ("Thank you for doing the qualifying tasks. Your answers did not match what this campaign needs closely "
          "enough, so it cannot offer you more tasks. We appreciate your time.")


def onboarding_campaign(real: int = 2, k: int = 2, publish: bool = True, **fields) -> Campaign:
    for words in (("dog", "beach"), ("cat", "sofa"), ("sun", "sea"))[:max(k, 1)]:
        gold_item(words, purpose="onboarding")
    campaign = create_campaign(name=f"onboarding {real}", task_kind="describe_image", assignments_per_hit=2,
                               reward=Decimal("0.10"), onboarding_items=k,
                               items=[{"image": make_image().pk} for _ in range(real)], **fields)
    if publish:
        publish_campaign(campaign)
        campaign.refresh_from_db()
    return campaign


def do(campaign: Campaign, worker, text: str) -> Assignment:
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer={"text": text}).assignment


def test_onboarding_hits_are_made_at_creation(required_words):
    campaign = onboarding_campaign(real=2, k=2, publish=False)
    rows = list(campaign.hits.order_by("position").values_list("position", "onboarding", "max_assignments"))
    assert rows == [(1, True, 32767), (2, True, 32767), (3, False, 2), (4, False, 2)]
    onboarding = campaign.hits.filter(onboarding=True).order_by("position")
    firsts = list(onboarding.values_list("gold_item__answer", flat=True))
    assert firsts == [{"words": ["dog", "beach"]}, {"words": ["cat", "sofa"]}]


def test_a_worker_does_the_onboarding_hits_in_order_then_real_ones(required_words):
    campaign = onboarding_campaign()
    worker = new_local_worker()
    first = do(campaign, worker, GOOD)
    second = do(campaign, worker, HALF)  # 0 of cat, sofa
    assert [first.hit.position, second.hit.position] == [1, 2]
    assert [first.gold_score, second.gold_score] == [1.0, 0.0]  # mean 0.5 < 0.8
    with pytest.raises(NoTaskAvailable) as refused:
        assign_next_hit(campaign, worker)
    assert str(refused.value) == FAILED
    with pytest.raises(NoTaskAvailable, match="did not match"):  # and stays refused
        assign_next_hit(campaign, worker)
    assert Assignment.objects.filter(worker=worker).count() == 2


def test_a_worker_who_passes_goes_on_to_real_tasks(required_words):
    campaign = onboarding_campaign(onboarding_pass=0.5)
    worker = new_local_worker()
    do(campaign, worker, GOOD)
    do(campaign, worker, HALF)  # mean 0.5: passes a pass mark of 0.5
    real = assign_next_hit(campaign, worker)
    assert (real.hit.onboarding, real.hit.position) == (False, 3)
    other = new_local_worker()  # every worker does the same onboarding HITs
    assert assign_next_hit(campaign, other).hit.position == 1


def test_onboarding_hits_are_never_in_the_normal_queue(required_words):
    campaign = onboarding_campaign(real=1, k=1)
    worker = new_local_worker()
    assert list(candidate_hits(campaign, worker, limit=20).values_list("onboarding", flat=True)) == [False]


def test_a_returned_onboarding_task_ends_the_workers_onboarding(required_words):
    campaign = onboarding_campaign(k=1)
    worker = new_local_worker()
    taken = assign_next_hit(campaign, worker)
    return_assignment(assignment_id=taken.pk, worker_external_id=worker.external_id)
    with pytest.raises(NoTaskAvailable, match="one of yours was returned or ran out of time"):
        assign_next_hit(campaign, worker)


def test_onboarding_tasks_do_not_count_against_the_per_worker_limit(required_words):
    campaign = onboarding_campaign(k=1, max_assignments_per_worker=1)
    worker = new_local_worker()
    do(campaign, worker, GOOD)
    assert not do(campaign, worker, GOOD).hit.onboarding
    with pytest.raises(NoTaskAvailable, match="maximum of 1 tasks"):
        assign_next_hit(campaign, worker)


def queries_of_next_hit(campaign: Campaign, worker) -> int:
    with CaptureQueriesContext(connection) as captured:
        assignment = assign_next_hit(campaign, worker, expire=False)
    submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id, answer={"text": GOOD})
    return len(captured.captured_queries)


def test_routing_costs_the_same_few_queries_at_every_step_and_size(required_words):
    small = onboarding_campaign(real=2, k=2, onboarding_pass=0.5)  # GOOD says dog and beach, not cat and sofa
    large = onboarding_campaign(real=12, k=2, onboarding_pass=0.5)
    counts = []
    for campaign in (small, large):
        worker = new_local_worker()
        counts.append([queries_of_next_hit(campaign, worker) for _ in range(3)])  # 2 onboarding, then 1 real
    assert counts[0] == counts[1]
    onboarding_step, real_step = counts[0][0], counts[0][2]
    assert counts[0][1] == onboarding_step
    # onboarding: open assignment, the worker's onboarding (count and mean), the next onboarding HIT, then the
    # slot (savepoint, lock, count, insert, counter, release); a real task: the onboarding check replaces the next
    # onboarding HIT by the candidates query, after the worker's confirmed records and their groups
    # (slots.groups_done_elsewhere: the worker has records, the onboarding ones)
    assert onboarding_step == 9 and real_step == 11


def test_mturk_cannot_have_onboarding(required_words):
    gold_item(purpose="onboarding")
    with pytest.raises(CampaignError) as refused:
        create_campaign(name="turk", task_kind="describe_image", provider="mturk", onboarding_items=1)
    assert str(refused.value) == ("mturk hands out its HITs itself, so it cannot route a worker to onboarding items "
                                  "first; onboarding needs a provider whose workers this server routes (local, "
                                  "prolific)")
    local = create_campaign(name="moving", task_kind="describe_image", onboarding_items=1,
                            items=[{"image": make_image().pk}])
    with pytest.raises(CampaignError, match="cannot route workers to its onboarding items first"):
        publish_campaign(local, "mturk")
    assert set(local.hits.values_list("status", flat=True)) == {HITStatus.DRAFT}
    assert get_provider("prolific").creates_hits is False
    create_campaign(name="prolific", task_kind="describe_image", provider="prolific", onboarding_items=1)


def test_too_few_onboarding_items_are_refused(required_words):
    gold_item(purpose="onboarding")
    gold_item()  # a gold item is not an onboarding item
    with pytest.raises(CampaignError, match="2 onboarding item.s. asked for, but describe_image has 1 active "
                                            "onboarding gold item"):
        create_campaign(name="short", task_kind="describe_image", onboarding_items=2)
    assert not Campaign.objects.exists()


def test_a_kind_without_gold_scoring_cannot_have_onboarding(no_quality):
    with pytest.raises(CampaignError, match="has no gold scoring, so it cannot take gold or onboarding items"):
        create_campaign(name="plain", task_kind="describe_image", onboarding_items=1)


def test_onboarding_hits_are_published_but_cost_only_what_workers_take(required_words):
    campaign = onboarding_campaign(real=2, k=2, publish=False)
    preview = preview_publication(campaign)
    assert len(preview.drafts) == 2 and preview.all_drafts.rewards == Decimal("0.40")  # 2 real HITs x 2 x 0.10
    result = publish_campaign(campaign)
    campaign.refresh_from_db()
    assert result.published == 2 and result.left_in_draft == 0
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.PUBLISHED}
    provider = get_provider("local")
    assert committed_spend(campaign, provider) == Decimal("0.40")
    do(campaign, new_local_worker(), BAD)  # one onboarding slot taken
    assert committed_spend(campaign, provider) == Decimal("0.50")
    assert HIT.objects.filter(campaign=campaign, onboarding=True, taken_slots=1).count() == 1


def test_a_prolific_study_asks_for_the_real_slots_only(required_words):
    from mturk.providers.prolific.studies import open_slots

    campaign = onboarding_campaign(real=3, k=1, publish=False, provider="prolific")
    HIT.objects.filter(campaign=campaign).update(status=HITStatus.PUBLISHED)
    assert open_slots(campaign) == 6  # 3 real HITs x 2 assignments; the onboarding HIT's 32767 slots are not places


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the partial index's use is PostgreSQL's plan")
def test_the_candidates_query_can_use_the_open_slots_index(required_words):
    """The index's condition leaves onboarding HITs out: the query must say onboarding=False for its predicate to
    be implied (with sequential scans off, the plan then walks hit_open_slots)."""
    campaign = onboarding_campaign(real=3, k=1)
    sql, params = candidate_hits(campaign, new_local_worker(), limit=20).values_list("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "hit_open_slots" in plan, plan


def test_onboarding_hits_are_no_part_of_the_work_to_do_nor_of_added_assignments(required_words):
    from mturk.selectors.campaigns import campaigns_with_progress
    from mturk.services.hits import added_assignments_cost

    campaign = onboarding_campaign(real=2, k=2)
    assert campaigns_with_progress().get(pk=campaign.pk).required == 2 * 2  # the real HITs' assignments only
    added = added_assignments_cost(campaign, 1)
    assert added.hits == 2  # one more assignment on each real HIT, none on the onboarding HITs

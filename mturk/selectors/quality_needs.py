"""What a campaign's missing quality figures need: for agreement, items answered by two workers (overlap: a pilot);
for gold accuracy, gold HITs with known answers (gold made from approved answers). Read from the campaign's HITs
and answers as they are now, not from the last computation, so the quality page can say what would produce a
missing figure before anything is computed. A constant number of queries, whatever the campaign's size."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, Count, F, Q, QuerySet

from ..measures import has_quality
from ..models import HIT, Assignment, Campaign, GoldItem, WorkerScore
from ..models.quality import GoldPurpose
from ..states import ANSWERED, AssignmentStatus
from ..task_kinds import get_task_kind
from .quality import CampaignQualityView

PILOT_ITEMS = 10  # what the page offers when no item can have two answers: the first 10 items...
PILOT_WORKERS = 3  # ... to 3 workers each (services.pilot.give_overlap)
GOLD_FROM_APPROVED = 10  # how many approved answers the page's button makes gold (services.gold.gold_from_approved)

# A figure's state: shown, or what would produce it
SHOWN = "shown"
COMPUTE = "compute"  # the data is there: compute quality
WAITING = "waiting"  # the campaign is set up for it: answers will produce it
NEEDS_OVERLAP = "overlap"  # no item can have two answers: give items to more workers (a button)
NEEDS_GOLD = "gold"  # no gold HIT: make gold from approved answers (a button)
NEEDS_APPROVED = "approve"  # no gold and no approved answer to make it from: review first
NO_MEASURE = "none"  # the task kind has no such measure


@dataclass(frozen=True)
class Need:
    figure: str  # as the page names it
    anchor: str  # the id of its explanation on the page
    state: str
    text: str  # what would produce it (or why it shows)

    @property
    def missing(self) -> bool:
        return self.state != SHOWN


@dataclass(frozen=True)
class QualityNeeds:
    agreement: Need
    gold: Need
    overlapped_items: int  # real HITs with answers from two or more workers
    pilot_hits: int
    pilot_workers: int
    approved_answers: int  # approved answers (one per item) that could become gold
    overlap_items: int  # what the overlap button offers
    overlap_workers: int
    gold_limit: int  # what the gold button makes at most
    lowest: WorkerScore | None  # the worker with the lowest agreement (the first to look at), .worker loaded
    mean_agreement: float | None  # the mean of the workers' agreement

    @property
    def missing(self) -> list[Need]:
        return [need for need in (self.agreement, self.gold) if need.missing]


def approved_for_gold(campaign: Campaign) -> QuerySet[Assignment]:
    """The campaign's approved answers that could become gold: confirmed, to real HITs whose items were not made
    gold from this campaign yet; the highest agreement first (unmeasured last), then by HIT position."""
    made = GoldItem.objects.filter(source_assignment__hit__campaign=campaign, purpose=GoldPurpose.GOLD)
    return (Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.APPROVED, confirmed=True,
                                      hit__gold_item__isnull=True, hit__onboarding=False, answer__isnull=False)
            .exclude(hit_id__in=made.values("source_assignment__hit_id"))
            .order_by(F("agreement").desc(nulls_last=True), "hit__position", "hit_id", "pk"))


def _agreement(campaign: Campaign, overlapped: int, several: int, pilot: int, measured: bool) -> Need:
    def need(state: str, text: str) -> Need:
        return Need("Agreement", "need-agreement", state, text)

    if not has_quality(campaign.task_kind):
        return need(NO_MEASURE, f"{campaign.task_kind} has no agreement measure: gold, time and pay figures only.")
    if measured:
        return need(SHOWN, f"{overlapped} item(s) have answers from two or more workers.")
    if overlapped:
        return need(COMPUTE, f"{overlapped} item(s) have answers from two or more workers: compute quality to see "
                             "agreement per item and per worker.")
    if several and pilot:
        return need(WAITING, f"{several} HIT(s) take several workers ({pilot} pilot HIT(s), handed out first), but "
                             "no item has answers from two workers yet: agreement appears once a second worker "
                             "answers one.")
    if several:  # without a pilot every item gets its first answer before any gets a second
        return need(NEEDS_OVERLAP, f"{several} HIT(s) take several workers, but no item has answers from two "
                                   "workers yet, and each item gets its first answer before any gets a second. A "
                                   "pilot brings agreement sooner: give the first "
                                   f"{campaign.pilot_items or PILOT_ITEMS} items to "
                                   f"{max(campaign.pilot_assignments, PILOT_WORKERS)} workers each, handed out first.")
    return need(NEEDS_OVERLAP, "Needs overlap: every item goes to one worker, so no answer can be compared with "
                               f"another. Give the first {campaign.pilot_items or PILOT_ITEMS} items to "
                               f"{max(campaign.pilot_assignments, PILOT_WORKERS)} workers each (a pilot).")


def _gold(campaign: Campaign, view: CampaignQualityView, approved: int, active_gold: int) -> Need:
    def need(state: str, text: str) -> Need:
        return Need("Gold accuracy", "need-gold", state, text)

    if not has_quality(campaign.task_kind):
        return need(NO_MEASURE, f"{campaign.task_kind} has no gold scoring.")
    if view.gold_answers:
        if view.summary is None:
            return need(COMPUTE, f"{view.gold_answers} gold answer(s) scored: compute quality to see gold accuracy.")
        return need(SHOWN, f"{view.gold_answers} gold answer(s) scored.")
    if view.gold_hits:
        return need(WAITING, f"{view.gold_hits} gold HIT(s) are mixed in; gold accuracy appears as workers answer "
                             "them.")
    exist = (f" {active_gold} active gold item(s) of {campaign.task_kind} exist already." if active_gold else "")
    later = (" A campaign created with a gold share (wizard: Gold share of the HITs; create_campaign --gold-rate) "
             "mixes gold items in among its HITs; this one was created without.")
    if approved:
        return need(NEEDS_GOLD, "Needs gold: no HIT of this campaign has a known answer. Make gold from approved "
                                f"answers ({approved} item(s) have one)." + exist + later)
    return need(NEEDS_APPROVED, "Needs gold: no HIT of this campaign has a known answer, and no answer is approved "
                                "yet to make one from: approve some in the review, then make gold from them here."
                + exist + later)


def quality_needs(campaign: Campaign, view: CampaignQualityView) -> QualityNeeds:
    """What the campaign's missing figures need (five queries)."""
    real = HIT.objects.filter(campaign=campaign, gold_item__isnull=True, onboarding=False)
    counts = real.aggregate(pilot=Count("pk", filter=Q(pilot=True)),
                            several=Count("pk", filter=Q(max_assignments__gte=2)))
    overlapped = (real.annotate(workers=Count("assignments__worker", distinct=True,
                                              filter=Q(assignments__confirmed=True,
                                                       assignments__status__in=ANSWERED)))
                  .filter(workers__gte=2).count())
    scores = WorkerScore.objects.filter(campaign=campaign, agreement__isnull=False)
    lowest = scores.select_related("worker").order_by(F("agreement").asc(), "worker_id").first()
    mean = scores.aggregate(mean=Avg("agreement"))["mean"] if lowest is not None else None
    gold_missing = not view.gold_answers and not view.gold_hits and has_quality(campaign.task_kind)
    approved = approved_for_gold(campaign).order_by().values("hit_id").distinct().count() if gold_missing else 0
    kind = get_task_kind(campaign.task_kind)
    active_gold = GoldItem.objects.filter(task_kind=campaign.task_kind, purpose=GoldPurpose.GOLD, active=True,
                                          scope=kind.gold_scope(kind.options(campaign))).count() if gold_missing else 0
    return QualityNeeds(
        agreement=_agreement(campaign, overlapped, counts["several"] or 0, counts["pilot"] or 0,
                             lowest is not None),
        gold=_gold(campaign, view, approved, active_gold),
        overlapped_items=overlapped, pilot_hits=counts["pilot"] or 0, pilot_workers=campaign.pilot_assignments,
        approved_answers=approved, overlap_items=campaign.pilot_items or PILOT_ITEMS,
        overlap_workers=max(campaign.pilot_assignments, PILOT_WORKERS), gold_limit=GOLD_FROM_APPROVED,
        lowest=lowest, mean_agreement=mean,
    )

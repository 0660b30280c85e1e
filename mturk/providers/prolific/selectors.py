"""Reads for the campaign page of a prolific campaign: the study as last synced, from our database only
(a page view never calls Prolific)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Count, Exists, F, Min, OuterRef, Q

from ...models import HIT, Assignment, Bonus, Campaign
from ...states import ANSWERED, CampaignStatus, HITStatus
from .models import ProlificStudy, ProlificSubmission
from .terms import AUTO_APPROVAL_DAYS, REJECTION_CATEGORIES, major

STUDY_PAGE = "https://app.prolific.com/researcher/workspaces/studies/{}"
SPELLED_OUT = {"INCOMP_LONGITUDINAL": "Incomplete longitudinal", "UNSUPP_DEVICE": "Unsupported device",
               "NO_CODE": "No code", "BAD_CODE": "Bad code", "NO_DATA": "No data"}
REJECTION_CHOICES = tuple((code, SPELLED_OUT.get(code, code.replace("_", " ").capitalize()))
                          for code in REJECTION_CATEGORIES)


@dataclass(frozen=True)
class ProlificFacts:
    study: ProlificStudy | None
    study_link: str | None
    by_status: dict[str, int] = field(default_factory=dict)
    without_work: int = 0  # submissions that reached Prolific's review with no answer stored here
    decisions_waiting: int = 0  # decided here, not yet reported back by Prolific
    auto_approval_at: datetime | None = None  # when Prolific approves the oldest unreviewed submission by itself
    bonuses_needing_attention: list[Bonus] = field(default_factory=list)
    fee_share: Decimal | None = None
    total_cost: Decimal | None = None  # the study's total with fees and VAT, in major units, as Prolific reported it
    rejection_categories: tuple[tuple[str, str], ...] = REJECTION_CHOICES
    not_created: str = ""  # why the study has no Prolific id yet, when it has none


def not_created(campaign: Campaign, study: ProlificStudy | None) -> str:
    """Why the campaign has no study on Prolific, as it is (empty once the study exists)."""
    if study is not None and study.external_id:
        return ""
    if study is None and campaign.status == CampaignStatus.DRAFT:
        return "not created yet (publish the campaign)"
    if campaign.marketplace_error:
        return "not created: the last attempt failed (see the last marketplace error below)"
    if campaign.status != CampaignStatus.ACTIVE:
        return f"not created (the campaign is {campaign.status})"
    if not HIT.objects.filter(campaign=campaign, status=HITStatus.PUBLISHED, onboarding=False,
                              taken_slots__lt=F("max_assignments")).exists():
        return "not created yet: the campaign has no task to offer (it is created when HITs are published)"
    return "being created (a background job creates and publishes it)"


def prolific_facts(campaign: Campaign) -> ProlificFacts:
    """A constant number of queries, whatever the study's size."""
    study = ProlificStudy.objects.filter(campaign=campaign).first()
    if study is None:
        return ProlificFacts(None, None, not_created=not_created(campaign, study))
    submissions = ProlificSubmission.objects.filter(study=study)
    by_status = dict(submissions.order_by().values_list("status").annotate(n=Count("pk")))
    has_work = Assignment.objects.filter(hit__campaign=campaign, external_id=OuterRef("submission_id"),
                                         worker=OuterRef("worker"), status__in=ANSWERED)
    awaiting = submissions.filter(status="AWAITING REVIEW")
    summary = submissions.aggregate(
        decisions_waiting=Count("pk", filter=~Q(decision="") & Q(decision_sent=False)),
        oldest=Min("completed_at", filter=Q(status="AWAITING REVIEW")),
    )
    without_work = awaiting.annotate(worked=Exists(has_work)).filter(worked=False).count()
    oldest = summary["oldest"]
    bonuses = list(Bonus.objects.filter(assignment__hit__campaign=campaign, paid=False).exclude(problem="")
                   .select_related("assignment__worker").order_by("pk")[:20])
    return ProlificFacts(
        study=study,
        study_link=STUDY_PAGE.format(study.external_id) if study.external_id else None,
        by_status=by_status,
        without_work=without_work,
        decisions_waiting=summary["decisions_waiting"],
        auto_approval_at=oldest + timedelta(days=AUTO_APPROVAL_DAYS) if oldest else None,
        bonuses_needing_attention=bonuses,
        fee_share=(study.fee_ratio * 100).quantize(Decimal("0.1")) if study.fee_ratio is not None else None,
        total_cost=major(study.costs["total_cost"]) if study.costs.get("total_cost") is not None else None,
        not_created=not_created(campaign, study),
    )

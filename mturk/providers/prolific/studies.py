"""A campaign's Prolific study: created exactly once, published, kept in step with the campaign.

Prolific has no request token for creating a study. The study's row (with its `intent_id`, written into the
study's internal_name) is stored first; the creation runs with that row locked; if the answer is lost (a
timeout, a crash) the next run looks the study up by its internal_name before creating anything. Then the
study follows the campaign: published when the campaign is active (started again after a pause), paused,
stopped when closed, and its places raised (never lowered: Prolific cannot) as HITs are added."""
from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import F, Sum
from django.urls import reverse
from django.utils import timezone

from ...jobs import Handoff, send_after_commit
from ...models import HIT, Bonus, Campaign
from ...states import CampaignStatus, HITStatus
from ...task_kinds import get_task_kind
from ...work.tokens import campaign_token
from ..base import ProviderError, PublishOutcome
from ..registry import get_provider
from .client import ProlificError, ProlificUnavailable
from .groups import block_list_group, chain_of, stage_group
from .models import ProlificStudy
from .tasks import prolific_publish
from .terms import bundle_reward, cents, estimated_minutes, places_for

if TYPE_CHECKING:
    from .provider import ProlificProvider

log = logging.getLogger(__name__)
URL_PARAMETERS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
STOPPED_CAMPAIGN_ACTIONS = {  # campaign status -> {study status that needs an action: the action}
    CampaignStatus.PAUSED: {"ACTIVE": "PAUSE"},
    CampaignStatus.CLOSED: {"ACTIVE": "STOP", "PAUSED": "STOP"},
}


def wanted_action(campaign: Campaign, study: ProlificStudy) -> str | None:
    """The transition that brings the study in step with the campaign, if any. An active campaign's study is
    paused while it has free places but no task to hand out (a rejected submission frees its place on Prolific
    while its task keeps its slot here: without the pause, participants would arrive, find nothing and return),
    and started again as soon as there is work."""
    if campaign.status != CampaignStatus.ACTIVE:
        return STOPPED_CAMPAIGN_ACTIONS.get(CampaignStatus(campaign.status), {}).get(study.status)
    if study.status == "UNPUBLISHED":
        return "PUBLISH"
    idle = open_slots(campaign) == 0
    if study.status == "ACTIVE" and idle and study.places > study.places_taken:
        return "PAUSE"
    if study.status == "PAUSED" and not idle:
        return "START"
    return None


def provider() -> ProlificProvider:
    return cast("ProlificProvider", get_provider("prolific"))


def study_url(campaign: Campaign) -> str:
    path = reverse("prolific-entry", kwargs={"token": campaign_token(campaign.pk)})
    return f"{settings.PUBLIC_BASE_URL}{path}?{URL_PARAMETERS}"


def in_chain(campaign: Campaign) -> bool:
    return campaign.source_stage_id is not None or Campaign.objects.filter(source_stage=campaign).exists()


def study_filters(campaign: Campaign, *, groups_known: bool = True) -> list[dict[str, Any]]:
    """The study's filters: the campaign's own, and the block list with the groups of the chain's other stages
    (a participant never works on two stages of one chain). `groups_known=False` describes the groups without
    creating them (dry runs)."""
    spec = campaign.qualifications or {}
    filters: list[dict[str, Any]] = [dict(item) for item in spec.get("filters", [])]
    others = [stage for stage in chain_of(campaign) if stage.pk != campaign.pk] if in_chain(campaign) else []
    if groups_known:
        crowd = provider()
        excluded = [block_list_group(crowd)] + [stage_group(crowd, stage) for stage in others]
    else:
        excluded = ["(the block list group)"] + [f"(the group of stage '{stage.name}')" for stage in others]
    filters.append({"filter_id": settings.PROLIFIC_GROUP_BLOCKLIST_FILTER, "selected_values": excluded})
    return filters


def maximum_minutes(campaign: Campaign) -> int:
    """Our time limit for the whole bundle, at least Prolific's floor of 2 + X + 2*sqrt(X) (X: the estimate)."""
    estimate = estimated_minutes(campaign)
    floor = math.ceil(2 + estimate + 2 * math.sqrt(estimate))
    return max(floor, math.ceil(campaign.tasks_per_submission * campaign.time_limit_seconds / 60))


def study_payload(campaign: Campaign, study: ProlificStudy, places: int) -> dict[str, Any]:
    spec = campaign.qualifications or {}
    kind = get_task_kind(campaign.task_kind)
    actions: list[dict[str, Any]] = [{"action": "MANUALLY_REVIEW"}]
    if in_chain(campaign):
        actions.append({"action": "ADD_TO_PARTICIPANT_GROUP", "participant_group": stage_group(provider(), campaign)})
    payload: dict[str, Any] = {
        "name": campaign.title or campaign.name,
        "internal_name": study.internal_name,
        "description": campaign.description or kind.defaults.description or campaign.title or campaign.name,
        "external_study_url": study_url(campaign),
        "prolific_id_option": "url_parameters",
        "completion_codes": [{"code": study.completion_code, "code_type": "COMPLETED", "actor": "participant",
                              "actions": actions}],
        "total_available_places": places,
        "reward": cents(bundle_reward(campaign)),
        "estimated_completion_time": estimated_minutes(campaign),
        "maximum_allowed_time": maximum_minutes(campaign),
        "device_compatibility": spec.get("devices") or ["desktop", "tablet", "mobile"],
        "peripheral_requirements": spec.get("peripherals") or [],
        "filters": study_filters(campaign),
    }
    if spec.get("filter_set_id"):
        payload["filter_set_id"] = spec["filter_set_id"]
    if settings.PROLIFIC_PROJECT_ID:
        payload["project"] = settings.PROLIFIC_PROJECT_ID
    return payload


def open_slots(campaign: Campaign) -> int:
    """Slots of published HITs nobody holds (onboarding HITs, one slot per worker who comes, are not counted)."""
    free = HIT.objects.filter(campaign=campaign, status=HITStatus.PUBLISHED, onboarding=False).aggregate(
        n=Sum(F("max_assignments") - F("taken_slots")))["n"]
    return max(0, int(free or 0))


def wanted_places(campaign: Campaign, study: ProlificStudy) -> int:
    """Places taken so far plus enough bundles for the free slots, within the budget cap."""
    wanted = study.places_taken + places_for(open_slots(campaign), campaign.tasks_per_submission)
    if campaign.budget_cap is None:
        return wanted
    crowd = provider()
    per_place = bundle_reward(campaign) * (1 + crowd.fee_ratio(campaign))
    bonuses = sum((b + crowd.bonus_fee(b) for b in Bonus.objects.filter(assignment__hit__campaign=campaign)
                   .values_list("amount", flat=True)), start=0)
    affordable = int((campaign.budget_cap - bonuses) // per_place) if per_place > 0 else wanted
    return max(min(wanted, affordable), study.places_taken)


def _remember(study: ProlificStudy, remote: dict[str, Any]) -> None:
    study.external_id = str(remote.get("id") or study.external_id)
    study.status = str(remote.get("status") or study.status)
    if remote.get("total_available_places") is not None:
        study.places = int(remote["total_available_places"])
    if remote.get("places_taken") is not None:
        study.places_taken = int(remote["places_taken"])
    study.currency = str(remote.get("currency_code") or study.currency)[:3]
    costs = {key: remote[key] for key in ("total_cost", "fees_per_submission", "fees_percentage", "vat_percentage",
                                          "service_margin_percentage", "currency_code") if key in remote}
    if costs:
        study.costs = {**study.costs, **costs}
    study.synced_at = timezone.now()
    study.save()


def _create(campaign: Campaign, study: ProlificStudy, places: int) -> None:
    """Create the draft exactly once in effect (the row is locked by the caller)."""
    crowd = provider()
    found = crowd.find_study(study.internal_name)
    if found is None:
        try:
            found = crowd.create_study(study_payload(campaign, study, places))
        except ProlificUnavailable:
            found = crowd.find_study(study.internal_name)  # the creation may have gone through
            if found is None:
                raise
    _remember(study, found)


def ensure_study(campaign: Campaign) -> ProlificStudy:
    """Bring the campaign's study in step with the campaign (create, publish, start, pause, stop, add places).
    Safe to repeat and to run concurrently: each step locks the study row while Prolific is asked and commits
    what Prolific answered before the next step (a created study's id is never lost with a later failure)."""
    ProlificStudy.objects.get_or_create(campaign=campaign)  # the intent, stored before any call
    try:
        for step in (_create_step, _places_step, _status_step):
            with transaction.atomic():
                study = ProlificStudy.objects.select_for_update().get(campaign=campaign)
                if not step(Campaign.objects.get(pk=campaign.pk), study):
                    break
    except ProviderError as exc:
        Campaign.objects.filter(pk=campaign.pk).update(marketplace_error=str(exc))
        raise
    Campaign.objects.filter(pk=campaign.pk).exclude(marketplace_error="").update(marketplace_error="")
    return ProlificStudy.objects.get(campaign=campaign)


def _create_step(campaign: Campaign, study: ProlificStudy) -> bool:
    """Create the draft if there is none (False: nothing to offer yet, e.g. a stage waiting for items)."""
    if study.external_id:
        _remember(study, provider().get_study(study.external_id))
        return True
    places = wanted_places(campaign, study)
    if campaign.status != CampaignStatus.ACTIVE or places == 0:
        return False
    if study.fee_ratio is None:  # the fees the study's costs are planned with (the calculator's, at creation)
        study.fee_ratio = provider().fee_ratio(campaign)
    _create(campaign, study, places)
    return True


def _places_step(campaign: Campaign, study: ProlificStudy) -> bool:
    places = wanted_places(campaign, study)
    if places > study.places and campaign.status != CampaignStatus.CLOSED:
        _remember(study, provider().set_places(study.external_id, places))
    return True


def _status_step(campaign: Campaign, study: ProlificStudy) -> bool:
    action = wanted_action(campaign, study)
    if action:
        crowd = provider()
        try:
            crowd.transition_study(study.external_id, action)
        except ProlificError as exc:
            # A transition whose answer was lost is retried by the client; Prolific refuses the repeat (the study
            # has moved on). What counts is the status it reports now.
            if isinstance(exc, ProlificUnavailable) or exc.status != 400:
                raise
            _remember(study, crowd.get_study(study.external_id))
            if wanted_action(campaign, study):
                raise
            return True
        if action == "PUBLISH":
            study.published_at = study.published_at or timezone.now()
        _remember(study, crowd.get_study(study.external_id))
    return True


def queue_study_update(campaign: Campaign) -> Handoff:
    """Hand the study's update to the background job once the current transaction commits."""
    return send_after_commit(prolific_publish, campaign.pk)


def resume_study(campaign: Campaign) -> PublishOutcome:
    """An active campaign whose study was never created (its job failed or was lost) while it has tasks to offer:
    the job is queued again. How many published HITs wait for the study, and the job."""
    if campaign.status != CampaignStatus.ACTIVE or ProlificStudy.objects.filter(
            campaign=campaign).exclude(external_id="").exists() or not open_slots(campaign):
        return PublishOutcome(published=0)
    waiting = HIT.objects.filter(campaign=campaign, status=HITStatus.PUBLISHED, onboarding=False).count()
    return PublishOutcome(published=waiting, job=queue_study_update(campaign))

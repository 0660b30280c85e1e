"""The prolific provider: one study per campaign (or per stage of a chain), participants sent to our server.

This module only talks to Prolific (through `client`); what is stored, and when, is decided by this
package's services (studies, decisions, bonuses, groups, costs, sync, arrivals, events), which store their intent
before each call that must not be repeated."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings

from ...services.participation import in_stage_chain
from ..base import CrowdProvider, ParticipantSync, ProviderError, PublishOutcome, RequirementField, money
from ..registry import register_provider
from .arrivals import continue_url
from .bonuses import pay_prolific_bonus
from .campaign_sync import sync_study
from .client import ProlificClient, ProlificError, get_client
from .costs import fee_ratio, known_fee_ratio
from .decisions import before_decision, queue_push
from .events import handle_pending_events
from .groups import block_list_group
from .requirements import clean_prolific_requirements
from .selectors import REJECTION_CHOICES, prolific_facts
from .studies import queue_study_update, resume_study, study_filters
from .terms import MIN_HOURLY, MIN_REJECTION_MESSAGE, REJECTION_CATEGORIES, bundle_reward, estimated_minutes, major

if TYPE_CHECKING:
    from ...models import HIT, Assignment, Bonus, Campaign, Worker


@register_provider
class ProlificProvider(CrowdProvider):
    name = "prolific"
    label = "Prolific"
    has_marketplace = True
    creates_hits = False
    return_note = ("To stop, return the study on Prolific (the “Return” button on Prolific's study page): "
                   "your place goes to another participant.")
    per_session = True  # a session's own tasks, in its bundle
    rejection_categories = REJECTION_CHOICES
    min_rejection_feedback = MIN_REJECTION_MESSAGE
    requirements_label = "Study filters"
    participation_label = "Who may work"
    add_assignments_note = " (the study gets the places)"
    fee_source = "only Prolific's cost calculator is asked for its fees and VAT"
    requirement_fields = (
        RequirementField("devices", "Devices", "choices", choices=("desktop", "tablet", "mobile")),
        RequirementField("estimated_minutes", "Estimated minutes per submission", "number",
                         "Prolific shows it and checks the hourly pay against it"),
        RequirementField("filters", "Filters (JSON)", "json",
                         'e.g. [{"filter_id": "current-country-of-residence", "selected_values": ["1"]}]; '
                         "manage.py list_prolific_filters lists them"),
    )

    # ---- worker and researcher pages ----------------------------------------------------------------
    def after_answer_url(self, assignment: Assignment, worker_external_id: str) -> str | None:
        """The session's continue link: its next task, or the completion page once the bundle is done."""
        return continue_url(assignment.external_id, worker_external_id) if assignment.external_id else None

    def submission_response(self, assignment: Assignment) -> dict[str, Any]:
        return {"follow_next": True}  # the page goes on at once: the next task, or back to Prolific with the code

    def reward_text(self, campaign: Campaign) -> str:
        return f"{campaign.reward} per task, paid on Prolific"  # for the whole study, in the study's currency

    def most_tasks(self, campaign: Campaign) -> int | None:
        limit = campaign.max_assignments_per_worker
        return min(campaign.tasks_per_submission, limit) if limit else campaign.tasks_per_submission

    def currency_prefix(self, campaign: Campaign) -> str:
        """The study's currency when known."""
        study = getattr(campaign, "prolific_study", None)
        return f"{study.currency} " if study is not None and study.currency else ""

    def fee_rule(self, fee: Decimal, campaign: Campaign | None = None) -> str:
        if campaign is None or not campaign.reward:
            return super().fee_rule(fee, campaign)
        share = (fee / campaign.reward * 100).quantize(Decimal("0.1"))
        return (f"Prolific's fees and VAT, from its cost calculator: {share}% of the reward; a submission is a "
                f"bundle of {campaign.tasks_per_submission} task(s)")

    def participation_rules(self, campaign: Campaign) -> list[str]:
        rules = ["participants on the platform's block list (a Prolific participant group) are excluded"]
        if in_stage_chain(campaign):
            rules.append("participants who completed a submission of another stage of this chain are excluded "
                         "(each stage's completion code adds its finishers to the stage's participant group)")
        return rules

    def campaign_facts(self, campaign: Campaign) -> dict[str, Any]:
        """The study's facts as last synced, and the fees it was planned with."""
        facts = prolific_facts(campaign)
        ratio = facts.study.fee_ratio if facts.study is not None else None
        fee = money(campaign.reward * ratio) if ratio is not None else None
        return {"prolific": facts, "error": campaign.marketplace_error, "fee": fee,
                "per_assignment": campaign.reward + fee if fee is not None else None}

    @property
    def client(self) -> ProlificClient:
        return get_client()

    # ---- configuration checks -------------------------------------------------------------------
    def clean_qualifications(self, spec: Any) -> dict[str, Any]:
        return clean_prolific_requirements(spec)

    def check_campaign(self, campaign: Campaign) -> None:
        if not settings.PROLIFIC_TOKEN:
            raise ProviderError("PROLIFIC_TOKEN is not set (an API token of the workspace the studies go into)")
        if not settings.PROLIFIC_WORKSPACE_ID:
            raise ProviderError("PROLIFIC_WORKSPACE_ID is not set (the id of the workspace the studies go into)")
        try:
            clean_prolific_requirements(campaign.qualifications)
        except ValueError as exc:
            raise ProviderError(str(exc)) from None
        if campaign.reward <= 0:
            raise ProviderError("Prolific studies must pay a reward above zero")
        hourly = bundle_reward(campaign) * 60 / estimated_minutes(campaign)
        floor = MIN_HOURLY["GBP"]
        if hourly < floor:
            raise ProviderError(
                f"{bundle_reward(campaign)} for about {estimated_minutes(campaign)} min is {money(hourly)} per hour, "
                f"below Prolific's minimum of {floor} per hour (GBP; USD {MIN_HOURLY['USD']}): raise the reward, "
                "or set qualifications.estimated_minutes to the real time a submission takes")

    def check_rejection(self, feedback: str, category: str) -> None:
        if category not in REJECTION_CATEGORIES:
            raise ProviderError(f"Prolific needs a rejection category, one of: {', '.join(REJECTION_CATEGORIES)}")
        if len(feedback.strip()) < MIN_REJECTION_MESSAGE:
            raise ProviderError(f"Prolific needs a rejection message of at least {MIN_REJECTION_MESSAGE} characters "
                                f"(this one has {len(feedback.strip())}) that tells the participant why")

    # ---- cost --------------------------------------------------------------------------------------
    def fee_ratio(self, campaign: Campaign | None = None) -> Decimal:
        """Prolific's fees and VAT as a share of a reward, from its cost calculator (remembered per study)."""
        return fee_ratio(self, campaign)

    def fees_known(self, campaign: Campaign) -> bool:
        return known_fee_ratio(campaign) is not None

    def assignment_fee(self, campaign: Campaign, assignments_per_hit: int | None = None) -> Decimal:
        return campaign.reward * self.fee_ratio(campaign)

    def bonus_fee(self, amount: Decimal) -> Decimal:
        return money(amount * self.fee_ratio())

    def study_cost(self, reward_cents: int, places: int) -> int:
        """Prolific's total (reward, fees and VAT) in minor units, from its cost calculator."""
        body = self.client.post("study-cost-calculator/", {"reward": reward_cents, "total_available_places": places})
        return int(body["total_cost"])

    def balance(self, sandbox: bool = False) -> Decimal | None:
        body = self.client.get(f"workspaces/{settings.PROLIFIC_WORKSPACE_ID}/balance/")
        for key in ("available_balance", "balance", "total_balance"):
            if key in body:
                return major(body[key])
        return None

    # ---- the provider interface: our services drive Prolific themselves -----------------------------
    def publish(self, campaign: Campaign, hits: list[HIT]) -> PublishOutcome:
        """The HITs are ours; a background job creates the study (once), publishes it and gives it the places the
        open slots need (studies.ensure_study)."""
        return PublishOutcome(published=len(hits), job=queue_study_update(campaign))

    def resume_publishing(self, campaign: Campaign) -> PublishOutcome:
        return resume_study(campaign)

    def approve(self, assignment: Assignment, feedback: str, override_rejection: bool = False) -> None:
        before_decision(assignment, override_rejection)

    def reject(self, assignment: Assignment, feedback: str) -> None:
        before_decision(assignment, False)

    def campaign_changed(self, campaign: Campaign) -> None:
        queue_study_update(campaign)  # start, pause or stop the study, or raise its places, once committed

    def decisions_recorded(self, campaign: Campaign) -> None:
        queue_push(campaign)

    def bonus(self, bonus: Bonus) -> None:
        pay_prolific_bonus(bonus)

    def block(self, worker: Worker, reason: str) -> None:
        self.add_to_group(block_list_group(self), [worker.external_id])

    def unblock(self, worker: Worker, reason: str) -> None:
        self.remove_from_group(block_list_group(self), [worker.external_id])

    def add_assignments(self, hit: HIT, count: int, token: str) -> None:
        queue_study_update(hit.campaign)  # the study gets the places the new slots need (within the budget cap)

    def expire(self, hit: HIT) -> None:
        return None  # HITs are ours; the study is stopped when the campaign is (studies)

    def notify(self, campaign: Campaign | None, worker_ids: Sequence[str], subject: str, text: str) -> list[str]:
        study = getattr(campaign, "prolific_study", None) if campaign is not None else None
        if study is None or not study.external_id:
            raise ProviderError("this campaign has no Prolific study to message its participants through")
        body = f"{subject}\n\n{text}"
        ids = list(worker_ids)
        for start in range(0, len(ids), 500):
            self.client.post("messages/bulk/", {"ids": ids[start:start + 500], "study_id": study.external_id,
                                                "body": body})
        return []

    def sync_participants(self, campaign: Campaign) -> ParticipantSync:
        report = sync_study(campaign)
        return ParticipantSync(new_submissions=report.changed, returned=report.released,
                               approved_elsewhere=report.approved_on_prolific,
                               rejected_elsewhere=report.rejected_on_prolific)

    def periodic_work(self) -> None:
        handle_pending_events()  # webhook events whose handling job was lost (the receiver queues one per event)

    def describe_requirements(self, campaign: Campaign) -> list[dict[str, Any]]:
        return study_filters(campaign, groups_known=False)

    # ---- studies ----------------------------------------------------------------------------------
    def create_study(self, payload: dict[str, Any]) -> dict[str, Any]:
        """POST /studies/ (a draft). Not repeatable: never retried on a timeout (services find it by name)."""
        return self.client.post("studies/", payload, safe=False)

    def find_study(self, internal_name: str) -> dict[str, Any] | None:
        """The study whose internal_name is ours (after a creation whose answer was lost)."""
        path = (f"projects/{settings.PROLIFIC_PROJECT_ID}/studies/" if settings.PROLIFIC_PROJECT_ID else "studies/")
        for study in self.client.pages(path):
            if study.get("internal_name") == internal_name:
                return study
        return None

    def get_study(self, study_id: str) -> dict[str, Any]:
        return self.client.get(f"studies/{study_id}/")

    def transition_study(self, study_id: str, action: str) -> dict[str, Any]:
        return self.client.post(f"studies/{study_id}/transition/", {"action": action})

    def set_places(self, study_id: str, places: int) -> dict[str, Any]:
        """An absolute value, so repeating it is harmless (places can only be increased after publishing)."""
        return self.client.patch(f"studies/{study_id}/", {"total_available_places": places})

    # ---- submissions ------------------------------------------------------------------------------
    def read_submission(self, submission_id: str) -> dict[str, Any] | None:
        """GET /submissions/{id}/ (single shape: id, participant, study_id, status, ...); None if unknown."""
        try:
            return self.client.get(f"submissions/{submission_id}/")
        except ProlificError as exc:
            if exc.status == 404:
                return None
            raise

    def list_submissions(self, study_id: str) -> Iterator[dict[str, Any]]:
        """Every submission of the study (list shape: id, participant_id, status, ...), all pages."""
        return self.client.pages(f"studies/{study_id}/submissions/")

    def transition_submission(self, submission_id: str, action: str, message: str = "",
                              category: str = "") -> dict[str, Any]:
        body: dict[str, Any] = {"action": action}
        if message:
            body["message"] = message
        if category:
            body["rejection_category"] = category  # a string (not a one-element list, as one client sends)
        return self.client.post(f"submissions/{submission_id}/transition/", body)

    def bulk_approve(self, submission_ids: Sequence[str]) -> None:
        self.client.post("submissions/bulk-approve/", {"submission_ids": list(submission_ids)})

    # ---- bonuses ----------------------------------------------------------------------------------
    def set_up_bonuses(self, study_id: str, rows: Sequence[tuple[str, Decimal]]) -> dict[str, Any]:
        """POST /submissions/bonus-payments/ (amounts in major units in the CSV); returns {id, amount, fees,
        vat, total_amount} in minor units. Setting up pays nothing; never retried blindly."""
        csv = "\n".join(f"{who},{amount:.2f}" for who, amount in rows)
        return self.client.post("submissions/bonus-payments/", {"study_id": study_id, "csv_bonuses": csv},
                                safe=False)

    def pay_bonuses(self, bulk_id: str) -> None:
        """POST /bulk-bonus-payments/{id}/pay/: NOT idempotent (each call pays again). Sent at most once."""
        self.client.post(f"bulk-bonus-payments/{bulk_id}/pay/", {}, safe=False)

    # ---- participant groups -----------------------------------------------------------------------
    def find_group(self, name: str) -> str | None:
        params = {"workspace_id": settings.PROLIFIC_WORKSPACE_ID}
        for group in self.client.pages("participant-groups/", params):
            if group.get("name") == name:
                return str(group["id"])
        return None

    def create_group(self, name: str, description: str) -> str:
        body = self.client.post("participant-groups/", {"name": name, "workspace_id": settings.PROLIFIC_WORKSPACE_ID,
                                                        "description": description}, safe=False)
        return str(body["id"])

    def add_to_group(self, group_id: str, participant_ids: Sequence[str]) -> None:
        """Members already in the group are ignored by Prolific: repeatable."""
        self.client.post(f"participant-groups/{group_id}/participants/", {"participant_ids": list(participant_ids)})

    def remove_from_group(self, group_id: str, participant_ids: Sequence[str]) -> None:
        self.client.delete(f"participant-groups/{group_id}/participants/", {"participant_ids": list(participant_ids)})

    # ---- webhooks and filters ---------------------------------------------------------------------
    def hook_event_types(self) -> list[dict[str, Any]]:
        """GET /hooks/event-types/: [{event_type, description}]."""
        body = self.client.get("hooks/event-types/")
        return list(body.get("results") or []) if isinstance(body, dict) else list(body or [])

    def hook_secrets(self) -> list[dict[str, Any]]:
        """GET /hooks/secrets/?workspace_id=: the workspace's signing secret (one at most is active)."""
        body = self.client.get("hooks/secrets/", {"workspace_id": settings.PROLIFIC_WORKSPACE_ID})
        return list(body.get("results") or []) if isinstance(body, dict) else list(body or [])

    def create_hook_secret(self) -> str:
        """POST /hooks/secrets/: a new signing secret for the workspace; the previous one stops working."""
        body = self.client.post("hooks/secrets/", {"workspace_id": settings.PROLIFIC_WORKSPACE_ID}, safe=False)
        value = (body.get("value") or body.get("secret")) if isinstance(body, dict) else None
        if not value:
            raise ProviderError(f"Prolific created a webhook secret but its answer carries no value: {body!r}")
        return str(value)

    def hook_subscriptions(self) -> list[dict[str, Any]]:
        """Every subscription of the workspace, enabled or not (the list filters on is_enabled and has no mode
        that returns both, so it is read twice): [{id, event_type, target_url, is_enabled, workspace_id}]."""
        found: list[dict[str, Any]] = []
        for enabled in ("true", "false"):
            params = {"workspace_id": settings.PROLIFIC_WORKSPACE_ID, "is_enabled": enabled}
            for item in self.client.pages("hooks/subscriptions/", params):
                item.setdefault("is_enabled", enabled == "true")
                found.append(item)
        return list({str(item.get("id")): item for item in found}.values())

    def create_hook_subscription(self, event_type: str, target_url: str) -> tuple[dict[str, Any], str]:
        """POST /hooks/subscriptions/: (the subscription, the X-Hook-Secret header to confirm it with). The
        subscription stays disabled until confirmed. Not repeated blindly (each call creates one)."""
        response = self.client.call("POST", "hooks/subscriptions/", safe=False, json={
            "workspace_id": settings.PROLIFIC_WORKSPACE_ID, "event_type": event_type, "target_url": target_url})
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict) or not body.get("id"):
            raise ProviderError(f"Prolific's answer to creating a {event_type} subscription has no id: {body!r}")
        return body, response.headers.get("X-Hook-Secret", "")

    def confirm_hook_subscription(self, subscription_id: str, hook_secret: str) -> dict[str, Any]:
        """POST /hooks/subscriptions/{id}/ with the X-Hook-Secret its creation returned: enables it."""
        return self.client.post(f"hooks/subscriptions/{subscription_id}/", {"secret": hook_secret})

    def delete_hook_subscription(self, subscription_id: str) -> None:
        self.client.delete(f"hooks/subscriptions/{subscription_id}/")

    def list_filters(self) -> Iterator[dict[str, Any]]:
        """GET /filters/ (all pages): {filter_id, title, type, ...}; the ids studies' `filters` refer to."""
        return self.client.pages("filters/")

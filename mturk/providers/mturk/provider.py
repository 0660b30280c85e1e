"""The `mturk` provider: Amazon Mechanical Turk (API 2017-01-17) through boto3.

Only marketplace calls live here; the services store intent in our database first and call these
methods, which are all safe to repeat (request tokens, and "already done" recovered as success)."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.urls import reverse

from ...jobs import send_after_commit
from ...work.tokens import preview_token
from ..base import (
    CrowdProvider,
    MarketplaceAssignment,
    NotSupported,
    ProviderError,
    PublishOutcome,
    RequirementField,
    money,
)
from ..registry import register_provider
from . import limits
from .arrivals import completion_code
from .client import MarketplaceError, call, get_client, hit_id_from_message, paginate
from .documents import external_question, parse_answers
from .publish import CREATE_MARKETPLACE_HITS, create_pending_hits, pending_hits, resume_creation
from .qualifications import clean_qualifications, system_requirements

if TYPE_CHECKING:
    from ...models import HIT, Assignment, Bonus, Campaign, Worker

HIT_ALREADY_EXISTS = "AWS.MechanicalTurk.HitAlreadyExists"
EXPIRE_NOW = datetime(2015, 1, 1, tzinfo=UTC)  # any past time expires a HIT at once
ANSWERED_STATUSES = ["Submitted", "Approved", "Rejected"]


def request_prefix() -> str:
    """Tokens and annotations carry a prefix unique to this installation (two installations may share
    one requester account, and a request token is remembered by MTurk for 24 hours)."""
    if settings.MTURK_REQUEST_PREFIX:
        return settings.MTURK_REQUEST_PREFIX
    return "p" + hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest()[:8]


def hit_request_token(hit: HIT) -> str:
    return f"{request_prefix()}-hit-{hit.pk}"


def hit_annotation(hit: HIT) -> str:
    return f"{request_prefix()}:campaign:{hit.campaign_id}:hit:{hit.pk}"


def task_url(hit: HIT) -> str:
    """Our task page for a HIT; MTurk appends assignmentId, hitId, workerId and turkSubmitTo."""
    path = reverse("mturk-task")
    return f"{settings.PUBLIC_BASE_URL}{path}?c={hit.campaign_id}&h={preview_token(hit.pk)}"


@register_provider
class MTurkProvider(CrowdProvider):
    name = "mturk"
    label = "MTurk"
    has_marketplace = True
    creates_hits = True
    has_sandbox = True
    return_note = "To skip this task, press “Return” on MTurk's page: the task goes back to other workers."
    requirement_fields = (
        RequirementField("approval_rate_min", "Approval rate at least (%)", "number"),
        RequirementField("approved_min", "Approved HITs at least", "number"),
        RequirementField("locales", "Locales", "text", "Country codes separated by commas, e.g. US, GB"),
        RequirementField("masters", "Masters only", "check"),
        RequirementField("adult", "Adult content (workers must agree)", "check"),
    )

    def clean_qualifications(self, spec: Any) -> dict[str, Any]:
        return clean_qualifications(spec)

    def submission_response(self, assignment: Assignment) -> dict[str, Any]:
        """The page hands the stored answer off to MTurk; the code lets the worker retry."""
        return {"completion_code": completion_code(assignment), "answer": assignment.answer}

    def fee_rule(self, fee: Decimal, campaign: Campaign | None = None) -> str:
        return ("MTurk charges 20% of the reward (40% on HITs with 10 or more assignments), +5% with Masters, "
                "at least $0.01 per assignment")

    # ---- costs ---------------------------------------------------------------------------
    def assignment_fee(self, campaign: Campaign, assignments_per_hit: int | None = None) -> Decimal:
        """20% of the reward (40% for HITs of 10 or more assignments), +5% with Masters; at least $0.01."""
        per_hit = assignments_per_hit or campaign.assignments_per_hit
        rate = Decimal("0.40") if per_hit >= 10 else Decimal("0.20")
        if (campaign.qualifications or {}).get("masters"):
            rate += Decimal("0.05")
        return max(Decimal("0.01"), money(campaign.reward * rate))

    def bonus_fee(self, amount: Decimal) -> Decimal:
        return max(Decimal("0.01"), money(amount * Decimal("0.20")))

    def balance(self, sandbox: bool = False) -> Decimal:
        response = call(get_client(sandbox), "get_account_balance")
        return Decimal(response["AvailableBalance"])

    # ---- publishing ----------------------------------------------------------------------
    def check_campaign(self, campaign: Campaign) -> None:
        self.hit_type_params(campaign, [])
        limits.check_duration("lifetime", campaign.lifetime_seconds)
        limits.check_question(external_question(f"{settings.PUBLIC_BASE_URL}/"))

    def hit_type_params(self, campaign: Campaign, extra_requirements: list[dict[str, Any]]) -> dict[str, Any]:
        """The create_hit_type request for a campaign, checked against MTurk's limits."""
        try:
            spec = clean_qualifications(campaign.qualifications)
        except ValueError as exc:
            raise limits.LimitError(str(exc)) from None
        requirements = system_requirements(spec, campaign.sandbox) + extra_requirements
        limits.check_requirements(requirements)
        limits.check_length("title", campaign.title, limits.TITLE_MAX, required=True)
        limits.check_length("description", campaign.description, limits.DESCRIPTION_MAX, required=True)
        limits.check_length("keywords", campaign.keywords, limits.KEYWORDS_MAX)
        limits.check_duration("assignment duration", campaign.time_limit_seconds)
        limits.check_duration("auto-approval delay", campaign.auto_approval_delay_seconds, 0, limits.AUTO_APPROVAL_MAX)
        params: dict[str, Any] = {
            "AutoApprovalDelayInSeconds": campaign.auto_approval_delay_seconds,
            "AssignmentDurationInSeconds": campaign.time_limit_seconds,
            "Reward": limits.usd(campaign.reward),
            "Title": campaign.title,
            "Description": campaign.description,
        }
        if campaign.keywords:
            params["Keywords"] = campaign.keywords
        if requirements:
            params["QualificationRequirements"] = requirements
        return params

    def describe_requirements(self, campaign: Campaign) -> list[dict[str, Any]]:
        return self.hit_type_params(campaign, []).get("QualificationRequirements", [])

    def create_hit_type(self, campaign: Campaign, params: dict[str, Any]) -> str:
        """Identical parameters give back the same HITTypeId, so this is safe to repeat."""
        return call(get_client(campaign.sandbox), "create_hit_type", **params)["HITTypeId"]

    def hit_params(self, hit: HIT, hit_type_id: str) -> dict[str, Any]:
        question = external_question(task_url(hit))
        limits.check_question(question)
        token, annotation = hit_request_token(hit), hit_annotation(hit)
        limits.check_token(token)
        limits.check_length("RequesterAnnotation", annotation, limits.ANNOTATION_MAX)
        limits.check_duration("lifetime", hit.campaign.lifetime_seconds)
        return {
            "HITTypeId": hit_type_id,
            "MaxAssignments": hit.max_assignments,
            "LifetimeInSeconds": hit.campaign.lifetime_seconds,
            "Question": question,
            "RequesterAnnotation": annotation,
            "UniqueRequestToken": token,
        }

    def create_hit(self, hit: HIT, params: dict[str, Any]) -> tuple[str, datetime | None]:
        """Create one HIT; (HITId, expiration). A HIT already created with our token is found, not duplicated."""
        client = get_client(hit.campaign.sandbox)
        try:
            created = call(client, "create_hit_with_hit_type", **params)["HIT"]
            return created["HITId"], created.get("Expiration")
        except MarketplaceError as exc:
            if exc.turk_code != HIT_ALREADY_EXISTS:
                raise
            existing = hit_id_from_message(str(exc))
            if existing:
                return existing, None
            for found in paginate(client, "list_hits", "HITs"):
                if found.get("RequesterAnnotation") == params["RequesterAnnotation"]:
                    return found["HITId"], found.get("Expiration")
            raise MarketplaceError(
                f"MTurk says HIT {hit.pk} already exists but it is not in the requester's HIT list",
                exc.code, exc.turk_code, exc.operation,
            ) from exc

    def create_participation_qualification(self, scope: str, label: str, sandbox: bool) -> str:
        """A private qualification type; if an earlier (crashed) call created it, it is found by name."""
        client = get_client(sandbox)
        name = f"{request_prefix()} took part: {scope}"[:128]
        try:
            response = call(
                client, "create_qualification_type", Name=name, QualificationTypeStatus="Active",
                Description=f"Granted after a first submission to {label}; keeps a worker from repeating it."[:2000],
            )
            return response["QualificationType"]["QualificationTypeId"]
        except MarketplaceError as exc:
            if exc.code != "RequestError":
                raise
            for found in paginate(client, "list_qualification_types", "QualificationTypes", Query=name,
                                  MustBeRequestable=False, MustBeOwnedByCaller=True):
                if found.get("Name") == name:
                    return found["QualificationTypeId"]
            raise

    def grant_participation(self, qualification_id: str, worker: Worker, sandbox: bool) -> None:
        call(get_client(sandbox), "associate_qualification_with_worker", QualificationTypeId=qualification_id,
             WorkerId=worker.external_id, IntegerValue=1, SendNotification=False)

    def publish(self, campaign: Campaign, hits: list[HIT]) -> PublishOutcome:
        """The HITs are marked published in our database; a background job creates them on MTurk."""
        job = send_after_commit(CREATE_MARKETPLACE_HITS, campaign.pk) if hits else None
        return PublishOutcome(published=len(hits), job=job)

    def resume_publishing(self, campaign: Campaign) -> PublishOutcome:
        return resume_creation(campaign)

    def create_pending_hits(self, campaign: Campaign) -> int:
        """Safe even if a creation job is still running: the HITs' request tokens keep them from doubling."""
        if not pending_hits(campaign).exists():
            return 0
        return create_pending_hits(campaign).created

    # ---- collecting ----------------------------------------------------------------------
    def submissions(self, hit: HIT) -> list[MarketplaceAssignment]:
        if not hit.external_id:
            return []
        found = paginate(get_client(hit.campaign.sandbox), "list_assignments_for_hit", "Assignments",
                         HITId=hit.external_id, AssignmentStatuses=ANSWERED_STATUSES)
        return [_marketplace_assignment(a) for a in found]

    def reviewable_hit_ids(self, campaign: Campaign) -> set[str]:
        client = get_client(campaign.sandbox)
        ids: set[str] = set()
        for hit_type in campaign.hit_types.values_list("external_id", flat=True):
            for found in paginate(client, "list_reviewable_hits", "HITs", HITTypeId=hit_type, Status="Reviewable"):
                ids.add(found["HITId"])
        return ids

    def answer_counts(self, sandbox: bool) -> dict[str, tuple[int, int]]:
        """One paginated list_hits (100 HITs a call): answered = MaxAssignments - Pending - Available
        (submitted, approved or rejected), decided = Completed (approved or rejected)."""
        counts: dict[str, tuple[int, int]] = {}
        for found in paginate(get_client(sandbox), "list_hits", "HITs"):
            answered = (found.get("MaxAssignments", 0) - found.get("NumberOfAssignmentsPending", 0)
                        - found.get("NumberOfAssignmentsAvailable", 0))
            counts[found["HITId"]] = (answered, found.get("NumberOfAssignmentsCompleted", 0))
        return counts

    def mark_reviewed(self, hit: HIT) -> None:
        call(get_client(hit.campaign.sandbox), "update_hit_review_status", HITId=hit.external_id, Revert=False)

    # ---- review and payment --------------------------------------------------------------
    def _marketplace_status(self, assignment: Assignment) -> str:
        client = get_client(assignment.hit.campaign.sandbox)
        return call(client, "get_assignment", AssignmentId=assignment.external_id)["Assignment"]["AssignmentStatus"]

    def _require_external(self, assignment: Assignment) -> None:
        if not assignment.external_id:
            raise ProviderError(f"assignment {assignment.pk} has no MTurk assignment id")

    def approve(self, assignment: Assignment, feedback: str, override_rejection: bool = False) -> None:
        self._require_external(assignment)
        params: dict[str, Any] = {"AssignmentId": assignment.external_id}
        if feedback:
            limits.check_length("feedback", feedback, 1024)
            params["RequesterFeedback"] = feedback
        if override_rejection:
            params["OverrideRejection"] = True
        try:
            call(get_client(assignment.hit.campaign.sandbox), "approve_assignment", **params)
        except MarketplaceError as exc:
            if exc.code != "RequestError" or self._marketplace_status(assignment) != "Approved":
                raise
            # already approved (by us before a crash, or by auto-approval): the goal is reached

    def reject(self, assignment: Assignment, feedback: str) -> None:
        self._require_external(assignment)
        if not feedback.strip():
            raise ProviderError("MTurk requires feedback when rejecting")
        limits.check_length("feedback", feedback, 1024)
        try:
            call(get_client(assignment.hit.campaign.sandbox), "reject_assignment",
                 AssignmentId=assignment.external_id, RequesterFeedback=feedback)
        except MarketplaceError as exc:
            if exc.code != "RequestError" or self._marketplace_status(assignment) != "Rejected":
                raise

    def bonus(self, bonus: Bonus) -> None:
        assignment = bonus.assignment
        self._require_external(assignment)
        sandbox = assignment.hit.campaign.sandbox
        amount = limits.usd(bonus.amount)
        needed = bonus.amount + self.bonus_fee(bonus.amount)
        available = self.balance(sandbox)
        if available < needed:
            raise ProviderError(f"the MTurk balance is ${available}; this bonus needs ${needed} with fees")
        token = f"{request_prefix()}-{bonus.unique_token}"
        limits.check_token(token)
        try:
            call(get_client(sandbox), "send_bonus", WorkerId=assignment.worker.external_id, BonusAmount=amount,
                 AssignmentId=assignment.external_id, Reason=bonus.reason, UniqueRequestToken=token)
        except MarketplaceError as exc:
            if exc.code == "RequestError" and "UniqueRequestToken" in str(exc):
                return  # this bonus was paid by an earlier call with the same token
            raise

    def _worker_sandbox(self, worker: Worker) -> bool:
        from ...models import Campaign

        latest = Campaign.objects.filter(hits__assignments__worker=worker).order_by("-pk").values_list(
            "sandbox", flat=True).first()
        return settings.MTURK_SANDBOX if latest is None else latest

    def block(self, worker: Worker, reason: str) -> None:
        call(get_client(self._worker_sandbox(worker)), "create_worker_block",
             WorkerId=worker.external_id, Reason=reason)

    def unblock(self, worker: Worker, reason: str) -> None:
        params: dict[str, Any] = {"WorkerId": worker.external_id}
        if reason:
            params["Reason"] = reason
        call(get_client(self._worker_sandbox(worker)), "delete_worker_block", **params)

    def notify(self, campaign: Campaign | None, worker_ids: Sequence[str], subject: str, text: str) -> list[str]:
        """Message workers in batches of at most 100; returns the worker ids MTurk could not reach."""
        limits.check_length("subject", subject, limits.SUBJECT_MAX, required=True)
        limits.check_length("message", text, limits.MESSAGE_MAX, required=True)
        client = get_client(campaign.sandbox if campaign is not None else settings.MTURK_SANDBOX)
        failed: list[str] = []
        ids = list(dict.fromkeys(worker_ids))
        for start in range(0, len(ids), limits.NOTIFY_BATCH):
            batch = ids[start:start + limits.NOTIFY_BATCH]
            response = call(client, "notify_workers", Subject=subject, MessageText=text, WorkerIds=batch)
            failed += [f["WorkerId"] for f in response.get("NotifyWorkersFailureStatuses", [])]
        return failed

    # ---- HIT lifecycle -------------------------------------------------------------------
    def _hit_call(self, hit: HIT, operation: str, **params: Any) -> None:
        if not hit.external_id:
            raise NotSupported(f"HIT {hit.pk} is not on MTurk yet (its creation is still queued)")
        call(get_client(hit.campaign.sandbox), operation, HITId=hit.external_id, **params)

    def expire(self, hit: HIT) -> None:
        if hit.external_id:  # a HIT whose creation is still queued has nothing to expire on MTurk
            self._hit_call(hit, "update_expiration_for_hit", ExpireAt=EXPIRE_NOW)

    def extend(self, hit: HIT, expires_at: datetime) -> None:
        self._hit_call(hit, "update_expiration_for_hit", ExpireAt=expires_at)

    def add_assignments(self, hit: HIT, count: int, token: str) -> None:
        token = f"{request_prefix()}-{token}"
        limits.check_token(token)
        self._hit_call(hit, "create_additional_assignments_for_hit", NumberOfAdditionalAssignments=count,
                       UniqueRequestToken=token)

    def delete(self, hit: HIT) -> None:
        self._hit_call(hit, "delete_hit")


def _marketplace_assignment(data: dict[str, Any]) -> MarketplaceAssignment:
    try:
        answers = parse_answers(data.get("Answer", ""))
    except ValueError:
        answers = {"unparsed_answer_xml": data.get("Answer", "")}  # kept raw; the sync flags it
    return MarketplaceAssignment(
        assignment_id=data["AssignmentId"],
        worker_id=data["WorkerId"],
        status=data["AssignmentStatus"],
        answers=answers,
        accepted_at=data.get("AcceptTime"),
        submitted_at=data.get("SubmitTime"),
        auto_approval_at=data.get("AutoApprovalTime"),
        approved_at=data.get("ApprovalTime"),
        feedback=data.get("RequesterFeedback", ""),
    )

"""Crowd core in MTurk's vocabulary: campaign (HIT type), HIT, worker, assignment, bonus."""
from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from ..states import (
    ASSIGNMENT_MACHINE,
    CAMPAIGN_MACHINE,
    HIT_MACHINE,
    AssignmentStatus,
    CampaignStatus,
    HITStatus,
)


class Campaign(models.Model):
    """A HIT type: one task kind with its reward, assignments per HIT, limits and instructions."""

    name = models.CharField(max_length=200, unique=True)
    task_kind = models.CharField(max_length=50)
    provider = models.CharField(max_length=20, default="local")
    title = models.CharField(max_length=128, blank=True)
    description = models.TextField(max_length=2000, blank=True)
    instructions = models.TextField(blank=True)
    reward = models.DecimalField(max_digits=8, decimal_places=2, validators=[MinValueValidator(Decimal("0"))])
    assignments_per_hit = models.PositiveSmallIntegerField(default=1, validators=[MinValueValidator(1)])
    time_limit_seconds = models.PositiveIntegerField(default=30 * 60, validators=[MinValueValidator(30)])
    max_assignments_per_worker = models.PositiveIntegerField(null=True, blank=True)
    budget_cap = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    keywords = models.CharField(max_length=1000, blank=True, help_text="Comma-separated search keywords.")
    lifetime_seconds = models.PositiveIntegerField(
        default=7 * 24 * 3600, validators=[MinValueValidator(30)], help_text="How long a HIT stays on offer.",
    )
    auto_approval_delay_seconds = models.PositiveIntegerField(
        default=3 * 24 * 3600, help_text="Submitted work the marketplace approves by itself after this delay.",
    )
    qualifications = models.JSONField(
        default=dict, blank=True,
        help_text='Marketplace worker requirements, e.g. {"approval_rate_min": 95, "locales": ["US"]}.',
    )
    sandbox = models.BooleanField(default=False, help_text="Published to the marketplace's sandbox.")
    marketplace_error = models.TextField(blank=True, help_text="The last refusal of a marketplace job, if any.")
    auto_approve_passing = models.BooleanField(
        default=False, help_text="Each sync approves submitted work that passes the task kind's checks.",
    )
    options = models.JSONField(default=dict, blank=True, help_text="Task-kind options, e.g. min_words.")
    tasks_per_submission = models.PositiveSmallIntegerField(
        default=1, db_default=1, validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Prolific: how many tasks one participant does in one submission (a bundle) before being sent back.",
    )
    gold_rate = models.FloatField(
        default=0.0, db_default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Share of the campaign's HITs that are gold items (known answers), mixed in at creation.",
    )
    onboarding_items = models.PositiveSmallIntegerField(
        default=0, db_default=0, validators=[MaxValueValidator(20)],
        help_text="Onboarding gold items a worker does before their first real task (local and Prolific).",
    )
    onboarding_pass = models.FloatField(
        default=0.8, db_default=0.8, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="The mean onboarding score a worker needs to go on to real tasks.",
    )
    pilot_items = models.PositiveIntegerField(
        default=0, db_default=0, validators=[MaxValueValidator(1000)],
        help_text="Pilot: the campaign's first N real HITs (HIT.pilot) each go to pilot_assignments workers, handed "
                  "out first, so agreement can be measured after a few answers (0: no pilot).",
    )
    pilot_assignments = models.PositiveSmallIntegerField(
        default=3, db_default=3, validators=[MinValueValidator(2), MaxValueValidator(20)],
        help_text="How many workers do each pilot HIT.",
    )
    status = models.CharField(max_length=10, choices=CampaignStatus.choices, default=CampaignStatus.DRAFT)
    is_simulated = models.BooleanField(default=False, help_text="Results were generated, not collected.")
    external_id = models.CharField(max_length=100, blank=True, help_text="Provider's HIT type / study id.")
    source_stage = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="next_stages",
        help_text="The campaign whose approved results create this campaign's HITs (stage chaining).",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    def transition(self, target: str) -> None:
        CAMPAIGN_MACHINE.check(self.status, target)
        self.status = target


class HIT(models.Model):
    """One unit of work: which item(s) a task page shows, done by up to max_assignments workers."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="hits")
    position = models.PositiveIntegerField(default=0)
    items = models.JSONField(help_text="What the page shows, e.g. {\"image\": 12}.")
    group = models.CharField(
        max_length=100, blank=True, db_index=True,
        help_text=(
            "What the HIT is about across stages, e.g. album:12; "
            "a worker never works on one group in two campaigns."
        ),
    )
    max_assignments = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    gold_item = models.ForeignKey(
        "mturk.GoldItem", null=True, blank=True, on_delete=models.PROTECT, related_name="hits",
        help_text="Set on a gold or onboarding HIT: its items are the gold item's, its known answer stays here.",
    )
    onboarding = models.BooleanField(
        default=False, db_default=False,
        help_text="A qualifying HIT given to each worker before their first real task, never in the normal queue.",
    )
    pilot = models.BooleanField(
        default=False, db_default=False,
        help_text="One of the campaign's pilot HITs: done by several workers (agreement), handed out first.",
    )
    taken_slots = models.PositiveSmallIntegerField(
        default=0, editable=False,
        help_text=(
            "How many slots confirmed assignments hold (accepted, submitted, approved, rejected); kept in step "
            "by services.slots under this row's lock, so the next HIT is found by an index scan."
        ),
    )
    status = models.CharField(max_length=10, choices=HITStatus.choices, default=HITStatus.DRAFT)
    external_id = models.CharField(max_length=100, blank=True, db_index=True)
    hit_type_id = models.CharField(
        max_length=100, blank=True, help_text="The marketplace HIT type it was created under.",
    )
    marketplace_done = models.BooleanField(
        default=False, help_text="Every marketplace assignment was reconciled and decided; sync skips it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign_id", "position", "id"]
        verbose_name = "HIT"
        indexes = [
            models.Index(fields=["campaign", "status", "position"]),
            # The HITs a worker may be given, in the order they are given (fewest taken slots first): the next
            # HIT is the first entries of this index that the worker has not done, whatever the campaign's size.
            models.Index(
                fields=["campaign", "taken_slots", "position", "id"], name="hit_open_slots",
                condition=models.Q(status=HITStatus.PUBLISHED, onboarding=False,
                                   taken_slots__lt=models.F("max_assignments")),
            ),
            # The open pilot HITs, handed out before the others in position order (services.slots).
            models.Index(
                fields=["campaign", "position", "id"], name="hit_open_pilot",
                condition=models.Q(pilot=True, status=HITStatus.PUBLISHED,
                                   taken_slots__lt=models.F("max_assignments")),
            ),
        ]

    def __str__(self) -> str:
        return f"HIT {self.pk} of {self.campaign_id}"

    def transition(self, target: str) -> None:
        HIT_MACHINE.check(self.status, target)
        self.status = target


class Worker(models.Model):
    provider = models.CharField(max_length=20)
    external_id = models.CharField(max_length=100)
    blocked = models.BooleanField(default=False)
    block_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider", "external_id"], name="worker_unique_per_provider")
        ]

    def __str__(self) -> str:
        return f"{self.provider}:{self.external_id}"


class Assignment(models.Model):
    """A worker's go at a HIT. One per (HIT, worker): a worker never does the same HIT twice."""

    hit = models.ForeignKey(HIT, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    status = models.CharField(max_length=10, choices=AssignmentStatus.choices, default=AssignmentStatus.ACCEPTED)
    external_id = models.CharField(max_length=100, blank=True, help_text="Provider's assignment id.")
    marketplace_status = models.CharField(
        max_length=20, blank=True, help_text="The status the marketplace last reported (Submitted, Approved, ...).",
    )
    auto_approved = models.BooleanField(default=False, help_text="Approved by the marketplace's auto-approval.")
    answer = models.JSONField(null=True, blank=True)
    check_flags = models.JSONField(default=list, blank=True, help_text="Automatic quality-check flags.")
    gold_score = models.FloatField(null=True, blank=True, help_text="Score against the known answer (gold HITs).")
    agreement = models.FloatField(null=True, blank=True,
                                  help_text="Agreement with the other answers to the HIT (services.quality).")
    feedback = models.TextField(blank=True)
    rejection_category = models.CharField(
        max_length=30, blank=True, default="", db_default="",
        help_text="Prolific's rejection category (e.g. LOW_EFFORT) of a rejection.",
    )
    accepted_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField()
    active_until = models.DateTimeField(
        null=True, blank=True,
        help_text="Local work: the slot is given back (accepted -> abandoned) when no sign of activity came from the "
                  "task page by then (services.activity). Empty: never released before the deadline.",
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    time_on_task = models.DurationField(null=True, blank=True)
    is_simulated = models.BooleanField(default=False)
    confirmed = models.BooleanField(
        default=True,
        help_text=(
            "The assignment is known to be real: local work (our own signed links) always is; a marketplace "
            "arrival (its ids are unsigned) only once the marketplace reports it. Unconfirmed records count "
            "for nothing: no slot, no eligibility, no qualification, no pay, no dataset record."
        ),
    )

    class Meta:
        ordering = ["-submitted_at", "-id"]
        constraints = [
            # A worker does a HIT at most once (confirmed records); unconfirmed marketplace arrivals are kept
            # apart per marketplace assignment id, so a forged visit never touches a real worker's record.
            models.UniqueConstraint(fields=["hit", "worker"], condition=models.Q(confirmed=True),
                                    name="assignment_one_per_worker_and_hit"),
            models.UniqueConstraint(fields=["hit", "worker", "external_id"], condition=models.Q(confirmed=False),
                                    name="unconfirmed_arrival_once_per_marketplace_id"),
        ]
        indexes = [models.Index(fields=["status", "deadline"]), models.Index(fields=["external_id", "worker"]),
                   models.Index(fields=["status", "active_until"], name="assignment_idle")]

    def __str__(self) -> str:
        return f"Assignment {self.pk} ({self.status})"

    def submitted_answer(self) -> dict[str, Any]:
        """The worker's answer (a JSON object); raises ValueError when there is none (never submitted)."""
        return submitted_answer(self.pk, self.answer)

    def transition(self, target: str) -> None:
        ASSIGNMENT_MACHINE.check(self.status, target)
        self.status = target

    @staticmethod
    def deadline_for(campaign: Campaign, start: datetime | None = None) -> datetime:
        return (start or timezone.now()) + timedelta(seconds=campaign.time_limit_seconds)


def submitted_answer(assignment_id: object, answer: object) -> dict[str, Any]:
    """`answer` as read from an assignment row: a submitted assignment's answer is a JSON object; anything
    else (None: never submitted) raises ValueError."""
    if not isinstance(answer, dict):
        raise ValueError(f"assignment {assignment_id} has no submitted answer (got {type(answer).__name__})")
    return answer


class BonusState(models.TextChoices):
    """A bonus's ledger. Providers whose payment is one idempotent call (MTurk's token) go planned -> paid;
    Prolific's two calls go planned -> set_up (bulk id stored) -> pay_requested (stored before `pay`, which
    is never sent twice) -> paid (seen in Prolific's records)."""

    PLANNED = "planned"
    SET_UP = "set_up"
    PAY_REQUESTED = "pay_requested"
    PAID = "paid"


class Bonus(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="bonuses")
    amount = models.DecimalField(max_digits=8, decimal_places=2, validators=[MinValueValidator(Decimal("0.01"))])
    reason = models.TextField()
    unique_token = models.CharField(max_length=64, unique=True)
    paid = models.BooleanField(default=False)
    state = models.CharField(
        max_length=15, choices=BonusState.choices, default=BonusState.PLANNED, db_default=BonusState.PLANNED,
        help_text="Where paying stands; each step is stored before the marketplace call that follows it.",
    )
    external_id = models.CharField(max_length=100, blank=True, default="", db_default="",
                                   help_text="The marketplace's id (Prolific: bulk bonus).")
    problem = models.TextField(blank=True, default="", db_default="",
                               help_text="Why the bonus needs a person's attention, if it does.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "bonuses"

"""Records of the prolific provider: a campaign's study, and each Prolific submission (one participant's
session, in which they do a bundle of `Campaign.tasks_per_submission` tasks).

A study is created without a request token (Prolific has none): its row, with a unique `intent_id` that is
written into the study's `internal_name`, is stored before the creation call, so that a creation cut off by
a timeout or a crash is found again by that name instead of being repeated."""
from __future__ import annotations

import secrets
import uuid

from django.db import models

from ...models import Campaign, Worker


def new_completion_code() -> str:
    return "C" + secrets.token_hex(5).upper()


class ProlificStudy(models.Model):
    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="prolific_study")
    intent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False,
                                 help_text="Written into the study's internal_name before it is created.")
    external_id = models.CharField(max_length=100, blank=True, db_index=True, help_text="Prolific's study id.")
    status = models.CharField(max_length=30, blank=True, help_text="The study status Prolific last reported.")
    completion_code = models.CharField(max_length=40, default=new_completion_code,
                                       help_text="The code participants are sent back with (COMPLETED).")
    places = models.PositiveIntegerField(default=0, help_text="total_available_places last set on Prolific.")
    places_taken = models.PositiveIntegerField(default=0, help_text="places_taken as Prolific last reported.")
    currency = models.CharField(max_length=3, blank=True)
    fee_ratio = models.DecimalField(
        max_digits=8, decimal_places=6, null=True, blank=True,
        help_text="Prolific's fees and VAT as a share of the reward (from its cost calculator).",
    )
    costs = models.JSONField(default=dict, blank=True,
                             help_text="total_cost, fees_percentage, vat_percentage ... as Prolific reported them.")
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Prolific study {self.external_id or '(not created)'} of {self.campaign_id}"

    @property
    def internal_name(self) -> str:
        return f"vl-{self.intent_id}"


class SubmissionDecision(models.TextChoices):
    NONE = "", "Undecided"
    APPROVE = "approve", "Approve"
    REJECT = "reject", "Reject"


class ProlificSubmission(models.Model):
    """One Prolific submission (its id is the SESSION_ID our page receives). Created when the participant
    arrives and Prolific confirmed the session; the bundle's assignments carry its id as external_id."""

    study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="submissions")
    submission_id = models.CharField(max_length=100, unique=True)
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="prolific_submissions")
    status = models.CharField(max_length=30, help_text="The submission status Prolific last reported.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(
        null=True, blank=True, help_text="When our page sent the participant back to Prolific with the code.",
    )
    completed_at = models.DateTimeField(null=True, blank=True, help_text="Prolific's completed_at.")
    decision = models.CharField(
        max_length=10, choices=SubmissionDecision.choices, default=SubmissionDecision.NONE, blank=True,
        help_text="What we decided for the whole submission (stored before it is sent to Prolific).",
    )
    decision_message = models.TextField(blank=True)
    rejection_category = models.CharField(max_length=30, blank=True)
    decision_sent = models.BooleanField(default=False, help_text="Prolific reported the decision back.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["study", "status"]), models.Index(fields=["decision", "decision_sent"])]

    def __str__(self) -> str:
        return f"Prolific submission {self.submission_id} ({self.status})"

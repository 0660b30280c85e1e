"""Worker quality: gold items, measured quality per worker and item, review rules and their audit.

The crowd core knows no dataset: a gold item holds a HIT's items and the known answer as the task kind
reads them (see mturk.measures), and aggregated answers are stored in the kind's answer shape."""
from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from ..jobs.models import BackgroundJob


class GoldPurpose(models.TextChoices):
    GOLD = "gold", "gold (mixed into the campaign's HITs)"
    ONBOARDING = "onboarding", "onboarding (a qualifying set before a worker's first real task)"


class GoldItem(models.Model):
    """A HIT's items with a known answer, for one task kind. `items` has exactly the shape of a real HIT's items
    (the page cannot tell them apart); `answer` is the known answer as the kind's quality reads it
    (KindQuality.clean_gold), and never reaches the page."""

    task_kind = models.CharField(max_length=50, db_index=True)
    purpose = models.CharField(max_length=12, choices=GoldPurpose.choices, default=GoldPurpose.GOLD)
    items = models.JSONField()
    answer = models.JSONField(help_text="The known answer (the kind's gold format).")
    note = models.CharField(max_length=200, blank=True, help_text="Where the known answer comes from.")
    active = models.BooleanField(default=True, help_text="Mixed into new campaigns.")
    scope = models.CharField(
        max_length=100, blank=True, default="", db_index=True,
        help_text="The campaigns of its kind it is for: empty, every one; else those whose task-kind options have "
                  "this scope (TaskKind.gold_scope), e.g. the attention checks of one human evaluation.",
    )
    source_assignment = models.ForeignKey(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The approved answer it was made from, if it was marked from the review.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task_kind", "id"]

    def __str__(self) -> str:
        return f"{self.purpose} item {self.pk} ({self.task_kind})"


class QualityRule(models.Model):
    """A campaign's review rule, applied per worker from their measured quality (WorkerScore).

    Approve a worker's submitted work when gold accuracy >= approve_min_gold and agreement >=
    approve_min_agreement (a bound left empty is not checked); reject it when gold accuracy < reject_below_gold
    or agreement < reject_below_agreement, with the message (and category, where the marketplace has them);
    leave the rest to a person. Gold bounds need at least min_gold_items scored gold items. Bonus the top
    bonus_top_share of workers (by gold accuracy, then agreement) once per campaign."""

    campaign = models.OneToOneField("mturk.Campaign", on_delete=models.CASCADE, related_name="quality_rule")
    enabled = models.BooleanField(default=False, help_text="The periodic review job applies the rule.")
    approve_min_gold = models.FloatField(null=True, blank=True,
                                         validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    approve_min_agreement = models.FloatField(null=True, blank=True,
                                              validators=[MinValueValidator(-1.0), MaxValueValidator(1.0)])
    reject_below_gold = models.FloatField(null=True, blank=True,
                                          validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    reject_below_agreement = models.FloatField(null=True, blank=True,
                                               validators=[MinValueValidator(-1.0), MaxValueValidator(1.0)])
    min_gold_items = models.PositiveSmallIntegerField(default=1, validators=[MinValueValidator(1)])
    min_items = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1)],
        help_text="Agreement bounds need at least this many of the worker's items compared with others.")
    reject_message = models.TextField(blank=True)
    reject_category = models.CharField(max_length=30, blank=True)
    bonus_top_share = models.FloatField(null=True, blank=True,
                                        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    bonus_amount = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True,
                                       validators=[MinValueValidator(Decimal("0.01"))])
    bonus_reason = models.TextField(blank=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"review rule of {self.campaign_id}"


class DecisionAction(models.TextChoices):
    APPROVE = "approve"
    REJECT = "reject"
    BONUS = "bonus"


class DecisionState(models.TextChoices):
    PLANNED = "planned"  # stored before the marketplace call
    DONE = "done"
    FAILED = "failed"


class QualityDecision(models.Model):
    """The audit of one automatic decision: stored (planned) before it is made, with the evidence and the rule
    behind it, then marked done or failed. `key` makes each decision once: approve:<assignment>,
    reject:<assignment>, bonus:<campaign>:<worker>."""

    key = models.CharField(max_length=80, unique=True)
    campaign = models.ForeignKey("mturk.Campaign", on_delete=models.CASCADE, related_name="quality_decisions")
    assignment = models.ForeignKey("mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="quality_decisions")
    worker = models.ForeignKey("mturk.Worker", on_delete=models.PROTECT, related_name="quality_decisions")
    action = models.CharField(max_length=10, choices=DecisionAction.choices)
    state = models.CharField(max_length=10, choices=DecisionState.choices, default=DecisionState.PLANNED)
    message = models.TextField(blank=True, help_text="Feedback or bonus reason sent to the worker.")
    amount = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    evidence = models.JSONField(default=dict, help_text="The scores the decision was made on.")
    rule = models.JSONField(default=dict, help_text="The rule as it was when the decision was made.")
    source = models.CharField(max_length=20, help_text="periodic, console, api or command.")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["campaign", "-created_at"])]


class WorkerScore(models.Model):
    """A worker's measured quality in one campaign, computed by services.quality (stored, not computed per page)."""

    campaign = models.ForeignKey("mturk.Campaign", on_delete=models.CASCADE, related_name="worker_scores")
    worker = models.ForeignKey("mturk.Worker", on_delete=models.CASCADE, related_name="scores")
    items = models.PositiveIntegerField(default=0, help_text="Answered real (not gold) HITs.")
    compared_items = models.PositiveIntegerField(default=0, help_text="Of those, HITs another worker also answered.")
    gold_items = models.PositiveIntegerField(default=0, help_text="Answered gold and onboarding HITs.")
    gold_accuracy = models.FloatField(null=True, blank=True, help_text="Mean gold score (0..1).")
    agreement = models.FloatField(null=True, blank=True, help_text="Mean agreement of the worker's answers.")
    skill = models.FloatField(null=True, blank=True, help_text="A model's skill estimate (Dawid-Skene), if any.")
    median_seconds = models.FloatField(null=True, blank=True)
    approved = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    pay = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0"),
                              help_text="Rewards of approved work plus bonuses (fees excluded).")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["campaign_id", "worker_id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "worker"], name="worker_score_once")]


class ItemAggregate(models.Model):
    """The aggregated answer of one HIT that several workers did, in the kind's answer shape, with how it was
    aggregated and how much the workers agreed."""

    hit = models.OneToOneField("mturk.HIT", on_delete=models.CASCADE, related_name="aggregate")
    method = models.CharField(max_length=200)
    answer = models.JSONField()
    support = models.PositiveSmallIntegerField(help_text="How many answers it was aggregated from.")
    agreement = models.FloatField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField(auto_now=True)


class CampaignQuality(models.Model):
    """The last quality computation of a campaign: its measure and campaign-wide figures (e.g. Krippendorff's
    alpha)."""

    campaign = models.OneToOneField("mturk.Campaign", on_delete=models.CASCADE, related_name="quality")
    measure = models.CharField(max_length=200, blank=True)
    overall = models.JSONField(default=dict, blank=True)
    answers = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(auto_now=True)


class QualityJob(BackgroundJob):
    """A computation of a campaign's quality asked for from the console or the API, run by a background job
    (services.quality_jobs); `result` is what it measured (QualityComputation)."""

    job_task = "mturk.tasks.compute_campaign_quality"

    campaign = models.ForeignKey("mturk.Campaign", on_delete=models.CASCADE, related_name="quality_jobs")
    result = models.JSONField(default=dict, blank=True)

    class Meta(BackgroundJob.Meta):
        pass

    def __str__(self) -> str:
        return f"quality job #{self.pk} of campaign {self.campaign_id} ({self.status})"

"""What the crowd core keeps of a marketplace: its HIT types, qualifications and their grants, and the events it
sent (stored before they are handled)."""
from __future__ import annotations

from django.db import models

from .campaigns import Campaign, Worker


class MarketplaceHITType(models.Model):
    """A marketplace HIT type created for one configuration of a campaign (reward, limits, requirements)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="hit_types")
    config_hash = models.CharField(max_length=64)
    external_id = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "config_hash"], name="hit_type_per_config")]


class MarketplaceQualification(models.Model):
    """A private qualification type: "took part in <scope>" (a campaign or a group such as album:12)."""

    provider = models.CharField(max_length=20)
    sandbox = models.BooleanField(default=False)
    scope = models.CharField(max_length=120)
    external_id = models.CharField(max_length=100, blank=True, help_text="Blank until the marketplace created it.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider", "sandbox", "scope"], name="qualification_per_scope"),
        ]


class QualificationGrant(models.Model):
    """A participation qualification to grant a worker; stored first, `granted` once the marketplace has it."""

    qualification = models.ForeignKey(MarketplaceQualification, on_delete=models.CASCADE, related_name="grants")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="qualification_grants")
    granted = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["qualification", "worker"], name="grant_once_per_worker"),
        ]


class MarketplaceEvent(models.Model):
    """A marketplace notification (MTurk SQS/SNS document, Prolific webhook), keyed by its id (EventDocId,
    X-Event-ID) so that none counts twice."""

    provider = models.CharField(max_length=20)
    event_doc_id = models.CharField(max_length=100)
    event_type = models.CharField(max_length=50)
    hit_external_id = models.CharField(max_length=100, blank=True)
    assignment_external_id = models.CharField(max_length=100, blank=True)
    payload = models.JSONField(default=dict, blank=True, help_text="The event as received (webhooks).")
    handled_at = models.DateTimeField(
        null=True, blank=True, help_text="When its reconciliation ran (webhook events are stored, then handled).",
    )
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider", "event_doc_id"], name="event_handled_once"),
        ]


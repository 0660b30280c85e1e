"""API serializers: shapes only; writes go through the services."""
from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from ..models import HIT, Assignment, Campaign, Worker
from ..providers.registry import get_provider, provider_names
from ..selectors import progress_of
from ..task_kinds import StrictSerializer, task_kind_names


class ProgressSerializer(serializers.Serializer):
    required = serializers.IntegerField()
    answered = serializers.IntegerField()
    pending_review = serializers.IntegerField()
    approved = serializers.IntegerField()
    rejected = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    percent = serializers.IntegerField()
    cost_so_far = serializers.DecimalField(max_digits=12, decimal_places=2)
    max_cost = serializers.DecimalField(max_digits=12, decimal_places=2)


class CampaignSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    hit_count = serializers.IntegerField(read_only=True)
    worker_link = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = [
            "id", "name", "task_kind", "provider", "status", "title", "description", "instructions",
            "reward", "assignments_per_hit", "time_limit_seconds", "max_assignments_per_worker",
            "budget_cap", "options", "is_simulated", "source_stage", "created_at", "published_at", "hit_count",
            "progress", "worker_link",
        ]
        read_only_fields = fields

    def get_progress(self, campaign: Campaign) -> dict:
        return ProgressSerializer(progress_of(campaign)).data

    def get_worker_link(self, campaign: Campaign) -> str | None:
        return get_provider(campaign.provider).worker_link(campaign) if campaign.status != "draft" else None


class CampaignCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200)
    task_kind = serializers.ChoiceField(choices=[])
    provider = serializers.ChoiceField(choices=[], default="local")
    reward = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0"), required=False)
    assignments_per_hit = serializers.IntegerField(min_value=1, max_value=1000, required=False)
    time_limit_seconds = serializers.IntegerField(min_value=30, max_value=365 * 24 * 3600, required=False)
    max_assignments_per_worker = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    budget_cap = serializers.DecimalField(max_digits=10, decimal_places=2, min_value=Decimal("0"), required=False,
                                          allow_null=True)
    title = serializers.CharField(max_length=128, required=False)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    instructions = serializers.CharField(required=False, allow_blank=True)
    options = serializers.DictField(required=False)
    items = serializers.ListField(child=serializers.DictField(), required=False,
                                  help_text="One object per HIT, e.g. {\"image\": 12}.")
    source_stage = serializers.PrimaryKeyRelatedField(
        queryset=Campaign.objects.all(), required=False, allow_null=True,
        help_text="Campaign whose approved results add this campaign's HITs (stage chaining).",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_kind"].choices = task_kind_names()
        self.fields["provider"].choices = provider_names()


class HitItemsSerializer(StrictSerializer):
    items = serializers.ListField(child=serializers.DictField(), allow_empty=False)


class PublishSerializer(StrictSerializer):
    provider = serializers.ChoiceField(choices=[], required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["provider"].choices = provider_names()


class HITSerializer(serializers.ModelSerializer):
    class Meta:
        model = HIT
        fields = ["id", "campaign", "position", "items", "max_assignments", "status", "external_id",
                  "created_at", "published_at", "expires_at"]
        read_only_fields = fields


class WorkerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Worker
        fields = ["id", "provider", "external_id", "blocked", "block_reason", "created_at"]
        read_only_fields = fields


class AssignmentSerializer(serializers.ModelSerializer):
    worker = serializers.CharField(source="worker.external_id", read_only=True)
    campaign = serializers.IntegerField(source="hit.campaign_id", read_only=True)
    time_on_task_seconds = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = ["id", "hit", "campaign", "worker", "status", "answer", "check_flags", "feedback",
                  "accepted_at", "deadline", "submitted_at", "decided_at", "time_on_task_seconds",
                  "is_simulated"]
        read_only_fields = fields

    def get_time_on_task_seconds(self, assignment: Assignment) -> float | None:
        return assignment.time_on_task.total_seconds() if assignment.time_on_task else None


class FeedbackSerializer(StrictSerializer):
    feedback = serializers.CharField(required=False, allow_blank=True, default="")


class BonusSerializer(StrictSerializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField()


class BlockSerializer(StrictSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="")

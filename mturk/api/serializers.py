"""API serializers: shapes only; writes go through the services."""
from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from ..item_sources import UnknownItemSource, get_source, sources_for
from ..models import HIT, Assignment, Campaign, Worker
from ..providers.registry import default_provider_name, get_provider, provider_names
from ..selectors.campaigns import CampaignWithProgress, progress_of
from ..task_kinds import StrictSerializer, task_kind_names
from .fields import set_choices


class ProgressSerializer(serializers.Serializer):
    # The serializer metaclass moves declared fields into _declared_fields, so this never shadows
    # Field.required at run time; the stubs see a class attribute of the same name.
    required = serializers.IntegerField()  # type: ignore[assignment]
    answered = serializers.IntegerField()
    pending_review = serializers.IntegerField()
    approved = serializers.IntegerField()
    rejected = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    percent = serializers.IntegerField()
    cost_so_far = serializers.DecimalField(max_digits=12, decimal_places=2)
    max_cost = serializers.DecimalField(max_digits=12, decimal_places=2)
    fees_known = serializers.BooleanField(
        help_text="False: the marketplace's fees are not known yet (Prolific: before the first publication or dry run) "
                  "and are left out of the costs.")


class CampaignSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    hit_count = serializers.IntegerField(read_only=True)
    pending_creation = serializers.IntegerField(
        read_only=True, help_text="Published HITs a background job has not created on the marketplace yet.")
    worker_link = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = [
            "id", "name", "task_kind", "provider", "status", "title", "description", "instructions",
            "reward", "assignments_per_hit", "time_limit_seconds", "max_assignments_per_worker",
            "budget_cap", "options", "is_simulated", "source_stage", "created_at", "published_at", "hit_count",
            "progress", "worker_link", "keywords", "lifetime_seconds", "auto_approval_delay_seconds",
            "qualifications", "auto_approve_passing", "sandbox", "marketplace_error", "pending_creation",
            "tasks_per_submission", "gold_rate", "onboarding_items", "onboarding_pass", "pilot_items",
            "pilot_assignments",
        ]
        read_only_fields = fields

    def get_progress(self, campaign: CampaignWithProgress) -> dict:
        return ProgressSerializer(progress_of(campaign)).data

    def get_worker_link(self, campaign: Campaign) -> str | None:
        return get_provider(campaign.provider).worker_link(campaign) if campaign.status != "draft" else None


class CampaignCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200)
    task_kind = serializers.ChoiceField(choices=[])
    provider = serializers.ChoiceField(choices=[], default=default_provider_name())
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
    items = serializers.ListField(child=serializers.DictField(), required=False, allow_empty=False,
                                  help_text="One object per HIT, e.g. {\"image\": 12}; leave it out to add HITs "
                                            "later (an empty list is refused).")
    select = serializers.DictField(
        required=False,
        help_text="Instead of items: every item an item source's selector matches, one HIT each, e.g. "
                  '{"source": "images", "set": ["Kitchens"], "tag": ["pilot"], "search": "IMG_", "state": '
                  '"no-boxes"} (images: set, tag, search, state "no-boxes" or "fewer-captions" with captions N, '
                  "not_in_campaign (name or id), include_demo; without set the demo collection is left out).")
    source_stage = serializers.PrimaryKeyRelatedField(
        queryset=Campaign.objects.all(), required=False, allow_null=True,
        help_text="Campaign whose approved results add this campaign's HITs (stage chaining).",
    )
    keywords = serializers.CharField(max_length=1000, required=False, allow_blank=True,
                                     help_text="Comma-separated search keywords (marketplaces).")
    lifetime_seconds = serializers.IntegerField(min_value=30, max_value=365 * 24 * 3600, required=False,
                                                help_text="How long a HIT stays on offer.")
    auto_approval_delay_seconds = serializers.IntegerField(
        min_value=0, max_value=30 * 24 * 3600, required=False,
        help_text="Submitted work the marketplace approves by itself after this delay.")
    qualifications = serializers.DictField(
        required=False,
        help_text='Worker requirements, e.g. {"approval_rate_min": 95, "locales": ["US"]} (keys: approval_rate_min, '
                  "approved_min, locales, masters, adult); Prolific: devices, peripherals, filters, filter_set_id, "
                  "estimated_minutes.")
    auto_approve_passing = serializers.BooleanField(
        required=False, help_text="Each sync approves submitted work that passes the task kind's checks.")
    tasks_per_submission = serializers.IntegerField(
        min_value=1, max_value=50, required=False,
        help_text="Prolific: how many tasks one participant does in one submission (a bundle); default 1.")
    gold_rate = serializers.FloatField(
        min_value=0.0, max_value=0.5, required=False,
        help_text="Share of the campaign's HITs that are gold items (known answers), from 0 to 0.5; they are mixed "
                  "in among the real HITs and look the same to workers. Needs active gold items of the task kind.")
    onboarding_items = serializers.IntegerField(
        min_value=0, max_value=20, required=False,
        help_text="Onboarding gold items every worker does before their first real task (local and Prolific); "
                  "needs that many active onboarding items of the task kind.")
    onboarding_pass = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False,
        help_text="The mean onboarding score (0 to 1) a worker needs to go on to real tasks; default 0.8.")
    pilot_items = serializers.IntegerField(
        min_value=0, max_value=1000, required=False,
        help_text="Pilot: the first N items each go to pilot_assignments workers and are handed out first, so "
                  "agreement can be measured after a few answers; the rest take assignments_per_hit. 0: no pilot.")
    pilot_assignments = serializers.IntegerField(
        min_value=2, max_value=20, required=False, help_text="Workers per pilot item (2 to 20); default 3.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        set_choices(self.fields, "task_kind", task_kind_names())
        set_choices(self.fields, "provider", provider_names())

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        select = attrs.pop("select", None)
        if select is None:
            return attrs
        if "items" in attrs:
            raise serializers.ValidationError({"select": "give either items or select, not both"})
        params = dict(select)
        try:
            source = get_source(str(params.pop("source", "")))
        except UnknownItemSource as exc:
            raise serializers.ValidationError({"select": f"source: {exc}"}) from None
        kind = attrs.get("task_kind", "")
        if source not in sources_for(kind) or not source.filters:
            raise serializers.ValidationError({"select": f"{source.label} has no selector for a {kind} campaign"})
        try:
            attrs["items"] = source.select(kind, params)
        except ValueError as exc:
            raise serializers.ValidationError({"select": str(exc)}) from None
        return attrs


class HitItemsSerializer(StrictSerializer):
    items = serializers.ListField(child=serializers.DictField(), allow_empty=False)


class PublishSerializer(StrictSerializer):
    provider = serializers.ChoiceField(choices=[], required=False)
    sandbox = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="Marketplaces: publish to the sandbox (default: the MTURK_SANDBOX setting). Fixed at the first "
                  "publication.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        set_choices(self.fields, "provider", provider_names())


class HITSerializer(serializers.ModelSerializer):
    class Meta:
        model = HIT
        fields = ["id", "campaign", "position", "items", "max_assignments", "status", "external_id",
                  "created_at", "published_at", "expires_at", "gold_item", "onboarding", "pilot"]
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
                  "is_simulated", "confirmed", "gold_score", "agreement"]
        read_only_fields = fields

    def get_time_on_task_seconds(self, assignment: Assignment) -> float | None:
        return assignment.time_on_task.total_seconds() if assignment.time_on_task else None


class FeedbackSerializer(StrictSerializer):
    feedback = serializers.CharField(required=False, allow_blank=True, default="")


class RejectionSerializer(FeedbackSerializer):
    category = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=30,
        help_text="The marketplace's rejection category (Prolific requires one, e.g. LOW_EFFORT; its rejection "
                  "messages need at least 100 characters).",
    )


class BonusSerializer(StrictSerializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField()


class BlockSerializer(StrictSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class NotifySerializer(StrictSerializer):
    subject = serializers.CharField()
    text = serializers.CharField()
    worker_ids = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, allow_empty=False,
        help_text="Marketplace worker ids (default: every worker of the campaign).")


class ExtendSerializer(StrictSerializer):
    seconds = serializers.IntegerField(help_text="How much longer the HIT stays on offer (60 s to 365 days).")


class AddAssignmentsSerializer(StrictSerializer):
    count = serializers.IntegerField(help_text="How many more workers may do the HIT (1 to 1000).")
    confirm_fee_increase = serializers.BooleanField(
        default=False, help_text="Accept the higher fee of HITs with 10 or more assignments.")

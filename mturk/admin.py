"""The admin, for superusers: it shows everything but cannot break the invariants. Task kinds and providers are
choices of the registries; statuses change only through the services (their state machines), offered as admin
actions where cheap and safe; what the services compute (counters, answers, external ids, hashes, costs) is
read-only; what only the services create (campaigns with their HITs, assignments, bonuses, jobs) has no add form."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from .models import (
    HIT,
    Assignment,
    Bonus,
    Campaign,
    DatasetExport,
    ImportJob,
    MarketplaceEvent,
    MarketplaceHITType,
    MarketplaceQualification,
    QualificationGrant,
    Worker,
)
from .providers.registry import get_provider, provider_modules, provider_names
from .services.campaigns import set_campaign_status
from .services.hits import HITError, expire_hit
from .services.review import ReviewError, approve_assignment
from .states import CampaignStatus, InvalidTransition
from .task_kinds import get_task_kind, task_kind_names


def all_fields(model: type[Any]) -> list[str]:
    """Every field of a model, for readonly_fields (many-to-many included)."""
    return [f.name for f in model._meta.get_fields() if (f.concrete or f.many_to_many) and not f.auto_created]


class CreatedByServices:
    """Rows only the services create (with the rows that go with them): no add form in the admin."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ViewOnlyAdmin(CreatedByServices, admin.ModelAdmin):
    """Records the services and jobs keep (states, counters, what a marketplace reported): shown, never edited."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def apply_each(model_admin: admin.ModelAdmin, request: HttpRequest, rows: Iterable[Any], service: Callable[[Any], Any],
               refused: tuple[type[Exception], ...], label: Callable[[Any], str]) -> int:
    """Run a service on each selected row; each refusal becomes an error message. Returns how many succeeded."""
    done = 0
    for row in rows:
        try:
            service(row)
            done += 1
        except refused as exc:
            model_admin.message_user(request, f"{label(row)}: {exc}", messages.ERROR)
    return done


# ---- campaigns ------------------------------------------------------------------------------------------------
class CampaignAdminForm(forms.ModelForm):
    task_kind = forms.ChoiceField(choices=lambda: [(name, name) for name in task_kind_names()])
    provider = forms.ChoiceField(choices=lambda: [(name, name) for name in provider_names()])

    class Meta:
        model = Campaign
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        """What create_campaign checks: the kind's options and items, the provider's qualifications."""
        data: dict[str, Any] = super().clean() or self.cleaned_data
        if "task_kind" in self.fields and data.get("task_kind"):
            kind = get_task_kind(data["task_kind"])
            options = data.get("options") or {}
            unknown = set(options) - set(kind.defaults.options)
            try:
                if unknown:
                    raise ValueError(f"unknown option(s) for {kind.name}: {', '.join(sorted(unknown))}")
                kind.clean_options({**kind.defaults.options, **options})
                if self.instance.pk:
                    kind.validate_items(list(self.instance.hits.values_list("items", flat=True)))
            except ValueError as exc:
                raise forms.ValidationError(f"{kind.name}: {exc}") from None
        if "provider" in self.fields and data.get("provider") and "qualifications" in data:
            try:
                data["qualifications"] = get_provider(data["provider"]).clean_qualifications(data["qualifications"])
            except ValueError as exc:
                self.add_error("qualifications", str(exc))
        return data


# Once published, a campaign's configuration is what its HITs (and a marketplace) were made with.
EDITABLE_WHEN_LIVE = {"name", "instructions", "budget_cap", "auto_approve_passing"}
# assignments_per_hit: each HIT was made with it (services.hits adds assignments once published).
COMPUTED_CAMPAIGN_FIELDS = ["status", "assignments_per_hit", "sandbox", "external_id", "marketplace_error",
                            "is_simulated", "source_stage", "created_by", "created_at", "published_at"]


@admin.register(Campaign)
class CampaignAdmin(CreatedByServices, admin.ModelAdmin):
    form = CampaignAdminForm
    list_display = ["name", "task_kind", "provider", "status", "reward", "assignments_per_hit", "created_at"]
    list_filter = ["task_kind", "provider", "status", "is_simulated"]
    search_fields = ["name"]
    actions = ["pause_campaigns", "close_campaigns"]

    def get_readonly_fields(self, request: HttpRequest, obj: Campaign | None = None) -> list[str]:
        if obj is not None and obj.status != CampaignStatus.DRAFT:
            return [name for name in all_fields(Campaign) if name not in EDITABLE_WHEN_LIVE]
        return COMPUTED_CAMPAIGN_FIELDS

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # a published campaign's work and spend stay on record
        return actions

    def has_delete_permission(self, request: HttpRequest, obj: Campaign | None = None) -> bool:
        return obj is None or obj.status == CampaignStatus.DRAFT

    def _set_status(self, request: HttpRequest, queryset: QuerySet[Campaign], target: str) -> None:
        changed = apply_each(self, request, queryset, lambda campaign: set_campaign_status(campaign, target),
                             (InvalidTransition,), lambda campaign: campaign.name)
        if changed:
            self.message_user(request, f"{changed} campaign(s) {CampaignStatus(target).label.lower()}.")

    @admin.action(description="Pause the selected campaigns (no new task is handed out)")
    def pause_campaigns(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.PAUSED)

    @admin.action(description="Close the selected campaigns for good")
    def close_campaigns(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> HttpResponse | None:
        if request.POST.get("confirmed") != "1":  # closing cannot be undone: a confirmation page first
            context = {**self.admin_site.each_context(request), "campaigns": queryset, "opts": self.model._meta,
                       "title": "Close campaigns for good?", "action": "close_campaigns",
                       "action_checkbox_name": ACTION_CHECKBOX_NAME}
            return TemplateResponse(request, "admin/mturk/campaign/close_confirmation.html", context)
        self._set_status(request, queryset, CampaignStatus.CLOSED)
        return None


@admin.register(HIT)
class HITAdmin(CreatedByServices, admin.ModelAdmin):
    list_display = ["id", "campaign", "position", "status", "max_assignments", "external_id", "marketplace_done"]
    list_filter = ["status", "campaign"]
    list_select_related = ["campaign"]
    readonly_fields = all_fields(HIT)  # lifecycle through services.hits (expire, extend, add assignments)
    actions = ["expire_hits"]

    @admin.action(description="Expire the selected HITs (workers who accepted one may still submit)")
    def expire_hits(self, request: HttpRequest, queryset: QuerySet[HIT]) -> None:
        expired = apply_each(self, request, queryset.select_related("campaign"), expire_hit,
                             (HITError, InvalidTransition), lambda hit: f"HIT {hit.pk}")
        self.message_user(request, f"{expired} HIT(s) expired.")


@admin.register(Worker)
class WorkerAdmin(CreatedByServices, admin.ModelAdmin):
    list_display = ["external_id", "provider", "blocked", "created_at"]
    list_filter = ["provider", "blocked"]
    search_fields = ["external_id"]
    readonly_fields = all_fields(Worker)  # blocking goes through the review page (services.review)


@admin.register(Assignment)
class AssignmentAdmin(CreatedByServices, admin.ModelAdmin):
    list_display = ["id", "hit", "worker", "status", "external_id", "marketplace_status", "submitted_at",
                    "time_on_task"]
    list_filter = ["status", "hit__campaign"]
    list_select_related = ["hit__campaign", "worker"]
    readonly_fields = all_fields(Assignment)  # decisions go through services.review
    actions = ["approve_assignments"]

    @admin.action(description="Approve the selected submitted assignments")
    def approve_assignments(self, request: HttpRequest, queryset: QuerySet[Assignment]) -> None:
        approved = apply_each(self, request, queryset.select_related("hit__campaign", "worker"), approve_assignment,
                              (ReviewError, InvalidTransition), lambda assignment: f"Assignment {assignment.pk}")
        self.message_user(request, f"{approved} assignment(s) approved.")


@admin.register(Bonus)
class BonusAdmin(ViewOnlyAdmin):
    list_display = ["assignment", "amount", "state", "paid", "created_at"]
    list_filter = ["state", "paid"]
    readonly_fields = all_fields(Bonus)


@admin.register(MarketplaceHITType)
class MarketplaceHITTypeAdmin(ViewOnlyAdmin):
    list_display = ["external_id", "campaign", "created_at"]
    list_select_related = ["campaign"]
    readonly_fields = all_fields(MarketplaceHITType)


@admin.register(MarketplaceQualification)
class MarketplaceQualificationAdmin(ViewOnlyAdmin):
    list_display = ["scope", "provider", "sandbox", "external_id", "created_at"]
    list_filter = ["provider", "sandbox"]
    search_fields = ["scope", "external_id"]
    readonly_fields = all_fields(MarketplaceQualification)


@admin.register(QualificationGrant)
class QualificationGrantAdmin(ViewOnlyAdmin):
    list_display = ["qualification", "worker", "granted", "created_at"]
    list_filter = ["granted"]
    list_select_related = ["qualification", "worker"]
    readonly_fields = all_fields(QualificationGrant)


@admin.register(MarketplaceEvent)
class MarketplaceEventAdmin(ViewOnlyAdmin):
    list_display = ["event_doc_id", "event_type", "hit_external_id", "assignment_external_id", "received_at"]
    list_filter = ["provider", "event_type"]
    search_fields = ["event_doc_id", "hit_external_id", "assignment_external_id"]
    readonly_fields = all_fields(MarketplaceEvent)


@admin.register(DatasetExport)
class DatasetExportAdmin(ViewOnlyAdmin):
    list_display = ["id", "format", "status", "records", "created_at", "finished_at"]
    list_filter = ["format", "status"]
    readonly_fields = all_fields(DatasetExport)


@admin.register(ImportJob)
class ImportJobAdmin(ViewOnlyAdmin):
    list_display = ["id", "importer", "original_name", "status", "done", "total", "created_at"]
    list_filter = ["importer", "status"]
    readonly_fields = all_fields(ImportJob)


provider_modules("admin")  # each provider package's own models (e.g. Prolific's studies)

from django.contrib import admin

from .models import (
    HIT,
    Assignment,
    Bonus,
    Campaign,
    MarketplaceEvent,
    MarketplaceHITType,
    MarketplaceQualification,
    QualificationGrant,
    Worker,
)


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "task_kind", "provider", "status", "reward", "assignments_per_hit", "created_at"]
    list_filter = ["task_kind", "provider", "status", "is_simulated"]
    search_fields = ["name"]


@admin.register(HIT)
class HITAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "position", "status", "max_assignments", "external_id", "marketplace_done"]
    list_filter = ["status", "campaign"]
    list_select_related = ["campaign"]


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ["external_id", "provider", "blocked", "created_at"]
    list_filter = ["provider", "blocked"]
    search_fields = ["external_id"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "hit", "worker", "status", "external_id", "marketplace_status", "submitted_at",
                    "time_on_task"]
    list_filter = ["status", "hit__campaign"]
    list_select_related = ["hit__campaign", "worker"]
    raw_id_fields = ["hit", "worker"]
    readonly_fields = ["answer", "check_flags", "accepted_at", "submitted_at", "decided_at", "time_on_task"]


@admin.register(Bonus)
class BonusAdmin(admin.ModelAdmin):
    list_display = ["assignment", "amount", "paid", "created_at"]
    raw_id_fields = ["assignment"]


@admin.register(MarketplaceHITType)
class MarketplaceHITTypeAdmin(admin.ModelAdmin):
    list_display = ["external_id", "campaign", "created_at"]
    list_select_related = ["campaign"]
    readonly_fields = ["campaign", "config_hash", "external_id", "created_at"]


@admin.register(MarketplaceQualification)
class MarketplaceQualificationAdmin(admin.ModelAdmin):
    list_display = ["scope", "provider", "sandbox", "external_id", "created_at"]
    list_filter = ["provider", "sandbox"]
    search_fields = ["scope", "external_id"]


@admin.register(QualificationGrant)
class QualificationGrantAdmin(admin.ModelAdmin):
    list_display = ["qualification", "worker", "granted", "created_at"]
    list_filter = ["granted"]
    list_select_related = ["qualification", "worker"]
    raw_id_fields = ["qualification", "worker"]


@admin.register(MarketplaceEvent)
class MarketplaceEventAdmin(admin.ModelAdmin):
    list_display = ["event_doc_id", "event_type", "hit_external_id", "assignment_external_id", "received_at"]
    list_filter = ["provider", "event_type"]
    search_fields = ["event_doc_id", "hit_external_id", "assignment_external_id"]

from django.contrib import admin

from .models import HIT, Assignment, Bonus, Campaign, Worker


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "task_kind", "provider", "status", "reward", "assignments_per_hit", "created_at"]
    list_filter = ["task_kind", "provider", "status", "is_simulated"]
    search_fields = ["name"]


@admin.register(HIT)
class HITAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "position", "status", "max_assignments", "external_id"]
    list_filter = ["status", "campaign"]
    list_select_related = ["campaign"]


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ["external_id", "provider", "blocked", "created_at"]
    list_filter = ["provider", "blocked"]
    search_fields = ["external_id"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "hit", "worker", "status", "submitted_at", "time_on_task"]
    list_filter = ["status", "hit__campaign"]
    list_select_related = ["hit__campaign", "worker"]
    raw_id_fields = ["hit", "worker"]
    readonly_fields = ["answer", "check_flags", "accepted_at", "submitted_at", "decided_at", "time_on_task"]


@admin.register(Bonus)
class BonusAdmin(admin.ModelAdmin):
    list_display = ["assignment", "amount", "paid", "created_at"]
    raw_id_fields = ["assignment"]

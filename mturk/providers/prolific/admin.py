"""Prolific's studies and submissions in the admin, read-only (registered by mturk.admin)."""
from __future__ import annotations

from django.contrib import admin

from ...admin import ViewOnlyAdmin, all_fields
from .models import ProlificStudy, ProlificSubmission


@admin.register(ProlificStudy)
class ProlificStudyAdmin(ViewOnlyAdmin):
    list_display = ["external_id", "campaign", "status", "places", "places_taken", "synced_at"]
    list_select_related = ["campaign"]
    readonly_fields = all_fields(ProlificStudy)


@admin.register(ProlificSubmission)
class ProlificSubmissionAdmin(ViewOnlyAdmin):
    list_display = ["submission_id", "study", "worker", "status", "decision", "decision_sent"]
    list_filter = ["status", "decision"]
    list_select_related = ["study", "worker"]
    readonly_fields = all_fields(ProlificSubmission)

"""Albums come from the import services; their photos' order (datetaken) and images are what stories were
told on, so the admin shows them read-only. Only the album's descriptive fields can be corrected."""
from django.contrib import admin
from django.http import HttpRequest

from mturk.admin import CreatedByServices, all_fields

from .models import Album, Photo


class PhotoInline(admin.TabularInline):
    model = Photo
    extra = 0
    readonly_fields = all_fields(Photo)
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Album | None = None) -> bool:
        return False


@admin.register(Album)
class AlbumAdmin(CreatedByServices, admin.ModelAdmin):
    list_display = ["external_id", "title", "event_label", "is_simulated", "created_at"]
    search_fields = ["external_id", "title"]
    readonly_fields = ["external_id", "is_simulated", "created_at"]
    inlines = [PhotoInline]

from django.contrib import admin

from .models import Album, Photo


class PhotoInline(admin.TabularInline):
    model = Photo
    extra = 0
    raw_id_fields = ["image"]


@admin.register(Album)
class AlbumAdmin(admin.ModelAdmin):
    list_display = ["external_id", "title", "event_label", "is_simulated", "created_at"]
    search_fields = ["external_id", "title"]
    inlines = [PhotoInline]

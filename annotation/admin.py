from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from mturk.admin import CreatedByServices, ViewOnlyAdmin, all_fields

from .models import Box, Concept, Description, Image, Vocabulary


@admin.register(Image)
class ImageAdmin(CreatedByServices, admin.ModelAdmin):
    """Images come in through the import services (the console's Imports page, the API, the CLI): what they
    compute from the file (hash, format, size, renditions) is read-only."""
    list_display = ["id", "preview", "original_name", "format", "width", "height", "created_at"]
    search_fields = ["original_name", "sha256"]
    readonly_fields = ["original", "sha256", "format", "width", "height", "file_size", "thumb_small", "thumb_large",
                       "renditions_version", "created_at"]
    change_list_template = "admin/annotation/image/change_list.html"

    @admin.display(description="Image")
    def preview(self, obj: Image) -> str:
        return format_html('<img src="{}" width="80" alt="">', obj.small_url)


@admin.register(Concept)
class ConceptAdmin(admin.ModelAdmin):
    """A label belongs to one vocabulary: editing it changes no other vocabulary's labels."""
    list_display = ["name", "vocabulary", "synset", "parent", "offered"]
    list_filter = ["vocabulary", "offered"]
    list_select_related = ["vocabulary", "parent"]
    search_fields = ["name", "synset"]

    def get_readonly_fields(self, request: HttpRequest, obj: Concept | None = None) -> list[str]:
        return ["vocabulary"] if obj is not None else []


@admin.register(Vocabulary)
class VocabularyAdmin(admin.ModelAdmin):
    list_display = ["name", "description", "created_at"]
    search_fields = ["name"]


@admin.register(Box)
class BoxAdmin(CreatedByServices, admin.ModelAdmin):
    """A gold box's label and geometry can be corrected; a worker's box is their answer, read-only."""
    list_display = ["id", "image", "concept", "x", "y", "width", "height", "source"]
    list_select_related = ["image", "concept"]

    def get_readonly_fields(self, request: HttpRequest, obj: Box | None = None) -> list[str]:
        if obj is not None and obj.assignment_id is not None:
            return all_fields(Box)
        return ["image", "number", "source", "assignment"]


@admin.register(Description)
class DescriptionAdmin(ViewOnlyAdmin):
    """A description is a worker's answer (or imported gold) with its tokens computed from the text."""
    list_display = ["id", "image", "text", "source", "created_at"]
    list_select_related = ["image"]
    readonly_fields = all_fields(Description)

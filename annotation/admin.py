from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.html import format_html

from mturk.admin import CreatedByServices, ViewOnlyAdmin, all_fields

from .models import Box, Concept, Description, Image
from .services.images import ImportFailed, import_uploads


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def clean(self, data, initial=None):
        if isinstance(data, (list, tuple)):
            return [super(MultipleFileField, self).clean(item, initial) for item in data]
        return [super().clean(data, initial)]


class ImageUploadForm(forms.Form):
    # The form metaclass moves declared fields into base_fields, so this never shadows BaseForm.files at run
    # time; the stubs see a class attribute of the same name (the POST field stays "files").
    files = MultipleFileField(  # type: ignore[assignment]
        widget=MultipleFileInput(), help_text="Image files (JPEG, PNG, WebP) or zip archives of them."
    )


@admin.register(Image)
class ImageAdmin(CreatedByServices, admin.ModelAdmin):
    """Images come in through the import services (the upload view here, the console, the CLI): what they
    compute from the file (hash, format, size, renditions) is read-only."""
    list_display = ["id", "preview", "original_name", "format", "width", "height", "created_at"]
    search_fields = ["original_name", "sha256"]
    readonly_fields = ["original", "sha256", "format", "width", "height", "file_size", "thumb_small", "thumb_large",
                       "renditions_version", "created_at"]
    change_list_template = "admin/annotation/image/change_list.html"

    @admin.display(description="Image")
    def preview(self, obj: Image) -> str:
        return format_html('<img src="{}" width="80" alt="">', obj.small_url)

    def get_urls(self):
        upload = path("upload/", self.admin_site.admin_view(self.upload_view), name="annotation_image_upload")
        return [upload, *super().get_urls()]

    def upload_view(self, request):
        form = ImageUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            report = None
            try:
                report = import_uploads(request.FILES.getlist("files"))
            except ImportFailed as exc:
                messages.error(request, str(exc))
            if report is not None:
                messages.success(request, f"{len(report.imported)} imported, {len(report.duplicates)} already known.")
                for problem in report.problems:
                    messages.error(request, f"Refused {problem.name}: {problem.reason}")
            return redirect("admin:annotation_image_changelist")
        context = {**self.admin_site.each_context(request), "form": form, "title": "Upload images"}
        return render(request, "admin/annotation/image/upload.html", context)


@admin.register(Concept)
class ConceptAdmin(admin.ModelAdmin):
    list_display = ["name", "synset", "parent"]
    search_fields = ["name", "synset"]


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

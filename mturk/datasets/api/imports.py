"""REST API for imports: every registered importer (mturk/importers.py) through one endpoint, run as the console's
background import job. The upload is checked and stored, then read by the job; poll the job for its progress and
report (each refused file or problem with its reason)."""
from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...importers import ImportRefused, all_importers
from ...models.imports import ImportJob
from ..services.imports import request_import

RESERVED_FIELDS = ("importer", "file", "files")


class ImportJobSerializer(serializers.ModelSerializer):
    class Meta:
        model = ImportJob
        fields = ["id", "importer", "original_name", "options", "status", "done", "total", "report", "error",
                  "created_at", "finished_at"]
        read_only_fields = fields


class ImportRequestSerializer(serializers.Serializer):
    """Documentation of the multipart form (the view reads it directly: options are the importer's own)."""

    importer = serializers.CharField(help_text="A registered importer's name (GET /api/imports/importers/).")
    file = serializers.ListField(child=serializers.FileField(), help_text="One file, or several (packed in a zip "
                                                                         "for an importer that takes several).")


class ImportJobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ImportJobSerializer

    def get_queryset(self) -> QuerySet[ImportJob]:
        return ImportJob.objects.order_by("-created_at", "-id")

    @extend_schema(request={"multipart/form-data": ImportRequestSerializer}, responses={202: ImportJobSerializer})
    def create(self, request: Request) -> Response:
        """Import a file with a registered importer: stored, then read by a background job (202); poll the job
        until its status is done or failed. Any other form field is an option of the importer."""
        try:
            uploads = request.FILES.getlist("file") + request.FILES.getlist("files")
            options = {key: str(value) for key, value in request.data.items() if key not in RESERVED_FIELDS}
            job = request_import(str(request.data.get("importer", "")), uploads, options, user=request.user)
        except TooManyFilesSent:
            return Response({"detail": "Too many files in one upload: put them in a zip and import the zip."},
                            status=status.HTTP_400_BAD_REQUEST)
        except RequestDataTooBig:
            return Response({"detail": "The request is too large."}, status=status.HTTP_400_BAD_REQUEST)
        except ImportRefused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        job.refresh_from_db()  # in-process task runners have already run it
        return Response(self.get_serializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: inline_serializer("Importer", {
        "name": serializers.CharField(), "label": serializers.CharField(), "description": serializers.CharField(),
        "extensions": serializers.ListField(child=serializers.CharField()), "multiple": serializers.BooleanField(),
        "options": serializers.ListField(child=serializers.DictField()), "documentation": serializers.CharField(),
    }, many=True)})
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def importers(self, request: Request) -> Response:
        """What can be imported: each importer's name, the files it takes and its options."""
        return Response([_importer_data(importer) for importer in all_importers()])


def _importer_data(importer: Any) -> dict[str, Any]:
    return {
        "name": importer.name, "label": importer.label, "description": importer.description,
        "extensions": list(importer.extensions), "multiple": importer.multiple,
        "options": [{"name": option.name, "label": option.label, "help": option.help, "required": option.required,
                     "max_length": option.max_length} for option in importer.options],
        "documentation": importer.documentation,
    }

"""REST API for dataset exports: request one (built in the background), poll it, download the zip."""
from __future__ import annotations

from django.db.models import QuerySet
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...api.fields import id_list, set_choices
from ...models import Campaign, DatasetExport
from ...task_kinds import StrictSerializer
from ..formats import ExportError, format_names
from ..services.exports import request_export
from ..stored_files import open_stream


class ExportRequestSerializer(StrictSerializer):
    format = serializers.ChoiceField(choices=[])
    campaigns = id_list(Campaign.objects.all(), required=False, help_text="Campaign ids (default: every campaign).")
    options = serializers.DictField(required=False, help_text="Format options, e.g. {\"images\": true} for sind.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        set_choices(self.fields, "format", format_names())


class DatasetExportSerializer(serializers.ModelSerializer):
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = DatasetExport
        fields = [
            "id", "format", "campaigns", "options", "status", "progress_done", "progress_total", "records", "counts",
            "error", "created_at", "finished_at", "download_url",
        ]
        read_only_fields = fields

    def get_download_url(self, export: DatasetExport) -> str | None:
        if export.status != DatasetExport.Status.DONE:
            return None
        return self.context["request"].build_absolute_uri(f"/api/exports/{export.pk}/download/")


class DatasetExportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = DatasetExportSerializer

    def get_queryset(self) -> QuerySet:
        return DatasetExport.objects.prefetch_related("campaigns")

    @extend_schema(request=ExportRequestSerializer, responses={202: DatasetExportSerializer})
    def create(self, request: Request) -> Response:
        """Request an export; poll the returned object until its status is done, then download it."""
        serializer = ExportRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            export = request_export(serializer.validated_data["format"], serializer.validated_data.get("campaigns", []),
                                    request.user, serializer.validated_data.get("options"))
        except ExportError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        export.refresh_from_db()  # in-process task runners have already built it
        return Response(self.get_serializer(export).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"])
    def download(self, request: Request, pk: str) -> Response | FileResponse:
        """The export's zip, streamed."""
        export = self.get_object()
        if export.status != DatasetExport.Status.DONE:
            return Response({"detail": f"the export is {export.status}, not done"}, status=status.HTTP_409_CONFLICT)
        stream, size = open_stream(export.file.name)
        response = FileResponse(stream, as_attachment=True, filename=export.file.name.rsplit("/", 1)[-1],
                                content_type="application/zip")
        response["Content-Length"] = size
        return response

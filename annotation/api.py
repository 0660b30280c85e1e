"""REST API for images (list, read, upload files or zips) and system-run evaluation."""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from metrics.run_format import RunFormatError, evaluate_run
from mturk.models import Campaign

from .models import Image
from .selectors import grounded_dataset
from .services.images import ImportFailed, import_uploads


class ImageSerializer(serializers.ModelSerializer):
    original_url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()
    display_url = serializers.CharField(read_only=True)

    class Meta:
        model = Image
        fields = ["id", "key", "sha256", "original_name", "format", "width", "height", "file_size",
                  "original_url", "display_url", "thumbnail_url", "created_at"]
        read_only_fields = fields

    def get_original_url(self, image: Image) -> str:
        return image.original.url

    def get_thumbnail_url(self, image: Image) -> str | None:
        return image.thumb_small.url if image.thumb_small else None


class ImageUploadSerializer(serializers.Serializer):
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False,
                                  help_text="Images (JPEG, PNG, WebP) or zip archives of them.")


class ImportReportSerializer(serializers.Serializer):
    imported = serializers.ListField(child=serializers.DictField())
    duplicates = serializers.ListField(child=serializers.DictField())
    problems = serializers.ListField(child=serializers.DictField())


class ImageViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Image.objects.order_by("id")
    serializer_class = ImageSerializer

    @extend_schema(request={"multipart/form-data": ImageUploadSerializer},
                   responses={201: ImportReportSerializer, 400: ImportReportSerializer})
    def create(self, request: Request) -> Response:
        """Upload images; bad files are reported by name with the reason, good ones imported."""
        files = request.FILES.getlist("files")
        if not files:
            return Response({"detail": "Send one or more files in the multipart field 'files'."}, status=400)
        try:
            report = import_uploads(files)
        except ImportFailed as exc:
            return Response({"detail": str(exc)}, status=400)
        code = status.HTTP_201_CREATED if report.images else status.HTTP_400_BAD_REQUEST
        return Response(report.as_dict(), status=code)


class RunEvaluationSerializer(serializers.Serializer):
    run = serializers.FileField(help_text="The run file: one line per image, `<image key><TAB><sentence in markup>`.")
    campaigns = serializers.PrimaryKeyRelatedField(
        queryset=Campaign.objects.all(), many=True, required=False,
        help_text="Score against these campaigns' images (default: every image with boxes).",
    )


class RunEvaluationView(APIView):
    """Content-selection scores of an uploaded system run, per image and overall."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": RunEvaluationSerializer}, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = RunEvaluationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["run"]
        if upload.size > settings.RUN_MAX_BYTES:
            return Response({"detail": f"the run is larger than {settings.RUN_MAX_BYTES} bytes"}, status=400)
        records = grounded_dataset(serializer.validated_data.get("campaigns", [])).records()
        try:
            result = evaluate_run(upload.read(), records)
        except RunFormatError as exc:
            return Response({"detail": "the run has errors", "errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
        return Response(result)

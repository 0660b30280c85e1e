"""REST API for images: list, read, and upload (files or zips)."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from .models import Image
from .services.images import ImportFailed, import_uploads


class ImageSerializer(serializers.ModelSerializer):
    original_url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()
    display_url = serializers.CharField(read_only=True)

    class Meta:
        model = Image
        fields = ["id", "sha256", "original_name", "format", "width", "height", "file_size",
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

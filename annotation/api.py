"""REST API for images (list, read, upload files or zips), the Flickr30k Entities import and system-run evaluation."""
from __future__ import annotations

from django.conf import settings
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from metrics.run_format import RunFormatError, evaluate_run
from mturk.api.fields import id_list, upload_too_large
from mturk.models import Campaign

from .image_sets.services import ImageSetError, set_name_for, set_spec
from .models import Image, ImageOrigin
from .selectors import grounded_dataset
from .services.image_batch import BatchRefused, import_batch


class ImageOriginSerializer(serializers.ModelSerializer):
    class Meta:
        model = ImageOrigin
        fields = ["dataset", "external_id", "subset"]
        read_only_fields = fields


class ImageSerializer(serializers.ModelSerializer):
    original_url = serializers.SerializerMethodField(
        help_text="The stored file; null for an image known only by reference (has_file false).")
    thumbnail_url = serializers.SerializerMethodField()
    display_url = serializers.CharField(read_only=True)
    has_file = serializers.BooleanField(
        read_only=True, help_text="False for an image known only by reference (a COCO import without its files): "
                                  "no sha256, no file, no thumbnails; display_url is its source_url.")
    source_url = serializers.SerializerMethodField(
        help_text="Where the image is published (COCO's coco_url); null when the platform was not told.")
    origin = ImageOriginSerializer(read_only=True, allow_null=True,
                                   help_text="The image's id in a public dataset (COCO), when imported from one.")

    class Meta:
        model = Image
        fields = ["id", "key", "sha256", "original_name", "format", "width", "height", "file_size", "has_file",
                  "original_url", "display_url", "thumbnail_url", "source_url", "origin", "created_at"]
        read_only_fields = fields

    def get_source_url(self, image: Image) -> str | None:
        return image.source_url or None

    def get_original_url(self, image: Image) -> str | None:
        return image.original.url if image.original else None

    def get_thumbnail_url(self, image: Image) -> str | None:
        return image.thumb_small.url if image.thumb_small else None


class ImageUploadSerializer(serializers.Serializer):
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False,
                                  help_text="Images (JPEG, PNG, WebP) or zip archives of them.")
    set = serializers.CharField(required=False, max_length=100,
                                help_text="The collection (image set) the images land in, new or existing. Default: "
                                          "the first zip's name, else 'API uploads <date>'.")
    tags = serializers.ListField(child=serializers.CharField(max_length=50), required=False,
                                 help_text="Tags of the collection (added to its tags).")


class ImportedImageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ImportProblemSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The file, or the zip entry.")
    reason = serializers.CharField()


class ImportReportSerializer(serializers.Serializer):
    imported = ImportedImageSerializer(many=True, help_text="New images.")
    duplicates = ImportedImageSerializer(many=True, help_text="Images already imported (same content).")
    problems = ImportProblemSerializer(many=True, help_text="Always empty: one bad file refuses the batch.")
    image_set = serializers.CharField(help_text="The collection the images are in.")


class BatchRefusedSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = ImportProblemSerializer(many=True, required=False, help_text="Each bad file, with the reason.")


class ImageViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Image.objects.select_related("origin").order_by("id")
    serializer_class = ImageSerializer

    @extend_schema(request={"multipart/form-data": ImageUploadSerializer},
                   responses={201: ImportReportSerializer, 400: BatchRefusedSerializer})
    def create(self, request: Request) -> Response:
        """Upload images and zips of images: all or nothing. Every file (every zip entry) is checked first;
        one bad file refuses the batch with a 400 naming each bad file and its reason, and nothing is stored."""
        files = request.FILES.getlist("files")
        if not files:
            return Response({"detail": "Send one or more files in the multipart field 'files'.", "problems": []},
                            status=status.HTTP_400_BAD_REQUEST)
        zips = [f.name for f in files if (f.name or "").lower().endswith(".zip")]
        default = set_name_for(zips[0]) if zips else f"API uploads {timezone.localdate().isoformat()}"
        try:
            spec = set_spec(request.data.get("set"), request.data.getlist("tags") if hasattr(request.data, "getlist")
                            else request.data.get("tags", []), source="api", default_name=default)
        except ImageSetError as exc:
            return Response({"detail": f"set: {exc}", "problems": []}, status=status.HTTP_400_BAD_REQUEST)
        try:
            report = import_batch(files, image_set=spec)
        except BatchRefused as exc:
            return Response({"detail": str(exc), "problems": [{"name": p.name, "reason": p.reason}
                                                              for p in exc.problems]},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response({**report.as_dict(), "image_set": spec.name}, status=status.HTTP_201_CREATED)


class RunEvaluationSerializer(serializers.Serializer):
    run = serializers.FileField(help_text="The run file: one line per image, `<image key><TAB><sentence in markup>`.")
    campaigns = id_list(Campaign.objects.all(), required=False,
                        help_text="Score against these campaigns' images (default: every image with boxes).")


class RunEvaluationView(APIView):
    """Content-selection scores of an uploaded system run, per image and overall."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": RunEvaluationSerializer}, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = RunEvaluationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["run"]
        if (refused := upload_too_large(upload, settings.RUN_MAX_BYTES, "run")) is not None:
            return refused
        records = grounded_dataset(serializer.validated_data.get("campaigns", [])).records()
        try:
            result = evaluate_run(upload.read(), records)
        except RunFormatError as exc:
            return Response({"detail": "the run has errors", "errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
        return Response(result)

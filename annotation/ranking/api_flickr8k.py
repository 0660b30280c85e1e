"""POST /api/flickr8k-imports/: the Flickr8k text release as a zip (as released; docs/formats/flickr8k.md)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from mturk.api.fields import upload_too_large

from ..image_sets.services import ImageSetError, set_spec
from .services.flickr8k_import import Flickr8kImportError, import_flickr8k, open_release
from .services.flickr8k_import.importer import DEFAULT_SET


class Flickr8kUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A zip of the release's text files (and optionally Flicker8k_Dataset/).")
    set = serializers.CharField(max_length=100, required=False, default=DEFAULT_SET)
    test_pool = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class Flickr8kImportView(APIView):
    """Import the release; a 400 names each problem's file and line, and nothing is stored."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": Flickr8kUploadSerializer}, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = Flickr8kUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["file"]
        if (refused := upload_too_large(upload, settings.IMPORT_MAX_TOTAL_BYTES, "file")) is not None:
            return refused
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "release.zip"
            with path.open("wb") as handle:
                for chunk in upload.chunks():
                    handle.write(chunk)
            try:
                summary = import_flickr8k(open_release(path), image_set=set_spec(data["set"]).name,
                                          test_pool=data["test_pool"].strip())
            except Flickr8kImportError as exc:
                return Response({"detail": "nothing was imported", "errors": exc.errors}, status=400)
            except ImageSetError as exc:
                return Response({"detail": str(exc)}, status=400)
        return Response(summary.as_dict(), status=status.HTTP_201_CREATED)

"""REST API for ranking evaluation: test pools (create, list, read as systems need them), ranked submissions,
the leaderboard, and imported relevance judgements."""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from mturk.api.fields import id_list, upload_too_large
from mturk.models import Campaign

from .models import TestPool
from .selectors import leaderboard, pool_contents, test_pools
from .services.board_queue import requeue_if_stranded
from .services.judgement_import import JudgementImportError, import_judgements
from .services.pools import PoolError, create_test_pool
from .services.submissions import DEFAULT_TOP_K, SubmissionError, submit_ranking


class TestPoolSerializer(serializers.ModelSerializer):
    images = serializers.IntegerField(read_only=True)
    captions = serializers.IntegerField(read_only=True)
    systems = serializers.IntegerField(read_only=True)

    class Meta:
        model = TestPool
        fields = ["id", "name", "images", "captions", "systems", "created_at"]
        read_only_fields = fields


class TestPoolCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    campaigns = id_list(Campaign.objects.all(), required=False, help_text="describe_image campaigns")
    all_descriptions = serializers.BooleanField(default=False)
    images = serializers.IntegerField(required=False, min_value=1)
    captions_per_image = serializers.IntegerField(required=False, min_value=1)


class SubmissionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="JSON rankings, or a .npy/.npz/.csv score matrix (images x captions).")
    system = serializers.CharField(max_length=200)
    top_k = serializers.IntegerField(required=False, min_value=1, default=DEFAULT_TOP_K)


class JudgementUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV/TSV: image,caption,relevant[,judge] or image,caption,grade[,judge]")


class TestPoolViewSet(viewsets.GenericViewSet):
    serializer_class = TestPoolSerializer
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    def get_queryset(self):
        return test_pools()

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(TestPoolSerializer(page, many=True).data)

    @extend_schema(request=TestPoolCreateSerializer, responses={201: TestPoolSerializer})
    def create(self, request: Request) -> Response:
        """Freeze a pool from describe_image campaigns' approved captions, or every description."""
        serializer = TestPoolCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            pool = create_test_pool(data["name"], campaigns=data.get("campaigns", []),
                                    all_descriptions=data["all_descriptions"], images=data.get("images"),
                                    captions_per_image=data.get("captions_per_image"), created_by=request.user)
        except PoolError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(TestPoolSerializer(self.get_queryset().get(pk=pool.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def retrieve(self, request: Request, pk: str) -> Response:
        """The pool as systems need it: images (id, url, row index) and captions (id, text, column index)."""
        return Response(pool_contents(self.get_object()))

    @extend_schema(request={"multipart/form-data": SubmissionUploadSerializer}, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"], parser_classes=[MultiPartParser, FormParser])
    def submissions(self, request: Request, pk: str) -> Response:
        """Submit a system's rankings or score matrix; a 400 names every problem and nothing is stored."""
        pool = self.get_object()
        serializer = SubmissionUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        if (refused := upload_too_large(upload, settings.RANKING_MAX_BYTES, "submission")) is not None:
            return refused
        try:
            submission = submit_ranking(pool, serializer.validated_data["system"], upload.read(), upload.name,
                                        k=serializer.validated_data["top_k"], created_by=request.user)
        except SubmissionError as exc:
            return Response({"detail": "the submission has errors", "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response({"id": submission.pk, "system": submission.system, "metrics": submission.metrics},
                        status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"], url_path="leaderboard")
    def leaderboard(self, request: Request, pk: str) -> Response:
        """Every system's metrics per direction on the majority judgements, as stored by the background job that
        follows each new judgement and submission; `stale` is true while it is updating them (`pending`: the
        systems not computed yet)."""
        pool = self.get_object()
        board = leaderboard(pool)
        requeue_if_stranded(pool, board["stale"])
        return Response(board)


class JudgementImportView(APIView):
    """Import relevance judgements (CSV/TSV); a 400 names every bad line and nothing is stored."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": JudgementUploadSerializer}, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = JudgementUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        if (refused := upload_too_large(upload, settings.RANKING_MAX_BYTES, "file")) is not None:
            return refused
        try:
            count = import_judgements(upload.read())
        except JudgementImportError as exc:
            return Response({"detail": "the file has errors", "errors": exc.errors}, status=400)
        return Response({"imported": count}, status=status.HTTP_201_CREATED)

"""REST API for evaluations of generated captions (compositional generalization): upload a system's captions
(202, scored in the background), list the evaluations, follow one (status, progress, result), and read its HTML
report once it is done."""
from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from mturk.api.fields import id_list, upload_too_large
from mturk.datasets.views.exports import REPORT_CSP
from mturk.models import Campaign

from .models import CompositionalEvaluation
from .services.evaluations import (
    DEFAULT_EVAL_SHARE,
    MAX_BYTES,
    MAX_K,
    EvaluationRejected,
    evaluation_report_html,
    submit_evaluation,
)

LISTED = ["id", "system", "k", "pairs", "status", "error", "done", "total", "created_at", "finished_at"]


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="captions done: the corpus's read (checking the upload against it), "
                                              "then the distinct generated captions parsed")
    total = serializers.IntegerField(help_text="the corpus's captions, plus the distinct generated captions once "
                                               "the corpus is read (0 until the run starts)")


class EvaluationSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    report = serializers.SerializerMethodField(help_text="the HTML report's URL once the evaluation is done")

    class Meta:
        model = CompositionalEvaluation
        fields = ["id", "system", "k", "pairs", "status", "error", "progress", "report", "created_at", "finished_at"]
        read_only_fields = fields

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, evaluation: CompositionalEvaluation) -> dict[str, int]:
        return {"done": evaluation.done, "total": evaluation.total}

    def get_report(self, evaluation: CompositionalEvaluation) -> str | None:
        if evaluation.status != CompositionalEvaluation.Status.DONE:
            return None
        return reverse("compositional-evaluation-report", args=[evaluation.pk])


class EvaluationDetailSerializer(EvaluationSerializer):
    result = serializers.JSONField(read_only=True, help_text="the figures (see the README): recall per pair, per "
                                                              "category, average, by agreement; caption metrics")

    class Meta(EvaluationSerializer.Meta):
        fields = [*EvaluationSerializer.Meta.fields, "result"]
        read_only_fields = fields


class EvaluationUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text='JSON: [{"image_id": 391895, "caption": "..."}, ...] (K per image, best '
                                           'first; the COCO results format) or {"391895": ["...", ...]}')
    system = serializers.CharField(max_length=200)
    pairs = serializers.CharField(required=False, allow_blank=True, default="",
                                  help_text="comma-separated pair names (default: every stored pair)")
    group = serializers.CharField(required=False, allow_blank=True, default="", max_length=40,
                                  help_text="the pairs of this held-out group")
    k = serializers.IntegerField(required=False, default=5, min_value=1, max_value=MAX_K)
    split_seed = serializers.CharField(required=False, allow_blank=True, default="compositional", max_length=100)
    eval_share = serializers.FloatField(required=False, default=DEFAULT_EVAL_SHARE,
                                        help_text="share of the matching images in D_eval when the corpus has no "
                                                  "val2014 image, between 0 and 1 (both excluded)")
    campaigns = id_list(Campaign.objects.all(), required=False,
                        help_text="the corpus: approved captions of these describe_image campaigns (default: every "
                                  "description)")


def _evaluations():
    return CompositionalEvaluation.objects.defer("generated", "result").order_by("-created_at", "-id")


class EvaluationsView(GenericAPIView):
    """Evaluations of generated captions: Recall@K of held-out concept pairs."""

    serializer_class = EvaluationSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return _evaluations()

    @extend_schema(responses={200: EvaluationSerializer(many=True)})
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(EvaluationSerializer(page, many=True).data)

    @extend_schema(request={"multipart/form-data": EvaluationUploadSerializer},
                   responses={202: EvaluationSerializer, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        """Upload a system's generated captions; a 400 names every problem and nothing is stored. The evaluation
        runs in the background: follow it at evaluations/<id>/."""
        serializer = EvaluationUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = serializer.validated_data
        upload = data["file"]
        if (refused := upload_too_large(upload, MAX_BYTES, "file")) is not None:
            return refused
        pairs = [name.strip() for name in data["pairs"].split(",") if name.strip()] or None
        try:
            evaluation = submit_evaluation(system=data["system"], content=upload.read(), file_name=upload.name or "",
                                           pairs=pairs, group=data["group"], k=data["k"],
                                           split_seed=data["split_seed"], eval_share=data["eval_share"],
                                           campaigns=data.get("campaigns", []), user=request.user)
        except EvaluationRejected as exc:
            return Response({"detail": "the upload has errors", "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        evaluation = _evaluations().get(pk=evaluation.pk)  # without a broker it has already run
        return Response(EvaluationSerializer(evaluation).data, status=status.HTTP_202_ACCEPTED)


class EvaluationView(APIView):
    @extend_schema(responses={200: EvaluationDetailSerializer})
    def get(self, request: Request, pk: int) -> Response:
        """The evaluation: status, progress, and its result once done."""
        return Response(EvaluationDetailSerializer(get_object_or_404(CompositionalEvaluation, pk=pk)).data)


class EvaluationReportView(APIView):
    @extend_schema(responses={(200, "text/html"): OpenApiTypes.STR,
                              409: OpenApiResponse(OpenApiTypes.OBJECT, description="not done yet")})
    def get(self, request: Request, pk: int) -> Response | HttpResponse:
        """The self-contained HTML report (tables, a plot per category, definitions); 409 until it is done."""
        evaluation = get_object_or_404(CompositionalEvaluation, pk=pk)
        if evaluation.status != CompositionalEvaluation.Status.DONE:
            return Response({"detail": f"the evaluation is {evaluation.status}, not done", "status": evaluation.status,
                             "error": evaluation.error}, status=status.HTTP_409_CONFLICT)
        response = HttpResponse(evaluation_report_html(evaluation), content_type="text/html; charset=utf-8")
        response["Content-Security-Policy"] = REPORT_CSP
        return response

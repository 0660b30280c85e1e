"""REST API for human evaluations (staff, as the rest of the API): create one from a test set, list and read them,
upload a system's outputs, see the budget of launching, launch; and the test sets each source offers."""
from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from mturk.api.fields import upload_too_large
from mturk.providers.registry import default_provider_name

from .budget import estimate
from .listing import evaluation_rows, is_simulated, test_sets
from .models import Design, EvaluatedSystem, HumanEvaluation
from .services.evaluations import EvaluationError, create_evaluation
from .services.launch import LaunchedNotPublished, launch_evaluation
from .services.uploads import UploadError, upload_outputs

LISTED = ["id", "name", "output_kind", "test_set", "test_set_label", "design", "aspects", "judges",
          "include_reference", "attention_rate", "seed", "status", "campaign", "created_at"]


class HumanEvaluationSerializer(serializers.ModelSerializer):
    items = serializers.IntegerField(source="item_count", read_only=True)
    systems = serializers.IntegerField(source="system_count", read_only=True)
    simulated = serializers.SerializerMethodField(help_text="Whether the judgements were generated for "
                                                            "demonstration (a simulated campaign, as the demo's), "
                                                            "not collected from people")

    class Meta:
        model = HumanEvaluation
        fields = [*LISTED, "simulated", "items", "systems"]
        read_only_fields = fields

    def get_simulated(self, evaluation: HumanEvaluation) -> bool:
        return is_simulated(evaluation)


class HumanEvaluationSystemSerializer(serializers.ModelSerializer):
    scoring = serializers.SerializerMethodField(help_text="The automatic scoring job: queued, running, done or "
                                                          "failed (with its error); null for the attention checks")

    class Meta:
        model = EvaluatedSystem
        fields = ["id", "name", "role", "file_name", "automatic", "scoring", "created_at"]
        read_only_fields = fields


    def get_scoring(self, system: EvaluatedSystem) -> dict[str, str] | None:
        job = getattr(system, "scoring", None)
        return None if job is None else {"status": job.status, "error": job.error}


class HumanEvaluationCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    test_set = serializers.CharField(max_length=200, help_text='"<source>:<key>", see /api/human-evaluations/'
                                                               'test-sets/')
    design = serializers.ChoiceField(choices=Design.choices, default=Design.RATING)
    aspects = serializers.ListField(child=serializers.CharField(max_length=40), required=False, default=list,
                                    help_text="aspect or preset names; the first is the overall question")
    judges = serializers.IntegerField(default=3, min_value=1)
    include_reference = serializers.BooleanField(default=True)
    attention_rate = serializers.FloatField(default=0.1, min_value=0)
    seed = serializers.CharField(max_length=100, default="human-eval")


class HumanEvaluationUploadSerializer(serializers.Serializer):
    system = serializers.CharField(max_length=200)
    file = serializers.FileField(help_text='captions: [{"image_id": 391895, "caption": "..."}] (COCO results); '
                                           'stories: the VIST challenge format (output_stories)')


class HumanEvaluationLaunchSerializer(serializers.Serializer):
    provider = serializers.CharField(default=default_provider_name(), max_length=40)
    reward = serializers.DecimalField(max_digits=8, decimal_places=2, required=False, min_value=Decimal("0"))
    publish = serializers.BooleanField(default=False)
    settings = serializers.DictField(required=False, default=dict, help_text=(
        'campaign settings the evaluation does not fix, e.g. Prolific\'s {"tasks_per_submission": 2, '
        '"qualifications": {"estimated_minutes": 3}} (services.launch.LAUNCH_SETTINGS)'))


def _detail(evaluation: HumanEvaluation) -> dict[str, Any]:
    row = evaluation_rows().get(pk=evaluation.pk)
    return {**HumanEvaluationSerializer(row).data,
            "system_list": HumanEvaluationSystemSerializer(evaluation.systems.select_related("scoring").order_by("id"),
                                                          many=True).data}


def _refused(message: str) -> Response:
    return Response({"detail": message}, status=status.HTTP_400_BAD_REQUEST)


class EvaluationListView(GenericAPIView):
    serializer_class = HumanEvaluationSerializer

    def get_queryset(self):
        return evaluation_rows()

    @extend_schema(operation_id="human_evaluations_list", responses={200: HumanEvaluationSerializer(many=True)})
    def get(self, request: Request) -> Response:
        """The evaluations, newest first, with their numbers of items and systems."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(HumanEvaluationSerializer(page, many=True).data)

    @extend_schema(request=HumanEvaluationCreateSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        """Create a draft evaluation of a test set's items; a 400 says what is wrong and nothing is stored."""
        serializer = HumanEvaluationCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            evaluation = create_evaluation(**serializer.validated_data, created_by=request.user)
        except EvaluationError as exc:
            return _refused(str(exc))
        return Response(_detail(evaluation), status=status.HTTP_201_CREATED)


class EvaluationDetailView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        """The evaluation with its systems and their automatic scores."""
        return Response(_detail(get_object_or_404(HumanEvaluation, pk=pk)))


class SystemUploadView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": HumanEvaluationUploadSerializer},
                   responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        """Upload a system's outputs (one per item); a 400 names every bad entry and nothing is stored."""
        evaluation = get_object_or_404(HumanEvaluation, pk=pk)
        serializer = HumanEvaluationUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        if (refused := upload_too_large(upload, settings.RUN_MAX_BYTES, "file")) is not None:
            return refused
        try:
            system = upload_outputs(evaluation, system=serializer.validated_data["system"], content=upload.read(),
                                    file_name=upload.name or "")
        except UploadError as exc:
            return Response({"detail": "the outputs are refused", "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response(HumanEvaluationSystemSerializer(system).data, status=status.HTTP_201_CREATED)


class BudgetView(APIView):
    @extend_schema(parameters=[OpenApiParameter("reward", OpenApiTypes.DECIMAL),
                               OpenApiParameter("provider", OpenApiTypes.STR)],
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        """HITs, assignments, judgements, attention HITs, cost with the provider's fees, and the expected half-width
        of a system's 95% interval with its assumptions."""
        evaluation = get_object_or_404(HumanEvaluation, pk=pk)
        raw = request.query_params.get("reward", "").strip()
        try:
            reward = Decimal(raw) if raw else None
            if reward is not None and not reward.is_finite():
                raise ArithmeticError
        except ArithmeticError:
            return _refused(f"reward: '{raw}' is not an amount")
        try:
            budget = estimate(evaluation, reward=reward, provider=request.query_params.get("provider") or None)
        except EvaluationError as exc:
            return _refused(str(exc))
        body = asdict(budget)
        for key in ("reward", "fee_per_assignment", "cost"):
            body[key] = None if body[key] is None else str(body[key])
        return Response(body)


class LaunchView(APIView):
    @extend_schema(request=HumanEvaluationLaunchSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        """Plan the HITs and make the campaign (a draft unless `publish`); 400 when the evaluation cannot launch.
        Without a task queue the marketplace's job runs before the answer: its failure answers 502 with the cause
        (the evaluation is launched and its campaign published here; publishing the campaign again retries)."""
        evaluation = get_object_or_404(HumanEvaluation, pk=pk)
        serializer = HumanEvaluationLaunchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            campaign = launch_evaluation(evaluation, provider=data["provider"], reward=data.get("reward"),
                                         created_by=request.user, publish=data["publish"], settings=data["settings"])
        except LaunchedNotPublished as exc:  # launched; the marketplace's job failed (recorded on the campaign)
            return Response({"detail": str(exc), "evaluation": evaluation.pk, "campaign": exc.campaign.pk},
                            status=status.HTTP_502_BAD_GATEWAY)
        except EvaluationError as exc:
            return _refused(str(exc))
        return Response({"evaluation": evaluation.pk, "campaign": campaign.pk, "campaign_name": campaign.name,
                         "hits": campaign.hits.count(), "status": campaign.status},
                        status=status.HTTP_201_CREATED)


# the test sets' response, for the schema (inline: `label` and `source` would shadow a serializer field's own)
TEST_SETS = inline_serializer("HumanEvaluationTestSetSource", many=True, fields={
    "source": serializers.CharField(), "label": serializers.CharField(), "output_kind": serializers.CharField(),
    "description": serializers.CharField(),
    "choices": inline_serializer("HumanEvaluationTestSet", many=True, fields={
        "key": serializers.CharField(), "label": serializers.CharField(),
        "test_set": serializers.CharField(help_text='"<source>:<key>"')}),
})


class TestSetsView(APIView):
    @extend_schema(responses={200: TEST_SETS})
    def get(self, request: Request) -> Response:
        """Each test-set source and the test sets it has now (use "<source>:<key>" as test_set)."""
        return Response(test_sets())

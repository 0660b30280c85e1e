"""REST API of worker quality (token authentication, staff only, like the rest of the API): a campaign's measured
quality and aggregated items, its review rule (read, save, dry run, apply, audit), and a worker's quality."""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.core.paginator import Page
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ...api.filters import MAX_ID
from ...models import Campaign, QualityDecision, QualityRule, Worker, WorkerScore
from ...selectors.quality import campaign_quality, decisions, item_rows, worker_quality
from ...services.review import ReviewError
from ..services.computation import compute_quality
from ..services.review_rules.applying import RuleBusy, apply_rule
from ..services.review_rules.planning import plan_rule
from ..services.review_rules.rule import RULE_FIELDS, RuleError, save_rule

PER_PAGE = 50
PAGE_PARAMETER = OpenApiParameter("page", OpenApiTypes.INT, required=False,
                                  description=f"Page number from 1 ({PER_PAGE} rows a page).")
DETAIL = inline_serializer("QualityDetail", {"detail": serializers.CharField()})
FIELD_ERRORS = OpenApiResponse(OpenApiTypes.OBJECT, description="{field: [message]} or {detail: message}")


# ---- serializers ---------------------------------------------------------------------------------------------

class WorkerScoreSerializer(serializers.ModelSerializer):
    worker = serializers.CharField(source="worker.external_id", read_only=True, help_text="The provider's id.")
    worker_id = serializers.IntegerField(read_only=True)
    provider = serializers.CharField(source="worker.provider", read_only=True)

    class Meta:
        model = WorkerScore
        fields = ["worker_id", "worker", "provider", "items", "compared_items", "gold_items", "gold_accuracy",
                  "agreement", "skill", "median_seconds", "approved", "rejected", "pay", "computed_at"]
        read_only_fields = fields


class WorkerCampaignScoreSerializer(WorkerScoreSerializer):
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    campaign_name = serializers.CharField(source="campaign.name", read_only=True)
    task_kind = serializers.CharField(source="campaign.task_kind", read_only=True)

    class Meta(WorkerScoreSerializer.Meta):
        fields = ["campaign", "campaign_name", "task_kind", *WorkerScoreSerializer.Meta.fields]
        read_only_fields = fields


class QualityRuleSerializer(serializers.ModelSerializer):
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)

    class Meta:
        model = QualityRule
        fields = ["campaign", *RULE_FIELDS, "updated_at"]
        read_only_fields = fields


class RuleInputSerializer(serializers.Serializer):
    """The request body of PUT review-rule (for the schema): every field optional; a field left out keeps its
    value, an empty bound clears it. The service checks them (QualityRule's docs)."""

    enabled = serializers.BooleanField(required=False)
    approve_min_gold = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    approve_min_agreement = serializers.FloatField(required=False, allow_null=True, min_value=-1, max_value=1)
    reject_below_gold = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    reject_below_agreement = serializers.FloatField(required=False, allow_null=True, min_value=-1, max_value=1)
    min_gold_items = serializers.IntegerField(required=False, min_value=1, max_value=32767)
    min_items = serializers.IntegerField(required=False, min_value=1, max_value=32767)
    reject_message = serializers.CharField(required=False, allow_blank=True)
    reject_category = serializers.CharField(required=False, allow_blank=True, max_length=30)
    bonus_top_share = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    bonus_amount = serializers.DecimalField(required=False, allow_null=True, max_digits=8, decimal_places=2)
    bonus_reason = serializers.CharField(required=False, allow_blank=True)


class CampaignQualitySerializer(serializers.Serializer):
    campaign = serializers.IntegerField()
    measure = serializers.CharField(allow_null=True, help_text="null: quality was never computed")
    overall = serializers.DictField(allow_null=True)
    answers = serializers.IntegerField(allow_null=True)
    computed_at = serializers.DateTimeField(allow_null=True)
    gold_hits = serializers.IntegerField()
    onboarding_hits = serializers.IntegerField()
    gold_answers = serializers.IntegerField()
    rule = QualityRuleSerializer(allow_null=True)
    workers = WorkerScoreSerializer(many=True)


class ComputationSerializer(serializers.Serializer):
    measure = serializers.CharField()
    answers = serializers.IntegerField()
    items = serializers.IntegerField()
    workers = serializers.IntegerField()
    aggregated = serializers.IntegerField()


class ItemRowSerializer(serializers.Serializer):
    hit_id = serializers.IntegerField()
    position = serializers.IntegerField()
    answers = serializers.IntegerField()
    agreement = serializers.FloatField(allow_null=True)
    method = serializers.CharField()
    summary = serializers.CharField(allow_blank=True)
    details = serializers.DictField()


class PlannedDecisionSerializer(serializers.Serializer):
    key = serializers.CharField()
    action = serializers.ChoiceField(choices=["approve", "reject", "bonus", "leave"])
    worker_id = serializers.IntegerField()
    worker = serializers.CharField()
    assignment_id = serializers.IntegerField(allow_null=True)
    message = serializers.CharField(allow_blank=True)
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, allow_null=True)
    evidence = serializers.DictField()


class PlanSerializer(serializers.Serializer):
    approve = serializers.IntegerField()
    reject = serializers.IntegerField()
    bonus = serializers.IntegerField()
    left = serializers.IntegerField()
    cost = serializers.DecimalField(max_digits=12, decimal_places=2)
    problems = serializers.ListField(child=serializers.CharField())
    computed_at = serializers.DateTimeField(allow_null=True)
    decisions = PlannedDecisionSerializer(many=True)
    leaves = PlannedDecisionSerializer(many=True)


class RuleResultSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    failed = serializers.DictField(child=serializers.CharField(), help_text="decision key -> why")
    skipped = serializers.IntegerField()


class QualityDecisionSerializer(serializers.ModelSerializer):
    worker = serializers.CharField(source="worker.external_id", read_only=True)
    assignment = serializers.IntegerField(source="assignment_id", read_only=True, allow_null=True)
    decided_by = serializers.IntegerField(source="decided_by_id", read_only=True, allow_null=True)

    class Meta:
        model = QualityDecision
        fields = ["id", "key", "action", "state", "worker", "assignment", "message", "amount", "evidence", "rule",
                  "source", "decided_by", "error", "created_at", "done_at"]
        read_only_fields = fields


def _paged(name: str, row: serializers.Serializer) -> Any:
    return inline_serializer(name, {
        "count": serializers.IntegerField(), "page": serializers.IntegerField(),
        "pages": serializers.IntegerField(), "results": row,
    })


# ---- helpers ---------------------------------------------------------------------------------------------------

def _campaign(pk: int) -> Campaign:
    campaign = Campaign.objects.filter(pk=pk).first() if 0 < pk <= MAX_ID else None
    if campaign is None:
        raise Http404("No campaign with this id.")
    return campaign


def _page_number(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9 or int(raw) < 1:
        raise serializers.ValidationError({"page": [f"'{raw[:40]}' is not a page number (a whole number from 1)."]})
    return int(raw)


def _page_body(page: Page, rows: Any) -> dict[str, Any]:
    return {"count": page.paginator.count, "page": page.number, "pages": page.paginator.num_pages, "results": rows}


def _refused(exc: ValueError) -> Response:
    if isinstance(exc, RuleError) and exc.field:
        return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
    return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)


# ---- views -----------------------------------------------------------------------------------------------------

class CampaignQualityView(APIView):
    @extend_schema(summary="A campaign's measured quality: its figures, rule and workers (best first)",
                   responses={200: CampaignQualitySerializer, 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        view = campaign_quality(_campaign(pk))
        summary = view.summary
        return Response(CampaignQualitySerializer({
            "campaign": view.campaign.pk, "measure": summary.measure if summary else None,
            "overall": summary.overall if summary else None, "answers": summary.answers if summary else None,
            "computed_at": summary.computed_at if summary else None, "gold_hits": view.gold_hits,
            "onboarding_hits": view.onboarding_hits, "gold_answers": view.gold_answers,
            "rule": view.rule, "workers": view.workers,
        }).data)


class ComputeQualityView(APIView):
    @extend_schema(summary="Compute the campaign's quality now (replaces the earlier figures)", request=None,
                   responses={200: ComputationSerializer, 404: DETAIL})
    def post(self, request: Request, pk: int) -> Response:
        return Response(ComputationSerializer(asdict(compute_quality(_campaign(pk)))).data)


class QualityItemsView(APIView):
    @extend_schema(summary="A page of the campaign's aggregated items, lowest agreement first",
                   parameters=[PAGE_PARAMETER],
                   responses={200: _paged("QualityItemPage", ItemRowSerializer(many=True)), 400: FIELD_ERRORS,
                              404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        page = item_rows(campaign, _page_number(request), PER_PAGE)
        return Response(_page_body(page, ItemRowSerializer([asdict(row) for row in page.object_list], many=True).data))


class ReviewRuleView(APIView):
    @extend_schema(summary="The campaign's review rule", responses={200: QualityRuleSerializer, 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        rule = QualityRule.objects.filter(campaign=_campaign(pk)).first()
        if rule is None:
            return Response({"detail": "This campaign has no review rule yet (PUT one)."},
                            status=status.HTTP_404_NOT_FOUND)
        return Response(QualityRuleSerializer(rule).data)

    @extend_schema(summary="Create or change the campaign's review rule (fields left out keep their value)",
                   request=RuleInputSerializer,
                   responses={200: QualityRuleSerializer, 400: FIELD_ERRORS, 404: DETAIL})
    def put(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        data = request.data
        if hasattr(data, "dict"):  # a form: one value per field
            data = data.dict()
        try:
            rule = save_rule(campaign, data, user=request.user)
        except RuleError as exc:
            return _refused(exc)
        return Response(QualityRuleSerializer(rule).data)


class ReviewRulePreviewView(APIView):
    @extend_schema(summary="What applying the rule now would do, from the stored scores (nothing is changed)",
                   responses={200: PlanSerializer, 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        plan = plan_rule(_campaign(pk))
        return Response(PlanSerializer({
            "approve": plan.approve, "reject": plan.reject, "bonus": plan.bonus, "left": plan.left,
            "cost": plan.cost, "problems": plan.problems, "computed_at": plan.computed_at,
            "decisions": [asdict(d) for d in plan.decisions], "leaves": [asdict(d) for d in plan.leaves],
        }).data)


class ReviewRuleApplyView(APIView):
    @extend_schema(summary="Compute quality and apply the rule now (each decision made once, audited)",
                   request=None, responses={200: RuleResultSerializer, 400: DETAIL, 404: DETAIL, 409: DETAIL})
    def post(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        try:
            result = apply_rule(campaign, source="api", user=request.user)
        except RuleBusy as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except (RuleError, ReviewError) as exc:
            return _refused(exc)
        return Response(RuleResultSerializer(asdict(result)).data)


class ReviewRuleDecisionsView(APIView):
    @extend_schema(summary="A page of the rule's decisions (the audit), newest first", parameters=[PAGE_PARAMETER],
                   responses={200: _paged("QualityDecisionPage", QualityDecisionSerializer(many=True)),
                              400: FIELD_ERRORS, 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        page = decisions(campaign, _page_number(request), PER_PAGE)
        return Response(_page_body(page, QualityDecisionSerializer(page.object_list, many=True).data))


class WorkerQualityView(APIView):
    @extend_schema(summary="A worker's measured quality in every campaign, newest campaign first",
                   responses={200: WorkerCampaignScoreSerializer(many=True), 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        worker = Worker.objects.filter(pk=pk).first() if 0 < pk <= MAX_ID else None
        if worker is None:
            raise Http404("No worker with this id.")
        return Response(WorkerCampaignScoreSerializer(worker_quality(worker), many=True).data)

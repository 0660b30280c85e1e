"""REST API of what a campaign's missing quality figures need and the actions that produce them (the quality
page's buttons): give the first items to several workers (overlap, for agreement) and make gold from approved
answers (for gold accuracy)."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ...selectors.quality import campaign_quality
from ...selectors.quality_needs import GOLD_FROM_APPROVED, PILOT_ITEMS, PILOT_WORKERS, Need, quality_needs
from ...services.gold import GoldError, gold_from_approved
from ..services.pilot import MAX_PILOT_ITEMS, MAX_PILOT_WORKERS, PilotError, give_overlap
from .results import DETAIL, _campaign


class NeedSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=["shown", "compute", "waiting", "overlap", "gold", "approve", "none"],
        help_text="shown; compute (compute quality); waiting (answers will produce it); overlap (give items to more "
                  "workers: quality/overlap/); gold (make gold: quality/gold-from-approved/); approve (approve "
                  "answers first); none (the task kind has no such measure)")
    text = serializers.CharField(help_text="What would produce the figure (or why it shows)")


class NeedsSerializer(serializers.Serializer):
    agreement = NeedSerializer()
    gold_accuracy = NeedSerializer()
    overlapped_items = serializers.IntegerField(help_text="Real HITs with answers from two or more workers")
    pilot_hits = serializers.IntegerField()
    approved_answers = serializers.IntegerField(help_text="Items with an approved answer that could become gold "
                                                          "(counted only while the campaign has no gold)")


class OverlapSerializer(serializers.Serializer):
    items = serializers.IntegerField(min_value=1, max_value=MAX_PILOT_ITEMS, default=PILOT_ITEMS)
    workers = serializers.IntegerField(min_value=2, max_value=MAX_PILOT_WORKERS, default=PILOT_WORKERS)
    confirm_fee_increase = serializers.BooleanField(default=False)


class GoldFromApprovedSerializer(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=1000, default=GOLD_FROM_APPROVED)


def _need(need: Need) -> dict[str, str]:
    return {"state": need.state, "text": need.text}


class QualityNeedsView(APIView):
    @extend_schema(summary="What the campaign's missing quality figures need (read from its HITs and answers now)",
                   responses={200: NeedsSerializer, 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        needs = quality_needs(campaign, campaign_quality(campaign, with_workers=False))
        return Response(NeedsSerializer({
            "agreement": _need(needs.agreement), "gold_accuracy": _need(needs.gold),
            "overlapped_items": needs.overlapped_items, "pilot_hits": needs.pilot_hits,
            "approved_answers": needs.approved_answers,
        }).data)


class OverlapView(APIView):
    @extend_schema(summary="Give the campaign's first items to several workers each, as its pilot (handed out "
                           "first), through the add-assignments service, within the budget cap",
                   request=OverlapSerializer,
                   responses={200: inline_serializer("OverlapGiven", {"hits": serializers.IntegerField(),
                                                                 "added": serializers.IntegerField()}),
                              400: DETAIL, 404: DETAIL})
    def post(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        data = OverlapSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            done = give_overlap(campaign, data.validated_data["items"], data.validated_data["workers"],
                                confirm_fee_increase=data.validated_data["confirm_fee_increase"])
        except PilotError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"hits": done.hits, "added": done.added})


class GoldFromApprovedView(APIView):
    @extend_schema(summary="Make gold items of the campaign's task kind from its approved answers (one per item, "
                           "the most agreed-with first)",
                   request=GoldFromApprovedSerializer,
                   responses={201: inline_serializer("GoldMade", {"gold_items": serializers.ListField(
                       child=serializers.IntegerField())}), 400: DETAIL, 404: DETAIL})
    def post(self, request: Request, pk: int) -> Response:
        campaign = _campaign(pk)
        data = GoldFromApprovedSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            made = gold_from_approved(campaign, data.validated_data["limit"], user=request.user)
        except GoldError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"gold_items": [item.pk for item in made]}, status=status.HTTP_201_CREATED)

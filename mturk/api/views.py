"""REST API for campaigns, HITs, workers and assignments (token authentication, staff only)."""
from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ..models import HIT, Assignment, Worker
from ..selectors import campaigns_with_progress
from ..services.campaigns import CampaignError, add_hits, create_campaign, publish_campaign, set_campaign_status
from ..services.hits import HITError, expire_hit
from ..services.review import (
    ReviewError,
    approve_assignment,
    approve_submitted,
    grant_bonus,
    reject_assignment,
    set_worker_blocked,
)
from ..states import CampaignStatus, InvalidTransition
from ..task_kinds import UnknownTaskKind
from .serializers import (
    AssignmentSerializer,
    BlockSerializer,
    BonusSerializer,
    CampaignCreateSerializer,
    CampaignSerializer,
    FeedbackSerializer,
    HitItemsSerializer,
    HITSerializer,
    PublishSerializer,
    WorkerSerializer,
)

REFUSED = (CampaignError, ReviewError, HITError, InvalidTransition, UnknownTaskKind)


def _valid(serializer_class, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _refused(exc: Exception) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT
                    if isinstance(exc, InvalidTransition) else status.HTTP_400_BAD_REQUEST)


class CampaignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = CampaignSerializer

    def get_queryset(self) -> QuerySet:
        return campaigns_with_progress()

    @extend_schema(request=CampaignCreateSerializer, responses={201: CampaignSerializer})
    def create(self, request: Request) -> Response:
        data = _valid(CampaignCreateSerializer, request)
        try:
            campaign = create_campaign(**data, created_by=request.user)
        except REFUSED as exc:
            return _refused(exc)
        return Response(self.get_serializer(self.get_queryset().get(pk=campaign.pk)).data, status=201)

    @extend_schema(request=HitItemsSerializer, responses={201: HITSerializer(many=True)})
    @action(detail=True, methods=["post"])
    def hits(self, request: Request, pk: str) -> Response:
        """Add HITs: one per item."""
        data = _valid(HitItemsSerializer, request)
        try:
            created = add_hits(self.get_object(), data["items"])
        except REFUSED as exc:
            return _refused(exc)
        return Response(HITSerializer(created, many=True).data, status=201)

    @extend_schema(request=PublishSerializer, responses={200: CampaignSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request: Request, pk: str) -> Response:
        data = _valid(PublishSerializer, request)
        try:
            result = publish_campaign(self.get_object(), data.get("provider"))
        except REFUSED as exc:
            return _refused(exc)
        body = self.get_serializer(self.get_queryset().get(pk=pk)).data
        body["published"] = result.published
        body["left_in_draft"] = result.left_in_draft
        return Response(body)

    def _status(self, target: str) -> Response:
        try:
            set_campaign_status(self.get_object(), target)
        except REFUSED as exc:
            return _refused(exc)
        return Response(self.get_serializer(self.get_queryset().get(pk=self.kwargs["pk"])).data)

    @extend_schema(request=None, responses={200: CampaignSerializer})
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str) -> Response:
        return self._status(CampaignStatus.PAUSED)

    @extend_schema(request=None, responses={200: CampaignSerializer})
    @action(detail=True, methods=["post"])
    def close(self, request: Request, pk: str) -> Response:
        return self._status(CampaignStatus.CLOSED)

    @extend_schema(request=None, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="approve-submitted")
    def approve_submitted(self, request: Request, pk: str) -> Response:
        passing = request.query_params.get("passing") == "1"
        result = approve_submitted(self.get_object(), passing_checks_only=passing)
        return Response({"approved": result.approved, "flagged": result.flagged, "failed": result.failed})


class HITViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = HITSerializer

    def get_queryset(self) -> QuerySet:
        queryset = HIT.objects.all()
        campaign = self.request.query_params.get("campaign")
        if campaign:
            queryset = queryset.filter(campaign_id=campaign)
        return queryset.order_by("campaign_id", "position", "id")

    @extend_schema(request=None, responses={200: HITSerializer})
    @action(detail=True, methods=["post"])
    def expire(self, request: Request, pk: str) -> Response:
        try:
            hit = expire_hit(self.get_object())
        except REFUSED as exc:
            return _refused(exc)
        return Response(HITSerializer(hit).data)


class WorkerViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = WorkerSerializer
    queryset = Worker.objects.order_by("id")

    @extend_schema(request=BlockSerializer, responses={200: WorkerSerializer})
    @action(detail=True, methods=["post"])
    def block(self, request: Request, pk: str) -> Response:
        data = _valid(BlockSerializer, request)
        try:
            worker = set_worker_blocked(self.get_object(), True, data["reason"])
        except REFUSED as exc:
            return _refused(exc)
        return Response(WorkerSerializer(worker).data)

    @extend_schema(request=None, responses={200: WorkerSerializer})
    @action(detail=True, methods=["post"])
    def unblock(self, request: Request, pk: str) -> Response:
        return Response(WorkerSerializer(set_worker_blocked(self.get_object(), False)).data)


class AssignmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = AssignmentSerializer

    def get_queryset(self) -> QuerySet:
        queryset = Assignment.objects.select_related("worker", "hit")
        params = self.request.query_params
        if params.get("campaign"):
            queryset = queryset.filter(hit__campaign_id=params["campaign"])
        if params.get("status"):
            queryset = queryset.filter(status=params["status"])
        return queryset.order_by("id")

    def _review(self, action_fn, feedback: str) -> Response:
        try:
            assignment = action_fn(self.get_object(), feedback)
        except REFUSED as exc:
            return _refused(exc)
        return Response(AssignmentSerializer(assignment).data)

    @extend_schema(request=FeedbackSerializer, responses={200: AssignmentSerializer})
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str) -> Response:
        return self._review(approve_assignment, _valid(FeedbackSerializer, request)["feedback"])

    @extend_schema(request=FeedbackSerializer, responses={200: AssignmentSerializer})
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str) -> Response:
        return self._review(reject_assignment, _valid(FeedbackSerializer, request)["feedback"])

    @extend_schema(request=BonusSerializer, responses={201: dict})
    @action(detail=True, methods=["post"])
    def bonus(self, request: Request, pk: str) -> Response:
        data = _valid(BonusSerializer, request)
        try:
            bonus = grant_bonus(self.get_object(), data["amount"], data["reason"])
        except REFUSED as exc:
            return _refused(exc)
        return Response({"id": bonus.pk, "amount": str(bonus.amount), "paid": bonus.paid}, status=201)

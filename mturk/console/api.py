"""REST API for campaigns, HITs, workers and assignments (token authentication, staff only)."""
from __future__ import annotations

from dataclasses import asdict
from functools import partial

from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..api.filters import AssignmentFilterSerializer, HITFilterSerializer, list_filters
from ..api.serializers import (
    AddAssignmentsSerializer,
    AssignmentSerializer,
    BlockSerializer,
    BonusSerializer,
    CampaignCreateSerializer,
    CampaignSerializer,
    ExtendSerializer,
    FeedbackSerializer,
    HitItemsSerializer,
    HITSerializer,
    NotifySerializer,
    PublishSerializer,
    RejectionSerializer,
    WorkerSerializer,
)
from ..models import HIT, Assignment, Worker
from ..providers.base import ProviderError
from ..providers.registry import UnknownProvider, get_provider
from ..selectors.campaigns import CampaignWithProgress, campaigns_with_progress
from ..selectors.publication import preview_dict, preview_publication
from ..services.campaigns import (
    CampaignError,
    PublicationFailed,
    add_hits,
    create_campaign,
    publish_campaign,
    set_campaign_status,
)
from ..services.hits import (
    HITError,
    add_assignments_everywhere,
    delete_decided_hits,
    delete_hit,
    expire_campaign,
    expire_hit,
    extend_hit,
)
from ..services.hits import add_assignments as add_hit_assignments
from ..services.review import (
    ReviewError,
    approve_assignment,
    approve_submitted,
    grant_bonus,
    message_workers,
    reject_assignment,
    set_worker_blocked,
)
from ..states import CampaignStatus, InvalidTransition
from ..task_kinds import UnknownTaskKind
from ..work.services.marketplace_sync import sync_campaign

REFUSED = (CampaignError, ReviewError, HITError, InvalidTransition, UnknownTaskKind)
EXPIRE_NOTE = "Workers who already accepted a HIT may still submit until their assignment deadline."
SANDBOX_PARAMETER = OpenApiParameter(
    "sandbox", OpenApiTypes.BOOL, required=False,
    description="The marketplace's sandbox (1) or production (0); default: the campaign's or MTURK_SANDBOX.")


def _valid(serializer_class, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _refused(exc: Exception) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT
                    if isinstance(exc, InvalidTransition) else status.HTTP_400_BAD_REQUEST)


def _marketplace_failed(exc: Exception) -> Response:
    """The marketplace refused or failed a call that had no input of ours to blame."""
    return Response({"detail": str(exc)}, status=status.HTTP_502_BAD_GATEWAY)


def _flag(request: Request, name: str) -> bool | None:
    """A boolean query parameter (1/0, true/false); None when absent. Anything else is a 400."""
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    try:
        return serializers.BooleanField().run_validation(value)
    except serializers.ValidationError:
        raise serializers.ValidationError({name: f"'{value}' is not a boolean (use 1 or 0)."}) from None


class CampaignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = CampaignSerializer

    def get_queryset(self) -> QuerySet[CampaignWithProgress]:
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
        """Publish the draft HITs within the budget cap. On a marketplace, `queued` says a background job on the
        task queue does the marketplace's half (`queued_job` says what; follow `pending_creation` and
        `marketplace_error`). Without a task queue that job runs before the answer: its failure answers 502 with
        the cause (the campaign stays published here, the failure is its `marketplace_error`; publishing again
        tries again). A first publication with no HIT to offer is refused (400); a stage with no HIT yet becomes
        active (`waiting_for_stage`); an active campaign with no draft HIT answers `nothing_to_publish`."""
        data = _valid(PublishSerializer, request)
        try:
            result = publish_campaign(self.get_object(), data.get("provider"), sandbox=data.get("sandbox"))
        except PublicationFailed as exc:  # in-process: the marketplace's job failed (recorded on the campaign)
            return _marketplace_failed(exc)
        except REFUSED as exc:
            return _refused(exc)
        body = self.get_serializer(self.get_queryset().get(pk=pk)).data
        body["published"] = result.published
        body["left_in_draft"] = result.left_in_draft
        body["stopped_by_budget"] = result.stopped_by_budget
        body["queued"] = result.queued
        body["queued_job"] = result.job_label if result.queued else None
        body["nothing_to_publish"] = result.nothing_to_publish
        body["waiting_for_stage"] = result.waiting_for_stage
        body["cost"] = {"assignments": result.cost.assignments, "rewards": str(result.cost.rewards),
                        "fees": str(result.cost.fees), "total": str(result.cost.total)}
        return Response(body)

    @extend_schema(request=None, responses={200: dict},
                   parameters=[SANDBOX_PARAMETER, OpenApiParameter("provider", str, required=False)])
    @action(detail=True, methods=["get"])
    def estimate(self, request: Request, pk: str) -> Response:
        """What publishing would do, with no marketplace call and no change: the cost with fees of every
        draft HIT and of those the budget cap lets through, the worker requirements, and `error` when
        publishing would be refused."""
        sandbox = _flag(request, "sandbox")
        try:
            preview = preview_publication(self.get_object(), request.query_params.get("provider") or None,
                                          sandbox=sandbox)
        except UnknownProvider as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(preview_dict(preview))

    @extend_schema(request=None, responses={200: dict, 502: dict})
    @action(detail=True, methods=["post"])
    def sync(self, request: Request, pk: str) -> Response:
        """Pull submissions and decisions from the marketplace now, then apply the review rules."""
        try:
            report = sync_campaign(self.get_object())
        except (ProviderError, ReviewError) as exc:
            return _marketplace_failed(exc)
        return Response(asdict(report))

    @extend_schema(request=None, responses={200: dict})
    @action(detail=True, methods=["post"])
    def expire(self, request: Request, pk: str) -> Response:
        """Expire every published HIT. Workers who already accepted one may still submit until their deadline."""
        try:
            expired = expire_campaign(self.get_object())
        except REFUSED as exc:
            return _refused(exc)
        return Response({"expired": expired, "detail": EXPIRE_NOTE})

    @extend_schema(request=None, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="delete-decided")
    def delete_decided(self, request: Request, pk: str) -> Response:
        """Delete every expired HIT whose work is all decided; `skipped` says why the others stay."""
        deleted, skipped = delete_decided_hits(self.get_object())
        return Response({"deleted": deleted, "skipped": {str(hit): why for hit, why in skipped.items()}})

    @extend_schema(request=NotifySerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def notify(self, request: Request, pk: str) -> Response:
        """Message the campaign's workers (or `worker_ids`); `failed` lists the ids the message did not reach."""
        data = _valid(NotifySerializer, request)
        try:
            failed = message_workers(self.get_object(), data["subject"], data["text"], data.get("worker_ids"))
        except REFUSED as exc:
            return _refused(exc)
        return Response({"failed": failed})

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

    @extend_schema(request=AddAssignmentsSerializer, responses={200: CampaignSerializer})
    @action(detail=True, methods=["post"], url_path="add-assignments")
    def add_assignments(self, request: Request, pk: str) -> Response:
        """Let `count` more workers do every published or expired HIT (on Prolific the study gets the places),
        within the budget cap."""
        data = _valid(AddAssignmentsSerializer, request)
        try:
            add_assignments_everywhere(self.get_object(), data["count"],
                                       confirm_fee_increase=data["confirm_fee_increase"])
        except REFUSED as exc:
            return _refused(exc)
        return Response(self.get_serializer(self.get_queryset().get(pk=self.kwargs["pk"])).data)

    @extend_schema(request=None, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="approve-submitted")
    def approve_submitted(self, request: Request, pk: str) -> Response:
        passing = request.query_params.get("passing") == "1"
        result = approve_submitted(self.get_object(), passing_checks_only=passing)
        return Response({"approved": result.approved, "flagged": result.flagged, "failed": result.failed})


@extend_schema_view(list=extend_schema(parameters=[HITFilterSerializer]))
class HITViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = HITSerializer

    def get_queryset(self) -> QuerySet:
        queryset = HIT.objects.all()
        if self.action == "list":
            filters = list_filters(HITFilterSerializer, self.request)
            if "campaign" in filters:
                queryset = queryset.filter(campaign_id=filters["campaign"])
        return queryset.order_by("campaign_id", "position", "id")

    def _change(self, action_fn, *args, **kwargs) -> Response:
        try:
            hit = action_fn(self.get_object(), *args, **kwargs)
        except REFUSED as exc:
            return _refused(exc)
        return Response(HITSerializer(hit).data)

    @extend_schema(request=None, responses={200: HITSerializer})
    @action(detail=True, methods=["post"])
    def expire(self, request: Request, pk: str) -> Response:
        """Take the HIT off offer now. Workers who already accepted it may still submit until their deadline."""
        return self._change(expire_hit)

    @extend_schema(request=ExtendSerializer, responses={200: HITSerializer})
    @action(detail=True, methods=["post"])
    def extend(self, request: Request, pk: str) -> Response:
        """Keep the HIT on offer `seconds` longer than now or its current expiry (an expired HIT re-opens)."""
        return self._change(extend_hit, _valid(ExtendSerializer, request)["seconds"])

    @extend_schema(request=AddAssignmentsSerializer, responses={200: HITSerializer})
    @action(detail=True, methods=["post"], url_path="add-assignments")
    def add_assignments(self, request: Request, pk: str) -> Response:
        """Let `count` more workers do the HIT, within the budget cap. Reaching 10 or more assignments raises
        the marketplace fee and needs `confirm_fee_increase`."""
        data = _valid(AddAssignmentsSerializer, request)
        return self._change(add_hit_assignments, data["count"], confirm_fee_increase=data["confirm_fee_increase"])

    @extend_schema(request=None, responses={200: HITSerializer})
    @action(detail=True, methods=["post"], url_path="delete", url_name="delete")
    def delete_from_marketplace(self, request: Request, pk: str) -> Response:
        """Remove the HIT from the marketplace once all its work is decided (our record stays, disposed)."""
        return self._change(delete_hit)


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
        try:
            worker = set_worker_blocked(self.get_object(), False)
        except REFUSED as exc:
            return _refused(exc)
        return Response(WorkerSerializer(worker).data)


@extend_schema_view(list=extend_schema(parameters=[AssignmentFilterSerializer]))
class AssignmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = AssignmentSerializer

    def get_queryset(self) -> QuerySet:
        queryset = Assignment.objects.select_related("worker", "hit")
        if self.action == "list":
            filters = list_filters(AssignmentFilterSerializer, self.request)
            if "campaign" in filters:
                queryset = queryset.filter(hit__campaign_id=filters["campaign"])
            if "status" in filters:
                queryset = queryset.filter(status=filters["status"])
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
        """Approve submitted work (idempotent). Approving a *rejected* assignment overrides the rejection:
        the worker is paid, and on MTurk the call is made with `OverrideRejection`."""
        return self._review(approve_assignment, _valid(FeedbackSerializer, request)["feedback"])

    @extend_schema(request=RejectionSerializer, responses={200: AssignmentSerializer})
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str) -> Response:
        data = _valid(RejectionSerializer, request)
        return self._review(partial(reject_assignment, category=data["category"]), data["feedback"])

    @extend_schema(request=BonusSerializer, responses={201: dict})
    @action(detail=True, methods=["post"])
    def bonus(self, request: Request, pk: str) -> Response:
        data = _valid(BonusSerializer, request)
        try:
            bonus = grant_bonus(self.get_object(), data["amount"], data["reason"])
        except REFUSED as exc:
            return _refused(exc)
        return Response({"id": bonus.pk, "amount": str(bonus.amount), "paid": bonus.paid}, status=201)


class ProviderBalanceView(APIView):
    """The provider account's available balance (asks the marketplace: one call per request)."""

    @extend_schema(parameters=[SANDBOX_PARAMETER], responses={200: dict, 400: dict, 404: dict, 502: dict})
    def get(self, request: Request, name: str) -> Response:
        try:
            provider = get_provider(name)
        except UnknownProvider as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
        sandbox = _flag(request, "sandbox")
        if sandbox is None:
            sandbox = settings.MTURK_SANDBOX
        try:
            balance = provider.balance(sandbox)
        except ProviderError as exc:
            return _marketplace_failed(exc)
        if balance is None:
            return Response({"detail": f"the {provider.name} provider has no account, so no balance"},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response({"provider": provider.name, "sandbox": sandbox, "balance": str(balance)})

"""REST API for gold and onboarding items (/api/gold-items/): list, create, retrieve, switch on or off, mark an
approved answer as gold, import JSON Lines. Staff only, like the rest of the API; writes go through
services.gold."""
from __future__ import annotations

from django.conf import settings
from django.db.models import Count, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from ...api.fields import set_choices, upload_too_large
from ...api.filters import list_filters
from ...measures import quality_kind_names
from ...models import Assignment, GoldItem
from ...models.quality import GoldPurpose
from ...services.gold import GoldError, create_gold_item, gold_from_assignment, import_gold_lines, set_gold_active
from ...task_kinds import StrictSerializer


class GoldItemSerializer(serializers.ModelSerializer):
    hits = serializers.IntegerField(read_only=True, source="hit_count",
                                    help_text="HITs made from it (gold or onboarding HITs of campaigns).")
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)

    class Meta:
        model = GoldItem
        fields = ["id", "task_kind", "purpose", "items", "answer", "note", "active", "source_assignment",
                  "created_by", "created_at", "hits"]
        read_only_fields = fields


class GoldCreateSerializer(StrictSerializer):
    task_kind = serializers.ChoiceField(choices=[])
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices, default=GoldPurpose.GOLD)
    items = serializers.DictField(
        help_text='A HIT\'s items, exactly as a campaign\'s HIT holds them, e.g. {"image": 12}.')
    answer = serializers.JSONField(help_text="The known answer, in the task kind's gold format.")
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="",
                                 help_text="Where the known answer comes from.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        set_choices(self.fields, "task_kind", quality_kind_names())


class GoldActiveSerializer(StrictSerializer):
    active = serializers.BooleanField(help_text="Mixed into new campaigns (and HITs added to running ones).")


class FromAssignmentSerializer(StrictSerializer):
    assignment = serializers.PrimaryKeyRelatedField(
        queryset=Assignment.objects.select_related("hit__campaign"),
        help_text="An approved assignment of a real (not gold) HIT: its HIT's items and its answer become the item.")
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices, default=GoldPurpose.GOLD)


class GoldImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text='JSON Lines: {"items": {...}, "answer": ..., "note": "..."} per line.')
    task_kind = serializers.ChoiceField(choices=[])
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices, default=GoldPurpose.GOLD)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        set_choices(self.fields, "task_kind", quality_kind_names())


class GoldFilterSerializer(serializers.Serializer):
    task_kind = serializers.CharField(required=False, max_length=50, help_text="Only this task kind's items.")
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices, required=False, help_text="gold or onboarding.")
    active = serializers.BooleanField(required=False,
                                      help_text="1: mixed into new campaigns; 0: switched off.")


def _refused(exc: GoldError) -> Response:
    return Response({"detail": str(exc), "errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)


@extend_schema_view(list=extend_schema(parameters=[GoldFilterSerializer]))
class GoldItemViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = GoldItemSerializer
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> QuerySet[GoldItem]:
        items = GoldItem.objects.select_related("created_by").annotate(hit_count=Count("hits")).order_by("id")
        if self.action != "list":
            return items
        return items.filter(**list_filters(GoldFilterSerializer, self.request))

    def _one(self, pk: int, code: int = status.HTTP_200_OK) -> Response:
        return Response(self.get_serializer(self.get_queryset().get(pk=pk)).data, status=code)

    @extend_schema(request=GoldCreateSerializer, responses={201: GoldItemSerializer})
    def create(self, request: Request) -> Response:
        """A gold or onboarding item: a HIT's items and the known answer (checked by the task kind)."""
        found = GoldCreateSerializer(data=request.data)
        found.is_valid(raise_exception=True)
        try:
            item = create_gold_item(**found.validated_data, user=request.user)
        except GoldError as exc:
            return _refused(exc)
        return self._one(item.pk, status.HTTP_201_CREATED)

    @extend_schema(request=GoldActiveSerializer, responses={200: GoldItemSerializer})
    def partial_update(self, request: Request, pk: str) -> Response:
        """Switch an item on or off (HITs already made from it keep it)."""
        found = GoldActiveSerializer(data=request.data)
        found.is_valid(raise_exception=True)
        item = set_gold_active(self.get_object(), found.validated_data["active"])
        return self._one(item.pk)

    @extend_schema(request=FromAssignmentSerializer, responses={201: GoldItemSerializer})
    @action(detail=False, methods=["post"], url_path="from-assignment")
    def from_assignment(self, request: Request) -> Response:
        """Mark an approved answer as gold: its HIT's items with the answer as the known answer (once per purpose)."""
        found = FromAssignmentSerializer(data=request.data)
        found.is_valid(raise_exception=True)
        try:
            item = gold_from_assignment(found.validated_data["assignment"], purpose=found.validated_data["purpose"],
                                        user=request.user)
        except GoldError as exc:
            return _refused(exc)
        return self._one(item.pk, status.HTTP_201_CREATED)

    @extend_schema(request={"multipart/form-data": GoldImportSerializer}, responses={201: OpenApiTypes.OBJECT})
    @action(detail=False, methods=["post"], url_path="import", parser_classes=[MultiPartParser, FormParser])
    def import_lines(self, request: Request) -> Response:
        """Import JSON Lines; all or nothing: a 400 names every bad line and nothing is stored."""
        found = GoldImportSerializer(data=request.data)
        found.is_valid(raise_exception=True)
        upload = found.validated_data["file"]
        if (refused := upload_too_large(upload, settings.IMAGE_MAX_BYTES, "file")) is not None:
            return refused
        try:
            text = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return Response({"detail": f"the file is not UTF-8 text ({exc})"}, status=status.HTTP_400_BAD_REQUEST)
        try:
            items = import_gold_lines(found.validated_data["task_kind"], text.splitlines(),
                                      found.validated_data["purpose"], request.user)
        except GoldError as exc:
            return _refused(exc)
        return Response({"imported": len(items), "ids": [item.pk for item in items]}, status=status.HTTP_201_CREATED)


router = SimpleRouter()
router.register("", GoldItemViewSet, basename="gold-item")

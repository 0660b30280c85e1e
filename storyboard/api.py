"""REST API of the visual stories: albums, launching the story workflow, scoring generated stories."""
from __future__ import annotations

from django.conf import settings
from django.db.models import Count, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from metrics.meteor import MeteorError
from metrics.story_eval import SubmissionError
from mturk.api.fields import id_list, upload_too_large
from mturk.models import Campaign
from mturk.providers.registry import UnknownProvider, default_provider_name
from mturk.services.campaigns import CampaignError

from .exports.records import SPLITS
from .models import Album
from .services.story_runs import NoHumanStories, score_story_run
from .services.workflow import create_story_workflow


class StoryEvaluationSerializer(serializers.Serializer):
    submission = serializers.FileField(help_text="Generated stories in the VIST challenge format (JSON).")
    campaigns = id_list(Campaign.objects.all(), required=False,
                        help_text="Compare with these story campaigns' stories (default: every story).")
    split = serializers.ChoiceField(choices=SPLITS, required=False, help_text="Only the sequences of this split.")
    split_seed = serializers.CharField(required=False, default="sind")
    released = serializers.BooleanField(
        required=False, default=False,
        help_text="Only the stories imported from VIST (with split=test: the released test stories).")


class StoryEvaluationView(APIView):
    """METEOR 1.5 (max over references, mean over sequences), BLEU-4 and CIDEr of uploaded stories."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": StoryEvaluationSerializer}, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = StoryEvaluationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["submission"]
        if (refused := upload_too_large(upload, settings.RUN_MAX_BYTES, "submission")) is not None:
            return refused
        try:
            result = score_story_run(upload.read(), data.get("campaigns", []), data.get("split"), data["split_seed"],
                                     data["released"])
        except SubmissionError as exc:
            return Response({"detail": "the submission has errors", "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        except NoHumanStories as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except MeteorError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(result)


class AlbumSerializer(serializers.ModelSerializer):
    photos = serializers.IntegerField(source="photo_count", read_only=True)

    class Meta:
        model = Album
        fields = ["id", "external_id", "title", "event_label", "photos", "is_simulated", "created_at"]
        read_only_fields = fields


class AlbumViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Imported albums (import them with `manage.py import_albums`), with their photo counts."""

    serializer_class = AlbumSerializer

    def get_queryset(self) -> QuerySet[Album]:
        return Album.objects.annotate(photo_count=Count("photos")).order_by("pk")


class StoryWorkflowSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=180)
    albums = id_list(Album.objects.all(), allow_empty=False)
    ratings = serializers.BooleanField(default=False)
    provider = serializers.CharField(default=default_provider_name())
    settings = serializers.DictField(child=serializers.DictField(), required=False,
                                     help_text='Per stage overrides, e.g. {"retell": {"assignments_per_hit": 5}}.')
    publish = serializers.BooleanField(default=False)


class StoryWorkflowView(APIView):
    """Launch the visual-stories workflow: one chained campaign per stage (tell, retell, dii, dis, rate)."""

    @extend_schema(request=StoryWorkflowSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = StoryWorkflowSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            campaigns = create_story_workflow(
                data["name"], data["albums"], ratings=data["ratings"], provider=data["provider"],
                settings=data.get("settings"), publish=data["publish"], created_by=request.user,
            )
        except (CampaignError, UnknownProvider) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({stage: {"id": c.pk, "name": c.name, "task_kind": c.task_kind, "status": c.status}
                         for stage, c in campaigns.items()}, status=status.HTTP_201_CREATED)

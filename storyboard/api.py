"""REST API: score generated stories (VIST challenge format) against the human stories."""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from metrics.meteor import MeteorError
from metrics.story_eval import SubmissionError
from mturk.models import Campaign

from .exports.records import SPLITS
from .services.story_runs import NoHumanStories, score_story_run


class StoryEvaluationSerializer(serializers.Serializer):
    submission = serializers.FileField(help_text="Generated stories in the VIST challenge format (JSON).")
    campaigns = serializers.PrimaryKeyRelatedField(
        queryset=Campaign.objects.all(), many=True, required=False,
        help_text="Compare with these story campaigns' stories (default: every story).",
    )
    split = serializers.ChoiceField(choices=SPLITS, required=False, help_text="Only the sequences of this split.")
    split_seed = serializers.CharField(required=False, default="sind")


class StoryEvaluationView(APIView):
    """METEOR 1.5 (max over references, mean over sequences), BLEU-4 and CIDEr of uploaded stories."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": StoryEvaluationSerializer}, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = StoryEvaluationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["submission"]
        if upload.size > settings.RUN_MAX_BYTES:
            return Response({"detail": f"the submission is larger than {settings.RUN_MAX_BYTES} bytes"}, status=400)
        try:
            result = score_story_run(upload.read(), data.get("campaigns", []), data.get("split"), data["split_seed"])
        except SubmissionError as exc:
            return Response({"detail": "the submission has errors", "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        except NoHumanStories as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except MeteorError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(result)

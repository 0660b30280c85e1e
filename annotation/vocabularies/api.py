"""REST API for vocabularies (/api/vocabularies/): list them with their labels, read one, create one from labels
typed one per line (or a list of such lines) or from a concepts.tsv text; the console's service."""
from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from mturk.task_kinds import StrictSerializer

from ..models import Concept, Vocabulary
from ..services.concepts import ConceptImportError
from .selectors import vocabularies_with_labels
from .services import DESCRIPTION_LENGTH, create_vocabulary


class LabelSerializer(serializers.ModelSerializer):
    parent_name = serializers.SerializerMethodField(help_text="The parent label's name (same vocabulary), or null.")

    class Meta:
        model = Concept
        fields = ["id", "name", "synonyms", "synset", "parent_name"]
        read_only_fields = fields

    def get_parent_name(self, concept: Concept) -> str | None:
        return concept.parent.name if concept.parent else None


class VocabularySerializer(serializers.ModelSerializer):
    labels = LabelSerializer(source="offered_labels", many=True, read_only=True,
                             help_text="The labels offered to workers, by name; draw_boxes answers name their id.")

    class Meta:
        model = Vocabulary
        fields = ["id", "name", "description", "created_at", "labels"]
        read_only_fields = fields


@extend_schema_field({"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]})
class LinesField(serializers.Field):
    """Text with one label per line, or a list of such lines."""

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str):
            return data
        if isinstance(data, list) and all(isinstance(line, str) for line in data):
            return "\n".join(line.replace("\n", " ") for line in data)
        raise serializers.ValidationError("Expected text (one label per line) or a list of lines.")

    def to_representation(self, value: Any) -> Any:
        return value


class VocabularyCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(max_length=DESCRIPTION_LENGTH, required=False, allow_blank=True, default="")
    labels = LinesField(required=False, default="",
                        help_text='One label per line, "name | synonyms | synset | parent" (all but the name '
                                  'optional, synonyms separated by commas), e.g. "kitten | kitty, cat | kitten.n.01"; '
                                  "or a list of such lines.")
    tsv = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False,
                                help_text="Or a concepts.tsv text (header name, synset, synonyms, parent).")


class VocabularyViewSet(viewsets.GenericViewSet):
    serializer_class = VocabularySerializer

    def get_queryset(self):
        return vocabularies_with_labels()

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(VocabularySerializer(page, many=True).data)

    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(VocabularySerializer(self.get_object()).data)

    @extend_schema(request=VocabularyCreateSerializer, responses={201: VocabularySerializer})
    def create(self, request: Request) -> Response:
        """Create a vocabulary with its labels (typed lines or a concepts.tsv text): 400 naming every problem."""
        serializer = VocabularyCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            result = create_vocabulary(data["name"], labels=data["labels"], tsv=data["tsv"],
                                       description=data["description"])
        except ConceptImportError as exc:
            return Response({"detail": "; ".join(exc.errors), "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        created = self.get_queryset().get(pk=result.vocabulary.pk)
        return Response(VocabularySerializer(created).data, status=status.HTTP_201_CREATED)

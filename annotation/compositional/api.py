"""REST API for compositional generalization: concept pairs (list, define, delete, load the seed's, import),
how often they occur in the stored parses, and the parse job (coverage, start)."""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from metrics.compositional.types import PAIR_KINDS
from mturk.api.fields import upload_too_large
from mturk.models import Campaign

from .models import ConceptPair, LexicalConcept, ParseJob
from .selectors import (
    UnknownPairs,
    latest_parse_job,
    pair_occurrences,
    pair_rows,
    parse_coverage,
    stored_pairs,
)
from .services.caption_parses import request_parse
from .services.concept_pairs import (
    IMPORT_MAX_BYTES,
    ConceptPairError,
    delete_pair,
    import_pairs,
    load_seed_pairs,
    save_pair,
)


class ConceptSerializer(serializers.ModelSerializer):
    class Meta:
        model = LexicalConcept
        fields = ["name", "part_of_speech", "synonyms", "source"]
        read_only_fields = fields


class PairSerializer(serializers.ModelSerializer):
    modifier = ConceptSerializer(read_only=True)
    noun = ConceptSerializer(read_only=True)

    class Meta:
        model = ConceptPair
        fields = ["name", "kind", "modifier", "noun", "category", "heldout_group", "source", "created_at"]
        read_only_fields = fields


class PairCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, help_text='e.g. "black_cat"')
    kind = serializers.ChoiceField(choices=PAIR_KINDS)
    modifier = serializers.CharField(max_length=100, help_text="the adjective (adjective_noun) or verb (noun_verb)")
    noun = serializers.CharField(max_length=100)
    modifier_synonyms = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, allow_null=True, default=None,
        help_text="required when the modifier is a new concept; replaces its synonyms otherwise")
    noun_synonyms = serializers.ListField(child=serializers.CharField(max_length=100), required=False,
                                          allow_null=True, default=None)
    category = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")
    heldout_group = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")


class PairImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text='JSON: {"concepts": [{name, part_of_speech, synonyms}], '
                                           '"pairs": [{name, kind, modifier, noun, category, heldout_group}]}')


class ParseJobSerializer(serializers.ModelSerializer):
    class Meta:
        model = ParseJob
        fields = ["id", "status", "parser", "total", "done", "error", "created_at", "updated_at", "finished_at"]
        read_only_fields = fields


def _pairs():
    return pair_rows()


class PairsView(GenericAPIView):
    """The concept pairs with their concepts and synonyms; POST defines a pair (or updates the one of that name)."""

    serializer_class = PairSerializer
    parser_classes = [JSONParser, FormParser, MultiPartParser]

    def get_queryset(self):
        return _pairs()

    @extend_schema(responses={200: PairSerializer(many=True)})
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(PairSerializer(page, many=True).data)

    @extend_schema(request=PairCreateSerializer, responses={201: PairSerializer, 200: PairSerializer})
    def post(self, request: Request) -> Response:
        serializer = PairCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        existed = ConceptPair.objects.filter(name=data["name"].strip().lower().replace(" ", "_")).exists()
        try:
            pair = save_pair(**data)
        except ConceptPairError as exc:
            return Response({exc.field if exc.field in serializer.fields else "non_field_errors": [str(exc)]},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response(PairSerializer(_pairs().get(pk=pair.pk)).data,
                        status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED)


class PairView(APIView):
    """One concept pair by name."""

    @extend_schema(responses={200: PairSerializer})
    def get(self, request: Request, name: str) -> Response:
        return Response(PairSerializer(get_object_or_404(_pairs(), name=name)).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, name: str) -> Response:
        """Delete the pair (its concepts stay)."""
        delete_pair(get_object_or_404(ConceptPair, name=name))
        return Response(status=status.HTTP_204_NO_CONTENT)


class LoadSeedView(APIView):
    """Load the seed's concepts and 24 pairs (Nikolaus et al.); loading again changes nothing."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        created = load_seed_pairs()
        return Response({"created": created, "pairs": ConceptPair.objects.count()})


class PairImportView(APIView):
    """Import concepts and pairs from a JSON file: all, or (a 400 naming every bad entry) nothing."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": PairImportSerializer}, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        serializer = PairImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        if (refused := upload_too_large(upload, IMPORT_MAX_BYTES, "file")) is not None:
            return refused
        try:
            count = import_pairs(upload.read())
        except ConceptPairError as exc:
            return Response({"detail": "the file has errors", "errors": exc.errors},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response({"imported": count}, status=status.HTTP_201_CREATED)


def _campaigns(raw: list[str]) -> list[Campaign]:
    ids: list[int] = []
    for value in (v.strip() for item in raw for v in item.split(",")):
        if not value:
            continue
        if not value.isascii() or not value.isdigit() or len(value) > 18:
            raise serializers.ValidationError({"campaign": [f"'{value[:40]}' is not a campaign id"]})
        ids.append(int(value))
    campaigns = list(Campaign.objects.filter(pk__in=ids))
    missing = sorted(set(ids) - {c.pk for c in campaigns})
    if missing:
        raise serializers.ValidationError({"campaign": [f"no campaign {', '.join(map(str, missing))}"]})
    wrong = [c.name for c in campaigns if c.task_kind != "describe_image"]
    if wrong:
        raise serializers.ValidationError({"campaign": [f"not describe_image campaign(s): {', '.join(wrong)}"]})
    return campaigns


class OccurrencesView(APIView):
    """How often each pair occurs in the stored parses: images and captions containing it, images by how many of
    their captions contain it (`by_count`, n -> images) and the mean n (reference agreement), and images mentioning
    the noun and the modifier at all. Every description, or the approved captions of describe_image campaigns."""

    @extend_schema(parameters=[
        OpenApiParameter("pairs", str, description="comma-separated pair names (default: every pair)"),
        OpenApiParameter("campaign", str, description="describe_image campaign id(s), comma-separated or repeated "
                                                      "(default: every description)"),
    ], responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        names = [n for n in request.query_params.get("pairs", "").split(",") if n.strip()]
        campaigns = _campaigns(request.query_params.getlist("campaign"))
        try:
            pairs = stored_pairs(names or None)
        except UnknownPairs as exc:
            return Response({"pairs": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        table = pair_occurrences(pairs, campaigns=campaigns)
        return Response(_table(table))


def _table(table: Any) -> dict[str, Any]:
    data = asdict(table)
    for row in data["rows"]:
        row["by_count"] = {str(n): v for n, v in row["by_count"].items()}
    return data


class ParseView(APIView):
    """The stored parses: how many captions have one by the current parser, and the latest parse job with its
    progress; POST starts a parse job (or returns the one running)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        job = latest_parse_job()
        return Response({"coverage": asdict(parse_coverage()),
                         "job": ParseJobSerializer(job).data if job is not None else None})

    @extend_schema(request=None, responses={202: ParseJobSerializer})
    def post(self, request: Request) -> Response:
        job = request_parse(user=request.user)
        job.refresh_from_db()
        return Response(ParseJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

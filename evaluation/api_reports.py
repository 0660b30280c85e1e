"""The read side of human evaluation's API (staff, as the whole API): the leaderboard (of one evaluation, or of a
test set across its evaluations), running the analysis, and the report and exports (the raw judgements streamed,
one judgement at a time)."""
from __future__ import annotations

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from metrics.human_eval.significance import EXACT_ITEMS, PERMUTATION_RESAMPLES
from mturk.datasets.views.exports import REPORT_CSP

from .exports import analysis_json, judgements_csv, judgements_jsonl, report_html
from .models import HumanEvaluation
from .selectors import leaderboard, test_set_leaderboard
from .services.analysis import (
    PERMUTATION_RESAMPLES_MAX,
    PERMUTATION_RESAMPLES_MIN,
    AnalysisError,
    analyse_evaluation,
)


def _evaluation(pk: int) -> HumanEvaluation:
    return get_object_or_404(HumanEvaluation, pk=pk)


def _attachment(response: HttpResponse | StreamingHttpResponse, evaluation: HumanEvaluation, suffix: str) -> None:
    name = slugify(evaluation.name) or f"human-evaluation-{evaluation.pk}"
    response["Content-Disposition"] = f'attachment; filename="{name}-{suffix}"'


class LeaderboardView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        """One row per judged system, from the stored analysis: its automatic system scores and, per aspect, its
        mean rating or Bradley-Terry score and win rate, with their intervals; `stale` when judgements arrived
        since the analysis."""
        return Response(leaderboard(_evaluation(pk)))


class TestSetLeaderboardView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, test_set: str) -> Response:
        """Every evaluation of the test set ("<source>:<key>"), newest first, and one row per system across them:
        its automatic system scores and, per evaluation and aspect, its human figures (null where it was not
        judged); best first on the newest analysed evaluation's first aspect. 404 when no evaluation has it."""
        board = test_set_leaderboard(test_set)
        if not board["evaluations"]:
            raise Http404("No human evaluation of this test set.")
        return Response(board)


class AnalyseSerializer(serializers.Serializer):
    permutation_resamples = serializers.IntegerField(
        required=False, help_text=f"random sign patterns of the permutation tests on more than {EXACT_ITEMS} items "
                                  f"(exact up to there), {PERMUTATION_RESAMPLES_MIN:,} to "
                                  f"{PERMUTATION_RESAMPLES_MAX:,}; else the last analysis's, else "
                                  f"{PERMUTATION_RESAMPLES:,}")


class AnalyseView(APIView):
    @extend_schema(request=AnalyseSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        """Analyse every judgement stored so far (synchronously: seconds for 100,000 judgements), store the analysis
        and return it; a 400 says why when there is nothing to analyse or a setting is out of range."""
        evaluation = _evaluation(pk)
        serializer = AnalyseSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            analysis = analyse_evaluation(
                evaluation, permutation_resamples=serializer.validated_data.get("permutation_resamples"))
        except AnalysisError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"analysed_judgements": evaluation.analysed_judgements,
                         "analysed_at": evaluation.analysed_at, "analysis": analysis})


class ReportView(APIView):
    @extend_schema(responses={(200, "text/html"): OpenApiTypes.STR})
    def get(self, request: Request, pk: int) -> HttpResponse:
        """The self-contained HTML report of the stored analysis (the reports' Content-Security-Policy)."""
        evaluation = _evaluation(pk)
        response = HttpResponse(report_html(evaluation), content_type="text/html; charset=utf-8")
        response["Content-Security-Policy"] = REPORT_CSP
        _attachment(response, evaluation, "report.html")
        return response


class AnalysisJSONView(APIView):
    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> HttpResponse:
        """The stored analysis (metrics.human_eval.analyse) with the evaluation it describes, as a JSON file."""
        evaluation = _evaluation(pk)
        response = HttpResponse(analysis_json(evaluation), content_type="application/json")
        _attachment(response, evaluation, "analysis.json")
        return response


class JudgementsJSONLView(APIView):
    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiTypes.STR})
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        """Every judgement, one JSON object a line (streamed)."""
        evaluation = _evaluation(pk)
        response = StreamingHttpResponse(judgements_jsonl(evaluation), content_type="application/x-ndjson")
        _attachment(response, evaluation, "judgements.jsonl")
        return response


class JudgementsCSVView(APIView):
    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        """Every judgement, one CSV line each after the header (streamed)."""
        evaluation = _evaluation(pk)
        response = StreamingHttpResponse(judgements_csv(evaluation), content_type="text/csv; charset=utf-8")
        _attachment(response, evaluation, "judgements.csv")
        return response

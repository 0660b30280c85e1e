"""Human evaluation's read-side API views, at /api/ (config/api_urls.py): the leaderboard, the analysis, the
report and the exports of one evaluation, and the leaderboard of one test set across its evaluations."""
from django.urls import path

from . import api_reports as views

urlpatterns = [
    path("human-evaluations/test-sets/<str:test_set>/leaderboard/", views.TestSetLeaderboardView.as_view(),
         name="human-eval-test-set-leaderboard-api"),
    path("human-evaluations/<int:pk>/leaderboard/", views.LeaderboardView.as_view(),
         name="human-eval-leaderboard-api"),
    path("human-evaluations/<int:pk>/analyse/", views.AnalyseView.as_view(), name="human-eval-analyse-api"),
    path("human-evaluations/<int:pk>/report.html", views.ReportView.as_view(), name="human-eval-report-api"),
    path("human-evaluations/<int:pk>/analysis.json", views.AnalysisJSONView.as_view(), name="human-eval-analysis-api"),
    path("human-evaluations/<int:pk>/judgements.jsonl", views.JudgementsJSONLView.as_view(),
         name="human-eval-judgements-jsonl-api"),
    path("human-evaluations/<int:pk>/judgements.csv", views.JudgementsCSVView.as_view(),
         name="human-eval-judgements-csv-api"),
]

"""Ranking evaluation's API views that are not viewsets of the API router (config/api_urls.py), at /api/."""
from django.urls import path

from .api import JudgementImportView

urlpatterns = [
    path("judgements/", JudgementImportView.as_view(), name="judgement-import"),
]

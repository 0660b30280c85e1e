"""Ranking evaluation's API views that are not viewsets of the API router (config/api_urls.py), at /api/."""
from django.urls import path

from .api import JudgementImportView
from .api_flickr8k import Flickr8kImportView

urlpatterns = [
    path("judgements/", JudgementImportView.as_view(), name="judgement-import"),
    path("flickr8k-imports/", Flickr8kImportView.as_view(), name="flickr8k-import"),
]

"""The grounded core's API views that are not viewsets of the API router (config/api_urls.py), at /api/."""
from django.urls import path

from .api import RunEvaluationView

urlpatterns = [
    path("evaluations/", RunEvaluationView.as_view(), name="run-evaluation"),
]

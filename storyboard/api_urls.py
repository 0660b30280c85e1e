"""Visual stories' API views that are not viewsets of the API router (config/api_urls.py), at /api/."""
from django.urls import path

from .api import StoryEvaluationView, StoryWorkflowView

urlpatterns = [
    path("story-evaluations/", StoryEvaluationView.as_view(), name="story-evaluation"),
    path("story-workflows/", StoryWorkflowView.as_view(), name="story-workflow"),
]

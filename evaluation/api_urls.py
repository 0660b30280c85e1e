"""Human evaluation's API views, at /api/human-evaluations/ (config/api_urls.py)."""
from django.urls import path

from .api import BudgetView, EvaluationDetailView, EvaluationListView, LaunchView, SystemUploadView, TestSetsView

urlpatterns = [
    path("human-evaluations/", EvaluationListView.as_view(), name="human-evaluations"),
    path("human-evaluations/test-sets/", TestSetsView.as_view(), name="human-evaluation-test-sets"),
    path("human-evaluations/<int:pk>/", EvaluationDetailView.as_view(), name="human-evaluation"),
    path("human-evaluations/<int:pk>/systems/", SystemUploadView.as_view(), name="human-evaluation-systems"),
    path("human-evaluations/<int:pk>/budget/", BudgetView.as_view(), name="human-evaluation-budget"),
    path("human-evaluations/<int:pk>/launch/", LaunchView.as_view(), name="human-evaluation-launch"),
]

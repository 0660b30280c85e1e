"""Console pages of human evaluation, mounted at human-evaluations/ by config/urls.py."""
from __future__ import annotations

from django.urls import URLPattern, path

from .views import analyse, evaluation_page, evaluations, report, test_set_page

urlpatterns: list[URLPattern] = [
    path("", evaluations, name="human-evaluations-page"),
    path("test-sets/", test_set_page, name="human-evaluation-test-set-page"),
    path("<int:pk>/", evaluation_page, name="human-evaluation-page"),
    path("<int:pk>/analyse/", analyse, name="human-evaluation-analyse-page"),
    path("<int:pk>/report/", report, name="human-evaluation-report-page"),
]

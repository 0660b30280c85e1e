"""Prolific's pages: participants arriving from a study, and the webhook receiver (included by mturk.urls)."""
from django.urls import path

from . import views, webhook

urlpatterns = [
    path("p/continue/", views.session_continue, name="prolific-continue"),
    path("p/<str:token>/", views.study_entry, name="prolific-entry"),
    path("hooks/prolific/", webhook.receive, name="prolific-hooks"),
]

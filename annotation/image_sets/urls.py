"""Console pages of the collections (image sets), mounted at collections/ by config/urls.py."""
from __future__ import annotations

from django.urls import URLPattern, path

from .views import collection, collections

urlpatterns: list[URLPattern] = [
    path("", collections, name="collections"),
    path("<int:pk>/", collection, name="collection"),
]

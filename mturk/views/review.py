"""Console pages (placeholder: filled in by the console work)."""
from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []

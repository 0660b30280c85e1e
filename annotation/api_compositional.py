"""TO BE IMPLEMENTED (see the task description)."""
from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []

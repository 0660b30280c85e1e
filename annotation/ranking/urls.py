"""Console pages of ranking evaluation, mounted at pools/ by config/urls.py."""
from __future__ import annotations

from django.urls import URLPattern, path

from .views import leaderboard, pools

urlpatterns: list[URLPattern] = [
    path("", pools, name="pools"),
    path("<int:pk>/leaderboard/", leaderboard, name="pool-leaderboard"),
]

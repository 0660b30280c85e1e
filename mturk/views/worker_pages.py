"""worker_pages console pages (to be written)."""
from django.urls import URLPattern

urlpatterns: list[URLPattern] = []

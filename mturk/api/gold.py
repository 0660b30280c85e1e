"""gold API (to be written)."""
from django.urls import URLPattern

urlpatterns: list[URLPattern] = []

"""The vocabularies' console pages, at /vocabularies/."""
from django.urls import URLPattern, path

from .views import vocabularies, vocabulary

urlpatterns: list[URLPattern] = [
    path("", vocabularies, name="vocabularies-page"),
    path("<int:pk>/", vocabulary, name="vocabulary-page"),
]

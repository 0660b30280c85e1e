"""The API, at /api/: one router for every viewset (its root lists them), then each app's other API views from its
`api_urls` module, then the OpenAPI schema and its browsable docs."""
from django.conf import settings
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.routers import DefaultRouter
from rest_framework.views import APIView

from annotation.api import ImageViewSet
from annotation.ranking.api import TestPoolViewSet
from annotation.vocabularies.api import VocabularyViewSet
from mturk.console.api import AssignmentViewSet, CampaignViewSet, HITViewSet, WorkerViewSet
from mturk.datasets.api.exports import DatasetExportViewSet
from mturk.datasets.api.imports import ImportJobViewSet
from storyboard.api import AlbumViewSet


class SchemaAccess(BasePermission):
    """The schema and its page list every endpoint and field: staff only (as the API itself), unless the
    API_SCHEMA_PUBLIC setting opens them to anyone."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(settings.API_SCHEMA_PUBLIC or (user and user.is_authenticated and user.is_staff))


router = DefaultRouter()
router.register("images", ImageViewSet, basename="image")
router.register("campaigns", CampaignViewSet, basename="campaign")
router.register("hits", HITViewSet, basename="hit")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("workers", WorkerViewSet, basename="worker")
router.register("exports", DatasetExportViewSet, basename="export")
router.register("imports", ImportJobViewSet, basename="import")
router.register("albums", AlbumViewSet, basename="album")
router.register("test-pools", TestPoolViewSet, basename="test-pool")
router.register("vocabularies", VocabularyViewSet, basename="vocabulary")

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("annotation.api_urls")),  # evaluating a content-selection run
    path("", include("annotation.ranking.api_urls")),  # importing relevance judgements
    path("", include("evaluation.api_urls")),  # human evaluations
    path("compositional/", include("annotation.compositional.api_urls")),  # pairs, occurrences, parsing, evaluations
    path("", include("evaluation.api_report_urls")),  # human evaluations' leaderboard, report, exports
    path("", include("storyboard.api_urls")),  # story evaluations, story workflows
    path("", include("mturk.api_urls")),  # quality, review rules, gold items, provider balances
    path("", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(permission_classes=[SchemaAccess]), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema", permission_classes=[SchemaAccess]),
         name="api-docs"),
]

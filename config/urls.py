import posixpath

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import Http404
from django.urls import include, path, re_path
from django.views.static import serve
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from annotation.api import ImageViewSet, RunEvaluationView
from annotation.ranking.api import JudgementImportView, TestPoolViewSet
from mturk.api.exports import DatasetExportViewSet
from mturk.api.views import AssignmentViewSet, CampaignViewSet, HITViewSet, WorkerViewSet
from storyboard.api import AlbumViewSet, StoryEvaluationView, StoryWorkflowView

router = DefaultRouter()
router.register("images", ImageViewSet, basename="image")
router.register("campaigns", CampaignViewSet, basename="campaign")
router.register("hits", HITViewSet, basename="hit")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("workers", WorkerViewSet, basename="worker")
router.register("exports", DatasetExportViewSet, basename="export")
router.register("albums", AlbumViewSet, basename="album")
router.register("test-pools", TestPoolViewSet, basename="test-pool")

urlpatterns = [
    path("", include("mturk.urls")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("pools/", include("annotation.ranking.urls")),
    path("compositional/", include("annotation.compositional.views")),
    path("api/evaluations/", RunEvaluationView.as_view(), name="run-evaluation"),
    path("api/story-evaluations/", StoryEvaluationView.as_view(), name="story-evaluation"),
    path("api/judgements/", JudgementImportView.as_view(), name="judgement-import"),
    path("api/story-workflows/", StoryWorkflowView.as_view(), name="story-workflow"),
    path("api/", include("mturk.api.quality")),  # campaign quality, review rules, worker quality
    path("api/gold-items/", include("mturk.api.gold")),
    path("api/compositional/", include("annotation.compositional.api")),  # concept pairs, occurrences, parsing
    path("api/compositional/", include("annotation.compositional.api_evaluations")),  # evaluating generated captions
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]



def serve_media(request, path):
    """Images from local disk (the embedded default); in production put a web server or S3 in front.

    Only images are public: exports are downloaded through the authenticated API."""
    path = posixpath.normpath(path).lstrip("/")  # "images/../exports/x.zip" is exports/x.zip
    if not path.startswith("images/"):
        raise Http404("not a public file")
    response = serve(request, path, document_root=str(settings.MEDIA_ROOT))
    response["Cache-Control"] = "public, max-age=86400"
    return response


if settings.SERVE_MEDIA:
    urlpatterns += [re_path(rf"^{settings.MEDIA_URL.lstrip('/')}(?P<path>.*)$", serve_media)]

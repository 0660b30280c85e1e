import posixpath

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import Http404
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from django.views.static import serve

urlpatterns = [
    path("", include("mturk.urls")),  # the console, the worker pages and each provider's pages
    path("pools/", include("annotation.ranking.urls")),
    path("compositional/", include("annotation.compositional.urls")),
    path("vocabularies/", include("annotation.vocabularies.urls")),
    path("collections/", include("annotation.image_sets.urls")),
    path("human-evaluations/", include("evaluation.urls")),
    path("api/", include("config.api_urls")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # what browsers ask for on every page, whatever the page links: the icon the templates link (static/favicon.svg)
    path("favicon.ico", RedirectView.as_view(url=f"{settings.STATIC_URL}favicon.svg", permanent=True)),
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

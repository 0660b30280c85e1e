"""The compositional console pages, at /compositional/."""
from django.urls import URLPattern, path

from .views import (
    add_pair,
    evaluation,
    evaluation_report,
    evaluation_status,
    evaluations,
    load_seed,
    pairs_page,
    parse,
    parse_status,
    remove_pair,
)

urlpatterns: list[URLPattern] = [
    path("", pairs_page, name="compositional-page"),
    path("pairs/", add_pair, name="compositional-page-add-pair"),
    path("pairs/load-seed/", load_seed, name="compositional-page-load-seed"),
    path("pairs/<int:pk>/delete/", remove_pair, name="compositional-page-delete-pair"),
    path("parse/", parse, name="compositional-page-parse"),
    path("parse/status/", parse_status, name="compositional-page-parse-status"),
    path("evaluations/", evaluations, name="compositional-page-evaluations"),
    path("evaluations/<int:pk>/", evaluation, name="compositional-page-evaluation"),
    path("evaluations/<int:pk>/status/", evaluation_status, name="compositional-page-evaluation-status"),
    path("evaluations/<int:pk>/report.html", evaluation_report, name="compositional-page-evaluation-report"),
]

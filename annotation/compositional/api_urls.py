"""The compositional API, at /api/compositional/: concept pairs, occurrences and parsing; evaluations of generated
captions."""
from django.urls import path

from .api import LoadSeedView, OccurrencesView, PairImportView, PairsView, PairView, ParseView
from .api_evaluations import EvaluationReportView, EvaluationsView, EvaluationView

urlpatterns = [
    path("pairs/", PairsView.as_view(), name="compositional-pairs"),
    path("pairs/load-seed/", LoadSeedView.as_view(), name="compositional-pairs-load-seed"),
    path("pairs/import/", PairImportView.as_view(), name="compositional-pairs-import"),
    path("pairs/<str:name>/", PairView.as_view(), name="compositional-pair"),
    path("occurrences/", OccurrencesView.as_view(), name="compositional-occurrences"),
    path("parse/", ParseView.as_view(), name="compositional-parse"),

    path("evaluations/", EvaluationsView.as_view(), name="compositional-evaluations"),
    path("evaluations/<int:pk>/", EvaluationView.as_view(), name="compositional-evaluation"),
    path("evaluations/<int:pk>/report/", EvaluationReportView.as_view(), name="compositional-evaluation-report"),
]

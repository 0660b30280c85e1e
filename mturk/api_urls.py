"""The crowd core's API views that are not viewsets of the API router (config/api_urls.py): campaign quality,
review rules, worker quality, gold items and provider balances, at /api/."""
from django.urls import URLPattern, URLResolver, include, path

from .console.api import ProviderBalanceView
from .quality.api.gold import router as gold_router
from .quality.api.needs import GoldFromApprovedView, OverlapView, QualityNeedsView
from .quality.api.results import (
    CampaignQualityView,
    ComputeQualityView,
    QualityItemsView,
    ReviewRuleApplyView,
    ReviewRuleDecisionsView,
    ReviewRulePreviewView,
    ReviewRuleView,
    WorkerQualityView,
)

urlpatterns: list[URLPattern | URLResolver] = [
    path("campaigns/<int:pk>/quality/", CampaignQualityView.as_view(), name="campaign-quality"),
    path("campaigns/<int:pk>/quality/compute/", ComputeQualityView.as_view(), name="campaign-quality-compute"),
    path("campaigns/<int:pk>/quality/items/", QualityItemsView.as_view(), name="campaign-quality-items"),
    path("campaigns/<int:pk>/quality/needs/", QualityNeedsView.as_view(), name="campaign-quality-needs"),
    path("campaigns/<int:pk>/quality/overlap/", OverlapView.as_view(), name="campaign-quality-overlap-api"),
    path("campaigns/<int:pk>/quality/gold-from-approved/", GoldFromApprovedView.as_view(),
         name="campaign-quality-gold-api"),
    path("campaigns/<int:pk>/review-rule/", ReviewRuleView.as_view(), name="campaign-review-rule"),
    path("campaigns/<int:pk>/review-rule/preview/", ReviewRulePreviewView.as_view(),
         name="campaign-review-rule-preview"),
    path("campaigns/<int:pk>/review-rule/apply/", ReviewRuleApplyView.as_view(), name="campaign-review-rule-apply"),
    path("campaigns/<int:pk>/review-rule/decisions/", ReviewRuleDecisionsView.as_view(),
         name="campaign-review-rule-decisions"),
    path("workers/<int:pk>/quality/", WorkerQualityView.as_view(), name="worker-quality"),
    path("gold-items/", include(gold_router.urls)),
    path("providers/<str:name>/balance/", ProviderBalanceView.as_view(), name="provider-balance"),
]

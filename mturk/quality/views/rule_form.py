"""The review rule form of the quality page: every field labelled and explained; save_rule has the last word (the
marketplace's rules)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings

from ...models import Campaign, QualityRule
from ...providers.registry import get_provider, provider_label
from ...views.campaign_confirm import currency


def _bound(label: str, low: float, high: float, help_text: str) -> forms.FloatField:
    return forms.FloatField(label=label, required=False, min_value=low, max_value=high, help_text=help_text,
                            widget=forms.NumberInput(attrs={"step": "0.01"}))


class RuleForm(forms.Form):
    approve_min_gold = _bound("Approve when gold accuracy is at least", 0.0, 1.0,
                              "From 0 to 1 (the share of gold answered right). Empty: gold is not checked to approve.")
    approve_min_agreement = _bound("and agreement is at least", -1.0, 1.0,
                                   "In the campaign's agreement measure (-1 to 1). Empty: not checked to approve.")
    reject_below_gold = _bound("Reject when gold accuracy is below", 0.0, 1.0,
                               "From 0 to 1. Empty: never rejected for gold. Between the bounds, work is left to you.")
    reject_below_agreement = _bound("or agreement is below", -1.0, 1.0,
                                    "Empty: never rejected for agreement.")
    reject_message = forms.CharField(label="Rejection message", required=False,
                                     widget=forms.Textarea(attrs={"rows": 3}),
                                     help_text="Sent to each rejected worker: say what was wrong.")
    reject_category = forms.ChoiceField(label="Rejection category", required=False, choices=(),
                                        help_text="The marketplace's reason for the rejection.")
    bonus_top_share = _bound("Bonus the top share of workers", 0.0, 1.0,
                             "From 0 to 1, e.g. 0.1 for the best 10% by gold accuracy, then agreement. Empty: no "
                             "bonus. Each worker is bonused at most once per campaign.")
    bonus_amount = forms.DecimalField(label="Bonus amount", required=False, min_value=Decimal("0.01"),
                                      max_digits=8, decimal_places=2, help_text="Paid to each bonused worker.",
                                      widget=forms.NumberInput(attrs={"step": "0.01"}))
    bonus_reason = forms.CharField(label="Bonus reason", required=False, widget=forms.Textarea(attrs={"rows": 2}),
                                   help_text="Sent to each bonused worker.")
    min_gold_items = forms.IntegerField(label="Minimum gold items", min_value=1, max_value=32767, initial=1,
                                        help_text="The gold bounds are applied to a worker only after this many "
                                                  "scored gold items.")
    min_items = forms.IntegerField(label="Minimum compared items", min_value=1, max_value=32767, initial=1,
                                   help_text="The agreement bounds are applied to a worker only after this many "
                                             "items also answered by others.")
    enabled = forms.BooleanField(label="Apply automatically", required=False,
                                 help_text="The periodic review job applies the rule to submitted work.")

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        provider = get_provider(campaign.provider)
        self.categories = provider.rejection_categories
        if self.categories:
            category = self.fields["reject_category"]
            assert isinstance(category, forms.ChoiceField)
            category.choices = [("", "Choose a category"), *self.categories]
            self.fields["reject_message"].help_text += (f" {provider_label(campaign.provider)} needs at least "
                                                        f"{provider.min_rejection_feedback} characters and a category.")
        else:
            del self.fields["reject_category"]
        every = settings.REVIEW_RULES_SECONDS
        self.fields["enabled"].help_text = (
            f"The periodic review job applies the rule every {every // 60} min" if every >= 60 else
            f"The periodic review job applies the rule every {every} s") + (
            " to the submitted work, while the campaign is active or paused (quality is computed first).")
        self.fields["bonus_amount"].label = f"Bonus amount ({currency(campaign).strip() or 'account currency'})"

    def rule_data(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data.setdefault("reject_category", "")
        return data

    def add_service_error(self, exc: ValueError) -> None:
        """save_rule's ValueError names the bad field: shown next to it (else above the form)."""
        name = getattr(exc, "field", None)
        if name in self.fields:
            self.add_error(name, str(getattr(exc, "message", exc)))
        else:
            self.add_error(None, str(exc))


def rule_initial(rule: QualityRule | None) -> dict[str, Any]:
    if rule is None:
        return {}
    return {name: getattr(rule, name) for name in RuleForm.base_fields}

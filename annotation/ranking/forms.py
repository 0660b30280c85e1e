"""The console's form to freeze a test pool: a name, the describe_image campaigns (or every description) and the
sizes, as create_test_pool takes them."""
from __future__ import annotations

from typing import Any

from django import forms

from mturk.models import Campaign


class PoolForm(forms.Form):
    name = forms.CharField(max_length=200, label="Name", help_text="Unique: systems and the leaderboard show it.")
    campaigns = forms.ModelMultipleChoiceField(
        queryset=Campaign.objects.filter(task_kind="describe_image"), required=False, label="Campaigns",
        widget=forms.CheckboxSelectMultiple,
        help_text="The pool takes their approved captions, each with the image it describes.")
    all_descriptions = forms.BooleanField(
        required=False, label="Every description instead (imported captions too)",
        help_text="Instead of chosen campaigns: every stored description, whatever its source.")
    images = forms.IntegerField(
        min_value=1, required=False, label="Images",
        help_text="The first N images that have a caption (by id). Empty: every such image.")
    captions_per_image = forms.IntegerField(
        min_value=1, required=False, label="Captions per image",
        help_text="At most this many captions of each image (the first by id). Empty: all of them.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("campaigns") and cleaned.get("all_descriptions"):
            self.add_error("campaigns", "Choose campaigns or every description, not both.")
        elif "campaigns" in cleaned and not cleaned.get("campaigns") and not cleaned.get("all_descriptions"):
            self.add_error("campaigns", "Choose at least one campaign, or every description.")
        return cleaned

    def chosen_campaigns(self) -> set[str]:
        """The ticked campaign ids, as the page shows them again after a refusal."""
        value = self["campaigns"].value() or []
        return {str(pk) for pk in value}

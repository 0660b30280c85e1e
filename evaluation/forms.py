"""The console's forms of human evaluation: a new evaluation, a system's outputs, the budget, the launch and the
analysis. They
only read the fields; the services (evaluations, uploads, budget, launch) check everything else, as for the API
and the commands."""
from __future__ import annotations

from typing import Any

from django import forms

from mturk.providers.registry import default_provider_name, provider_names

from .aspects import PRESETS
from .listing import test_sets
from .models import Design


def _providers() -> list[tuple[str, str]]:
    return [(name, name) for name in provider_names()]


class NewEvaluationForm(forms.Form):
    name = forms.CharField(max_length=200, help_text="Once per platform, e.g. \"COCO val: three captioners\".")
    test_set = forms.ChoiceField(help_text="The items the systems' outputs are judged on.")
    design = forms.ChoiceField(choices=Design.choices, initial=Design.RATING)
    aspects = forms.CharField(required=False, max_length=400,
                              help_text="Questions or presets, separated by commas; the first is the overall question "
                                        "(empty: the usual one). Presets: " + "; ".join(
                                            f"{kind}s: {', '.join(presets)}" for kind, presets in PRESETS.items()))
    judges = forms.IntegerField(min_value=1, initial=3, help_text="Judgements of each output (rating) or pair.")
    include_reference = forms.BooleanField(required=False, initial=True,
                                           label="Judge a human reference as a system")
    attention_rate = forms.FloatField(min_value=0, initial=0.1, help_text="Share of HITs that are attention checks.")
    seed = forms.CharField(max_length=100, initial="human-eval", help_text="Orders, sides and the analysis follow it.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices: list[Any] = []
        for source in test_sets():
            if source["choices"]:
                choices.append((f'{source["label"]} ({source["output_kind"]}s)',
                                [(choice["test_set"], choice["label"]) for choice in source["choices"]]))
        field = self.fields["test_set"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = choices

    def aspect_names(self) -> list[str]:
        return [name.strip() for name in self.cleaned_data["aspects"].split(",") if name.strip()]


class UploadForm(forms.Form):
    system = forms.CharField(max_length=200, help_text="The system's name, once per evaluation.")
    file = forms.FileField(help_text='Captions: the COCO results format [{"image_id": 391895, "caption": "..."}]; '
                                     "stories: the VIST challenge format (output_stories). Every item needs one.")


class BudgetForm(forms.Form):
    reward = forms.DecimalField(required=False, min_value=0, max_digits=8, decimal_places=2,
                                help_text="Per assignment, in dollars (empty: the task kind's).")
    provider = forms.ChoiceField(choices=_providers, initial=default_provider_name)


class LaunchForm(BudgetForm):
    tasks_per_submission = forms.IntegerField(
        required=False, min_value=1, max_value=100,
        help_text="Prolific: tasks a participant does in one submission (empty: 1).")
    estimated_minutes = forms.IntegerField(
        required=False, min_value=1, max_value=600,
        help_text="Prolific: minutes one task takes, for the pay floor and the study's estimate (empty: a quarter "
                  "of the time limit).")
    publish = forms.BooleanField(required=False, label="Publish at once (else a draft campaign to review)")

    def campaign_settings(self) -> dict[str, object]:
        """The launch settings the form gives (launch_evaluation's `settings`)."""
        settings: dict[str, object] = {}
        if self.cleaned_data.get("tasks_per_submission"):
            settings["tasks_per_submission"] = self.cleaned_data["tasks_per_submission"]
        if self.cleaned_data.get("estimated_minutes"):
            settings["qualifications"] = {"estimated_minutes": self.cleaned_data["estimated_minutes"]}
        return settings


class AnalyseForm(forms.Form):
    permutation_resamples = forms.IntegerField(
        required=False, label="Permutation resamples",
        help_text="Random sign patterns of each permutation test on more than 20 items (exact up to 20); the "
                  "Monte-Carlo error of a p-value shrinks with their square root (empty: the last analysis's, else "
                  "100,000).")

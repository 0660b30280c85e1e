"""The export request form: a format, its options (one field per declared option) and the campaigns."""
from __future__ import annotations

from typing import Any

from django import forms

from ..exports import ExportFormat, ExportOption, get_format
from ..models import Campaign
from ..selectors_exports import registered_formats


class CampaignChoice(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.name} ({obj.task_kind})"


def option_field_name(export_format: ExportFormat, option: ExportOption) -> str:
    return f"{export_format.name}__{option.name}"


def _option_field(option: ExportOption) -> forms.Field:
    label = option.name.replace("_", " ").capitalize()
    if option.kind == "flag":
        return forms.BooleanField(label=label, help_text=option.help, required=False)
    if option.kind == "number":
        return forms.IntegerField(label=label, help_text=option.help, required=False,
                                  error_messages={"invalid": f"{option.name} must be a whole number."})
    return forms.CharField(label=label, help_text=option.help, required=False, max_length=100, strip=True)


class ExportRequestForm(forms.Form):
    format = forms.ChoiceField(label="Format", widget=forms.RadioSelect)
    campaigns = CampaignChoice(
        queryset=Campaign.objects.order_by("name"), required=False, label="Campaigns",
        help_text="None selected: every campaign the format can export.",
        widget=forms.SelectMultiple(attrs={"size": 8}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.formats = registered_formats()
        format_field = self.fields["format"]
        assert isinstance(format_field, forms.ChoiceField)
        format_field.choices = [(f.name, f.name) for f in self.formats]
        if not self.is_bound and self.formats:
            self.fields["format"].initial = self.formats[0].name
        for export_format in self.formats:
            for option in export_format.options:
                name = option_field_name(export_format, option)
                self.fields[name] = _option_field(option)
                self.fields[name].widget.attrs["aria-describedby"] = f"id_{name}-help"

    def format_groups(self) -> list[tuple[ExportFormat, list[forms.BoundField]]]:
        """Each format with the bound fields of its options, for the template."""
        return [(f, [self[option_field_name(f, option)] for option in f.options]) for f in self.formats]

    def chosen_options(self) -> dict[str, Any]:
        """The options of the chosen format that were set (a cleared checkbox or an empty field: the default)."""
        export_format = get_format(self.cleaned_data["format"])
        options: dict[str, Any] = {}
        for option in export_format.options:
            value = self.cleaned_data.get(option_field_name(export_format, option))
            if value is not None and value != "" and value is not False:
                options[option.name] = value
        return options

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        chosen = cleaned.get("format")
        for export_format in self.formats:  # a bad value of another format's option does not matter
            if export_format.name == chosen:
                continue
            for option in export_format.options:
                name = option_field_name(export_format, option)
                if name in self.errors:
                    del self.errors[name]
        return cleaned

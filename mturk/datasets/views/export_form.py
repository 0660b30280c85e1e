"""The export request form: a format, its options (one field per declared option) and the campaigns, chosen with
checkboxes or as "all real campaigns" (never an empty choice that would take simulated ones too)."""
from __future__ import annotations

from typing import Any

from django import forms

from ...models import Campaign
from ..formats import ExportFormat, ExportOption, get_format
from ..selectors.exports import export_campaign_choices, real_campaigns_for, registered_formats

NO_CHOICE = "Choose at least one campaign, or tick “All real campaigns”."
BOTH_CHOSEN = "Choose campaigns or “All real campaigns”, not both."


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


def formats_for(kind: str | None) -> list[ExportFormat]:
    """Every format; for a campaign's task kind, those that export it, the kind's own formats before the generic
    ones."""
    formats = registered_formats()
    if kind is None:
        return formats
    return sorted((f for f in formats if not f.kinds or kind in f.kinds), key=lambda f: not f.kinds)


class ExportRequestForm(forms.Form):
    format = forms.ChoiceField(label="Format", widget=forms.RadioSelect)
    campaigns = forms.ModelMultipleChoiceField(
        queryset=Campaign.objects.all(), required=False, label="Campaigns", widget=forms.CheckboxSelectMultiple,
        help_text="Tick the campaigns to export: real ones first, yours first, newest first; simulated ones last.",
    )
    all_real = forms.BooleanField(
        required=False, label="All real campaigns",
        help_text="Every campaign the format exports whose results were collected from people; simulated "
                  "(demo) campaigns are left out.")

    def __init__(self, *args: Any, user: Any = None, campaign: Campaign | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user, self.campaign = user, campaign
        self.formats = formats_for(campaign.task_kind if campaign else None)
        format_field = self.fields["format"]
        assert isinstance(format_field, forms.ChoiceField)
        format_field.choices = [(f.name, f.name) for f in self.formats]
        if not self.is_bound and self.formats:
            self.fields["format"].initial = self.formats[0].name
        if not self.is_bound and campaign is not None:
            self.fields["campaigns"].initial = [campaign.pk]
        for export_format in self.formats:
            for option in export_format.options:
                name = option_field_name(export_format, option)
                self.fields[name] = _option_field(option)
                self.fields[name].widget.attrs["aria-describedby"] = f"id_{name}-help"

    def format_groups(self) -> list[tuple[ExportFormat, list[forms.BoundField]]]:
        """Each format with the bound fields of its options, for the template."""
        return [(f, [self[option_field_name(f, option)] for option in f.options]) for f in self.formats]

    def campaign_rows(self) -> list[tuple[Campaign, bool]]:
        """Each campaign offered, and whether it is ticked (as asked, or the campaign the page was opened for); the
        ticked ones first, so that they show at the top of the list."""
        value = self["campaigns"].value() or []
        ticked = {str(pk) for pk in value}
        rows = [(c, str(c.pk) in ticked) for c in export_campaign_choices(self.user)]
        return sorted(rows, key=lambda row: not row[1])

    def chosen_campaigns(self) -> list[Campaign]:
        return list(self.cleaned_data["campaigns"])

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
        if "campaigns" in cleaned:
            self._clean_scope(cleaned, chosen)
        return cleaned

    def _clean_scope(self, cleaned: dict[str, Any], chosen: str | None) -> None:
        """Campaigns ticked, or all real ones: an empty choice is refused rather than read as every campaign."""
        campaigns, all_real = list(cleaned["campaigns"]), cleaned.get("all_real")
        if campaigns and all_real:
            self.add_error("campaigns", BOTH_CHOSEN)
        elif not campaigns and not all_real:
            self.add_error("campaigns", NO_CHOICE)
        elif all_real and chosen:
            real = real_campaigns_for(get_format(chosen))
            if not real:
                self.add_error("campaigns", f"No real campaign that {chosen} exports: there is nothing to export.")
            cleaned["campaigns"] = real

"""The dataset card (`README.md`) and crowd report (`report/crowd.json`) every export carries."""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils import timezone

from ..models import Campaign

if TYPE_CHECKING:
    from ..selectors.campaigns import CrowdStatistics
    from .formats import ExportBundle, ExportFormat


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _number(value: float | None, unit: str = "") -> str:
    return "–" if value is None else f"{value:.1f}{unit}"


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


CARD_WORKERS = 20  # rows of a campaign's worker-quality table in the card; every worker is in report/crowd.json


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _overall(overall: dict[str, Any]) -> str:
    figures = [f"{name.replace('_', ' ')} {_score(value) if isinstance(value, float | int) else value}"
               for name, value in (overall or {}).items()]
    return f" ({'; '.join(figures)})" if figures else ""


def quality_lines(stats: list[CrowdStatistics]) -> list[str]:
    """The card's "Worker quality" section: per campaign its measure and a short table of its workers."""
    lines = ["## Worker quality", "",
             "Workers are shown by a pseudonym (a keyed hash of their marketplace id, the same in every export of "
             "this installation). Gold accuracy: mean score on items with a known answer; agreement: mean "
             "agreement with the other workers on the same items (both as the last quality computation measured "
             "them; – for a worker who answered after it). Answers, approved, rejected and pay (approved rewards "
             "and bonuses, fees excluded) are as of this export, counted as in the table above.",
             ""]
    for s in stats:
        quality = s.quality or {}
        if quality.get("status") != "computed":
            lines += [f"**{s.campaign}**: not computed.", ""]
            continue
        workers = quality.get("workers") or []
        computed = quality.get("computed_at")
        lines += [f"**{s.campaign}**: {quality.get('measure') or 'no agreement measure'}"
                  f"{_overall(quality.get('overall') or {})}{f', measured {computed}' if computed else ''}; "
                  f"{len(workers)} workers.", ""]
        if not workers:
            continue
        lines += ["| worker | answers | items | gold items | gold accuracy | agreement | median time on task "
                  "| pay (USD) | approved | rejected |", "|---|---|---|---|---|---|---|---|---|---|"]
        for w in workers[:CARD_WORKERS]:
            lines.append(f"| {w['worker']} | {w['answered']} | {_count(w['items'])} | {_count(w['gold_items'])} "
                         f"| {_score(w['gold_accuracy'])} | {_score(w['agreement'])} "
                         f"| {_number(w['median_seconds'], ' s')} | {w['pay']} | {w['approved']} | {w['rejected']} |")
        if len(workers) > CARD_WORKERS:
            lines.append(f"\n{len(workers) - CARD_WORKERS} more workers in `report/crowd.json`.")
        lines.append("")
    return lines


def described_campaigns(bundle: ExportBundle, export_format: ExportFormat, campaigns: list[Campaign]
                        ) -> list[Campaign]:
    """The campaigns the card describes: those asked for and every campaign whose answers made a record the export
    wrote (e.g. the draw_boxes and describe_image stages behind a link_words stage's export), when the format
    says which (bundle.contributors); else those asked for or, for the whole database, the format's own choice
    (bundle.campaigns) or every campaign of its kinds."""
    if bundle.contributors is not None:
        wanted = {c.pk for c in campaigns} | bundle.contributors
        return list(Campaign.objects.filter(pk__in=wanted).order_by("name"))
    if campaigns:
        return campaigns
    everything = Campaign.objects.order_by("name")
    return bundle.campaigns or list(
        everything.filter(task_kind__in=export_format.kinds) if export_format.kinds else everything)


def write_card_and_crowd_report(bundle: ExportBundle, export_format: ExportFormat, campaigns: list[Campaign],
                                records: int) -> None:
    campaigns = described_campaigns(bundle, export_format, campaigns)
    stats = bundle.crowd_statistics(campaigns)
    created = timezone.now().replace(microsecond=0).isoformat()
    bundle.write_json("report/crowd.json", {"created": created, "campaigns": [asdict(s) for s in stats]})
    lines = [
        f"# Dataset: {export_format.name} export",
        "",
        f"Exported {created} by {settings.PLATFORM_NAME} (format `{export_format.name}`"
        f"{', documented in ' + export_format.documentation if export_format.documentation else ''}).",
        "",
        export_format.description,
        "",
        f"- Licence: {settings.DATASET_LICENCE}",
        f"- Records: {records}",
        *[f"- {name.replace('_', ' ').capitalize()}: {count}" for name, count in bundle.counts.items()],
        "",
    ]
    if bundle.simulated or any(s.simulated for s in stats):
        lines += ["**Contains simulated results**: generated for demonstration, not collected from people.", ""]
    for note in bundle.notes:
        lines += [note, ""]
    if campaigns:
        lines += [
            "## How it was collected", "",
            "| campaign | task | provider | reward (USD) | assignments per HIT | workers | approved | rejected "
            "| approval rate | median time on task | effective hourly pay | cost so far |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for s in stats:
            lines.append(
                f"| {s.campaign} | {s.task_kind} | {s.provider} | {s.reward} | {s.assignments_per_hit} | {s.workers} "
                f"| {s.approved} | {s.rejected} | {_rate(s.approval_rate)} | {_number(s.median_seconds_on_task, ' s')} "
                f"| {_number(s.effective_hourly_pay)} | {s.cost_so_far} |"
            )
        lines.append("")
        for campaign in sorted(campaigns, key=lambda c: c.name):
            published = campaign.published_at.date().isoformat() if campaign.published_at else "not published"
            lines += [f"### {campaign.name}", "", f"Published: {published}. Instructions shown to workers:", ""]
            lines += [f"> {line}" if line else ">" for line in (campaign.instructions or "(none)").splitlines()]
            lines.append("")
        lines += quality_lines(stats)
    lines += ["## Files", "", *[f"- `{name}`" for name in sorted(bundle.names()) if not name.startswith("images/")]]
    if any(name.startswith("images/") for name in bundle.names()):
        lines.append("- `images/`: the image files")
    bundle.write_text("README.md", "\n".join(lines) + "\n")

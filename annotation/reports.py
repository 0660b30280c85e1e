"""The grounded-descriptions report: content selection (upper bound, baselines) and link agreement."""
from __future__ import annotations

from statistics import mean
from typing import Any

from metrics.baselines import content_selection_report
from metrics.content_selection_report_html import render_html
from mturk.datasets.formats import ExportBundle

from .selectors import GroundedDataset


def link_agreement(dataset: GroundedDataset) -> dict[str, Any]:
    """Agreement between the first and second worker who linked the same description.

    `pair_f`: F1 of the two sets of (token, box) links (1.0 when both linked nothing);
    `token_agreement`: share of tokens given the same box or left unlinked by both."""
    pair_f, token_agreement = [], []
    for rows in dataset.descriptions.values():
        for row in rows:
            if row.links is None or not row.other_links:
                continue
            first, second = set(row.links.items()), set(row.other_links[0].items())
            both = len(first & second)
            pair_f.append(1.0 if not first and not second else 2 * both / (len(first) + len(second)))
            same = sum(row.links.get(i) == row.other_links[0].get(i) for i in range(len(row.tokens)))
            token_agreement.append(same / len(row.tokens) if row.tokens else 1.0)
    return {
        "descriptions": len(pair_f),
        "pair_f_mean": mean(pair_f) if pair_f else None,
        "token_agreement_mean": mean(token_agreement) if token_agreement else None,
    }


def grounded_report(dataset: GroundedDataset, k_max: int = 15, seed: int = 0) -> dict[str, Any]:
    report = content_selection_report(dataset.records(), k_max=k_max, seed=seed)
    unlinked = sum(1 for rows in dataset.descriptions.values() for row in rows if row.links is None)
    report["statistics"]["descriptions_awaiting_correspondence"] = unlinked
    report["link_agreement"] = link_agreement(dataset)
    report["simulated"] = any(row.source == "simulated" for rows in dataset.descriptions.values() for row in rows)
    return report


def write_grounded_report(bundle: ExportBundle, dataset: GroundedDataset) -> dict[str, Any]:
    report = grounded_report(dataset)
    bundle.write_json("report/content_selection.json", report)
    bundle.write_text("report/content_selection.html", render_html(report, "Content selection"))
    note = content_selection_note(dataset, report)
    if note:
        bundle.notes.append(note)
    return report


def content_selection_note(dataset: GroundedDataset, report: dict[str, Any]) -> str | None:
    """The card's line on content selection: the human upper bound when some image has two linked descriptions,
    else why there is none; nothing for an export without descriptions (a box-only export), which the measure does
    not apply to."""
    descriptions = [row for rows in dataset.descriptions.values() for row in rows]
    if not descriptions:
        return None
    linked = sum(row.links is not None for row in descriptions)
    upper = report["upper_bound"]
    if not linked:
        return (f"Content selection: not measured: none of the {len(descriptions)} descriptions has word-to-box "
                "links yet (collect them with a link_words campaign).")
    if not upper["images"]:
        return (f"Content selection (report/content_selection.html): {linked} linked descriptions; no human upper "
                "bound: it needs an image with at least two linked descriptions, and no image has them.")
    stats = report["statistics"]
    return (f"Content selection (report/content_selection.html): human upper bound F = {upper['f_mean']:.2f} ± "
            f"{upper['f_std']:.2f} over {upper['images']} images with at least two linked descriptions; "
            f"{stats['mean_unique_boxes_per_description']:.2f} unique boxes per description with a correspondence.")

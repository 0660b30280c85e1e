"""The console's importer of gold and onboarding items (mturk/importers.py): a JSON Lines file, all or nothing.

Each line is {"items": {...}, "answer": ..., "note": "..."}: a HIT's items as a campaign of the task kind holds
them, and the known answer in the kind's gold format (KindQuality.gold_format). services.gold checks every line
first; a problem names its line and nothing is stored."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..importers import Importer, ImportOption, ImportProblems, Progress, register_importer
from ..measures import get_quality, quality_kind_names
from ..models.quality import GoldPurpose
from ..services.gold import GoldError, import_gold_lines


def _kinds() -> list[tuple[str, str]]:
    return [(name, f"{name}: {get_quality(name).gold_format}") for name in quality_kind_names()]


def _purposes() -> list[tuple[str, str]]:
    return [(value, str(label)) for value, label in GoldPurpose.choices]


def run_gold(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """All or nothing, in one step: every line is checked, then all are written in one transaction."""
    progress(0, 1)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportProblems([(path.name, f"not UTF-8 text ({exc})")]) from None
    kind, purpose = options["kind"], options.get("purpose") or GoldPurpose.GOLD
    try:
        items = import_gold_lines(kind, text.splitlines(), purpose)
    except GoldError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    progress(1, 1)
    ids = [item.pk for item in items]
    return {
        "summary": f"{len(items)} {purpose} item(s) of {kind}",
        "counts": {f"{purpose} items": len(items)},
        "imported": [{"name": path.name, "detail": f"{len(items)} {purpose} item(s) of {kind} "
                                                   f"(ids {ids[0]} to {ids[-1]})"}],
        "refused": [],
        "notes": [],
    }


register_importer(Importer(
    name="gold",
    label="gold items (JSON Lines)",
    description='A JSON Lines file, one {"items": {...}, "answer": ..., "note": "..."} per line: a HIT\'s items '
                "with its known answer in the task kind's gold format (shown next to each kind). Gold items are "
                "mixed into campaigns at their gold rate; onboarding items are the qualifying tasks each worker "
                "does first. Every line is checked first: an error names the line and nothing changes.",
    extensions=(".jsonl", ".ndjson", ".json", ".txt"),
    run=run_gold,
    options=(ImportOption("kind", "Task kind", required=True, choices=_kinds,
                          help="The kind of the campaigns they go into; its gold format is shown."),
             ImportOption("purpose", "Purpose", choices=_purposes,
                          help="gold (mixed in) or onboarding (qualifying set); default gold.")),
    file_label="Gold items file (.jsonl)",
    progress_unit="steps",
    position=60,
))

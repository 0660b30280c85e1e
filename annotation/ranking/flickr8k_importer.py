"""The console's Flickr8k importer (registered in registrations.py): the import job's file, a zip of the release."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from mturk.importers import ImportProblems, Progress

from ..image_sets.services import ImageSetError, set_spec
from .services.flickr8k_import import Flickr8kImportError, import_flickr8k, open_release
from .services.flickr8k_import.importer import DEFAULT_SET


def run_flickr8k(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    progress(0, None)
    try:
        summary = import_flickr8k(open_release(path), image_set=set_spec(options.get("set") or DEFAULT_SET).name,
                                  test_pool=(options.get("test_pool") or "").strip(), progress=progress)
    except Flickr8kImportError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    except ImageSetError as exc:
        raise ImportProblems([("set", str(exc))]) from None
    counts = summary.counts
    return {
        "summary": f"{counts['images']} images, {counts['released captions']} captions, {counts['expert rows']} "
                   f"expert and {counts['crowd rows']} crowd rows read; {counts.get('captions', 0)} new captions",
        "imported": [{"name": name, "detail": "read"} for name in summary.files],
        "refused": [], "counts": counts, "notes": summary.notes,
    }

"""The stories report attached to a SIND export (filled in below once the metrics exist)."""
from __future__ import annotations


def write_story_report(bundle, writer) -> None:
    return None

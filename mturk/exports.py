"""Registry of export formats, behind `manage.py export_dataset --format NAME`."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .models import Campaign


class ExportError(ValueError):
    """A refused export (unknown format, nothing to export); the message is shown to the user."""


@dataclass(frozen=True)
class ExportFormat:
    name: str
    description: str
    write: Callable[[Path, list[Campaign]], int]  # writes to the path, returns records written


_FORMATS: dict[str, ExportFormat] = {}


def register_format(export_format: ExportFormat) -> ExportFormat:
    if export_format.name in _FORMATS:
        raise ValueError(f"export format '{export_format.name}' is registered twice")
    _FORMATS[export_format.name] = export_format
    return export_format


def get_format(name: str) -> ExportFormat:
    try:
        return _FORMATS[name]
    except KeyError:
        raise ExportError(f"unknown export format '{name}' (available: {', '.join(format_names())})") from None


def format_names() -> list[str]:
    return sorted(_FORMATS)


def run_export(format_name: str, out: Path, campaigns: list[Campaign]) -> int:
    """Write the export atomically: to a temporary file first, renamed into place when complete."""
    export_format = get_format(format_name)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    try:
        count = export_format.write(partial, campaigns)
        partial.replace(out)
    finally:
        if partial.exists():
            partial.unlink()
    return count

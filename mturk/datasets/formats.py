"""Registry of export formats and the writer they share.

Every export is one zip: the format's files, streamed into the archive as they are produced,
plus `README.md` (the dataset card) and `report/` (metrics JSON and HTML). The zip is written
to a `.partial` file and renamed when complete, so a failed export leaves nothing half-written."""
from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.utils import timezone

from ..models import Campaign
from ..registry import Registry
from ..selectors.campaigns import CrowdStatistics, crowd_statistics
from .stored_files import open_stream

# Deflate level of the archive's text members. Level 1 compresses the JSON of a 10,000-album SIND export (330 MB)
# to 36 MB in a third of the time zlib's default (6) takes to reach 29 MB: compression was about an eighth of the
# export's time (bench/sind_export.py).
COMPRESS_LEVEL = 1


class ExportError(ValueError):
    """A refused export (unknown format, nothing to export); the message is shown to the user."""


# Told the steps done and the steps known so far, whenever a format announces or finishes some.
ProgressCallback = Callable[[int, int], None]


class ExportBundle:
    """The archive a format writes into. Paths are relative to the archive root.

    Formats report their progress in steps: `add_steps(n)` once they know how much work is ahead (images,
    albums, ...), `advance(n)` as it is done. The callback (if any) sees every change; storing it, at a
    sensible rate, is the caller's business."""

    def __init__(self, archive: zipfile.ZipFile, options: dict[str, Any] | None = None,
                 progress: ProgressCallback | None = None) -> None:
        self._archive = archive
        self._progress = progress
        self.steps_done = 0
        self.steps_total = 0
        self.options: dict[str, Any] = dict(options or {})  # format options the export was asked with
        self.counts: dict[str, int] = {}  # what the dataset card lists, e.g. {"images": 500}
        self.notes: list[str] = []  # format-specific paragraphs for the dataset card
        self.simulated = False  # set when any exported record was generated, not collected
        self.campaigns: list[Campaign] = []  # what the dataset card describes when no campaigns were given
        # The campaigns whose answers made the records written (ids), gathered by the writer from those records;
        # None when the format does not say (the card then describes the campaigns asked for, or self.campaigns).
        self.contributors: set[int] | None = None
        self._crowd: dict[tuple[int, ...], list[CrowdStatistics]] = {}

    def add_steps(self, count: int) -> None:
        """Announce `count` more steps of work."""
        self.steps_total += count
        self._report()

    def advance(self, count: int = 1) -> None:
        """Mark `count` steps as done."""
        self.steps_done = min(self.steps_done + count, self.steps_total)
        self._report()

    def _report(self) -> None:
        if self._progress is not None:
            self._progress(self.steps_done, self.steps_total)

    def contributed(self, campaign_ids: Iterable[int | None]) -> None:
        """Note the campaigns whose answers made records just written (None: a record no campaign made, e.g.
        imported)."""
        if self.contributors is None:
            self.contributors = set()
        self.contributors.update(pk for pk in campaign_ids if pk is not None)

    def crowd_statistics(self, campaigns: list[Campaign]) -> list[CrowdStatistics]:
        """The campaigns' crowd figures, computed once per export (the card and a report both use them)."""
        key = tuple(c.pk for c in campaigns)
        if key not in self._crowd:
            self._crowd[key] = crowd_statistics(campaigns)
        return self._crowd[key]

    def _info(self, name: str, compress: bool = True) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(name, date_time=timezone.now().timetuple()[:6])
        info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
        # zipfile reads a ZipInfo's level from this attribute (3.13 also names it compress_level)
        info._compresslevel = COMPRESS_LEVEL  # type: ignore[attr-defined]
        return info

    @contextmanager
    def open_text(self, name: str) -> Iterator[IO[str]]:
        """A text stream into the archive (UTF-8, '\\n' line ends)."""
        with self._archive.open(self._info(name), "w", force_zip64=True) as raw:
            with io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as text:
                yield text

    @contextmanager
    def open_binary(self, name: str) -> Iterator[IO[bytes]]:
        """A byte stream into the archive, for writers that produce UTF-8 bytes themselves."""
        with self._archive.open(self._info(name), "w", force_zip64=True) as raw:
            yield raw

    def write_text(self, name: str, text: str) -> None:
        with self.open_text(name) as handle:
            handle.write(text)

    def write_json(self, name: str, data: Any) -> None:
        with self.open_text(name) as handle:
            json.dump(data, handle, ensure_ascii=False, indent=1)
            handle.write("\n")

    def copy_stored_file(self, name: str, storage_name: str) -> None:
        """Copy a file from the default storage (local disk or S3) without loading it whole."""
        source, _size = open_stream(storage_name)
        with closing(source), \
                self._archive.open(self._info(name, compress=False), "w", force_zip64=True) as target:
            shutil.copyfileobj(source, target, 1024 * 1024)

    def names(self) -> list[str]:
        return self._archive.namelist()


@dataclass(frozen=True)
class ExportOption:
    """An option a format accepts, with what it means (shown next to its field on the exports page)."""

    name: str
    kind: str  # "flag" (true/false), "number" (a whole number) or "text"
    help: str


@dataclass(frozen=True)
class ExportFormat:
    name: str
    description: str
    # Writes the files; returns the records written (every annotation record of the data files: e.g. COCO's captions
    # and boxes), counted as they are written, the figure of the card's "Records" line and of the exports list.
    write: Callable[[ExportBundle, list[Campaign]], int]
    documentation: str = ""  # path of the format's documentation in the repository
    kinds: tuple[str, ...] = ()  # task kinds whose campaigns it exports (empty: any)
    options: tuple[ExportOption, ...] = ()  # the options it accepts (e.g. images, split_seed)
    check_options: Callable[[dict[str, Any]], object] | None = None  # raises ExportError on a bad option value

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(option.name for option in self.options)


@dataclass
class ExportResult:
    format: str
    records: int
    counts: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


_FORMATS: Registry[ExportFormat] = Registry("export format", ExportError)


def register_format(export_format: ExportFormat) -> ExportFormat:
    return _FORMATS.add(export_format.name, export_format)


def get_format(name: str) -> ExportFormat:
    return _FORMATS.get(name)


def format_names() -> list[str]:
    return _FORMATS.names()


def check_scope(format_name: str, campaigns: list[Campaign], options: dict[str, Any] | None = None) -> ExportFormat:
    """The format, if it can export these campaigns with these options; else ExportError saying why."""
    export_format = get_format(format_name)
    unknown = sorted(set(options or {}) - set(export_format.option_names))
    if unknown:
        accepted = ", ".join(export_format.option_names) or "none"
        raise ExportError(f"format '{format_name}' has no option {', '.join(unknown)} (its options: {accepted})")
    if export_format.check_options is not None:
        export_format.check_options(options or {})
    wrong = [c.name for c in campaigns if export_format.kinds and c.task_kind not in export_format.kinds]
    if wrong:
        raise ExportError(
            f"format '{format_name}' exports {', '.join(export_format.kinds)} campaigns, not: {', '.join(wrong)}"
        )
    return export_format


def write_export(format_name: str, target: IO[bytes], campaigns: list[Campaign],
                 options: dict[str, Any] | None = None, progress: ProgressCallback | None = None) -> ExportResult:
    """Write the whole export zip to an open binary file; `progress` is told the steps done and known."""
    from .card import write_card_and_crowd_report

    export_format = check_scope(format_name, campaigns, options)
    with zipfile.ZipFile(target, "w", allowZip64=True) as archive:
        bundle = ExportBundle(archive, options, progress)
        bundle.add_steps(1)  # the dataset card and crowd report, written last
        records = export_format.write(bundle, campaigns)
        write_card_and_crowd_report(bundle, export_format, campaigns, records)
        bundle.advance()
        return ExportResult(format_name, records, dict(bundle.counts), bundle.names())


def run_export(format_name: str, out: Path, campaigns: list[Campaign],
               options: dict[str, Any] | None = None) -> ExportResult:
    """Write the export to `out` atomically: a temporary file first, renamed into place when complete."""
    check_scope(format_name, campaigns, options)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("wb") as target:
            result = write_export(format_name, target, campaigns, options)
        partial.replace(out)
    finally:
        if partial.exists():
            partial.unlink()
    return result

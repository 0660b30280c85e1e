"""The console's album and VIST importers (mturk/importers.py). Albums: a zip of album folders, or a zip of a JSON
manifest with its photos (docs/formats/albums.md, "In the browser"). VIST: the released files, or a zip of them
(docs/formats/vist-import.md).

The zip is unpacked into a temporary folder (entries that would leave it, or are over the size limits, refuse
the whole import), then read with the same all-or-nothing service as `import_albums`: a folder of album folders,
or the manifest found at the zip's root (or in its single top folder)."""
from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from annotation.image_sets.services import ImageSetError, set_name_for, set_spec
from annotation.services.images import ImportFailed, zip_members
from common.safe_archives import ReadRefused, SafeZip, is_zip
from mturk.importers import Importer, ImportOption, ImportProblems, ImportRefused, Progress, register_importer

from .services.albums.fields import AlbumImportError
from .services.albums.reading import check_albums
from .services.albums.writing import SOURCE, write_albums
from .services.vist_import.importer import import_vist
from .services.vist_import.records import SPLITS, VistImportError, zip_files


def _unpack(archive_path: Path, target: Path) -> None:
    """Write the zip's files under `target`, one at a time, with their times from the zip (read as UTC: a photo
    without a date is dated by its file time). Raises ImportProblems naming every refused entry; nothing is
    imported then (the caller's temporary folder goes away)."""
    refused: list[tuple[str, str]] = []
    try:
        with SafeZip(archive_path) as archive:
            times = {name: archive.members[name].date_time for name in archive.names()}
        for name, content in zip_members(archive_path, label=archive_path.name):
            if isinstance(content, str):
                refused.append((name, content))
                continue
            file = target.joinpath(*PurePosixPath(name).parts)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(content)
            stamp = datetime(*times[name], tzinfo=UTC).timestamp()
            os.utime(file, (stamp, stamp))
    except (ImportFailed, OSError) as exc:
        message = str(exc) if isinstance(exc, (ImportFailed, ReadRefused)) else \
            f"{archive_path.name} cannot be unpacked ({exc})"
        raise ImportProblems([(archive_path.name, message)]) from None
    if refused:
        raise ImportProblems(refused)


def album_input(root: Path) -> Path:
    """What `check_albums` reads in an unpacked zip: a manifest (the one .json file at the root, or in the single
    top folder), else the folder of album folders (the root, or its single top folder when that holds only
    folders: a zipped `albums/` folder)."""
    base = root
    entries = [p for p in root.iterdir() if not p.name.startswith(".") and p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir():
        inner = [p for p in entries[0].iterdir() if not p.name.startswith(".")]
        manifest_inside = any(p.suffix.lower() == ".json" and p.is_file() for p in inner)
        if manifest_inside or (inner and all(p.is_dir() for p in inner)):
            base = entries[0]
    manifests = [p for p in base.iterdir() if p.is_file() and p.suffix.lower() == ".json"]
    if len(manifests) > 1:
        names = ", ".join(sorted(p.name for p in manifests))
        raise ImportProblems([(base.name if base != root else "the zip", f"more than one JSON manifest ({names})")])
    return manifests[0] if manifests else base


def run_albums(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """All or nothing, in three steps: the zip unpacked (1 of 3), everything checked (2 of 3), written (3 of 3)."""
    progress(0, 3)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _unpack(path, root)
        progress(1, 3)
        source = album_input(root)
        try:
            albums = check_albums(source)
            progress(2, 3)
            report = write_albums(albums, set_spec(options.get("set"), [options.get("tags", "")], source=SOURCE,
                                                   default_name=set_name_for(path.name)))
        except AlbumImportError as exc:
            prefix = str(root) + os.sep
            raise ImportProblems.from_messages([e.replace(prefix, "").replace(str(root), path.name)
                                                for e in exc.errors]) from None
    progress(3, 3)
    return {
        "summary": str(report),
        "counts": {"albums created": report.albums_created, "albums updated": report.albums_updated,
                   "photos added": report.photos_added, "photos kept": report.photos_kept,
                   "images stored": report.images_stored},
        "imported": [{"name": f"album {album.external_id}", "detail": f"{len(album.photos)} photo(s)"}
                     for album in albums],
        "refused": [],
        "notes": [f"The photos are in the collection '{report.image_set}'"],
        "image_set": report.image_set,
    }


def _album_set_option(options: dict[str, str], file_name: str) -> dict[str, Any]:
    """The collection of the albums' photos: the one named, else the zip's name; tags comma-separated."""
    try:
        spec = set_spec(options.get("set"), [options.get("tags", "")], default_name=set_name_for(file_name))
    except ImageSetError as exc:
        raise ImportRefused(f"Collection: {exc}") from None
    return {**options, "set": spec.name, "tags": ",".join(spec.tags)}


register_importer(Importer(
    name="albums",
    label="albums",
    description="A zip of album folders (each folder one album, its photos inside, an optional album.json), or "
                "a zip holding a JSON manifest and the photo files it names. Everything is checked first: each "
                "problem names the album and the photo, and nothing changes.",
    extensions=(".zip",),
    run=run_albums,
    file_label="Albums zip",
    progress_unit="steps",
    position=20,
    documentation="docs/formats/albums.md",
    options=(ImportOption("set", "Collection of the photos (new or existing)", max_length=100,
                          help="Default: the zip's name without extension."),
             ImportOption("tags", "Tags of the collection", max_length=500,
                          help="Optional, comma-separated: the wizard selects images by tag.")),
    check_options=_album_set_option,
))


def run_vist(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """The released VIST files, one JSON file or a zip of them; all or nothing (checked, then written)."""
    progress(0, 2)
    splits = tuple(s for s in [options.get("split") or ""] if s)
    try:
        if is_zip(path):
            with SafeZip(path) as archive:
                summary = import_vist(zip_files(archive, splits))
        else:
            summary = import_vist([path], splits)
    except VistImportError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    except ReadRefused as exc:
        raise ImportProblems.from_messages([str(exc)]) from None
    progress(2, 2)
    return {"summary": str(summary), "counts": summary.as_counts(),
            "imported": [{"name": name, "detail": ""} for name in summary.files], "refused": [],
            "notes": list(summary.notes)}


def _check_vist(options: dict[str, str], file_name: str) -> dict[str, Any]:
    split = (options.get("split") or "").strip()
    if split and split not in SPLITS:
        raise ImportRefused(f"split: one of {', '.join(SPLITS)} (or none)")
    return {"split": split}


register_importer(Importer(
    name="vist",
    label="VIST files",
    description="The released VIST (SIND) files: train/val/test .story-in-sequence.json, "
                ".description-in-isolation.json and .description-in-sequence.json, by their released names (zip "
                "large files). Albums, photos (known by their Flickr address), stories and descriptions keep their "
                "ids and split; everything is checked first, each problem names the file and the record.",
    extensions=(".json", ".zip"),
    run=run_vist,
    options=(ImportOption("split", "Split", help="Only this split's files; the split of a file whose name gives none.",
                          choices=lambda: [("", "every split"), *((s, s) for s in SPLITS)], max_length=5),),
    multiple=True,
    file_label="VIST files",
    progress_unit="steps",
    position=25,
    documentation="docs/formats/vist-import.md",
    check_options=_check_vist,
))

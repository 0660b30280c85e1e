"""VIST import: the files, the problems, the summary, and records read streamed."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Any

from common.safe_archives import SafeZip, open_file
from mturk.importers import ProblemList, streamed_items

SPLITS = ("train", "val", "test")
TIERS = {  # file suffix -> (tier key, the annotations' `tier`)
    "story-in-sequence": ("sis", "story-in-sequence"),
    "description-in-isolation": ("dii", "descriptions-in-isolation"),
    "description-in-sequence": ("dis", "descriptions-in-sequence"),
}
FILE_NAME = re.compile(r"(?:(train|val|test)\.)?(story-in-sequence|description-in-isolation|description-in-sequence)"
                       r"\.json")
SOURCE = "vist"  # Description.source of DII, ImageSet.source
DATASET = "vist"  # ImageOrigin.dataset
LICENCE = ("VIST (SIND v.1): annotations released by Microsoft under its data release terms; the photos are Flickr "
           "photos under the Creative Commons licence each image record states (license 1-7).")
MAX_LISTED = 50
BATCH = 1000


class VistImportError(ValueError):
    """The files cannot be imported; `errors` lists the problems (at most MAX_LISTED, then a count)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


class Problems(ProblemList):
    def __init__(self) -> None:
        super().__init__(VistImportError, MAX_LISTED)


@dataclass(frozen=True)
class VistFile:
    """One released file: its name (in messages), tier ("sis", "dii", "dis"), split, and how to open it."""

    name: str
    tier: str
    split: str
    open: Callable[[], IO[bytes]]

    @property
    def annotation_tier(self) -> str:
        return next(t for key, t in TIERS.values() if key == self.tier)


def vist_file(path: Path, split: str | None = None) -> VistFile:
    """The file's tier and split from its released name (`test.story-in-sequence.json`); `split` names the split
    of a file whose name has none, and must agree with the name otherwise. Raises VistImportError."""
    match = FILE_NAME.fullmatch(path.name)
    if match is None:
        raise VistImportError([f"{path.name}: not a VIST file name (<split>.story-in-sequence.json, "
                               "<split>.description-in-isolation.json or <split>.description-in-sequence.json)"])
    named, suffix = match.groups()
    if named and split and named != split:
        raise VistImportError([f"{path.name}: the file is of the {named} split, not {split}"])
    chosen = named or split
    if chosen is None:
        raise VistImportError([f"{path.name}: the name gives no split: give one (train, val or test)"])
    return VistFile(path.name, TIERS[suffix][0], chosen, lambda: open_file(path))


def find_files(paths: list[Path], splits: tuple[str, ...] = ()) -> list[VistFile]:
    """The VIST files of the paths (files, or folders searched recursively), SIS first, then DII, then DIS (DIS
    names stories). With `splits`, a folder gives only those splits' files. Raises VistImportError."""
    found: list[VistFile] = []
    problems = Problems()
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*.json")):
                if FILE_NAME.fullmatch(file.name) and not any(p.startswith(".") for p in file.parts[-3:]):
                    candidate = vist_file(file, None) if file.name.split(".")[0] in SPLITS else None
                    if candidate and (not splits or candidate.split in splits):
                        found.append(candidate)
        elif path.is_file():
            try:
                found.append(vist_file(path, splits[0] if len(splits) == 1 else None))
            except VistImportError as exc:
                problems.add(exc.errors[0])
        else:
            problems.add(f"{path}: no such file or folder")
    problems.raise_any()
    names = [f.name for f in found]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise VistImportError([f"{name}: given twice (one file per split and tier)" for name in duplicates])
    if not found:
        raise VistImportError([f"{', '.join(map(str, paths))}: no VIST file found"])
    order = {"sis": 0, "dii": 1, "dis": 2}
    return sorted(found, key=lambda f: (order[f.tier], SPLITS.index(f.split)))


def read_section(source: VistFile, section: str, problems: Problems) -> Iterator[tuple[int, Any]]:
    """The items of the top-level list `section`, streamed, with their index."""
    return streamed_items(source.name, source.open, section, problems)


@dataclass
class VistImport:
    files: list[str] = field(default_factory=list)
    albums_new: int = 0
    albums_updated: int = 0
    photos_new: int = 0
    photos_kept: int = 0
    stories: int = 0
    stories_kept: int = 0  # already imported (same story_id)
    storylets: int = 0
    incomplete_stories: int = 0  # fewer than five storylets
    skipped_stories: int = 0  # a photo not in the release's images
    dii: int = 0
    dii_kept: int = 0
    dis: int = 0
    dis_kept: int = 0
    skipped_descriptions: int = 0  # DII / DIS of a photo not in the release's images
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        text = (f"{len(self.files)} file(s): {self.albums_new} albums new, {self.albums_updated} updated; "
                f"{self.photos_new} photos new, {self.photos_kept} kept; {self.stories} stories ({self.storylets} "
                f"storylets; {self.stories_kept} already imported, {self.incomplete_stories} with fewer than 5 "
                f"photos, {self.skipped_stories} skipped: a photo not in the release); {self.dii} DII "
                f"({self.dii_kept} already imported); {self.dis} DIS ({self.dis_kept} already imported)")
        if self.skipped_descriptions:
            text += f"; {self.skipped_descriptions} descriptions skipped (a photo not in the release)"
        return text

    def as_counts(self) -> dict[str, int]:
        return {"albums new": self.albums_new, "albums updated": self.albums_updated, "photos new": self.photos_new,
                "photos kept": self.photos_kept, "stories": self.stories, "stories already imported": self.stories_kept,
                "storylets": self.storylets, "stories with fewer than 5 photos": self.incomplete_stories,
                "stories skipped (photo not in the release)": self.skipped_stories, "DII": self.dii,
                "DII already imported": self.dii_kept, "DIS": self.dis, "DIS already imported": self.dis_kept,
                "descriptions skipped (photo not in the release)": self.skipped_descriptions}


def zip_files(archive: SafeZip, splits: tuple[str, ...] = ()) -> list[VistFile]:
    """The VIST files of a zip (anywhere in it, by their released names), each read streamed from the zip through
    the safe reader (common/safe_archives.py); with `splits`, those splits' only. A lone JSON file whose name gives
    no split takes the only split given."""
    names = [name for name in archive.names()
             if name.lower().endswith(".json") and not name.startswith(("__MACOSX", "."))]
    found: list[VistFile] = []
    for name in names:
        base = PurePosixPath(name).name
        if not FILE_NAME.fullmatch(base):
            continue
        named = FILE_NAME.fullmatch(base).group(1)  # type: ignore[union-attr]
        checked = vist_file(Path(base), None if named or len(splits) != 1 else splits[0])
        if not splits or checked.split in splits:
            found.append(VistFile(checked.name, checked.tier, checked.split, partial(archive.open, name)))
    if not found:
        raise VistImportError([f"no VIST file in the zip (found {', '.join(names) or 'no JSON file'})"])
    order = {"sis": 0, "dii": 1, "dis": 2}
    return sorted(found, key=lambda f: (order[f.tier], SPLITS.index(f.split)))

"""What the grounded writers share (ImageCLEF-style, COCO, Flickr30k; Flickr8k uses the key check and the
by-reference note): image keys that are safe in file names and TSV lines, the images sorted by key with the file
names of images known only by reference, their boxes and descriptions, image files copied into the bundle, root
concepts, and whether anything exported was simulated."""
from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle

    from ..models import Concept
    from ..selectors import BoxRow, DescriptionRow, GroundedDataset, ImageRow

SIMULATED = "simulated"
# A spreadsheet reads a cell starting with one of these as a formula. Cells are written unchanged (importers, system
# runs and every program reading the files get the text as it was written); the dataset card says how many written
# cells start so and how to open the files safely (the format's page, section Spreadsheets).
FORMULA_STARTS = ("=", "+", "-", "@")


def formula_like(text: str) -> bool:
    """Whether a spreadsheet would read a cell of this text as a formula."""
    return text.startswith(FORMULA_STARTS)


def note_formulas(bundle: ExportBundle, count: int, cells: tuple[str, str], documentation: str) -> None:
    """The dataset card's count and paragraph on written cells that a spreadsheet would read as formulas (none when
    no cell does). `cells`: what a cell is, singular and plural, e.g. ("caption", "captions") of `<file>`."""
    if not count:
        return
    bundle.counts["formula-like cells"] = count
    what = cells[0] if count == 1 else cells[1]
    bundle.notes.append(
        f"{count} {what} start{'s' if count == 1 else ''} with `=`, `+`, `-` or `@`, written as the workers typed "
        "them: a spreadsheet may read such a cell as a formula. Open the files as text (every column of type "
        f"Text), not by double-clicking them ({documentation}, Spreadsheets).")


RECORD_NAMES = {"box": ("box", "boxes"), "description": ("description", "descriptions"),
                "links": ("description's word-to-box links", "descriptions' word-to-box links")}


class Provenance:
    """Where the records a writer writes came from, gathered as it writes them (the same rows): the campaigns whose
    answers made them, and per kind of record and source how many no campaign made (imported, or demo data)."""

    def __init__(self) -> None:
        self.campaigns: set[int] = set()
        self.not_collected: Counter[tuple[str, str]] = Counter()

    def _add(self, what: str, campaign: int | None, source: str) -> None:
        if campaign is None:
            self.not_collected[(what, source)] += 1
        else:
            self.campaigns.add(campaign)

    def box(self, box: BoxRow) -> None:
        self._add("box", box.campaign, box.source)

    def description(self, description: DescriptionRow) -> None:
        """A description written, with its links when it has some (they are written with it)."""
        self._add("description", description.campaign, description.source)
        if description.links is not None:
            self._add("links", description.links_campaign, "")

    def record(self, bundle: ExportBundle) -> None:
        """Tell the bundle which campaigns contributed, and add the card's note on records no campaign made."""
        bundle.contributed(self.campaigns)
        if not self.not_collected:
            return
        order = list(RECORD_NAMES)
        parts = []
        for (what, source), count in sorted(self.not_collected.items(), key=lambda i: (order.index(i[0][0]), i[0][1])):
            name = RECORD_NAMES[what][count != 1]
            parts.append(f"{count} {name}" + (f" (source `{source}`)" if source else ""))
        bundle.notes.append("Not collected by a campaign of this platform (imported, or made by its demo): "
                            + "; ".join(parts) + ".")


def key_problem(key: str) -> str | None:
    """Why an image key cannot be written as a TSV cell and a file name, or None."""
    if not key:
        return "the image key is empty"
    if key != key.strip():
        return f"the image key '{key}' has leading or trailing spaces"
    if any(char in key for char in "\t\r\n/\\"):
        return f"the image key {key!r} contains a tab, a line break or a slash"
    if key.startswith(("#", ".")):
        return f"the image key '{key}' starts with '{key[0]}'"
    return None


def sorted_images(dataset: GroundedDataset) -> list[ImageRow]:
    """The dataset's images by key, after checking every key can be exported (ExportError otherwise)."""
    problems = [problem for image in dataset.images if (problem := key_problem(image.key))]
    if problems:
        from mturk.datasets.formats import ExportError

        raise ExportError("images that cannot be exported: " + "; ".join(problems))
    return sorted(with_reference_names(dataset.images), key=lambda image: image.key)


def reference_file_names(images: Iterable[tuple[int, str, str]]) -> dict[int, str]:
    """The file names of images known only by reference (no stored file), from (pk, key, stored original):
    <key>.<extension of the name it was imported under> (COCO's file_name). One query when there are any."""
    from ..models import Image

    ids = [pk for pk, _, original in images if not original]
    if not ids:
        return {}
    return {pk: f"{key}{PurePosixPath(name).suffix.lower()}" for pk, key, name in
            Image.objects.filter(pk__in=ids).values_list("pk", "key", "original_name")}


def with_reference_names(images: list[ImageRow]) -> list[ImageRow]:
    """The rows with the file name of each image known only by reference (its stored original is empty)."""
    names = reference_file_names((image.pk, image.key, image.original) for image in images)
    return [dataclasses.replace(image, file_name=names[image.pk]) if image.pk in names else image
            for image in images]


def image_path(image: ImageRow) -> str:
    """Where an export puts the image file: images/<key>.<extension of the original>."""
    return f"images/{image.file_name}"


def by_reference_note(count: int) -> str:
    """The dataset card's paragraph on images listed without their file."""
    return (f"{count} image(s) are known to the platform only by reference (annotations imported without the "
            "image files, e.g. from COCO): they are listed with their annotations but their files are not in this "
            "zip; fetch them from their source (COCO's `coco_url`, or the dataset's own download).")


def copy_image_files(bundle: ExportBundle, images: Iterable[ImageRow],
                     path: Callable[[ImageRow], str] = image_path, advance: bool = True) -> int:
    """Copy the stored file of each image into the bundle (one step each when `advance`); images known only by
    reference have none: they are counted and named in the bundle's notes. Returns how many were skipped."""
    skipped = 0
    for image in images:
        if image.original:
            bundle.copy_stored_file(path(image), image.original)
        else:
            skipped += 1
        if advance:
            bundle.advance()
    if skipped:
        bundle.counts["images without file (by reference)"] = skipped
        bundle.notes.append(by_reference_note(skipped))
    return skipped


def boxes_of(dataset: GroundedDataset, image: ImageRow) -> list[BoxRow]:
    return sorted(dataset.boxes.get(image.pk, []), key=lambda box: box.number)


def descriptions_of(dataset: GroundedDataset, image: ImageRow) -> list[DescriptionRow]:
    return list(dataset.descriptions.get(image.pk, []))  # already in creation order


def root_names(concepts: Iterable[Concept]) -> dict[str, str]:
    """Concept name -> the name of its root ancestor (itself when it has no parent)."""
    by_pk = {concept.pk: concept for concept in concepts}
    roots: dict[str, str] = {}
    for concept in by_pk.values():
        node, seen = concept, {concept.pk}
        while node.parent_id in by_pk and node.parent_id not in seen:  # the seen check guards against cycles
            node = by_pk[node.parent_id]
            seen.add(node.pk)
        roots[concept.name] = node.name
    return roots


def is_simulated(dataset: GroundedDataset) -> bool:
    """Whether any exported description or box was generated rather than collected."""
    return any(
        description.source == SIMULATED for rows in dataset.descriptions.values() for description in rows
    ) or any(box.source == SIMULATED for rows in dataset.boxes.values() for box in rows)


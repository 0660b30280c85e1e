"""The console's importers of this app (mturk/importers.py): images, a concept vocabulary, an ImageCLEF dataset,
COCO annotations, Flickr30k Entities.

Each reuses the import service the CLI uses: images keep the good files of a batch and report the bad ones by
name; concepts and ImageCLEF datasets are all or nothing (ImportProblems names each problem's file and line)."""
from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.safe_archives import ReadRefused, SafeZip, is_zip, open_file
from common.text_input import column_length, decode_text
from mturk.importers import Importer, ImportOption, ImportProblems, ImportRefused, Progress, register_importer
from mturk.models import Campaign
from mturk.services.campaigns import CampaignError, add_hits
from mturk.states import CampaignStatus

from .image_sets.services import ImageSetError, SetSpec, file_images, set_name_for, set_spec
from .models import Vocabulary
from .services.coco_import.importer import import_coco
from .services.coco_import.records import CocoFile, CocoImportError, ImageFiles
from .services.concepts import ConceptImportError, import_concepts, parse_concepts
from .services.flickr30k_import.importer import import_flickr30k, release_set
from .services.flickr30k_import.source import DEFAULT_SET, Flickr30kImportError
from .services.imageclef_import.importer import import_imageclef
from .services.imageclef_import.source import ImageCLEFImportError
from .services.images import (
    ImportFailed,
    ImportReport,
    import_named_files,
    import_zip,
    read_file,
    unsafe_member_reason,
)

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp")
# Task kinds whose HITs are one image each ({"image": id}): an image import can add one HIT per image to them.
IMAGE_ITEM_KINDS = ("describe_image", "draw_boxes")


def image_campaigns() -> list[tuple[str, str]]:
    """Open campaigns that take one image per HIT, as (id, label) choices."""
    campaigns = Campaign.objects.filter(task_kind__in=IMAGE_ITEM_KINDS).exclude(status=CampaignStatus.CLOSED)
    return [(str(pk), f"{name} ({kind})") for pk, name, kind in campaigns.order_by("name").values_list(
        "pk", "name", "task_kind")]


def images_report(report: ImportReport) -> dict[str, Any]:
    return {
        "summary": f"{len(report.imported)} imported, {len(report.duplicates)} already known, "
                   f"{len(report.problems)} refused",
        "counts": {"imported": len(report.imported), "already known": len(report.duplicates),
                   "refused": len(report.problems)},
        "imported": [{"name": i.original_name, "detail": f"image {i.key}"} for i in report.imported]
        + [{"name": i.original_name, "detail": f"already known as image {i.key}"} for i in report.duplicates],
        "refused": [{"name": p.name, "reason": p.reason} for p in report.problems],
        "notes": [],
    }


def _set_option(options: dict[str, str], file_name: str) -> dict[str, Any]:
    """The collection every import lands in: the one named, else the zip's (file's) name, else "Uploads <date>"
    for loose image files; tags comma-separated."""
    default = set_name_for(file_name) if file_name.lower().endswith((".zip", ".json")) else \
        f"Uploads {timezone.localdate().isoformat()}"
    try:
        spec = set_spec(options.get("set"), [options.get("tags", "")], default_name=default)
    except ImageSetError as exc:
        raise ImportRefused(f"Collection: {exc}") from None
    return {**options, "set": spec.name, "tags": ",".join(spec.tags)}


def _spec(options: dict[str, Any], source: str) -> SetSpec:
    """The checked options' set, as the services take it (set_spec checks them again: an old job's options)."""
    return set_spec(options.get("set"), [options.get("tags", "")], source=source, default_name="Imported images")


def _filed(result: dict[str, Any], spec: SetSpec, count: int) -> dict[str, Any]:
    result["notes"].append(f"{count} image(s) in the collection '{spec.name}'"
                           + (f" (tags: {', '.join(spec.tags)})" if spec.tags else ""))
    result["image_set"] = spec.name
    return result


def run_images(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """A zip (or the zip the console packed several files into), or one image file; every good image (new or
    already known) lands in the chosen collection."""
    try:
        if is_zip(path):
            report = import_zip(path, label=path.name, progress=progress)
        else:
            progress(0, 1)
            report = import_named_files([(path.name, read_file(path))])
            progress(1, 1)
    except (ImportFailed, ReadRefused) as exc:
        raise ImportRefused(str(exc)) from None
    if not report.images and report.problems:  # every file refused: the import fails, naming each one
        raise ImportProblems([(problem.name, problem.reason) for problem in report.problems])
    result = images_report(report)
    if not report.images:  # nothing to import: no collection is made for nothing
        result["notes"].append("No image was imported: no collection was made or changed")
        return result
    spec = _spec(options, "images")
    file_images(spec, [image.pk for image in report.images])
    _filed(result, spec, len(report.images))
    if options.get("campaign"):
        result["notes"].append(_add_to_campaign(int(options["campaign"]), report))
    return result


def _add_to_campaign(campaign_id: int, report: ImportReport) -> str:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return f"campaign #{campaign_id} no longer exists: no HIT added"
    try:
        with transaction.atomic():
            hits = add_hits(campaign, [{"image": image.pk} for image in report.images])
    except CampaignError as exc:
        return f"no HIT added to campaign '{campaign.name}': {exc}"
    return f"{len(hits)} HIT(s) added to campaign '{campaign.name}'"


def _vocabulary_option(options: dict[str, str], file_name: str) -> dict[str, Any]:
    """The vocabulary name: the one given, else the file name without extension (as the commands do)."""
    vocabulary = options.get("vocabulary") or PurePosixPath(file_name).stem
    longest = column_length(Vocabulary, "name")
    if not vocabulary or len(vocabulary) > longest:
        raise ImportRefused(f"Vocabulary name: 1 to {longest} characters")
    return {**options, "vocabulary": vocabulary}


def _imageclef_options(options: dict[str, str], file_name: str) -> dict[str, Any]:
    return _set_option(_vocabulary_option(options, file_name), file_name)


def run_concepts(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """All or nothing, in two steps: every line checked (1 of 2), then written (2 of 2)."""
    progress(0, 2)
    try:
        text = decode_text(path.read_bytes())
    except ValueError as exc:
        raise ImportProblems([(path.name, str(exc))]) from None
    try:
        parse_concepts(text, source=path.name)
        progress(1, 2)
        result = import_concepts(text, options["vocabulary"], source=path.name)
    except ConceptImportError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    progress(2, 2)
    count = result.vocabulary.concepts.filter(offered=True).count()
    return {
        "summary": f"Vocabulary '{result.vocabulary.name}': {count} concepts ({result.created} new, "
                   f"{result.updated} updated)",
        "counts": {"concepts": count, "new": result.created, "updated": result.updated},
        "imported": [{"name": path.name, "detail": f"{count} concepts in vocabulary '{result.vocabulary.name}'"}],
        "refused": [],
        "notes": [],
    }


def run_imageclef(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """All or nothing, in two steps: every file checked (1 of 2), then written (2 of 2)."""
    progress(0, 2)
    try:
        spec = _spec(options, "imageclef")
        summary = import_imageclef(path, options["vocabulary"], progress=progress, image_set=spec)
    except ImageCLEFImportError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    return _filed({
        "summary": str(summary),
        "counts": {"images": summary.images, "images already stored": summary.images_reused,
                   "boxes": summary.boxes, "descriptions": summary.descriptions,
                   "correspondences": summary.correspondences, "new concepts": summary.concepts_created},
        "imported": [{"name": path.name, "detail": str(summary)}],
        "refused": [],
        "notes": [],
    }, spec, summary.images + summary.images_reused)


def _coco_files(archive: SafeZip) -> tuple[CocoFile, CocoFile | None, ImageFiles | None]:
    """The captions file, the instances file and the image files of a zip (the console packs several uploaded
    files into one): JSON files whose names hold "captions" and "instances" (a lone JSON file is the captions
    file), images by file name anywhere in it. Each is read through the safe reader (streamed, counted)."""
    names = archive.names()
    json_names = [name for name in names if name.lower().endswith(".json") and not name.startswith("__MACOSX")]
    captions = [name for name in json_names if "captions" in PurePosixPath(name).name.lower()]
    instances = [name for name in json_names if "instances" in PurePosixPath(name).name.lower()]
    if not captions and len(json_names) == 1:
        captions = json_names
    if len(captions) != 1 or len(instances) > 1:
        raise ImportProblems([("zip", "expected one captions JSON file (a name holding 'captions') and at most one "
                                      f"instances JSON file, found {', '.join(json_names) or 'no JSON file'}")])

    def member(name: str) -> CocoFile:
        return CocoFile(PurePosixPath(name).name, lambda: archive.open(name))

    images = {PurePosixPath(name).name: name for name in names
              if name.lower().endswith(IMAGE_EXTENSIONS) and not unsafe_member_reason(name)}

    def read_image(file_name: str) -> bytes | None:
        return archive.read(images[file_name], settings.IMAGE_MAX_BYTES) if file_name in images else None

    return member(captions[0]), member(instances[0]) if instances else None, read_image if images else None


def run_coco(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """All or nothing: every record checked, then written (progress in records)."""
    progress(0, None)
    spec = _spec(options, "coco")
    try:
        if is_zip(path):
            with SafeZip(path) as archive:
                captions, instances, images = _coco_files(archive)
                summary = import_coco(captions, instances, images, options.get("subset") or None, progress,
                                      image_set=spec)
        else:
            summary = import_coco(CocoFile(path.name, lambda: open_file(path)), None, None,
                                  options.get("subset") or None, progress, image_set=spec)
    except CocoImportError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    except ReadRefused as exc:
        raise ImportProblems.from_messages([str(exc)]) from None
    result: dict[str, Any] = {
        "summary": str(summary),
        "counts": summary.as_counts(),
        "imported": [{"name": path.name, "detail": str(summary)}],
        "refused": [],
        "notes": list(summary.notes),
    }
    result["image_set"] = spec.name
    result["notes"].append(f"The images are in the collection '{spec.name}'")
    return result


def _flickr30k_options(options: dict[str, str], file_name: str) -> dict[str, Any]:
    """The collection (default "Flickr30k Entities") and the vocabulary of the phrase types (default flickr30k)."""
    try:
        spec = set_spec(options.get("set"), [options.get("tags", "")], default_name=DEFAULT_SET)
    except ImageSetError as exc:
        raise ImportRefused(f"Collection: {exc}") from None
    vocabulary = (options.get("vocabulary") or "flickr30k").strip()
    if len(vocabulary) > column_length(Vocabulary, "name"):
        raise ImportRefused(f"Vocabulary name: 1 to {column_length(Vocabulary, 'name')} characters")
    return {**options, "set": spec.name, "tags": ",".join(spec.tags), "vocabulary": vocabulary}


def run_flickr30k(path: Path, options: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """All or nothing: every image's files checked, then written (progress in images, twice)."""
    progress(0, None)
    checked = set_spec(options.get("set"), [options.get("tags", "")], default_name=DEFAULT_SET)
    spec = release_set(checked.name, checked.tags)
    try:
        summary = import_flickr30k(path, vocabulary=options.get("vocabulary") or None, image_set=spec,
                                   progress=progress)
    except Flickr30kImportError as exc:
        raise ImportProblems.from_messages(exc.errors) from None
    return _filed({
        "summary": str(summary),
        "counts": summary.as_counts(),
        "imported": [{"name": path.name, "detail": str(summary)}],
        "refused": [],
        "notes": list(summary.notes),
    }, spec, summary.images)


VOCABULARY = ImportOption("vocabulary", "Vocabulary name", help="Default: the file name without extension.",
                          max_length=100)
SET_OPTIONS = (
    ImportOption("set", "Collection (new or existing)", max_length=100,
                 help="Default: the zip's name without extension; loose image files: 'Uploads <date>'. The "
                      "collection's page lists its images, and the wizard selects by collection."),
    ImportOption("tags", "Tags of the collection", max_length=500,
                 help="Optional, comma-separated, e.g. pilot, kitchens: the wizard selects images by tag."),
)

register_importer(Importer(
    name="images",
    label="images",
    description="JPEG, PNG or WebP files, or one zip of them. Each file is checked; a bad file (another type, "
                "damaged, too large) is reported by name with the reason and the good ones are imported. When "
                "every file is bad, nothing is imported and the refusal names each one.",
    extensions=(*IMAGE_EXTENSIONS, ".zip"),
    run=run_images,
    options=(ImportOption("campaign", "Add one HIT per image to campaign",
                          help="Optional: an open describe_image or draw_boxes campaign.", choices=image_campaigns),
             *SET_OPTIONS),
    check_options=_set_option,
    multiple=True,
    keeps_good=True,
    file_label="Image files or a zip",
    position=10,
))
register_importer(Importer(
    name="concepts",
    label="concept vocabulary",
    description="A concepts.tsv file (tab-separated: name, synset, synonyms, parent). Every line is checked "
                "first: an error names the line and nothing changes.",
    extensions=(".tsv", ".txt"),
    run=run_concepts,
    file_label="Concepts file (concepts.tsv)",
    progress_unit="steps",
    position=30,
    options=(VOCABULARY,),
    documentation="docs/formats/imageclef.md",
    check_options=_vocabulary_option,
))
register_importer(Importer(
    name="imageclef",
    label="ImageCLEF dataset",
    description="A zip of an ImageCLEF-style dataset folder (concepts.tsv, images.tsv, images/, boxes.tsv, "
                "descriptions.tsv). Everything is checked first: each problem names its file and line and "
                "nothing changes.",
    extensions=(".zip",),
    run=run_imageclef,
    file_label="Dataset zip",
    progress_unit="steps",
    position=40,
    options=(ImportOption("vocabulary", "Vocabulary name of the dataset",
                          help="Default: the zip's name without extension.", max_length=100), *SET_OPTIONS),
    documentation="docs/formats/imageclef.md",
    check_options=_imageclef_options,
))
register_importer(Importer(
    name="coco",
    label="COCO annotations (JSON)",
    description="A COCO captions file (captions_*.json), or a zip of it with an instances file (instances_*.json, "
                "boxes and categories) and the image files. Images are matched by file name; those without a file "
                "are known by reference (their coco_url). Every record is checked first: each problem names its "
                "file and record and nothing changes. The full COCO files are too large to upload one by one: zip "
                "them, or use the import_coco command.",
    extensions=(".json", ".zip"),
    run=run_coco,
    options=(ImportOption("subset", "Subset", help="Optional, e.g. val2014. Default: read from the file names.",
                          max_length=40), *SET_OPTIONS),
    check_options=_set_option,
    multiple=True,
    file_label="COCO JSON files, or a zip",
    progress_unit="records",
    position=45,
    documentation="docs/formats/coco.md",
))
register_importer(Importer(
    name="flickr30k",
    label="Flickr30k Entities",
    description="The release as a zip: Sentences/<id>.txt, Annotations/<id>.xml, optionally train.txt, val.txt, "
                "test.txt and flickr30k-images/. Images without their file are known by reference. Every file is "
                "checked first: each problem names its file and line and nothing changes; a re-import adds nothing.",
    extensions=(".zip",),
    run=run_flickr30k,
    options=(ImportOption("vocabulary", "Vocabulary of the phrase types", help="Default: flickr30k.",
                          max_length=100),
             ImportOption("set", "Collection (new or existing)", max_length=100, help=f"Default: {DEFAULT_SET}."),
             SET_OPTIONS[1]),
    check_options=_flickr30k_options,
    file_label="The release zip (annotations.zip)",
    progress_unit="images",
    position=47,
    documentation="docs/formats/flickr30k.md",
))

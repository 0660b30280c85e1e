"""Every registered export format, on every kind of study the demo and the test builders make: the numbers the
dataset card states are recomputed from the files of the same zip, each read with the format's own reader
(pycocotools for COCO, JSON as the VIST loaders read it, the TSV and text layouts as their readers split them), and
the campaign and worker figures from the crowd report beside them and from the database.

The formats come from the registry: a newly registered format is exported here too, and fails until a reader for
its files is added to READERS. A study exports the whole database and, where it names campaigns, the campaigns of
each format's task kinds; an export the format refuses (e.g. compositional splits without concept pairs) is
recorded with its message, and the last test checks that every format was verified with records on some study."""
from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from annotation.exports.common import FORMULA_STARTS
from metrics.content_selection import human_upper_bound
from metrics.grounded import BoxRecord, DescriptionRecord, ImageRecord
from metrics.text.markup import parse
from mturk.datasets.formats import ExportError, format_names, get_format, write_export
from mturk.models import Assignment, Campaign
from mturk.states import ANSWERED, AssignmentStatus
from tests.annotation.flickr30k_reader import read_sentences
from tests.annotation.grounded_run import grounded_workflow_run, reviewed_boxes_campaign
from tests.export_cards import campaign_table, card_counts, upper_bound

pytestmark = pytest.mark.django_db

# Counts a card may state that no file of the zip can hold (what was left out of the export): checked against the
# database by the format's own tests, named here so that every other count must be recomputed from the files.
NOT_IN_FILES = {
    "flickr8k": {"captions beyond the fifth (not exported)", "judgements outside the export"},
    "compositional": {"images of val2014 without a held-out pair (in no split)"},
}
UNUSED_VAL2014 = "images of val2014 without a held-out pair (in no split)"

VERIFIED: dict[str, list[str]] = {}  # format -> the studies on which its card was recomputed with records > 0
REFUSED: dict[str, list[str]] = {}  # format -> the refusals met (study: message)


@dataclass
class Recount:
    """What a reader found in the files: the card's counts (its keys, lower-case) and, when the files hold the
    word-to-box links, the human upper bound recomputed from them."""

    counts: dict[str, int]
    upper_bound: tuple[float, float, int] | None = None
    links_in_files: bool = False


def _text(archive: zipfile.ZipFile, name: str) -> str:
    return archive.read(name).decode("utf-8")


def _tsv(archive: zipfile.ZipFile, name: str, header: bool = True) -> list[list[str]]:
    lines = _text(archive, name).split("\n")
    assert lines[-1] == "", f"{name} does not end with a line break"
    rows = [line.split("\t") for line in lines[:-1]]
    return rows[1:] if header else rows


def _formulas(cells: list[str]) -> dict[str, int]:
    count = sum(cell.startswith(FORMULA_STARTS) for cell in cells)
    return {"formula-like cells": count} if count else {}


def _missing_files(archive: zipfile.ZipFile, paths: list[str]) -> dict[str, int]:
    names = set(archive.namelist())
    missing = sum(path not in names for path in paths)
    return {"images without file (by reference)": missing} if missing else {}


def _upper(images: list[ImageRecord]) -> tuple[float, float, int] | None:
    summary = human_upper_bound(images)
    return (round(summary.f_mean, 2), round(summary.f_std, 2), summary.images) if summary.images else None


def read_coco(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    from pycocotools.coco import COCO

    def load(name: str) -> COCO:
        coco = COCO()
        coco.dataset = json.loads(archive.read(name))
        coco.createIndex()
        return coco

    captions, instances = load("annotations/captions.json"), load("annotations/instances.json")
    assert captions.imgs.keys() == instances.imgs.keys()
    counts = {"images": len(instances.imgs), "categories": len(instances.cats), "boxes": len(instances.anns),
              "captions": len(captions.anns)}
    aggregated = {ann["image_id"] for ann in instances.anns.values() if "aggregation" in ann}
    if aggregated:
        counts["images_with_aggregated_boxes"] = len(aggregated)
    counts.update(_missing_files(archive, [f"images/{image['file_name']}" for image in instances.imgs.values()]))
    return Recount({**counts, "records": counts["boxes"] + counts["captions"]})


def read_imageclef(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    images = _tsv(archive, "images.tsv")
    boxes = _tsv(archive, "boxes.tsv")
    descriptions = _tsv(archive, "descriptions.tsv")
    markups = [row[4] for row in descriptions]
    counts = {"images": len(images), "concepts": len(_tsv(archive, "concepts.tsv")), "boxes": len(boxes),
              "descriptions": len(descriptions), "linked_descriptions": sum(int(row[3]) for row in descriptions),
              "links": sum(len(parse(markup).links) for markup in markups),
              **_formulas(markups), **_missing_files(archive, [row[1] for row in images])}
    records = []
    for key, _file, width, height in images:
        linked = [DescriptionRecord(f"{key}#{row[1]}", (marked := parse(row[4])).tokens, marked.links)
                  for row in descriptions if row[0] == key and row[3] == "1"]
        records.append(ImageRecord(key, int(width), int(height), [
            BoxRecord(int(row[1]), row[2], *map(float, row[3:7])) for row in boxes if row[0] == key], linked))
    return Recount({**counts, "records": counts["boxes"] + counts["descriptions"]}, _upper(records), True)


def read_flickr30k(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    sentence_files = sorted(name for name in archive.namelist() if name.startswith("Sentences/"))
    lines: list[str] = []
    records = []
    box_count = phrases = 0
    for name in sentence_files:
        key = name.removeprefix("Sentences/").removesuffix(".txt")
        text = _text(archive, name)
        lines += text.splitlines()
        sentences = read_sentences(text)
        phrases += sum(len(sentence["phrases"]) for sentence in sentences)
        root = ET.fromstring(archive.read(f"Annotations/{key}.xml"))
        box_count += len(root.findall("object"))
        # a description is linked when it has a phrase (one linked with no word is written as an unlinked one)
        linked = [DescriptionRecord(f"{key}#{n}", sentence["sentence"].split(), {
            phrase["first_word_index"] + offset: int(phrase["phrase_id"])
            for phrase in sentence["phrases"] for offset in range(len(phrase["phrase"].split()))})
            for n, sentence in enumerate(sentences) if sentence["phrases"]]
        records.append(ImageRecord(key, 0, 0, [], linked))
    counts = {"images": len(sentence_files), "boxes": box_count, "descriptions": len(lines), "phrases": phrases,
              **_formulas(lines)}
    names = set(archive.namelist())
    missing = sum(not any(n.startswith(f"images/{Path(f).stem}.") for n in names) for f in sentence_files)
    if missing:
        counts["images without file (by reference)"] = missing
    return Recount({**counts, "records": box_count + len(lines)}, _upper(records), False)


def read_flickr8k(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    tokens = _tsv(archive, "Flickr8k.token.txt", header=False)
    per_image = Counter(image_id.rsplit("#", 1)[0] for image_id, _caption in tokens)
    labels = _tsv(archive, "CrowdLabels.txt", header=False)
    crowd = _tsv(archive, "CrowdFlowerAnnotations.txt", header=False)
    counts = {"images": len(per_image), "captions": len(tokens),
              "images with fewer than five captions": sum(n < 5 for n in per_image.values()),
              **{f"{split} images": len(_tsv(archive, f"Flickr_8k.{split}Images.txt", header=False))
                 for split in ("train", "dev", "test")},
              "expert judged pairs": len(_tsv(archive, "ExpertAnnotations.txt", header=False)),
              "crowd judged pairs": len(crowd), "crowd relevant pairs": sum(row[2] == "1" for row in labels),
              "crowd unlabelled pairs (ties)": len(crowd) - len(labels),
              **_formulas([caption for _, caption in tokens])}
    return Recount({**counts, "records": len(tokens)})


def read_sind(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    counts: Counter[str] = Counter()
    story_ids: set[str] = set()
    for split in ("train", "val", "test"):
        sis = json.loads(archive.read(f"sis/{split}.story-in-sequence.json"))
        counts[f"{split} albums"] = len(sis["albums"])
        counts["albums"] += len(sis["albums"])
        storylets = [row[0] for row in sis["annotations"]]
        counts["storylets"] += len(storylets)
        story_ids |= {storylet["story_id"] for storylet in storylets}
        counts["dii"] += len(json.loads(archive.read(f"dii/{split}.description-in-isolation.json"))["annotations"])
        counts["dis"] += len(json.loads(archive.read(f"dis/{split}.description-in-sequence.json"))["annotations"])
    counts["stories"] = len(story_ids)
    names = set(archive.namelist())
    counts["ratings"] = (len(json.loads(archive.read("ratings/story-ratings.json"))["ratings"])
                         if "ratings/story-ratings.json" in names else 0)
    return Recount({**counts, "records": counts["storylets"] + counts["dii"] + counts["dis"]})


def read_compositional(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    splits = json.loads(archive.read("dataset_splits.json"))
    files = {name: json.loads(archive.read(f"{name}.json")) for name in ("train", "val", "eval")}
    counts = {"held-out pairs": len(splits["heldout_pairs"]),
              "train images": len(splits["train_images_split"]), "val images": len(splits["val_images_split"]),
              "eval images": len(splits["test_images_split"]),
              **{f"{name} captions": sum(len(record["captions"]) for record in records)
                 for name, records in files.items()}}
    assert [len(records) for records in files.values()] == [counts["train images"], counts["val images"],
                                                             counts["eval images"]]
    in_splits = counts["train images"] + counts["val images"] + counts["eval images"]
    counts["images"] = in_splits + left_out.get(UNUSED_VAL2014, 0)  # the corpus: in a split, or in none
    for pair in splits["heldout_pairs"]:
        counts[f"eval images containing {pair}"] = sum(pair in record["pairs"] for record in files["eval"])
    return Recount({**counts, "records": in_splits})


def read_assignments(archive: zipfile.ZipFile, left_out: dict[str, int]) -> Recount:
    rows = [json.loads(line) for line in _text(archive, "assignments.jsonl").splitlines()]
    return Recount({"assignments": len(rows), "records": len(rows)})


def product_formats() -> list[str]:
    """The registered formats the platform's own apps register (a test module's stand-in, such as the job-fault
    tests' slow export, is left out: it writes no card of a study)."""
    return [name for name in format_names() if not get_format(name).write.__module__.startswith("tests.")]


# Each reader is given the zip and the card's counts that no file holds (NOT_IN_FILES), for the few figures that
# add them up with what the files hold.
READERS: dict[str, Callable[[zipfile.ZipFile, dict[str, int]], Recount]] = {
    "assignments-jsonl": read_assignments, "coco": read_coco, "compositional": read_compositional,
    "flickr30k": read_flickr30k, "flickr8k": read_flickr8k, "imageclef": read_imageclef, "sind": read_sind,
}


def check_crowd_figures(card: str, archive: zipfile.ZipFile, format_name: str) -> None:
    """The campaign table against the database as it stands, and every computed worker table (all its workers
    are in report/crowd.json) against the campaign's row; the jsonl's own rows against the table."""
    table = campaign_table(card)
    crowd = {entry["campaign"]: entry for entry in json.loads(archive.read("report/crowd.json"))["campaigns"]}
    assert set(crowd) == set(table)
    for name, row in table.items():
        answered = Assignment.objects.filter(hit__campaign__name=name, confirmed=True, status__in=ANSWERED)
        assert (int(row["workers"]), int(row["approved"]), int(row["rejected"])) == (
            answered.values("worker").distinct().count(), answered.filter(status=AssignmentStatus.APPROVED).count(),
            answered.filter(status=AssignmentStatus.REJECTED).count()), name
        quality = crowd[name]["quality"]
        if quality["status"] == "computed":
            workers = quality["workers"]
            assert len(workers) == int(row["workers"]), name
            assert sum(w["approved"] for w in workers) == int(row["approved"]), name
            assert sum(w["rejected"] for w in workers) == int(row["rejected"]), name
    if format_name == "assignments-jsonl":
        rows = [json.loads(line) for line in _text(archive, "assignments.jsonl").splitlines()]
        for name in {row["campaign"] for row in rows}:
            mine = [row for row in rows if row["campaign"] == name]
            assert int(table[name]["approved"]) == sum(row["status"] == "approved" for row in mine)
            assert int(table[name]["rejected"]) == sum(row["status"] == "rejected" for row in mine)
            assert int(table[name]["workers"]) == len({row["worker"] for row in mine})


def check_content_selection(card: str, archive: zipfile.ZipFile, recount: Recount) -> None:
    """The card states the human upper bound exactly when some image has two linked descriptions, and states the
    figure the files give (from the links in them, or else from the report beside them)."""
    if "report/content_selection.json" not in archive.namelist():
        assert "Content selection" not in card
        return
    report = json.loads(archive.read("report/content_selection.json"))["upper_bound"]
    stated = upper_bound(card)
    if recount.links_in_files or recount.upper_bound is not None:
        assert stated == recount.upper_bound
    if report["images"]:
        assert stated == (round(report["f_mean"], 2), round(report["f_std"], 2), report["images"])
    else:
        assert stated is None and "F = 0.00" not in card


def check_export(study: str, format_name: str, campaigns: list[Campaign], options: dict[str, Any]) -> None:
    assert format_name in READERS, f"no reader for the registered format {format_name!r}: add one to READERS"
    buffer = io.BytesIO()
    try:
        result = write_export(format_name, buffer, campaigns, options)
    except ExportError as exc:
        assert str(exc)
        REFUSED.setdefault(format_name, []).append(f"{study}: {exc}")
        return
    archive = zipfile.ZipFile(buffer)
    card = _text(archive, "README.md")
    stated = card_counts(card)
    left_out = NOT_IN_FILES.get(format_name, set())
    recount = READERS[format_name](archive, {key: value for key, value in stated.items() if key in left_out})
    assert {key: value for key, value in stated.items() if key not in left_out} == \
        {key.replace("_", " "): value for key, value in recount.counts.items()}, f"{format_name} on {study}"
    assert result.records == stated["records"]
    check_crowd_figures(card, archive, format_name)
    check_content_selection(card, archive, recount)
    if result.records:
        VERIFIED.setdefault(format_name, []).append(study)


@dataclass
class Study:
    build: Callable[[], list[Campaign]]  # makes the study; returns its campaigns (none: the whole database only)
    options: Callable[[], dict[str, dict[str, Any]]] = field(default=lambda: {})  # per format, its export options


def _demo() -> list[Campaign]:
    call_command("seed_demo", stdout=io.StringIO())
    return []  # the whole database: the demo's campaigns are many, each already in the other studies' kinds


def _described_with_judgements() -> list[Campaign]:
    """A describe_image campaign (one caption starting like a formula) and a test pool of its images, with crowd
    judgements from a judge_caption campaign (two workers judging every caption) and imported expert grades."""
    from annotation.models import Description
    from annotation.ranking.models import CaptionJudgement
    from annotation.ranking.services.pools import create_test_pool
    from mturk.services.review import approve_assignment, approve_submitted
    from tests.factories import make_campaign, submitted
    from tests.mturk.review_builders import answer, published

    campaign = make_campaign(images=3, assignments=2)
    texts = ["=SUM(A1) a brown dog runs along the sandy beach", "Two children play football on a green field.",
             "An old man sits on a wooden bench reading.", "A woman in a red coat crosses the busy street.",
             "Three birds sit together on a telephone wire.", "A cyclist rides down a steep mountain path."]
    for text in texts:
        approve_assignment(submitted(campaign, text))
    create_test_pool("judged", all_descriptions=True)
    captions = list(Description.objects.order_by("pk"))
    judging = published("judging", "judge_caption",
                        [{"pairs": [{"image": d.image_id, "description": d.pk} for d in captions]}], assignments=2)
    for worker in range(2):
        answer(judging, {"judgements": [{"relevant": (n + worker) % 3 != 0} for n in range(len(captions))]})
    approve_submitted(judging)
    for n, description in enumerate(captions):
        CaptionJudgement.objects.create(image=description.image, description=description, source="imported",
                                        grade=1 + n % 4, judge="e")
    return [campaign, judging]


def _compositional() -> list[Campaign]:
    from annotation.compositional.services.caption_parses import parse_all
    from annotation.compositional.services.concept_pairs import load_seed_pairs
    from annotation.services.coco_import.importer import import_coco

    import_coco(Path(__file__).parent / "annotation" / "compositional" / "coco_fixture" / "captions.json")
    load_seed_pairs()
    parse_all()
    return []


def _story_chain() -> list[Campaign]:
    from storyboard.services.workflow import create_story_workflow
    from storyboard.simulation import run_story_workflow
    from tests.factories import make_album

    stages = create_story_workflow("Chain", [make_album(6) for _ in range(2)], ratings=True, publish=True,
                                   is_simulated=True)
    run_story_workflow(stages, seed=2)
    return [stages["tell"], stages["retell"]]


STUDIES: dict[str, Study] = {
    "demo (grounded, story workflow, human evaluations, a running campaign)": Study(_demo),
    "draw_boxes campaign reviewed after its quality": Study(lambda: [reviewed_boxes_campaign()]),
    "grounded workflow": Study(lambda: list(grounded_workflow_run(images=2, descriptions=2).values())),
    "story chain": Study(_story_chain),
    "ranking pool with judgements": Study(_described_with_judgements,
                                          lambda: {"flickr8k": {"test_pool": "judged"}}),
    "compositional splits": Study(_compositional, lambda: {"compositional": {"pairs": "black_cat,eat_man"}}),
}


@pytest.mark.parametrize("study", list(STUDIES))
def test_every_card_number_is_recomputed_from_the_files(study):
    campaigns = STUDIES[study].build()
    options = STUDIES[study].options()
    for format_name in product_formats():
        export_format = get_format(format_name)
        check_export(study, format_name, [], options.get(format_name, {}))
        mine = [c for c in campaigns if not export_format.kinds or c.task_kind in export_format.kinds]
        if mine:
            check_export(study, format_name, mine, options.get(format_name, {}))
        last = [c for c in campaigns if c.task_kind in export_format.kinds][-1:]  # a workflow's last stage alone
        if last and last != mine:
            check_export(study, format_name, last, options.get(format_name, {}))


def test_every_registered_format_was_verified_with_records():
    """Run with the studies above (this module): each registered format's card was recomputed on a study where it
    wrote records."""
    unverified = {name: REFUSED.get(name, []) for name in product_formats() if not VERIFIED.get(name)}
    assert not unverified, f"formats never verified with records (and their refusals): {unverified}"

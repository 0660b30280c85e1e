"""Compositional generalization end to end, through the commands a researcher types: the small COCO-format fixture
imported (import_coco, with and without its image files), the seed's pairs loaded (concept_pairs load-seed), every
caption parsed with the real parser (parse_captions), splits exported for one pair and for a held-out group
(export_dataset --format compositional), and a system's generated captions scored (evaluate_compositional).

Hand analysis of the fixture (tests/annotation/compositional/coco_fixture/captions.json), train2014 images 9, 257,
301, 302, 304, 306, 308; val2014 images 139, 285, 303, 305, 307:
- black_cat: 301 "A black cat sitting on a mat.", "A black cat sleeping on a rug.", "Two black cats sit by the
  window." (3 captions, train2014: D_val); 307 "The cat is black.", "The cats are black and sleepy." (predicative,
  2 captions, val2014: D_eval); 302 "A cat next to a black dog.", "A white cat and a black dog on the grass.",
  "A black dog lying beside a cat." have both concepts, never attached: D_train.
- Held-out group 4 (black_bird, small_dog, white_boat, big_truck, eat_horse, stand_child): 303 "A small white dog
  in the sand." (small_dog, 1 caption) and 305 "A man next to a horse that eats.", "A horse eating grass beside a
  man.", "A brown horse grazing in a field." (eat_horse, 3 captions: graze is in the authors' eat set) are
  val2014: D_eval; no train2014 caption has a pair of the group ("A small kitten"
  is small_cat, "A woman standing" is not stand_child): D_val is empty and D_train is every train2014 image.
- COCO subsets rule: D_eval is val2014 images, D_val and D_train train2014 ones; val2014 images without a held-out
  pair are in no split.
The evaluation holds out black_cat, eat_horse and small_dog together: their evaluation images are 307, 305 and 303.
"""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.compositional.models import CaptionParse, ConceptPair
from annotation.compositional.selectors import stored_pairs
from annotation.models import Description, Image, ImageOrigin
from metrics.compositional.matching import PairMatcher
from metrics.compositional.types import Parse

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "coco_fixture"
TRAIN2014 = {9, 257, 301, 302, 304, 306, 308}
VAL2014 = {139, 285, 303, 305, 307}
WITH_FILES = {9, 139, 257, 285}  # the fixture's images/ folder
GROUP_4 = {"black_bird", "small_dog", "white_boat", "big_truck", "eat_horse", "stand_child"}

# The system's captions, best first. 307 (black_cat): the pair attached only at rank 4, before it only unattached
# ("a cat next to a black dog", "a black car with a cat"); 305 (eat_horse): attached at rank 2 (participle), rank 1
# has both concepts unattached (the horse is the object); 303 (small_dog): never attached ("a small ball next to a
# white dog").
GENERATED = {
    "307": ["A cat next to a black dog.", "A black car with a cat on it.", "A cat sitting on top of a car.",
            "A black cat sitting on the hood of a car.", "A cat on a car."],
    "305": ["A man feeding a horse in a field.", "A horse eating grass next to a man.", "A man and a horse.",
            "A man standing in a field.", "A brown horse in a field."],
    "303": ["A small ball next to a white dog.", "A dog running on the beach.", "A white dog with a small ball.",
            "A dog in the sand.", "A dog playing on the beach."],
}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def import_parse(images: bool) -> None:
    options = ["--images", str(FIXTURE / "images")] if images else []
    run("import_coco", str(FIXTURE / "captions.json"), "--instances", str(FIXTURE / "instances.json"), *options)
    run("manage_concept_pairs", "load-seed")
    run("parse_captions")


def export(tmp_path: Path, *options: str) -> zipfile.ZipFile:
    out = tmp_path / f"{'-'.join(options).replace('=', '-')}.zip"
    run("export_dataset", "--format", "compositional", "--out", str(out), *options)
    return zipfile.ZipFile(out)


def member(archive: zipfile.ZipFile, name: str) -> str:
    """A file of the export by its base name, wherever the zip puts it."""
    names = [n for n in archive.namelist() if n == name or n.endswith("/" + name)]
    assert len(names) == 1, (name, archive.namelist())
    return archive.read(names[0]).decode()


def ids(values) -> set[int]:
    return {int(value) for value in values}


def stored_matches(heldout: set[str]) -> dict[int, list[frozenset[str]]]:
    """Per COCO image id, the held-out pairs each of its captions contains, matched here from the stored parses."""
    matcher = PairMatcher(stored_pairs(sorted(heldout)))
    origin = dict(ImageOrigin.objects.values_list("image_id", "external_id"))
    found: dict[int, list[frozenset[str]]] = {}
    for image_id, data in CaptionParse.objects.values_list("description__image_id", "data"):
        found.setdefault(origin[image_id], []).append(matcher.matches(Parse.from_json(data)))
    return found


def check_split(archive: zipfile.ZipFile, heldout: set[str], train: set[int], val: set[int], evaluation: set[int]):
    splits = json.loads(member(archive, "dataset_splits.json"))
    got_train, got_val = ids(splits["train_images_split"]), ids(splits["val_images_split"])
    got_eval = ids(splits["test_images_split"])
    assert (got_train, got_val, got_eval) == (train, val, evaluation)
    assert set(splits["heldout_pairs"]) == heldout
    # The invariants, from the stored parses: no D_train image has a caption containing a held-out pair, every
    # D_val and D_eval image has one; COCO's subsets decide D_val and D_eval; unmatched val2014 images are unused.
    matches = stored_matches(heldout)
    assert all(not any(m for m in matches[i]) for i in got_train)
    assert all(any(m for m in matches[i]) for i in got_val | got_eval)
    assert got_eval <= VAL2014 and got_train | got_val <= TRAIN2014
    assert {i for i in VAL2014 if any(m for m in matches[i])} == got_eval
    assert got_train | got_val == TRAIN2014
    # The split files hold the images with their captions, the evaluation images with the pairs they contain.
    eval_records = {int(r["image_id"]): r for r in json.loads(member(archive, "eval.json"))}
    assert set(eval_records) == evaluation
    for record in eval_records.values():
        assert len(record["captions"]) == 5
        assert sum(record["pairs"].values()) >= 1
    assert ids(r["image_id"] for r in json.loads(member(archive, "train.json"))) == train
    card = member(archive, "README.md")
    assert all(name in card for name in heldout)
    return eval_records


def import_and_export_pair(tmp_path: Path, images: bool) -> None:
    import_parse(images)
    assert Image.objects.count() == 12 and Description.objects.count() == 60
    assert CaptionParse.objects.count() == 60
    assert ConceptPair.objects.count() == 24
    with_file = ids(ImageOrigin.objects.filter(image__sha256__isnull=False).values_list("external_id", flat=True))
    assert with_file == (WITH_FILES if images else set())

    # One pair held out.
    records = check_split(export(tmp_path, "--pairs", "black_cat"), {"black_cat"}, train=TRAIN2014 - {301},
                          val={301}, evaluation={307})
    assert records[307]["pairs"] == {"black_cat": 2}


def test_with_image_files_the_split_is_the_same(tmp_path):
    """4 of the 12 images with their files, the others by reference: the images are matched by key all the same."""
    import_and_export_pair(tmp_path, images=True)


def test_import_parse_export_evaluate(tmp_path):
    import_and_export_pair(tmp_path, images=False)

    # A held-out group: its six pairs at once.
    records = check_split(export(tmp_path, "--group", "4"), GROUP_4, train=TRAIN2014, val=set(),
                          evaluation={303, 305})
    # The same split through the generic option.
    assert (json.loads(member(export(tmp_path, "--option", "group=4"), "dataset_splits.json"))
            == json.loads(member(export(tmp_path, "--group", "4"), "dataset_splits.json")))
    assert records[303]["pairs"] == {"small_dog": 1}
    assert records[305]["pairs"] == {"eat_horse": 3}

    # A system's generated captions for the evaluation images of black_cat, eat_horse and small_dog held out together.
    generated = tmp_path / "GENERATED.json"
    generated.write_text(json.dumps(GENERATED))
    result_path = tmp_path / "result.json"
    printed = run("evaluate_compositional", str(generated), "--pairs", "black_cat,eat_horse,small_dog", "--k", "5",
                  "--json", str(result_path))
    result = json.loads(result_path.read_text())
    recall = {row["name"]: row for row in result["recall"]["pairs"]}
    # Recall@5: 307 recalled at rank 4, 305 at rank 2, 303 never -> 1/1, 1/1, 0/1; average 2/3.
    assert {name: (row["images"], row["hits"]) for name, row in recall.items()} == {
        "black_cat": (1, 1), "eat_horse": (1, 1), "small_dog": (1, 0)}
    assert result["recall"]["average"]["recall"] == pytest.approx(2 / 3)
    assert {row["category"]: row["recall"] for row in result["recall"]["categories"]} == {
        "colour": 1.0, "transitive": 1.0, "size": 0.0}
    # Agreement: black_cat in 2 reference captions, eat_horse in 3, small_dog in 1.
    agreement = {name: [(a["images"], a["hits"]) for a in row["by_agreement"]] for name, row in recall.items()}
    assert agreement["black_cat"][:3] == [(1, 1), (1, 1), (0, 0)]
    assert agreement["eat_horse"][:4] == [(1, 1), (1, 1), (1, 1), (0, 0)]
    assert agreement["small_dog"][:2] == [(1, 0), (0, 0)]
    assert [a["recall"] for a in result["recall"]["by_agreement"][:4]] == [pytest.approx(2 / 3), 1.0, 1.0, None]
    assert "black_cat" in printed and "average" in printed

    # Recall@3: black_cat's hit (rank 4) is beyond K -> 0/1, 1/1, 0/1; average 1/3.
    run("evaluate_compositional", str(generated), "--pairs", "black_cat,eat_horse,small_dog", "--k", "3",
        "--json", str(result_path))
    result = json.loads(result_path.read_text())
    assert {row["name"]: row["hits"] for row in result["recall"]["pairs"]} == {
        "black_cat": 0, "eat_horse": 1, "small_dog": 0}
    assert result["recall"]["average"]["recall"] == pytest.approx(1 / 3)

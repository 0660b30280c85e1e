"""Flickr30k Entities round trips: the release's layout imported then exported gives the same sentences and
boxes but for the documented differences (docs/formats/flickr30k.md, "What does not round-trip"); a platform
export imported then exported again gives identical files."""
from __future__ import annotations

import pytest

from annotation.exports.flickr30k import write_flickr30k
from annotation.image_sets.models import ImageSet
from annotation.models import Box, Concept, Image, ImageOrigin, WordLink
from annotation.services.flickr30k_import.importer import import_flickr30k
from annotation.services.flickr30k_import.source import LICENCE
from tests.annotation.test_export_imageclef import build_dataset, export

from .helpers import FIXTURE, KEYS, phrases, read_boxes, sentences

pytestmark = pytest.mark.django_db

# What the export writes back, phrase by phrase, for each released sentence (see the fixture's files).
EXPORTED_PHRASES = {
    "1000000001": [
        [("Two cyclists", "1", ("people",)), ("two parked cars", "4", ("vehicles",))],  # scene phrase: words only
        [("A cyclist", "6", ("people",))],  # people/other -> the box's type; nobox, notvisual: words only
        [("Two men", "1", ("people",))],
        [],
        [("Cars", "4", ("vehicles",)), ("bikers", "1", ("people",))],  # other 1, vehicles 1: the tie -> vehicles
    ],
    "1000000002": [
        [("A brown dog", "2", ("animals",)), ("a ball", "5", ("other",))],
        [("The puppy", "2", ("animals",)), ("it", "5", ("other",))],  # entity 3 shares box 2: written as 2
        [("A dog", "2", ("animals",)), ("its toy", "5", ("other",))],
        [("A happy dog itself", "2", ("animals",))],  # two adjacent phrases of one box merge
        [("The ball", "5", ("other",))],
    ],
    "1000000003": [
        [("A woman in a hat", "1", ("people",))],  # entity 2 is nobox: "a hidden cat" words only
        [("A woman", "1", ("people",))],
        [("Someone", "1", ("people",))],
        [("The lady", "1", ("people",))],
        [("A person", "1", ("people",))],
    ],
}
EXPORTED_BOXES = {  # entity id -> boxes, 0-based as the release's reader gives them
    "1000000001": {"1": [[40, 59, 179, 299]], "4": [[229, 149, 389, 289]], "6": [[179, 69, 261, 309]],
                   "10": [[394, 159, 499, 279]]},  # entity 4's second box: a new id; box [1, 6] keeps 6
    "1000000002": {"2": [[19, 209, 299, 469]], "5": [[0, 0, 374, 499]]},  # [2, 3] keeps 2; scene 7 dropped
    "1000000003": {"1": [[100, 20, 329, 374]]},  # nobox 2 dropped
}


def released(key: str, folder: str) -> str:
    suffix = "txt" if folder == "Sentences" else "xml"
    return (FIXTURE / folder / f"{key}.{suffix}").read_text()


def test_the_release_imports_with_what_the_model_holds():
    summary = import_flickr30k(FIXTURE)
    assert (summary.images_by_reference, summary.boxes, summary.descriptions) == (4, 9, 20)
    assert (summary.correspondences, summary.links, summary.phrases_linked) == (18, 53, 26)
    assert (summary.phrases_nobox, summary.phrases_scene, summary.phrases_notvisual) == (2, 5, 2)
    assert summary.names_dropped == 3 and summary.concepts_created == 4
    assert dict(ImageOrigin.objects.values_list("external_id", "subset")) == {
        1000000001: "train", 1000000002: "train", 1000000003: "val", 1000000004: "test"}
    image = Image.objects.get(key="1000000001")
    assert (image.has_file, image.width, image.height, image.original_name) == (False, 500, 333, "1000000001.jpg")
    assert sorted(Concept.objects.filter(vocabulary__name="flickr30k").values_list("name", flat=True)) == [
        "animals", "other", "people", "vehicles"]
    assert list(Box.objects.filter(image=image).values_list("number", "concept__name", "x", "y", "width", "height")) \
        == [(1, "people", 40, 59, 140, 241), (4, "vehicles", 229, 149, 161, 141), (6, "people", 179, 69, 83, 241),
            (10, "vehicles", 394, 159, 106, 121)]
    first = image.descriptions.order_by("pk").first()
    assert first is not None and first.tokens[:3] == ["Two", "cyclists", "ride"] and first.source == "flickr30k"
    assert dict(WordLink.objects.filter(correspondence__description=first).values_list(
        "token_index", "box__number")) == {0: 1, 1: 1, 4: 4, 5: 4, 6: 4}
    collection = ImageSet.objects.get(name="Flickr30k Entities")
    assert (collection.source, collection.licence, collection.members.count()) == ("flickr30k", LICENCE, 4)


def test_release_to_export_keeps_sentences_and_boxes_but_the_documented_differences():
    import_flickr30k(FIXTURE)
    _, _, archive = export(write_flickr30k)
    for key in KEYS:
        text = archive.read(f"Sentences/{key}.txt").decode()
        assert sentences(text) == sentences(released(key, "Sentences"))  # every word as released
        exported = read_boxes(archive.read(f"Annotations/{key}.xml"))
        assert exported["size"] == read_boxes(released(key, "Annotations"))["size"]
        assert exported["scene"] == exported["nobox"] == []
        if key in EXPORTED_PHRASES:
            assert phrases(text) == EXPORTED_PHRASES[key]
            assert exported["boxes"] == EXPORTED_BOXES[key]
    # an image whose entities have one box each and whose phrases one type each comes back unchanged
    key = "1000000004"
    assert phrases(archive.read(f"Sentences/{key}.txt").decode()) == phrases(released(key, "Sentences"))
    assert read_boxes(archive.read(f"Annotations/{key}.xml")) == read_boxes(released(key, "Annotations"))


def test_platform_export_imports_back_to_identical_files(tmp_path):
    build_dataset()
    _, _, first = export(write_flickr30k)
    names = sorted(name for name in first.namelist() if not name.startswith("images/"))
    release = tmp_path / "export.zip"
    release.write_bytes(first.fp.getvalue())  # type: ignore[union-attr]
    Image.objects.all().delete()
    summary = import_flickr30k(release)
    assert (summary.images_with_file, summary.images_by_reference) == (2, 0)
    assert not ImageOrigin.objects.exists()  # keys that are not Flickr ids get no origin
    _, _, second = export(write_flickr30k)
    assert sorted(n for n in second.namelist() if not n.startswith("images/")) == names
    for name in names:
        assert second.read(name) == first.read(name), name
    assert sorted(second.namelist()) == sorted(first.namelist())


def test_export_import_export_of_an_imported_release_is_stable(tmp_path):
    import_flickr30k(FIXTURE)
    _, _, first = export(write_flickr30k)
    release = tmp_path / "export.zip"
    release.write_bytes(first.fp.getvalue())  # type: ignore[union-attr]
    Image.objects.all().delete()
    import_flickr30k(release)
    _, _, second = export(write_flickr30k)
    for name in first.namelist():
        assert second.read(name) == first.read(name), name

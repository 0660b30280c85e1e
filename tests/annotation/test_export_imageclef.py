"""ImageCLEF-style export: golden files (regenerate with UPDATE_GOLDEN=1, then review them by eye).

The small dataset and the golden helpers here are shared by the COCO and Flickr30k export tests."""
from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from annotation.exports.imageclef import write_imageclef
from annotation.models import Concept, Description, Image
from annotation.selectors import GroundedDataset, grounded_dataset
from annotation.services.boxes import BoxSpec, add_boxes, add_correspondence
from metrics.text.markup import tokenize
from mturk.datasets.formats import ExportBundle, ExportError
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"


def build_dataset() -> dict[str, Image]:
    """Two images with fixed keys, concepts with parents, boxes (numbers with gaps), descriptions with and
    without links, one without a correspondence, one with a second correspondence, one simulated."""
    person = Concept.objects.create(vocabulary=label_vocabulary(),
                                    name="person", synset="person.n.01", synonyms=["human", "people"])
    vehicle = Concept.objects.create(vocabulary=label_vocabulary(), name="motor vehicle", synset="motor_vehicle.n.01")
    woman = Concept.objects.create(vocabulary=label_vocabulary(),
                                   name="woman", synset="woman.n.01", synonyms=["lady", "girl"], parent=person)
    dress = Concept.objects.create(vocabulary=label_vocabulary(), name="dress", synset="dress.n.01", synonyms=["frock"])
    car = Concept.objects.create(vocabulary=label_vocabulary(),
                                 name="car", synset="car.n.01", synonyms=["automobile", "auto"], parent=vehicle)
    boot = Concept.objects.create(vocabulary=label_vocabulary(), name="boot", synset="boot.n.01")
    Concept.objects.create(vocabulary=label_vocabulary(),
                           name="tree", synset="tree.n.01")  # used by no box: not exported
    img_a = make_image("img-a.png", size=(200, 150), colour=(200, 30, 30))
    img_b = make_image("img-b.jpg", fmt="JPEG", size=(120, 90), colour=(30, 30, 200))
    assert (img_a.key, img_b.key) == ("img-a", "img-b")
    add_boxes(img_a, [BoxSpec(dress.pk, 60, 70, 30, 50), BoxSpec(woman.pk, 50, 20, 50, 120),
                      BoxSpec(car.pk, 110, 60, 85, 50), BoxSpec(boot.pk, 70, 130, 12, 10)],
              source="gold", numbers=[0, 2, 3, 5])
    add_boxes(img_b, [BoxSpec(woman.pk, 0, 0, 120, 90), BoxSpec(car.pk, 10, 40, 30, 20)], source="gold")

    def describe(image: Image, text: str, source: str = "crowd", *links: dict[int, int]) -> Description:
        description = Description.objects.create(image=image, text=text, tokens=tokenize(text), source=source)
        for found in links:
            add_correspondence(description, found, source="crowd")
        return description

    # "young woman" -> one phrase (box 2), "white dress" -> one phrase (box 0); the second correspondence is ignored
    describe(img_a, "A young woman in a white dress leans on a car.", "gold",
             {1: 2, 2: 2, 5: 0, 6: 0, 10: 3}, {2: 2})
    describe(img_a, "Someone parked a car near a woman.")  # no correspondence yet
    describe(img_a, "woman dress boot", "simulated", {0: 2, 1: 0, 2: 5})  # adjacent tokens, different boxes
    describe(img_b, 'She said "hi" to the café & its car.', "crowd", {})  # linked, with zero links
    describe(img_b, "A woman beside a car.", "crowd", {1: 0, 4: 1})
    return {"img-a": img_a, "img-b": img_b}


def export(writer: Callable[[ExportBundle, GroundedDataset], int],
           dataset: GroundedDataset | None = None) -> tuple[int, ExportBundle, zipfile.ZipFile]:
    """Run a writer into an in-memory zip; returns (records, bundle, the zip opened for reading)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        bundle = ExportBundle(archive)
        records = writer(bundle, dataset if dataset is not None else grounded_dataset())
    buffer.seek(0)
    return records, bundle, zipfile.ZipFile(buffer)


def assert_golden(archive: zipfile.ZipFile, folder: str, names: list[str]) -> None:
    """Each file equals tests/annotation/golden/<folder>/<name> byte for byte (UPDATE_GOLDEN=1 rewrites them)."""
    for name in names:
        data = archive.read(name)
        golden = GOLDEN / folder / name
        if os.environ.get("UPDATE_GOLDEN"):
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_bytes(data)
        assert golden.exists(), f"no golden file {golden} (run with UPDATE_GOLDEN=1 and review it)"
        assert data == golden.read_bytes(), f"{name} differs from {golden}"


TEXT_FILES = ["concepts.tsv", "images.tsv", "boxes.tsv", "descriptions.tsv"]


def test_imageclef_export_matches_golden_files():
    images = build_dataset()
    records, bundle, archive = export(write_imageclef)
    assert records == 6 + 5  # every record written: the boxes and the descriptions
    assert sorted(archive.namelist()) == sorted(TEXT_FILES + ["images/img-a.png", "images/img-b.jpg"])
    assert_golden(archive, "imageclef", TEXT_FILES)
    for key, image in images.items():
        with image.original.open("rb") as handle:
            assert archive.read(f"images/{key}.{'png' if key == 'img-a' else 'jpg'}") == handle.read()
    assert bundle.counts == {"images": 2, "concepts": 6, "boxes": 6, "descriptions": 5, "linked_descriptions": 4,
                             "links": 10}
    assert bundle.simulated
    assert len(bundle.notes) == 2 and "imageclef.md" in bundle.notes[0]
    assert bundle.notes[1] == ("Not collected by a campaign of this platform (imported, or made by its demo): 6 boxes "
                               "(source `gold`); 3 descriptions (source `crowd`); 1 description (source `gold`); "
                               "1 description (source `simulated`); 4 descriptions' word-to-box links.")


def test_imageclef_export_is_not_simulated_without_simulated_records():
    build_dataset()
    Description.objects.filter(source="simulated").delete()
    records, bundle, _ = export(write_imageclef)
    assert records == 6 + 4 and not bundle.simulated


def test_markup_column_reads_back_as_the_tokens_and_first_links():
    from metrics.text.markup import parse

    build_dataset()
    dataset = grounded_dataset()
    _, _, archive = export(write_imageclef, dataset)
    lines = archive.read("descriptions.tsv").decode().splitlines()[1:]
    rows = [d for image in dataset.images for d in dataset.descriptions[image.pk]]
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows, strict=True):
        image, number, source, linked, markup = line.split("\t")
        marked = parse(markup)
        assert (marked.tokens, marked.links, source) == (row.tokens, row.links or {}, row.source)
        assert linked == ("1" if row.links is not None else "0")


def test_unexportable_image_key_is_refused():
    build_dataset()
    Image.objects.filter(key="img-b").update(key="bad\tkey")
    with pytest.raises(ExportError, match="contains a tab"):
        export(write_imageclef)

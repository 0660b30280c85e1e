"""Flickr30k Entities export: golden files, phrase merging, 1-based inclusive box coordinates."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from annotation.exports.flickr30k import entity_type, phrase_sentence, write_flickr30k
from tests.annotation.test_export_imageclef import assert_golden, build_dataset, export

pytestmark = pytest.mark.django_db

TEXT_FILES = ["Sentences/img-a.txt", "Sentences/img-b.txt", "Annotations/img-a.xml", "Annotations/img-b.xml"]


def test_flickr30k_export_matches_golden_files():
    build_dataset()
    records, bundle, archive = export(write_flickr30k)
    assert records == 5
    assert sorted(archive.namelist()) == sorted(TEXT_FILES + ["images/img-a.png", "images/img-b.jpg"])
    assert_golden(archive, "flickr30k", TEXT_FILES)
    assert bundle.counts == {"images": 2, "boxes": 6, "descriptions": 5, "phrases": 8}
    assert bundle.simulated and "flickr30k.md" in bundle.notes[0]


def test_annotation_boxes_are_one_based_and_inclusive():
    build_dataset()
    _, _, archive = export(write_flickr30k)
    root = ET.fromstring(archive.read("Annotations/img-b.xml"))
    assert root.findtext("filename") == "img-b.jpg"
    assert [root.findtext(f"size/{tag}") for tag in ("width", "height", "depth")] == ["120", "90", "3"]
    boxes = {o.findtext("name"): [int(o.findtext(f"bndbox/{t}")) for t in ("xmin", "ymin", "xmax", "ymax")]
             for o in root.iter("object")}
    assert boxes == {"0": [1, 1, 120, 90], "1": [11, 41, 40, 60]}  # the whole 120x90 image; (10, 40, 30x20)


def test_phrases_merge_runs_linked_to_the_same_box_only():
    types = {0: "dress", 2: "person"}
    tokens = ["a", "young", "woman", "white", "dress", "woman"]
    assert phrase_sentence(tokens, {1: 2, 2: 2, 3: 0, 4: 0, 5: 2}, types) == (
        "a [/EN#2/person young woman] [/EN#0/dress white dress] [/EN#2/person woman]", 3
    )
    assert phrase_sentence(tokens, {}, types) == ("a young woman white dress woman", 0)
    assert entity_type("Motor  Vehicle") == "motor_vehicle"


def test_xml_special_characters_are_escaped(settings):
    from annotation.exports.flickr30k import annotation_xml
    from annotation.selectors import BoxRow, ImageRow

    text = annotation_xml(ImageRow(1, "a&b", "a&b<1>.png", "x.png", 10, 10), [BoxRow(0, "car", 0, 0, 10, 10)])
    assert "<filename>a&amp;b&lt;1&gt;.png</filename>" in text
    assert ET.fromstring(text).findtext("filename") == "a&b<1>.png"

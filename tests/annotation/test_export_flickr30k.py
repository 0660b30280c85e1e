"""Flickr30k Entities export: golden files, phrase merging, 1-based inclusive box coordinates, and sentence files
that the data set's own reader reads whatever workers typed (literal brackets escaped)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from annotation.exports.flickr30k import entity_type, phrase_sentence, write_flickr30k
from annotation.models import Concept, Description, Image
from annotation.services.boxes import BoxSpec, add_boxes, add_correspondence
from metrics.text.markup import tokenize
from tests.annotation.flickr30k_reader import read_sentences
from tests.annotation.test_export_imageclef import assert_golden, build_dataset, export
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db

TEXT_FILES = ["Sentences/img-a.txt", "Sentences/img-b.txt", "Annotations/img-a.xml", "Annotations/img-b.xml"]


def test_flickr30k_export_matches_golden_files():
    build_dataset()
    records, bundle, archive = export(write_flickr30k)
    assert records == 6 + 5  # every record written: the boxes and the descriptions
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


def unescape(text: str) -> str:
    """The documented way back from a sentence file's words to the typed tokens."""
    return text.replace("-LSB-", "[").replace("-RSB-", "]")


def bracket_dataset() -> tuple[Image, list[tuple[list[str], dict[int, int]]]]:
    """One image whose crowd descriptions hold literal brackets everywhere: alone, glued to words, inside
    linked phrases, at their ends, and a fake phrase opener."""
    shirt = Concept.objects.create(vocabulary=label_vocabulary(), name="T/shirt [top]", synset="shirt.n.01")
    sign = Concept.objects.create(vocabulary=label_vocabulary(), name="sign", synset="sign.n.02")
    image = make_image("img-c.png", size=(100, 80))
    add_boxes(image, [BoxSpec(shirt.pk, 0, 0, 50, 40), BoxSpec(sign.pk, 50, 40, 50, 40)], source="gold")
    described = [
        ("Stop at the [stop] sign.", {4: 1, 5: 1}),                 # "stop ]" linked: a phrase ending in "]"
        ("a [ b", {1: 0}),                                         # a lone "[" linked alone
        ("]", {}),
        ("[/EN#3/people fake] phrase", {0: 1, 1: 1, 2: 1}),        # an opener typed by a worker
        ("[[", {}),
    ]
    expected = []
    for text, links in described:
        tokens = tokenize(text)
        description = Description.objects.create(image=image, text=text, tokens=tokens, source="crowd")
        add_correspondence(description, links, source="crowd")
        expected.append((tokens, links))
    # tokens as an ImageCLEF import may store them (whitespace-split markup): brackets inside words
    tokens = ["x[y", "stop]", "[go", "z"]
    description = Description.objects.create(image=image, text=" ".join(tokens), tokens=tokens, source="crowd")
    add_correspondence(description, {1: 0, 2: 0}, source="crowd")
    expected.append((tokens, {1: 0, 2: 0}))
    return image, expected


def test_the_official_reader_reads_sentences_with_literal_brackets():
    image, expected = bracket_dataset()
    _, bundle, archive = export(write_flickr30k)
    sentences = read_sentences(archive.read(f"Sentences/{image.key}.txt").decode("utf-8"))
    assert len(sentences) == len(expected)
    for read, (tokens, links) in zip(sentences, expected, strict=True):
        assert [unescape(word) for word in read["sentence"].split(" ")] == tokens
        runs = []  # the expected phrases: runs of consecutive tokens linked to one box
        for index, token in enumerate(tokens):
            if index in links and runs and runs[-1][2] == links[index] and runs[-1][1] == index - 1:
                runs[-1] = (runs[-1][0], index, links[index], [*runs[-1][3], token])
            elif index in links:
                runs.append((index, index, links[index], [token]))
        assert [(phrase["first_word_index"], unescape(phrase["phrase"]), phrase["phrase_id"], phrase["phrase_type"])
                for phrase in read["phrases"]] == [
            (first, " ".join(words), str(box), ["t_shirt__top_" if box == 0 else "sign"])
            for first, _, box, words in runs]
    assert "-LSB-" in bundle.notes[0] and "-RSB-" in bundle.notes[0]


def test_escapes_and_types():
    assert phrase_sentence(["[", "stop", "]"], {1: 0, 2: 0}, {0: "sign"}) == ("-LSB- [/EN#0/sign stop -RSB-]", 1)
    assert phrase_sentence(["a[b]c"], {}, {}) == ("a-LSB-b-RSB-c", 0)
    assert entity_type("T/Shirt [Top]") == "t_shirt__top_"

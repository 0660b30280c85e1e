"""Importing the ImageCLEF-style layout: round trip with the export, and every kind of bad input changes nothing."""
from __future__ import annotations

import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.exports.imageclef import write_imageclef
from annotation.models import Box, Concept, Correspondence, Description, Image, Vocabulary, WordLink
from annotation.selectors import grounded_dataset
from annotation.services.imageclef_import import importer
from annotation.services.imageclef_import.importer import import_imageclef
from annotation.services.imageclef_import.source import ImageCLEFImportError
from annotation.services.images import import_image_bytes
from tests.annotation.test_export_imageclef import export
from tests.factories import image_bytes, label_vocabulary, make_image

pytestmark = pytest.mark.django_db

CONCEPTS_TSV = """name\tsynset\tsynonyms\tparent
boot\tboot.n.01\t\t
car\tcar.n.01\tautomobile;auto\tmotor vehicle
dress\tdress.n.01\tfrock\t
motor vehicle\tmotor_vehicle.n.01\t\t
person\tperson.n.01\thuman;people\t
woman\twoman.n.01\tlady;girl\tperson
"""
IMAGES_TSV = """image\tfile\twidth\theight
img-a\timages/img-a.png\t200\t150
img-b\timages/img-b.jpg\t120\t90
"""
BOXES_TSV = """image\tbox\tconcept\tx\ty\twidth\theight
img-a\t0\tdress\t60\t70\t30\t50
img-a\t2\twoman\t50\t20\t50\t120
img-a\t3\tcar\t110\t60\t85\t50
img-a\t5\tboot\t70\t130\t12\t10
img-b\t0\twoman\t0\t0\t120\t90
img-b\t1\tcar\t10\t40\t30\t20
"""
DESCRIPTIONS_TSV = """image\tdescription\tsource\tlinked\tmarkup
img-a\t1\tgold\t1\tA [young]^2 [woman]^2 in a [white]^0 [dress]^0 leans on a [car]^3 .
img-a\t2\tcrowd\t0\tSomeone parked a car near a woman .
img-a\t3\tsimulated\t1\t[woman]^2 [dress]^0 [boot]^5
img-b\t1\tcrowd\t1\tShe said " hi " to the café & its car .
img-b\t2\tcrowd\t1\tA [woman]^0 beside a [car]^1 .
"""
TEXT_FILES = {"concepts.tsv": CONCEPTS_TSV, "images.tsv": IMAGES_TSV, "boxes.tsv": BOXES_TSV,
              "descriptions.tsv": DESCRIPTIONS_TSV}


def png_a() -> bytes:
    return image_bytes("PNG", size=(200, 150), colour=(200, 30, 30))


def jpeg_b() -> bytes:
    return image_bytes("JPEG", size=(120, 90), colour=(30, 30, 200))


def dataset_dir(root: Path, **changes: str | bytes | None) -> Path:
    """A valid dataset directory; `changes` replaces files ("images__img-a.png" for images/img-a.png), None removes."""
    files: dict[str, str | bytes] = {**TEXT_FILES, "images/img-a.png": png_a(), "images/img-b.jpg": jpeg_b()}
    for name, content in changes.items():
        name = name.replace("__", "/")
        if content is None:
            files.pop(name)
        else:
            files[name] = content
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count()
            for model in (Image, Concept, Vocabulary, Box, Description, Correspondence, WordLink)}


def stored_files(media_root: Path) -> list[str]:
    return sorted(str(p.relative_to(media_root)) for p in media_root.rglob("*") if p.is_file())


def snapshot() -> dict:
    """Everything an import writes, independent of primary keys."""
    return {
        "concepts": sorted((c.name, c.synset, c.synonyms, c.parent.name if c.parent else "")
                           for c in Concept.objects.select_related("parent")),
        "vocabularies": sorted((v.name, sorted(c.name for c in v.concepts.all())) for v in Vocabulary.objects.all()),
        "images": sorted((i.key, i.sha256, i.width, i.height, i.format) for i in Image.objects.all()),
        "boxes": sorted((b.image.key, b.number, b.concept.name, b.x, b.y, b.width, b.height, b.source)
                        for b in Box.objects.select_related("image", "concept")),
        "descriptions": [
            (d.image.key, d.text, d.tokens, d.source,
             [(c.source, [(link.token_index, link.box.number) for link in c.links.select_related("box")])
              for c in d.correspondences.all()])
            for d in Description.objects.select_related("image").order_by("image__key", "pk")
        ],
    }


def wipe_annotation_tables() -> None:
    for image in Image.objects.all():
        image.original.delete(save=False)
    Image.objects.all().delete()  # boxes, descriptions, correspondences and links go with their images
    Vocabulary.objects.all().delete()
    Concept.objects.all().delete()


def test_import_creates_everything_with_the_given_numbers(tmp_path):
    summary = import_imageclef(dataset_dir(tmp_path / "my-data"))
    assert (summary.vocabulary, summary.concepts_created, summary.images, summary.images_reused) == ("my-data", 6,
                                                                                                      2, 0)
    assert (summary.boxes, summary.descriptions, summary.correspondences, summary.links) == (6, 5, 4, 10)
    state = snapshot()
    assert ("car", "car.n.01", ["automobile", "auto"], "motor vehicle") in state["concepts"]
    assert state["vocabularies"] == [("my-data", ["boot", "car", "dress", "motor vehicle", "person", "woman"])]
    assert [b[:3] for b in state["boxes"]] == [("img-a", 0, "dress"), ("img-a", 2, "woman"), ("img-a", 3, "car"),
                                               ("img-a", 5, "boot"), ("img-b", 0, "woman"), ("img-b", 1, "car")]
    assert {b[-1] for b in state["boxes"]} == {"gold"}
    first, unlinked, simulated, zero_links, last = state["descriptions"]
    assert first == ("img-a", "A young woman in a white dress leans on a car .",
                     ["A", "young", "woman", "in", "a", "white", "dress", "leans", "on", "a", "car", "."], "gold",
                     [("gold", [(1, 2), (2, 2), (5, 0), (6, 0), (10, 3)])])
    assert unlinked[3:] == ("crowd", [])
    assert simulated[3] == "simulated"
    assert zero_links[1:] == ('She said " hi " to the café & its car .',
                              ["She", "said", '"', "hi", '"', "to", "the", "café", "&", "its", "car", "."],
                              "crowd", [("gold", [])])
    assert last[4] == [("gold", [(1, 0), (4, 1)])]


def test_round_trip_import_export_import_export(tmp_path, media_root):
    source = dataset_dir(tmp_path / "source")
    import_imageclef(source, vocabulary="roundtrip")
    first_state = snapshot()
    _, _, first = export(write_imageclef, grounded_dataset())
    for name, text in TEXT_FILES.items():  # the canonical files come back unchanged
        assert first.read(name).decode() == text, name
    assert first.read("images/img-a.png") == png_a() and first.read("images/img-b.jpg") == jpeg_b()
    exported = tmp_path / "exported"
    first.extractall(exported)

    wipe_annotation_tables()
    assert counts() == dict.fromkeys(counts(), 0)
    import_imageclef(exported, vocabulary="roundtrip")
    assert snapshot() == first_state
    _, _, second = export(write_imageclef, grounded_dataset())
    assert sorted(second.namelist()) == sorted(first.namelist())
    for name in first.namelist():
        assert second.read(name) == first.read(name), name


def test_zip_with_a_top_level_folder(tmp_path):
    folder = dataset_dir(tmp_path / "src")
    path = tmp_path / "challenge-2025.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file in folder.rglob("*"):
            if file.is_file():
                archive.write(file, f"challenge/{file.relative_to(folder).as_posix()}")
    summary = import_imageclef(path)
    assert (summary.vocabulary, summary.images, summary.boxes, summary.descriptions) == ("challenge-2025", 2, 6, 5)


def replaced(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


BAD_INPUTS = {
    "missing file": ({"descriptions.tsv": None}, "descriptions.tsv: file missing"),
    "not text": ({"boxes.tsv": BOXES_TSV.encode("utf-8") + b"img-a\t9\t\xff\t1\t1\t1\t1\n"},
                  "boxes.tsv: not text: the file looks damaged at byte 196 (line 8)"),
    "bad concepts.tsv": ({"concepts.tsv": replaced(CONCEPTS_TSV, "motor vehicle\tmotor_vehicle.n.01\t\t\n", "")},
                         "concepts.tsv line 3: unknown parent concept 'motor vehicle'"),
    "images header": ({"images.tsv": replaced(IMAGES_TSV, "\tfile\t", "\tpath\t")},
                      "images.tsv line 1: expected the header image / file / width / height (tab-separated)"),
    "images columns": ({"images.tsv": replaced(IMAGES_TSV, "\t200\t150", "\t200")},
                       "images.tsv line 2: expected 4 tab-separated columns, found 3"),
    "duplicate image key": ({"images.tsv": IMAGES_TSV + "img-a\timages/img-c.png\t10\t10\n"},
                            "images.tsv line 4: image 'img-a' is already listed on line 2"),
    "bad image key": ({"images.tsv": replaced(IMAGES_TSV, "img-b\t", ".img-b\t")},
                      "images.tsv line 3: the image key '.img-b' starts with '.'"),
    "image key with a slash": ({"images.tsv": replaced(IMAGES_TSV, "img-b\t", "img/b\t")},
                               "images.tsv line 3: the image key 'img/b' contains a tab, a line break or a slash"),
    "unsafe file path": ({"images.tsv": replaced(IMAGES_TSV, "images/img-b.jpg", "../img-b.jpg")},
                         "images.tsv line 3: image file '../img-b.jpg': entry escapes the target folder"),
    "image file missing": ({"images__img-b.jpg": None}, "images.tsv line 3: image file 'images/img-b.jpg' is missing"),
    "image file unreadable": ({"images__img-a.png": b"not an image"},
                              "images.tsv line 2: image file 'images/img-a.png' cannot be used: not an image"),
    "image size mismatch": ({"images.tsv": replaced(IMAGES_TSV, "\t200\t150", "\t201\t150")},
                            "images.tsv line 2: the size 201x150 does not match the image file 'images/img-a.png' "
                            "(200x150)"),
    "same content twice": ({"images.tsv": IMAGES_TSV + "img-c\timages/img-c.png\t200\t150\n",
                            "images__img-c.png": png_a()},
                           "images.tsv line 4: image file 'images/img-c.png' has the same content as image 'img-a'"),
    "boxes header": ({"boxes.tsv": replaced(BOXES_TSV, "\tconcept\t", "\tlabel\t")},
                     "boxes.tsv line 1: expected the header image / box / concept / x / y / width / height"),
    "boxes columns": ({"boxes.tsv": replaced(BOXES_TSV, "\t50\t20\t50\t120", "\t50\t20\t50")},
                      "boxes.tsv line 3: expected 7 tab-separated columns, found 6"),
    "non-integer coordinate": ({"boxes.tsv": replaced(BOXES_TSV, "dress\t60\t", "dress\t60.5\t")},
                               "boxes.tsv line 2: x must be a whole number of pixels, got '60.5'"),
    "box outside the image": ({"boxes.tsv": replaced(BOXES_TSV, "\t110\t60\t85\t50", "\t110\t60\t95\t50")},
                              "boxes.tsv line 4: (110, 60, 95x50) lies outside the image (200x150 px)"),
    "negative box": ({"boxes.tsv": replaced(BOXES_TSV, "img-b\t1\tcar\t10\t", "img-b\t1\tcar\t-1\t")},
                     "boxes.tsv line 7: (-1, 40, 30x20) lies outside the image (120x90 px)"),
    "duplicate box number": ({"boxes.tsv": replaced(BOXES_TSV, "img-a\t5\tboot", "img-a\t3\tboot")},
                             "boxes.tsv line 5: box 3 of image 'img-a' is already defined on line 4"),
    "bad box number": ({"boxes.tsv": replaced(BOXES_TSV, "img-a\t5\tboot", "img-a\tfive\tboot")},
                       "boxes.tsv line 5: the box id must be a whole number from 0 to 2147483647, got 'five'"),
    "unknown concept": ({"boxes.tsv": replaced(BOXES_TSV, "\tboot\t", "\twolf\t")},
                        "boxes.tsv line 5: unknown concept 'wolf'"),
    "unknown image in boxes": ({"boxes.tsv": replaced(BOXES_TSV, "img-b\t1\t", "img-c\t1\t")},
                               "boxes.tsv line 7: unknown image 'img-c' (not in images.tsv)"),
    "descriptions header": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "\tlinked\t", "\tlinks\t")},
                            "descriptions.tsv line 1: expected the header image / description / source / linked / "
                            "markup"),
    "descriptions columns": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "img-b\t2\tcrowd\t1\t", "img-b\t2\t1\t")},
                             "descriptions.tsv line 6: expected 5 tab-separated columns, found 4"),
    "unknown image in descriptions": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "img-b\t2\t", "img-z\t2\t")},
                                      "descriptions.tsv line 6: unknown image 'img-z' (not in images.tsv)"),
    "malformed markup": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "[young]^2", "[young]^x")},
                         "descriptions.tsv line 2: malformed markup: malformed link '[young]^x'"),
    "two words in a bracket": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "[young]^2 [woman]^2",
                                                             "[young woman]^2")},
                               "descriptions.tsv line 2: malformed markup: malformed link 'woman]^2'"),
    "empty markup": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "crowd\t0\tSomeone parked a car near a woman .",
                                                   "crowd\t0\t")},
                     "descriptions.tsv line 3: malformed markup: empty description"),
    "link to a missing box": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "[car]^3", "[car]^4")},
                              "descriptions.tsv line 2: image 'img-a' has no box 4"),
    "box of another image": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "[boot]^5", "[boot]^1")},
                             "descriptions.tsv line 4: image 'img-a' has no box 1"),
    "linked not 0/1": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "crowd\t0\t", "crowd\tno\t")},
                       "descriptions.tsv line 3: linked must be 0 or 1, got 'no'"),
    "links but linked 0": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "simulated\t1\t", "simulated\t0\t")},
                           "descriptions.tsv line 4: the markup has links but linked is 0"),
    "duplicate description number": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "img-a\t3\t", "img-a\t2\t")},
                                     "descriptions.tsv line 4: description 2 of image 'img-a' is already given on "
                                     "line 3"),
    "bad source": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "\tgold\t", "\tgold standard\t")},
                   "descriptions.tsv line 2: the source must be a word"),
    "NUL in a markup": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "Someone parked", "Some\x00one parked")},
                        "descriptions.tsv line 3: column 5 holds a NUL character"),
    "NUL in a key": ({"images.tsv": replaced(IMAGES_TSV, "img-b\t", "img\x00b\t")},
                     "images.tsv line 3: column 1 holds a NUL character"),
    "NUL in concepts.tsv": ({"concepts.tsv": replaced(CONCEPTS_TSV, "boot\tboot.n.01", "bo\x00ot\tboot.n.01")},
                            "concepts.tsv line 2: the name holds a NUL character"),
    "huge box number": ({"boxes.tsv": replaced(BOXES_TSV, "img-a\t5\tboot", "img-a\t" + "9" * 5000 + "\tboot")},
                        "boxes.tsv line 5: the box id must be a whole number from 0 to 2147483647"),
    "box number over int32": ({"boxes.tsv": replaced(BOXES_TSV, "img-a\t5\tboot", "img-a\t2147483648\tboot")},
                              "boxes.tsv line 5: the box id must be a whole number from 0 to 2147483647"),
    "huge coordinate": ({"boxes.tsv": replaced(BOXES_TSV, "dress\t60\t", "dress\t" + "6" * 5000 + "\t")},
                        "boxes.tsv line 2: x must be a whole number of pixels"),
    "huge width": ({"images.tsv": replaced(IMAGES_TSV, "\t200\t150", "\t" + "2" * 5000 + "\t150")},
                   "images.tsv line 2: width and height must be whole numbers of pixels"),
    "huge description number": ({"descriptions.tsv": replaced(DESCRIPTIONS_TSV, "img-a\t3\t", "img-a\t" + "3" * 5000
                                                              + "\t")},
                                "descriptions.tsv line 4: the description number must be a whole number from 1"),
    "over-long key": ({"images.tsv": replaced(IMAGES_TSV, "img-b\t", "b" * 201 + "\t")},
                      "images.tsv line 3: the image key is 201 characters long (at most 200)"),
}


@pytest.mark.parametrize("changes, expected", list(BAD_INPUTS.values()), ids=list(BAD_INPUTS))
def test_bad_input_is_reported_with_file_and_line_and_changes_nothing(tmp_path, media_root, changes, expected):
    make_image("unrelated.png")  # the database is not empty
    Concept.objects.create(vocabulary=label_vocabulary(), name="tree")
    before, files_before = counts(), stored_files(media_root)
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(dataset_dir(tmp_path / "data", **changes))
    assert any(error.startswith(expected) for error in caught.value.errors), caught.value.errors
    assert counts() == before
    assert stored_files(media_root) == files_before


def test_every_problem_is_reported_at_once(tmp_path):
    folder = dataset_dir(
        tmp_path / "data",
        **{"boxes.tsv": replaced(BOXES_TSV, "\tboot\t", "\twolf\t"),
           "descriptions.tsv": replaced(DESCRIPTIONS_TSV, "crowd\t0\t", "crowd\t2\t"),
           "images__img-b.jpg": None},
    )
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(folder)
    assert caught.value.errors == [
        "images.tsv line 3: image file 'images/img-b.jpg' is missing",
        "boxes.tsv line 5: unknown concept 'wolf'",
        "descriptions.tsv line 3: linked must be 0 or 1, got '2'",
    ]
    assert counts() == dict.fromkeys(counts(), 0)


def test_labels_the_vocabulary_already_has_may_be_used(tmp_path):
    Concept.objects.create(vocabulary=label_vocabulary("street"), name="tree", synset="tree.n.01")
    extra_box = BOXES_TSV + "img-b\t2\ttree\t0\t0\t5\t5\n"
    summary = import_imageclef(dataset_dir(tmp_path / "data", **{"boxes.tsv": extra_box}), "street")
    assert summary.boxes == 7
    box = Box.objects.select_related("concept__vocabulary").get(image__key="img-b", number=2)
    assert (box.concept.name, box.concept.vocabulary.name) == ("tree", "street")


def test_a_label_of_another_vocabulary_is_unknown(tmp_path):
    Concept.objects.create(vocabulary=label_vocabulary("other"), name="tree", synset="tree.n.01")
    extra_box = BOXES_TSV + "img-b\t2\ttree\t0\t0\t5\t5\n"
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(dataset_dir(tmp_path / "data", **{"boxes.tsv": extra_box}), "street")
    assert caught.value.errors == ["boxes.tsv line 8: unknown concept 'tree'"]


def test_second_import_is_refused_as_already_imported(tmp_path, media_root):
    import_imageclef(dataset_dir(tmp_path / "data"))
    before, files_before, state = counts(), stored_files(media_root), snapshot()
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(tmp_path / "data")
    assert caught.value.errors == [
        "images.tsv line 2: image 'img-a' already has boxes or descriptions (already imported)",
        "images.tsv line 3: image 'img-b' already has boxes or descriptions (already imported)",
    ]
    assert (counts(), stored_files(media_root), snapshot()) == (before, files_before, state)


def test_stored_image_with_the_same_key_and_content_is_reused(tmp_path):
    image, _ = import_image_bytes("img-a.png", png_a(), key="img-a")
    summary = import_imageclef(dataset_dir(tmp_path / "data"))
    assert (summary.images, summary.images_reused) == (1, 1)
    assert Image.objects.count() == 2 and image.boxes.count() == 4


def test_stored_image_key_with_other_content_is_refused(tmp_path, media_root):
    make_image("img-a.png")  # key img-a, another colour
    before, files_before = counts(), stored_files(media_root)
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(dataset_dir(tmp_path / "data"))
    assert caught.value.errors == ["images.tsv line 2: the image key 'img-a' is already used by a different image"]
    assert (counts(), stored_files(media_root)) == (before, files_before)


def test_stored_content_under_another_key_is_refused(tmp_path):
    import_image_bytes("photo.jpg", jpeg_b())  # key "photo"
    before = counts()
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(dataset_dir(tmp_path / "data"))
    assert caught.value.errors == [
        "images.tsv line 3: the image file 'images/img-b.jpg' is already stored under the key 'photo'"
    ]
    assert counts() == before


def test_failure_while_writing_rolls_back_rows_and_stored_files(tmp_path, media_root, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("disk on fire")

    monkeypatch.setattr(importer, "add_correspondence", broken)
    with pytest.raises(ImageCLEFImportError, match="nothing was imported: disk on fire"):
        import_imageclef(dataset_dir(tmp_path / "data"))
    assert counts() == dict.fromkeys(counts(), 0)
    assert stored_files(media_root) == []


def test_path_that_is_not_a_dataset(tmp_path):
    with pytest.raises(ImageCLEFImportError, match="does not exist"):
        import_imageclef(tmp_path / "nowhere")
    (tmp_path / "file.txt").write_text("hello")
    with pytest.raises(ImageCLEFImportError, match="not a folder or a zip file"):
        import_imageclef(tmp_path / "file.txt")


def test_command_prints_the_summary(tmp_path):
    out = StringIO()
    call_command("import_imageclef", str(dataset_dir(tmp_path / "data")), "--vocabulary", "clef", stdout=out)
    assert out.getvalue().strip() == (
        "Vocabulary 'clef' (6 new concepts); 2 images imported (0 already stored), 6 boxes, 5 descriptions, "
        "4 correspondences with 10 word links\nThe images are in the collection 'data'"
    )


def test_command_lists_every_error_one_per_line(tmp_path):
    folder = dataset_dir(tmp_path / "data", **{"boxes.tsv": replaced(BOXES_TSV, "\tboot\t", "\twolf\t"),
                                               "descriptions.tsv": replaced(DESCRIPTIONS_TSV, "[car]^3", "[car]^9")})
    with pytest.raises(CommandError) as caught:
        call_command("import_imageclef", str(folder))
    assert str(caught.value).splitlines() == [
        "boxes.tsv line 5: unknown concept 'wolf'",
        "descriptions.tsv line 2: image 'img-a' has no box 9",
    ]
    assert counts() == dict.fromkeys(counts(), 0)


@pytest.mark.parametrize("name", ["voc\x00ab", "voc\udc80ab"])
def test_a_vocabulary_name_that_cannot_be_stored_is_refused(tmp_path, name):
    before = counts()
    with pytest.raises(ImageCLEFImportError) as caught:
        import_imageclef(dataset_dir(tmp_path / "data"), vocabulary=name)
    assert any("the vocabulary name" in error and "holds a" in error for error in caught.value.errors)
    assert counts() == before


FORMULA_TEXTS = ['=HYPERLINK("http://example.org/x","click") shows a woman', "=1+1 cars are parked here",
                 "+1 for the red car", "-2 degrees near the woman", "@SUM(1,2) beside a car"]


def test_worker_text_starting_like_a_formula_is_written_unchanged_and_reads_back(tmp_path, media_root):
    """Decision documented in docs/formats/imageclef.md (Spreadsheets): cells are not escaped, the dataset card
    counts the formula-like descriptions, and export -> import gives the same text and tokens."""
    from metrics.text.markup import tokenize

    import_imageclef(dataset_dir(tmp_path / "source"), vocabulary="roundtrip")
    image = Image.objects.get(key="img-b")
    for text in FORMULA_TEXTS:
        Description.objects.create(image=image, text=" ".join(tokenize(text)), tokens=tokenize(text), source="crowd")
    before = snapshot()
    _, bundle, first = export(write_imageclef, grounded_dataset())
    rows = [line.split("\t") for line in first.read("descriptions.tsv").decode().splitlines()[1:]]
    markups = [row[4] for row in rows if row[0] == "img-b" and row[3] == "0"]
    assert markups == ['= HYPERLINK ( " http : / / example . org / x " , " click " ) shows a woman',
                       "= 1 + 1 cars are parked here", "+ 1 for the red car", "- 2 degrees near the woman",
                       "@ SUM ( 1 , 2 ) beside a car"]
    assert any(note.startswith("5 descriptions of `descriptions.tsv` start with `=`, `+`, `-` or `@`")
               for note in bundle.notes)
    exported = tmp_path / "exported"
    first.extractall(exported)

    wipe_annotation_tables()
    import_imageclef(exported, vocabulary="roundtrip")
    assert snapshot() == before
    texts = [d.text for d in Description.objects.filter(image__key="img-b").order_by("pk")][-5:]
    assert texts == [" ".join(tokenize(text)) for text in FORMULA_TEXTS]
    _, _, second = export(write_imageclef, grounded_dataset())
    assert second.read("descriptions.tsv") == first.read("descriptions.tsv")


def test_no_spreadsheet_note_without_formula_like_text(tmp_path):
    import_imageclef(dataset_dir(tmp_path / "source"))
    _, bundle, _ = export(write_imageclef, grounded_dataset())
    assert bundle.notes and not any("start with" in note for note in bundle.notes)
    assert "formula-like cells" not in bundle.counts

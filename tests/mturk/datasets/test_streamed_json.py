"""The JSON of large imported files (COCO, VIST) is read streamed, with the platform's JSON limits: nesting capped
by a scan of the bytes before the parser reads them, and a key given twice refused, at the top level or in a
record (common/json_input.py, JsonShape; mturk/importers.py, streamed_items)."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from annotation.models import Description, Image
from annotation.services.coco_import.importer import import_coco
from annotation.services.coco_import.records import CocoFile, CocoImportError
from mturk.importers import ProblemList, streamed_items
from storyboard.models import Album, Story
from storyboard.services.vist_import.importer import import_vist
from storyboard.services.vist_import.records import VistImportError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
VIST = FIXTURES / "vist"
COCO_CAPTIONS = FIXTURES.parent / "annotation" / "compositional" / "coco_fixture" / "captions.json"


def items(data: bytes, section: str = "albums") -> tuple[list[object], list[str]]:
    problems = ProblemList(ValueError)
    found = [item for _, item in streamed_items("f.json", lambda: io.BytesIO(data), section, problems)]
    return found, problems.listed


def test_streamed_items_refuse_deep_nesting_and_repeated_keys(settings):
    settings.JSON_MAX_DEPTH = 8
    assert items(b'{"albums": [{"id": "1"}, {"id": "2"}]}') == ([{"id": "1"}, {"id": "2"}], [])
    deep = b'{"albums": [' + b"[" * 5000 + b"]" * 5000 + b"]}"
    assert items(deep) == ([], ["f.json: nested deeper than 8 levels (at byte 18)"])
    # read in one chunk: refused before the parser gives any item
    assert items(b'{"albums": [{"id": "1"}], "albums": [{"id": "2"}]}') == (
        [], ['f.json: the key "albums" is given twice'])
    assert items(b'{"albums": [{"id": "1"}, {"id": "2", "title": "a", "id": "3"}]}') == (
        [{"id": "1"}], ['f.json: albums[1]: the key "id" is given twice'])


def _vist_folder(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "vist"
    shutil.copytree(VIST, folder)
    (folder / "sis" / "test.story-in-sequence.json").write_text(text)
    return folder


@pytest.mark.django_db
def test_a_vist_file_naming_albums_twice_is_refused_and_nothing_written(tmp_path):
    text = (VIST / "sis" / "test.story-in-sequence.json").read_text()
    document = json.loads(text)
    twice = text.rstrip().removesuffix("}") + ', "albums": ' + json.dumps(document["albums"][:1]) + "}"
    with pytest.raises(VistImportError) as caught:
        import_vist([_vist_folder(tmp_path, twice)])
    assert 'test.story-in-sequence.json: the key "albums" is given twice' in caught.value.errors
    assert not Album.objects.exists() and not Story.objects.exists()


@pytest.mark.django_db
def test_a_deeply_nested_vist_file_is_refused_before_it_is_parsed(tmp_path):
    deep = '{"albums": [' + "[" * 4000 + "]" * 4000 + '], "images": [], "annotations": []}'
    with pytest.raises(VistImportError) as caught:
        import_vist([_vist_folder(tmp_path, deep)])
    assert caught.value.errors == ["test.story-in-sequence.json: nested deeper than 32 levels (at byte 42)"]
    assert not Album.objects.exists()


@pytest.mark.django_db
def test_a_coco_record_naming_a_key_twice_is_refused(tmp_path):
    text = COCO_CAPTIONS.read_text()
    marker = '"caption": '
    at = text.index(marker)
    path = tmp_path / "captions_train2014.json"
    path.write_text(text[:at] + '"caption": "first", ' + text[at:])  # the first caption names "caption" twice
    with pytest.raises(CocoImportError) as caught:
        import_coco(CocoFile.from_path(path), None, None)
    assert any('the key "caption" is given twice' in error for error in caught.value.errors)
    assert not Image.objects.exists() and not Description.objects.exists()

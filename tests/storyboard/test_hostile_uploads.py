"""Hostile VIST and album zips: a member lying about its CRC or size, or expanding past its limit, is refused naming
it, and nothing is written."""
from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import Image
from mturk.importers import ImportProblems, get_importer
from storyboard.models import Album, Photo, Story
from tests.hostile_zips import bomb_zip, patch_member
from tests.importing import Steps, write_zip

pytestmark = pytest.mark.django_db

SIS = Path(__file__).resolve().parents[1] / "fixtures" / "vist" / "sis" / "test.story-in-sequence.json"


def nothing_written() -> bool:
    return not (Album.objects.exists() or Photo.objects.exists() or Story.objects.exists() or Image.objects.exists())


@pytest.mark.parametrize("lie", [{"file_size": 50}, {"file_size": 5_000_000}, {"crc": 9}],
                         ids=["smaller", "larger", "crc"])
def test_a_vist_zip_whose_file_lies_is_refused_naming_it(tmp_path, lie):
    upload = patch_member(write_zip(tmp_path / "vist.zip", {"sis/test.story-in-sequence.json": SIS.read_bytes()}),
                          **lie)
    with pytest.raises(ImportProblems) as refused:
        get_importer("vist").run(upload, {}, Steps())
    [(name, reason)] = refused.value.problems
    assert name == "sis/test.story-in-sequence.json" and reason.startswith("corrupt zip entry ("), reason
    assert nothing_written()


def test_a_vist_file_expanding_past_the_entry_limit_is_refused(tmp_path, settings):
    settings.IMPORT_MAX_ENTRY_BYTES = 100_000
    upload = bomb_zip(tmp_path / "vist.zip", "test.story-in-sequence.json", 3_000_000, line=b" ")
    with pytest.raises(ImportProblems) as refused:
        get_importer("vist").run(upload, {}, Steps())
    assert refused.value.problems == [("test.story-in-sequence.json", "expands past the limit of 100000 bytes")]
    assert nothing_written()


def test_an_album_zip_with_a_lying_photo_is_refused_whole(tmp_path):
    from tests.storyboard.test_import_albums import picture

    upload = write_zip(tmp_path / "albums.zip", {"beach/1.jpg": picture(), "beach/2.jpg": picture()})
    patch_member(upload, crc=5, only="beach/2.jpg")
    with pytest.raises(ImportProblems) as refused:
        get_importer("albums").run(upload, {}, Steps())
    assert refused.value.problems == [("beach/2.jpg", "corrupt zip entry (Bad CRC-32 for file 'beach/2.jpg')")]
    assert nothing_written()

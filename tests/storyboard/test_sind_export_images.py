"""The SIND export's images option: every images/{split}/{photo}.jpg entry is a JPEG, whatever the original."""
from __future__ import annotations

import io
import zipfile

import pytest
from PIL import Image as PILImage

from annotation.services.images import import_image_bytes
from annotation.services.renditions import ensure_thumbnails
from mturk.datasets.formats import run_export
from storyboard.models import Photo
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.factories import image_bytes, make_album

pytestmark = pytest.mark.django_db


def test_image_entries_are_jpeg_for_png_originals_with_or_without_renditions(tmp_path):
    album = make_album(6)  # PNG originals
    photos = list(Photo.objects.filter(album=album).select_related("image").order_by("pk"))
    for photo in photos[:2]:
        ensure_thumbnails(photo.image)  # WebP renditions must not end up in a .jpg entry
    jpeg = image_bytes("JPEG", size=(200, 100))
    photos[3].image, _ = import_image_bytes("j.jpg", jpeg)
    photos[3].save()

    campaigns = create_story_workflow("Stories", [album], publish=True, is_simulated=True)
    run_story_workflow(campaigns, seed=1)

    run_export("sind", tmp_path / "s.zip", [], {"images": True, "report_sample": 0})

    archive = zipfile.ZipFile(tmp_path / "s.zip")
    entries = sorted(n for n in archive.namelist() if n.startswith("images/"))
    assert len(entries) == 6
    for name in entries:
        with PILImage.open(io.BytesIO(archive.read(name))) as picture:
            assert picture.format == "JPEG", name
    (jpeg_entry,) = [n for n in entries if n.endswith(f"/{photos[3].external_id}.jpg")]
    assert archive.read(jpeg_entry) == jpeg  # a JPEG original is copied as it is

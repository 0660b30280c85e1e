"""Image import: validation, dedupe, zips (bad entries and escaping paths), EXIF, thumbnails."""
import io
import zipfile

import pytest
from PIL import Image as PILImage

from annotation.models import Image
from annotation.services.image_files import ImageRejected, inspect_image
from annotation.services.images import ImportFailed, import_folder, import_image_bytes, import_path, import_zip
from tests.factories import image_bytes

pytestmark = pytest.mark.django_db


def zip_of(entries: dict[str, bytes]) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    buffer.seek(0)
    return buffer


def test_import_stores_original_dimensions_and_thumbnails(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        image, created = import_image_bytes("big.jpg", image_bytes("JPEG", size=(2000, 1500)))
    assert len(callbacks) == 1  # thumbnails are handed to a Celery task after the commit
    assert created
    image.refresh_from_db()
    assert (image.format, image.width, image.height) == ("JPEG", 2000, 1500)
    assert image.original.name.endswith(f"{image.sha256}.jpg")
    with PILImage.open(image.thumb_small.path) as small, PILImage.open(image.thumb_large.path) as large:
        assert small.size == (320, 240)
        assert large.size == (1024, 768)
        assert small.format == large.format == "WEBP"
    assert image.display_url.endswith(f"/{image.sha256}.webp") and "/1024/" in image.display_url
    assert image.small_url.endswith(f"/{image.sha256}.webp") and "/320/" in image.small_url


def test_same_content_is_deduplicated():
    data = image_bytes()
    first, created_first = import_image_bytes("a.png", data)
    second, created_second = import_image_bytes("copy-of-a.png", data)
    assert (created_first, created_second) == (True, False)
    assert first.pk == second.pk and Image.objects.count() == 1


def test_exif_orientation_is_applied_to_dimensions_and_thumbnails(django_capture_on_commit_callbacks):
    data = image_bytes("JPEG", size=(400, 200), exif_orientation=6)  # rotated 90 degrees
    with django_capture_on_commit_callbacks(execute=True):
        image, _ = import_image_bytes("rotated.jpg", data)
    image.refresh_from_db()
    assert (image.width, image.height) == (200, 400)
    with PILImage.open(image.thumb_small.path) as small:
        assert small.size == (160, 320)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"hello, this is a text file", "not an image"),
        (image_bytes("GIF"), "format GIF is not accepted"),
        (image_bytes("PNG", size=(300, 300))[:200], "damaged or truncated"),
        (image_bytes("JPEG", size=(300, 300))[:-400], "damaged or truncated"),
    ],
)
def test_bad_files_are_refused_with_a_reason(data, reason):
    with pytest.raises(ImageRejected, match=reason):
        inspect_image(data)


def test_decompression_bomb_is_refused(settings):
    settings.IMAGE_MAX_PIXELS = 100 * 100
    with pytest.raises(ImageRejected, match="decompression bomb"):
        inspect_image(image_bytes("PNG", size=(150, 100)))  # over the limit: Pillow warns, we refuse
    with pytest.raises(ImageRejected, match="decompression bomb"):
        inspect_image(image_bytes("PNG", size=(300, 300)))  # over twice the limit: Pillow raises


def test_oversize_file_is_refused(settings):
    settings.IMAGE_MAX_BYTES = 100
    with pytest.raises(ImageRejected, match="over the limit of 100 bytes"):
        inspect_image(image_bytes("PNG", size=(200, 200)))


def test_zip_with_a_bad_file_imports_the_rest_and_names_the_bad_one():
    archive = zip_of({
        "photos/one.png": image_bytes(),
        "photos/two.jpg": image_bytes("JPEG"),
        "photos/broken.jpg": b"\xff\xd8\xff\xe0 not really a jpeg",
        "photos/.hidden.png": image_bytes(),
        "__MACOSX/photos/._one.png": b"resource fork",
    })
    report = import_zip(archive, label="batch.zip")
    assert sorted(i.original_name for i in report.imported) == ["photos/one.png", "photos/two.jpg"]
    assert [(p.name, p.reason.split(" (")[0]) for p in report.problems] == [
        ("photos/broken.jpg", "damaged or truncated image")
    ]
    assert Image.objects.count() == 2


@pytest.mark.parametrize("name", ["../evil.png", "photos/../../evil.png", "/etc/evil.png", "C:/evil.png",
                                  "photos\\..\\evil.png"])
def test_zip_entries_escaping_the_target_folder_are_refused(name):
    report = import_zip(zip_of({name: image_bytes(), "fine.png": image_bytes()}))
    assert [p.name for p in report.problems] == [name]
    assert "escape" in report.problems[0].reason
    assert [i.original_name for i in report.imported] == ["fine.png"]


def test_not_a_zip_fails_as_a_whole():
    with pytest.raises(ImportFailed, match="not a readable zip"):
        import_zip(io.BytesIO(b"PK nope"), label="x.zip")


def test_folder_import_reports_and_skips_hidden(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.png").write_bytes(image_bytes())
    (tmp_path / "sub" / "b.webp").write_bytes(image_bytes("WEBP"))
    (tmp_path / "notes.txt").write_text("not a picture")
    (tmp_path / ".DS_Store").write_bytes(b"\0\0")
    report = import_folder(tmp_path)
    assert sorted(i.original_name for i in report.imported) == ["a.png", "sub/b.webp"]
    assert [p.name for p in report.problems] == ["notes.txt"]


def test_import_path_handles_missing_paths(tmp_path):
    with pytest.raises(ImportFailed, match="does not exist"):
        import_path(tmp_path / "nope")

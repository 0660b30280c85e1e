"""Image sets: the set and its tags made once, images filed once, the demo marker, the default names, and every
import (files, zip, API batch, COCO, ImageCLEF, seed_demo) landing in a named set."""
from __future__ import annotations

import pytest

from annotation.image_sets.models import ImageSet, ImageSetMember
from annotation.image_sets.services import (
    ImageSetError,
    SetSpec,
    clean_tags,
    demo_set_spec,
    file_images,
    set_name_for,
    set_spec,
)
from annotation.models import Image
from tests.factories import make_image

pytestmark = pytest.mark.django_db


def test_file_images_makes_the_set_once_and_keeps_each_image_once():
    images = [make_image(f"a{n}.png") for n in range(3)]
    first = file_images(SetSpec("Kitchens", ("pilot",), "images"), [images[0].pk, images[1].pk])
    again = file_images(SetSpec("Kitchens", ("pilot", "2025")), [images[1].pk, images[2].pk, images[2].pk])
    assert first.pk == again.pk and again.source == "images" and not again.is_demo
    assert sorted(again.tags.values_list("name", flat=True)) == ["2025", "pilot"]
    assert ImageSetMember.objects.filter(image_set=again).count() == 3


def test_a_public_dataset_set_records_its_licence_and_its_page_shows_it(researcher_client):
    from django.urls import reverse

    image = make_image()
    terms = "CC BY 4.0 (annotations), https://cocodataset.org/#termsofuse"
    image_set = file_images(SetSpec("COCO val2014", source="coco", licence="older terms"), [image.pk])
    assert file_images(SetSpec("COCO val2014", licence=terms), [image.pk]).pk == image_set.pk
    image_set.refresh_from_db()
    assert image_set.licence == terms
    page = researcher_client.get(reverse("collection", args=[image_set.pk])).content.decode()
    assert "<dt>Licence</dt>" in page and 'href="https://cocodataset.org/#termsofuse"' in page
    file_images(SetSpec("Own photos"), [image.pk])
    own = ImageSet.objects.get(name="Own photos")
    assert own.licence == "" and "<dt>Licence</dt>" not in researcher_client.get(
        reverse("collection", args=[own.pk])).content.decode()


def test_an_image_may_be_in_two_sets():
    image = make_image()
    file_images(SetSpec("Study A"), [image.pk])
    file_images(SetSpec("Study B"), [image.pk])
    assert sorted(image.sets.values_list("name", flat=True)) == ["Study A", "Study B"]


def test_names_and_tags_are_checked():
    assert clean_tags(["Pilot, kitchens", " pilot ", ""]) == ("pilot", "kitchens")
    assert set_name_for("photos/Kitchens.zip") == "Kitchens"
    assert set_spec("", ["x"], default_name="Default").name == "Default"
    with pytest.raises(ImageSetError):
        set_spec("x" * 101)
    with pytest.raises(ImageSetError):
        clean_tags(["t" * 51])


def test_demo_set_is_marked():
    image = make_image()
    demo = file_images(demo_set_spec(), [image.pk])
    assert demo.is_demo and demo.name == "Demo"


def test_seed_demo_scenes_go_in_the_demo_set():
    from annotation.demo.scenes import demo_scenes
    from annotation.demo.seed import import_scene

    image = import_scene(demo_scenes(1)[0])
    assert list(image.sets.values_list("name", "is_demo")) == [("Demo", True)]


def test_api_upload_lands_in_the_named_set(api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.factories import image_bytes

    upload = SimpleUploadedFile("one.png", image_bytes(), content_type="image/png")
    response = api.post("/api/images/", {"files": [upload], "set": "From API", "tags": ["pilot"]},
                        format="multipart")
    assert response.status_code == 201, response.content
    assert response.json()["image_set"] == "From API"
    image_set = ImageSet.objects.get(name="From API")
    assert image_set.source == "api" and list(image_set.tags.values_list("name", flat=True)) == ["pilot"]
    assert list(image_set.images.values_list("pk", flat=True)) == [response.json()["imported"][0]["id"]]


def test_api_upload_refuses_a_bad_set_name(api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.factories import image_bytes

    upload = SimpleUploadedFile("one.png", image_bytes(), content_type="image/png")
    response = api.post("/api/images/", {"files": [upload], "set": "x" * 101}, format="multipart")
    assert response.status_code == 400 and not Image.objects.exists()


def test_the_console_image_import_files_into_the_chosen_set(tmp_path):
    from mturk.datasets.services.imports import clean_options
    from mturk.importers import get_importer
    from tests.factories import image_bytes
    from tests.importing import Steps, write_zip

    importer = get_importer("images")
    assert clean_options(importer, {}, "kitchens.zip")["set"] == "kitchens"
    assert clean_options(importer, {}, "IMG_1.jpg")["set"].startswith("Uploads ")
    options = clean_options(importer, {"set": "Study A", "tags": "Pilot, kitchens"}, "x.zip")
    report = importer.run(write_zip(tmp_path / "x.zip", {"a.png": image_bytes(), "b.png": image_bytes()}),
                          options, Steps())
    image_set = ImageSet.objects.get(name="Study A")
    assert report["image_set"] == "Study A" and image_set.images.count() == 2
    assert sorted(image_set.tags.values_list("name", flat=True)) == ["kitchens", "pilot"]


def test_the_console_refuses_a_bad_collection_name():
    from mturk.datasets.services.imports import clean_options
    from mturk.importers import ImportRefused, get_importer

    with pytest.raises(ImportRefused, match="Collection"):
        clean_options(get_importer("images"), {"tags": "t" * 60}, "x.zip")


def test_imageclef_and_coco_imports_land_in_a_set(tmp_path):
    from mturk.importers import get_importer
    from tests.annotation.test_import_imageclef import dataset_dir
    from tests.annotation.test_importers import zip_folder
    from tests.importing import Steps

    source = zip_folder(dataset_dir(tmp_path / "gold"), tmp_path / "gold.zip")
    get_importer("imageclef").run(source, {"vocabulary": "gold", "set": "Gold set", "tags": "gold"}, Steps())
    assert ImageSet.objects.get(name="Gold set").images.count() == 2


def test_the_coco_command_takes_a_set(tmp_path):
    from io import StringIO

    from django.core.management import call_command

    from tests.annotation.test_coco_import import CAPTIONS, IMAGES, INSTANCES

    out = StringIO()
    call_command("import_coco", str(CAPTIONS), "--instances", str(INSTANCES), "--images", str(IMAGES),
                 "--set", "COCO val", "--tag", "coco", stdout=out, stderr=StringIO())
    image_set = ImageSet.objects.get(name="COCO val")
    assert image_set.source == "coco" and image_set.images.count() == Image.objects.count() > 0
    assert "collection 'COCO val'" in out.getvalue()


def test_the_import_images_command_takes_a_set_and_tags(tmp_path):
    from io import StringIO

    from django.core.management import call_command

    from tests.factories import image_bytes

    folder = tmp_path / "kitchens"
    folder.mkdir()
    (folder / "a.png").write_bytes(image_bytes())
    call_command("import_images", str(folder), stdout=StringIO())
    assert ImageSet.objects.get(name="kitchens").images.count() == 1
    call_command("import_images", str(folder), "--set", "Study B", "--tag", "b", stdout=StringIO())
    assert list(ImageSet.objects.get(name="Study B").tags.values_list("name", flat=True)) == ["b"]


def test_the_imageclef_command_takes_a_set(tmp_path):
    from io import StringIO

    from django.core.management import call_command

    from tests.annotation.test_import_imageclef import dataset_dir

    call_command("import_imageclef", str(dataset_dir(tmp_path / "gold")), "--set", "CLEF", stdout=StringIO())
    assert ImageSet.objects.get(name="CLEF").images.count() == 2

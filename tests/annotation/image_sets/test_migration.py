"""Migration 0012: images stored before collections land in "Demo" (the demo's scenes and simulated albums' photos)
or "Imported images"; no image changes."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0011_vocabulary_owns_concepts"), ("storyboard", "0003_story_agreement")]
AFTER = [("annotation", "0012_image_sets")]


def test_existing_images_are_filed_in_demo_or_imported_images():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    Image = old.get_model("annotation", "Image")
    Album = old.get_model("storyboard", "Album")
    Photo = old.get_model("storyboard", "Photo")

    def image(name: str, width: int = 800, height: int = 600):
        return Image.objects.create(key=name.split(".")[0], original_name=name, format="JPEG", width=width,
                                    height=height, file_size=1, source_url="https://example.org/x.jpg")

    scene, mine, lookalike, photo = (image("scene-001.jpg"), image("kitchen.jpg"),
                                     image("scene-002.jpg", 640, 480), image("album-1-1.jpg"))
    album = Album.objects.create(external_id="demo-1", title="Demo", is_simulated=True)
    Photo.objects.create(album=album, image=photo, external_id="p1", datetaken="2025-06-14T09:00:00Z")
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    members = new.get_model("annotation", "ImageSetMember").objects
    filed = {pk: name for pk, name in members.values_list("image_id", "image_set__name")}
    assert filed == {scene.pk: "Demo", photo.pk: "Demo", mine.pk: "Imported images", lookalike.pk: "Imported images"}
    demo = new.get_model("annotation", "ImageSet").objects.get(name="Demo")
    assert demo.is_demo and demo.source == "demo"
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

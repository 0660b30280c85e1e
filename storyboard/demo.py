"""Loading the generated demo albums (12 photos each, with datetaken) into the database."""
from __future__ import annotations

from annotation.demo.scenes import demo_albums
from annotation.demo.seed import import_scene
from mturk.demo_parts import DemoSeeded, register_demo_part

from .models import Album, Photo

DEMO_ALBUM_COUNT = 3


def seed_albums() -> list[Album]:
    albums = []
    for spec in demo_albums(DEMO_ALBUM_COUNT):
        album, _ = Album.objects.update_or_create(
            external_id=spec.external_id,
            defaults={"title": spec.title, "event_label": spec.event_label, "is_simulated": True},
        )
        known = set(album.photos.values_list("external_id", flat=True))
        Photo.objects.bulk_create([
            Photo(album=album, image=import_scene(photo.scene), external_id=photo.external_id,
                  datetaken=photo.datetaken, title=photo.title, tags=list(photo.tags))
            for photo in spec.photos if photo.external_id not in known
        ])
        albums.append(album)
    return albums


@register_demo_part("stories")
def seed_story_part() -> DemoSeeded:
    """The demo albums and a completed, simulated story workflow over them (for `manage.py seed_demo`)."""
    from .simulation import seed_story_demo

    albums = seed_albums()
    stories = seed_story_demo(albums)
    return DemoSeeded(f"{len(albums)} albums of 12 photos", [
        f"Completed simulated story workflow '{stories['tell'].name}' and its {len(stories) - 1} later stages: try "
        f"`python manage.py export_dataset --format sind --out stories.zip`"
    ])

"""The albums of one released split as a test set of human evaluation (key: the split, e.g. "test" for VIST's
imported test albums): each photo sequence a human story was told on is one story item, named
"<album id>:<photo id>,<photo id>,..." (as the VIST challenge format names it), showing its photos in order; its
references are the human stories told on it (each its storylets' normalized text joined by spaces, in photo order,
as metrics.story_eval reads the references). Simulated stories are left out."""
from __future__ import annotations

from evaluation.models import OutputKind
from evaluation.registry import TestItem, TestSetSource, register_test_set_source

from .models import Album, Storylet

SPLITS = ("train", "val", "test")


def _choices() -> list[tuple[str, str]]:
    found = set(Album.objects.exclude(split="").filter(stories__is_simulated=False)
                .values_list("split", flat=True).distinct())
    return [(split, f"the {split} albums") for split in SPLITS if split in found]


def _items(key: str) -> list[TestItem]:
    """One query: the storylets of the split's human stories, in album, story and photo order."""
    if key not in SPLITS:
        raise LookupError(f"unknown split {key!r} (use {', '.join(SPLITS)})")
    rows = (Storylet.objects.filter(story__album__split=key, story__is_simulated=False)
            .order_by("story__album_id", "story_id", "order")
            .values_list("story_id", "story__album__external_id", "photo__external_id", "photo__image_id", "text"))
    stories: dict[int, tuple[str, list[str], list[int], list[str]]] = {}
    for story, album, photo, image, text in rows.iterator(chunk_size=5000):
        entry = stories.setdefault(story, (album, [], [], []))
        entry[1].append(photo)
        entry[2].append(image)
        entry[3].append(text)
    items: dict[str, TestItem] = {}
    for album, photos, images, texts in stories.values():
        name = f"{album}:{','.join(photos)}"
        item = items.setdefault(name, TestItem(name=name, images=images, references=[]))
        item.references.append(" ".join(texts))
    if not items:
        raise LookupError(f"the {key} albums have no human story")
    return list(items.values())


ALBUMS = register_test_set_source(TestSetSource(
    name="albums", label="Albums of a split", output_kind=OutputKind.STORY, choices=_choices, items=_items,
    description="The photo sequences of the human stories of the albums of one released split (key: train, val "
                "or test); references: those stories."))

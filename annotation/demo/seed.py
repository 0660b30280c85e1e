"""Loading the generated demo material into the database (idempotent)."""
from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from ..image_sets.services import demo_set_spec, file_images
from ..models import Box, Concept, Image, Vocabulary
from ..services.images import import_image_bytes
from ..vocabularies.selectors import DEMO_VOCABULARY
from .scenes import CONCEPTS, Scene, demo_scenes

DEMO_IMAGE_COUNT = 24
BOXED_IMAGE_COUNT = 12  # gold boxes on the first images, for the grounded-description tasks


@dataclass(frozen=True)
class DemoImages:
    images: list[Image]
    scenes: list[Scene]


@transaction.atomic
def seed_concepts() -> dict[str, Concept]:
    """The demo's labels, in its own vocabulary (no other vocabulary's labels change)."""
    vocabulary, _ = Vocabulary.objects.get_or_create(
        name=DEMO_VOCABULARY, defaults={"description": "The demo's labels (seed_demo)."})
    concepts: dict[str, Concept] = {}
    for spec in CONCEPTS:
        concept, _ = Concept.objects.update_or_create(
            vocabulary=vocabulary, name=spec.name,
            defaults={"synset": spec.synset, "synonyms": list(spec.synonyms), "offered": True}
        )
        concepts[spec.name] = concept
    for spec in CONCEPTS:
        parent = concepts.get(spec.parent) if spec.parent else None
        if concepts[spec.name].parent_id != (parent.pk if parent else None):
            concepts[spec.name].parent = parent
            concepts[spec.name].save(update_fields=["parent"])
    return concepts


def import_scene(scene: Scene) -> Image:
    """A demo scene stored (once) and filed in the demo set ("Demo"), away from the researchers' own images."""
    image, _ = import_image_bytes(scene.name, scene.jpeg)
    file_images(demo_set_spec(), [image.pk])
    return image


def seed_images(concepts: dict[str, Concept]) -> DemoImages:
    scenes = demo_scenes(DEMO_IMAGE_COUNT)
    images = [import_scene(scene) for scene in scenes]
    boxed = {pk for pk in Box.objects.filter(image__in=images).values_list("image_id", flat=True)}
    new_boxes = [
        Box(image=image, number=number, concept=concepts[obj.concept], x=obj.box[0], y=obj.box[1],
            width=obj.box[2], height=obj.box[3], source="demo")
        for image, scene in zip(images[:BOXED_IMAGE_COUNT], scenes[:BOXED_IMAGE_COUNT], strict=True)
        if image.pk not in boxed
        for number, obj in enumerate(scene.objects)
    ]
    Box.objects.bulk_create(new_boxes)
    return DemoImages(images, scenes)

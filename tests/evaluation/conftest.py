"""A small caption test set (a collection of three images, one with a COCO id) and a METEOR stand-in (the JVM takes
seconds to start): it scores 1.0 when the hypothesis is one of the references, else 0.0."""
from __future__ import annotations

import pytest

from annotation.image_sets.models import ImageSet, ImageSetMember
from annotation.models import Description, ImageOrigin
from evaluation.services import automatic, scoring
from mturk.jobs import hand_off
from tests.factories import make_image

REFERENCES = {
    0: ["a dog runs on the beach", "a brown dog running on sand"],
    1: ["two cats sleep on a sofa", "cats asleep on a couch"],
    2: ["a man rides a red bike", "a cyclist on a red bicycle"],
}


class ExactMeteor:
    def __init__(self) -> None:
        pass

    def __enter__(self) -> ExactMeteor:
        return self

    def __exit__(self, *args: object) -> None:
        return None

    def score_many(self, pairs):
        return [1.0 if hypothesis in references else 0.0 for hypothesis, references in pairs]


@pytest.fixture(autouse=True)
def exact_meteor(monkeypatch):
    monkeypatch.setattr(automatic, "Meteor", ExactMeteor)


@pytest.fixture(autouse=True)
def scoring_at_once(monkeypatch):
    """A test runs in one transaction that never commits: the scoring jobs an upload queues are handed off at once
    instead of on commit (test_scoring.py checks the real hand-off on commit)."""
    def at_once(job, robust=False):
        try:
            hand_off(type(job), job.pk)
        except Exception:
            if not robust:  # as transaction.on_commit(robust=True): a failed job is recorded, not raised
                raise

    monkeypatch.setattr(scoring, "dispatch", at_once)


@pytest.fixture
def caption_set(db):
    """Collection "he-test": images with keys, the first with COCO id 391895; two references each."""
    collection = ImageSet.objects.create(name="he-test")
    images = [make_image(f"he-{index}.png") for index in range(3)]
    ImageOrigin.objects.create(image=images[0], dataset="coco", external_id=391895, subset="val2014")
    for index, image in enumerate(images):
        ImageSetMember.objects.create(image_set=collection, image=image)
        for text in REFERENCES[index]:
            Description.objects.create(image=image, text=text, source="import")
    return collection, images


def item_names(images) -> list[str]:
    return ["391895", images[1].key, images[2].key]

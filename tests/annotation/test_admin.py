"""The annotation admin: what the import services compute from an image file is read-only, a worker's box is
their answer (read-only) while a gold box can be corrected, and descriptions are view-only."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Box, Concept, Description, Image
from tests.factories import label_vocabulary, make_campaign, make_image, submitted

pytestmark = pytest.mark.django_db


def change_url(obj) -> str:
    return reverse(f"admin:annotation_{obj._meta.model_name}_change", args=[obj.pk])


def test_an_images_computed_fields_are_read_only(admin_client):
    image = make_image("beach.png")
    response = admin_client.post(change_url(image), {"key": "beach-1", "original_name": "beach.png", "width": "1",
                                                     "height": "1", "sha256": "0" * 64, "format": "GIF"})
    assert response.status_code == 302
    stored = Image.objects.get(pk=image.pk)
    assert stored.key == "beach-1"  # the dataset id can be corrected
    assert (stored.width, stored.height, stored.sha256, stored.format) == (image.width, image.height, image.sha256,
                                                                          image.format)
    assert admin_client.get(reverse("admin:annotation_image_add")).status_code == 403  # through the upload view


def test_a_gold_box_can_be_corrected_but_a_workers_box_cannot(admin_client):
    image = make_image("dogs.png")
    dog, cat = Concept.objects.create(vocabulary=label_vocabulary(),
                                      name="dog"), Concept.objects.create(vocabulary=label_vocabulary(), name="cat")
    gold = Box.objects.create(image=image, number=1, concept=dog, x=1, y=2, width=10, height=12)
    answer = submitted(make_campaign(images=1))
    crowd = Box.objects.create(image=image, number=2, concept=dog, x=3, y=4, width=5, height=6, source="crowd",
                               assignment=answer)
    edit = {"concept": cat.pk, "x": "7", "y": "8", "width": "9", "height": "11", "number": "5"}
    assert admin_client.post(change_url(gold), edit).status_code == 302
    assert admin_client.post(change_url(crowd), edit).status_code == 302
    gold.refresh_from_db()
    crowd.refresh_from_db()
    assert (gold.concept, gold.x, gold.width, gold.number) == (cat, 7, 9, 1)  # the number is the image's own
    assert (crowd.concept, crowd.x, crowd.width, crowd.number) == (dog, 3, 5, 2)


def test_descriptions_are_view_only(admin_client):
    description = Description.objects.create(image=make_image("d.png"), text="A dog.", tokens=["A", "dog", "."])
    assert admin_client.get(change_url(description)).status_code == 200
    assert admin_client.post(change_url(description), {"text": "A cat."}).status_code == 403
    assert Description.objects.get().text == "A dog."

"""The collection page, the collections list and the wizard's selection endpoint answer in the same number of
queries at 1,000 and at 100,000 images (rows made by bulk_create, no files)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.image_sets.models import ImageSet
from mturk.services.campaigns import create_campaign
from tests.annotation.image_sets.rows import bulk_images
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def urls(image_set: ImageSet, after: int) -> list[str]:
    matching = reverse("campaign-wizard-matching", args=["images"])
    return [
        reverse("collections"),
        reverse("collection", args=[image_set.pk]),
        f"{reverse('collection', args=[image_set.pk])}?after={after}",
        f"{matching}?filter-images-set={image_set.name}&filter-images-tag=pilot",
        f"{matching}?filter-images-set={image_set.name}&filter-images-state=no-boxes&filter-images-search=bulk"
        f"&filter-images-not_in_campaign=Used&after={after}",
    ]


def test_query_counts_are_the_same_at_1k_and_100k_images(researcher_client):
    image_set = ImageSet.objects.create(name="Big", source="images")
    image_set.tags.create(name="pilot")
    ids = bulk_images(image_set, 1000)
    create_campaign(name="Used", task_kind="describe_image", items=[{"image": pk} for pk in ids[:10]])
    small = [queries_for(researcher_client, url) for url in urls(image_set, ids[500])]
    page = researcher_client.get(urls(image_set, 0)[3])
    assert b"1000</strong> images match" in page.content and b"Select all 1000 matching" in page.content
    more_ids = bulk_images(image_set, 99_000)
    large = [queries_for(researcher_client, url) for url in urls(image_set, more_ids[50_000])]
    assert large == small
    page = researcher_client.get(urls(image_set, 0)[3])
    assert b"100000</strong> images match" in page.content
    detail = researcher_client.get(reverse("collection", args=[image_set.pk]))
    assert b"<dd>100000</dd>" in detail.content and b"Used" in detail.content

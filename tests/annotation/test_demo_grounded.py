"""The grounded part of the demo (annotation/demo/grounded.py): closed once its simulated work is done, and a demo
database seeded before (its campaigns named "… (simulated)", left active) renamed and closed, not seeded again."""
from __future__ import annotations

import pytest

from annotation.demo.grounded import DESCRIBE, LINK, seed_grounded_demo
from annotation.demo.seed import BOXED_IMAGE_COUNT, seed_concepts, seed_images
from annotation.models import Description
from mturk.models import Campaign

pytestmark = pytest.mark.django_db


def test_the_campaigns_are_closed_once_worked_and_a_demo_seeded_before_is_brought_up_to_date():
    images = seed_images(seed_concepts()).images[:BOXED_IMAGE_COUNT]
    describe, link = seed_grounded_demo(images)
    assert [(c.name, c.status, c.is_simulated) for c in Campaign.objects.order_by("pk")] == [
        (DESCRIBE, "closed", True), (LINK, "closed", True)]
    for campaign in (describe, link):  # as an earlier seed_demo left them
        Campaign.objects.filter(pk=campaign.pk).update(name=f"{campaign.name} (simulated)", status="active")
    descriptions = Description.objects.count()
    again = seed_grounded_demo(images)
    assert [c.pk for c in again] == [describe.pk, link.pk]
    assert [(c.name, c.status) for c in Campaign.objects.order_by("pk")] == [(DESCRIBE, "closed"), (LINK, "closed")]
    assert Description.objects.count() == descriptions == 12 * 5

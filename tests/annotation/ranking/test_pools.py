"""Freezing test pools: the service and `manage.py create_test_pool`."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Description
from annotation.ranking.models import PoolCaption, PoolImage, TestPool
from annotation.ranking.services.pools import PoolError, create_test_pool
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, make_image, submitted

pytestmark = pytest.mark.django_db


def test_all_descriptions_fixes_indices_by_image_then_id():
    first, second = make_image("x.png"), make_image("y.png")
    late = Description.objects.create(image=second, text="second image", source="imported")
    early = [Description.objects.create(image=first, text=f"first {n}", source="imported") for n in range(3)]
    pool = create_test_pool("p", all_descriptions=True, captions_per_image=2)
    assert list(PoolImage.objects.filter(pool=pool).values_list("image_id", "index")) == [(first.pk, 0),
                                                                                            (second.pk, 1)]
    assert list(PoolCaption.objects.filter(pool=pool).values_list("description_id", "image_id", "index")) == [
        (early[0].pk, first.pk, 0), (early[1].pk, first.pk, 1), (late.pk, second.pk, 2)]


def test_images_limit_takes_the_first_by_id():
    images = [make_image(f"{n}.png") for n in range(3)]
    for image in images:
        Description.objects.create(image=image, text="a caption", source="imported")
    pool = create_test_pool("p", all_descriptions=True, images=2)
    assert list(pool.pool_images.values_list("image_id", flat=True)) == [images[0].pk, images[1].pk]


def test_campaign_pool_takes_only_approved_captions():
    campaign = make_campaign(images=1, assignments=2)
    text = "A brown dog runs along the sandy beach near the blue water."
    approved, pending = submitted(campaign, text), submitted(campaign)
    approve_assignment(approved)
    pool = create_test_pool("p", campaigns=[campaign])
    assert list(pool.pool_captions.values_list("description__text", flat=True)) == [text]
    assert pending.status == "submitted"


def test_refusals_store_nothing():
    with pytest.raises(PoolError, match="no captions"):
        create_test_pool("empty", all_descriptions=True)
    Description.objects.create(image=make_image(), text="x", source="imported")
    create_test_pool("p", all_descriptions=True)
    with pytest.raises(PoolError, match="already exists"):
        create_test_pool("p", all_descriptions=True)
    assert TestPool.objects.count() == 1


def test_command(settings, capsys):
    Description.objects.create(image=make_image(), text="x", source="imported")
    call_command("create_test_pool", "cli", "--all-descriptions")
    assert "1 images, 1 captions" in capsys.readouterr().out
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_test_pool", "cli", "--all-descriptions")

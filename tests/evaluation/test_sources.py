"""The test-set sources: each registered at app start, naming items as uploads name them, with their references."""
from __future__ import annotations

import pytest

from annotation.models import Description
from annotation.ranking.models import PoolCaption, PoolImage, TestPool
from evaluation import registry
from evaluation.registry import get_test_set_source
from storyboard.models import Setting, Story, Storylet
from tests.factories import make_album

from .conftest import REFERENCES, item_names

pytestmark = pytest.mark.django_db


def test_every_source_is_registered():
    assert registry.test_set_source_names() == ["albums", "compositional", "image_set", "test_pool"]


def test_a_collection_names_its_images_by_coco_id_else_key(caption_set):
    collection, images = caption_set
    source = get_test_set_source("image_set")
    assert (str(collection.pk), "he-test") in source.choices()
    items = source.items(str(collection.pk))
    assert [item.name for item in items] == item_names(images)
    assert [item.images for item in items] == [[image.pk] for image in images]
    assert [item.references for item in items] == [REFERENCES[index] for index in range(3)]
    with pytest.raises(LookupError):
        source.items("99999")


def test_a_test_pool_gives_its_captions_of_each_image(caption_set):
    _collection, images = caption_set
    pool = TestPool.objects.create(name="pool")
    for index, image in enumerate(images[:2]):
        PoolImage.objects.create(pool=pool, image=image, index=index)
    captions = list(Description.objects.filter(image__in=images[:2]).order_by("-id"))  # pool order is not id order
    for index, description in enumerate(captions):
        PoolCaption.objects.create(pool=pool, description=description, image=description.image, index=index)
    items = get_test_set_source("test_pool").items(str(pool.pk))
    assert [item.name for item in items] == item_names(images)[:2]
    assert items[0].references == [REFERENCES[0][1], REFERENCES[0][0]]
    assert items[1].references == [REFERENCES[1][1], REFERENCES[1][0]]


def _story(album, photos, texts, simulated=False):
    story = Story.objects.create(album=album, setting=Setting.TELL, is_simulated=simulated)
    for order, (photo, text) in enumerate(zip(photos, texts, strict=True)):
        Storylet.objects.create(story=story, order=order, photo=photo, original_text=text, text=text)
    return story


def test_albums_of_a_split_give_each_told_sequence_with_its_stories():
    album = make_album(photos=5, external_id="44277")
    album.split = "test"
    album.save()
    photos = list(album.photos.order_by("datetaken"))
    sequence = photos[:3]
    _story(album, sequence, ["we went out .", "it was fun .", "we came home ."])
    _story(album, sequence, ["a day out .", "the park .", "home again ."])
    _story(album, photos[2:5], ["x .", "y .", "z ."], simulated=True)  # not a human story: left out
    other = make_album(photos=3, external_id="9")  # no split: not in the test set
    _story(other, list(other.photos.all()), ["a .", "b .", "c ."])
    source = get_test_set_source("albums")
    assert source.choices() == [("test", "the test albums")]
    items = source.items("test")
    assert len(items) == 1
    assert items[0].name == "44277:" + ",".join(photo.external_id for photo in sequence)
    assert items[0].images == [photo.image_id for photo in sequence]
    assert items[0].references == ["we went out . it was fun . we came home .", "a day out . the park . home again ."]
    with pytest.raises(LookupError):
        source.items("val")

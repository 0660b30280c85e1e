"""The one image selector (annotation/image_sets/selectors.py): each filter, the demo rule, the parameters' checks,
keyset pages."""
from __future__ import annotations

import pytest

from annotation.image_sets.selectors import (
    ImageCriteria,
    criteria_from,
    image_page,
    matching_ids,
    select_images,
)
from annotation.image_sets.services import SetSpec, demo_set_spec, file_images
from annotation.models import Box, Concept, Description, Image
from mturk.services.campaigns import create_campaign
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool() -> dict[str, Image]:
    names = ["kitchen-1.png", "kitchen-2.png", "garden-1.png", "street-1.png", "scene-000.png"]
    images = {name.split(".")[0]: make_image(name) for name in names}
    file_images(SetSpec("Kitchens", ("indoor", "pilot")), [images["kitchen-1"].pk, images["kitchen-2"].pk])
    file_images(SetSpec("Outside", ("pilot",)), [images["garden-1"].pk, images["street-1"].pk])
    file_images(demo_set_spec(), [images["scene-000"].pk])
    return images


def keys(criteria: ImageCriteria) -> list[str]:
    return list(select_images(criteria).values_list("key", flat=True))


def test_without_a_set_the_demo_is_left_out_unless_asked(pool):
    assert keys(ImageCriteria()) == ["kitchen-1", "kitchen-2", "garden-1", "street-1"]
    assert "scene-000" in keys(ImageCriteria(include_demo=True))
    assert keys(ImageCriteria(sets=("Demo",))) == ["scene-000"]


def test_by_set_and_by_tag(pool):
    assert keys(ImageCriteria(sets=("Outside",))) == ["garden-1", "street-1"]
    assert keys(ImageCriteria(sets=("Outside", "Kitchens"))) == ["kitchen-1", "kitchen-2", "garden-1", "street-1"]
    assert keys(ImageCriteria(tags=("indoor",))) == ["kitchen-1", "kitchen-2"]
    assert keys(ImageCriteria(tags=("pilot", "indoor"))) == ["kitchen-1", "kitchen-2"]
    assert keys(ImageCriteria(tags=("pilot",))) == ["kitchen-1", "kitchen-2", "garden-1", "street-1"]


def test_by_name(pool):
    assert keys(ImageCriteria(search="KITCHEN")) == ["kitchen-1", "kitchen-2"]
    assert keys(ImageCriteria(search="-1", sets=("Outside",))) == ["garden-1", "street-1"]


def test_by_state_no_boxes(pool):
    concept = Concept.objects.create(name="thing", vocabulary=label_vocabulary())
    Box.objects.create(image=pool["kitchen-1"], number=0, concept=concept, x=0, y=0, width=5, height=5)
    assert keys(ImageCriteria(sets=("Kitchens",), state="no-boxes")) == ["kitchen-2"]


def test_by_state_fewer_captions(pool):
    for n in range(2):
        Description.objects.create(image=pool["kitchen-1"], text=f"a {n}", tokens=["a"])
    Description.objects.create(image=pool["kitchen-2"], text="b", tokens=["b"])
    assert keys(ImageCriteria(sets=("Kitchens",), state="fewer-captions")) == []
    assert keys(ImageCriteria(sets=("Kitchens",), state="fewer-captions", captions_below=2)) == ["kitchen-2"]
    assert keys(ImageCriteria(sets=("Outside",), state="fewer-captions", captions_below=3)) == ["garden-1",
                                                                                               "street-1"]


def test_not_in_campaign(pool):
    campaign = create_campaign(name="First", task_kind="describe_image",
                               items=[{"image": pool["garden-1"].pk}])
    criteria = criteria_from({"set": ["Outside"], "not_in_campaign": "First"})
    assert criteria.not_in_campaign == campaign.pk
    assert keys(criteria) == ["street-1"]
    assert keys(criteria_from({"set": "Outside", "not_in_campaign": str(campaign.pk)})) == ["street-1"]


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="no collection named 'Nope'"):
        criteria_from({"set": "Nope"})
    with pytest.raises(ValueError, match="state"):
        criteria_from({"state": "boxed"})
    with pytest.raises(ValueError, match="captions"):
        criteria_from({"captions": "0"})
    with pytest.raises(ValueError, match="not_in_campaign"):
        criteria_from({"not_in_campaign": "missing"})
    with pytest.raises(ValueError, match="unknown selector parameter"):
        criteria_from({"colour": "red"})
    assert criteria_from({"tag": ["Pilot"], "include_demo": "on"}) == ImageCriteria(tags=("pilot",),
                                                                                    include_demo=True)


def test_keyset_pages_cover_every_match_once(pool):
    images = select_images(ImageCriteria())
    first = image_page(images, 0, 3)
    second = image_page(images, first.next_after or 0, 3)
    assert first.total == second.total == 4 and second.next_after is None
    assert [i.pk for i in first.images + second.images] == matching_ids(ImageCriteria())

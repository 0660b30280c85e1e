"""The COCO export's `aggregated` option: images whose boxes came from a draw_boxes HIT several workers did get
the HIT's aggregated boxes (stored by the quality computation), each with an `aggregation` object; other images
keep their boxes; the files stay valid COCO and the dataset card says how the boxes were aggregated."""
from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.urls import reverse

from annotation.exports.coco_aggregated import NOTE, aggregated_boxes
from annotation.models import Concept, Vocabulary
from annotation.selectors import grounded_dataset
from annotation.services.boxes import BoxSpec, add_boxes
from mturk.datasets.formats import ExportError, write_export
from mturk.models import Campaign, DatasetExport
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.services.review import approve_assignment
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db


def box(concept: Concept, x: int, y: int, width: int, height: int) -> dict[str, int]:
    return {"concept": concept.pk, "x": x, "y": y, "width": width, "height": height}


def work(campaign: Campaign, boxes: list[dict[str, int]]) -> Any:
    worker = new_local_worker()
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer={"boxes": boxes}).assignment


@pytest.fixture
def scene() -> dict[str, Any]:
    """Image "boxed" (800x600): three workers; the first, approved, called the woman a dog and boxed nothing at
    (600, 0); the two others boxed the woman. Image "imported" (120x90): a box imported, in a describe_image
    campaign. "woman" has the parent "person"."""
    person = Concept.objects.create(vocabulary=label_vocabulary(), name="person")
    woman = Concept.objects.create(vocabulary=label_vocabulary(), name="woman", parent=person)
    dog = Concept.objects.create(vocabulary=label_vocabulary(), name="dog")
    Vocabulary.objects.create(name="street").concepts.set([woman, dog])
    boxed = make_image("boxed.png", size=(800, 600))
    imported = make_image("imported.png", size=(120, 90))
    add_boxes(imported, [BoxSpec(dog.pk, 10, 20, 30, 40)], source="gold")
    boxes = create_campaign(name="boxes", task_kind="draw_boxes", assignments_per_hit=3,
                            items=[{"image": boxed.pk}], options={"vocabulary": "street"})
    publish_campaign(boxes)
    boxes.refresh_from_db()
    mislabelled = work(boxes, [box(dog, 100, 100, 200, 300), box(dog, 600, 0, 100, 100)])
    work(boxes, [box(woman, 102, 100, 200, 300)])
    work(boxes, [box(woman, 100, 101, 200, 300)])
    approve_assignment(mislabelled)  # the first approved answer becomes the image's boxes
    describe = create_campaign(name="describe", task_kind="describe_image", items=[{"image": imported.pk}])
    return {"campaigns": [boxes, describe], "boxes": boxes, "woman": woman, "dog": dog, "boxed": boxed,
            "imported": imported}


def export(campaigns: list[Campaign], options: dict[str, Any] | None = None) -> tuple[Any, zipfile.ZipFile]:
    buffer = io.BytesIO()
    result = write_export("coco", buffer, campaigns, options)
    buffer.seek(0)
    return result, zipfile.ZipFile(buffer)


def instances(archive: zipfile.ZipFile) -> dict[str, Any]:
    return json.loads(archive.read("annotations/instances.json"))


def test_without_the_option_each_image_has_the_approved_answers_boxes(scene):
    compute_quality(scene["boxes"])
    _, archive = export(scene["campaigns"])
    data = instances(archive)
    assert [(a["image_id"], a["bbox"]) for a in data["annotations"]] == [
        (1, [100, 100, 200, 300]), (1, [600, 0, 100, 100]), (2, [10, 20, 30, 40])]
    assert all("aggregation" not in a for a in data["annotations"])
    assert [c["name"] for c in data["categories"]] == ["dog"]


def test_aggregated_boxes_replace_one_workers_boxes_and_say_how_they_were_made(scene):
    compute_quality(scene["boxes"])
    result, archive = export(scene["campaigns"], {"aggregated": True})
    data = instances(archive)
    assert data["images"] == [{"id": 1, "file_name": "boxed.png", "width": 800, "height": 600},
                              {"id": 2, "file_name": "imported.png", "width": 120, "height": 90}]
    categories = {c["name"]: c for c in data["categories"]}
    assert sorted(categories) == ["dog", "person", "woman"]  # the voted concept and its ancestor join
    assert categories["woman"]["supercategory"] == "person"
    merged, kept = data["annotations"]
    # the woman's cluster: three workers (dog, woman, woman); the box nearest the mean box is the first worker's
    # (mean x 100.67, y 100.33); the box at (600, 0) had 1 vote of 3, below the quorum of 50%
    assert merged == {
        "id": 1, "image_id": 1, "category_id": categories["woman"]["id"],
        "segmentation": [[100, 100, 300, 100, 300, 400, 100, 400]], "area": 60000, "bbox": [100, 100, 200, 300],
        "iscrowd": 0,
        "aggregation": {"method": "IoU clustering (IoU >= 0.5, one box per worker, concept by vote, quorum 50%, "
                                  "votes weighted by each worker's mean agreement in the campaign); each box is the "
                                  "worker's box nearest the mean box",
                        "votes": 3, "workers": 3, "label_votes": {"woman": 2, "dog": 1}},
    }
    assert kept == {"id": 2, "image_id": 2, "category_id": categories["dog"]["id"],
                    "segmentation": [[10, 20, 40, 20, 40, 60, 10, 60]], "area": 1200, "bbox": [10, 20, 30, 40],
                    "iscrowd": 0}  # imported: no aggregation
    assert result.counts["images_with_aggregated_boxes"] == 1 and result.counts["boxes"] == 2
    card = archive.read("README.md").decode()
    assert NOTE in card and "- Images with aggregated boxes: 1" in card


def test_an_image_whose_hit_was_not_measured_keeps_its_boxes(scene):
    _, archive = export(scene["campaigns"], {"aggregated": True})  # no quality computed: no aggregate stored
    data = instances(archive)
    assert [a["bbox"] for a in data["annotations"]] == [[100, 100, 200, 300], [600, 0, 100, 100], [10, 20, 30, 40]]
    assert all("aggregation" not in a for a in data["annotations"])


def test_the_aggregated_file_loads_in_pycocotools(scene, tmp_path):
    coco_module = pytest.importorskip("pycocotools.coco")
    compute_quality(scene["boxes"])
    _, archive = export(scene["campaigns"], {"aggregated": True})
    archive.extractall(tmp_path)
    coco = coco_module.COCO(str(tmp_path / "annotations/instances.json"))
    woman = coco.getCatIds(catNms=["woman"])
    assert coco.getAnnIds(imgIds=[1]) == [1] and coco.getAnnIds(catIds=woman) == [1]
    assert coco.loadAnns([1])[0]["aggregation"]["votes"] == 3
    assert int(coco.annToMask(coco.loadAnns([1])[0]).sum()) == 200 * 300


def test_the_lookup_takes_three_queries_whatever_the_images(scene, django_assert_num_queries):
    compute_quality(scene["boxes"])
    dataset = grounded_dataset(scene["campaigns"])
    with django_assert_num_queries(3):  # boxes' HITs, their aggregates, the concepts
        found = aggregated_boxes(dataset)
    assert list(found.images) == [scene["boxed"].pk]
    assert [b.concept for b in found.images[scene["boxed"].pk].boxes] == ["woman"]


def test_the_option_as_text_from_the_command_line(scene):
    compute_quality(scene["boxes"])
    _, archive = export(scene["campaigns"], {"aggregated": "true"})  # export_dataset --option aggregated=true
    assert "aggregation" in instances(archive)["annotations"][0]
    _, archive = export(scene["campaigns"], {"aggregated": "False"})
    assert "aggregation" not in instances(archive)["annotations"][0]


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_bad_option_value_is_refused_before_anything_is_written(scene, value):
    with pytest.raises(ExportError) as caught:
        export(scene["campaigns"], {"aggregated": value})
    assert str(caught.value) == f"option aggregated must be true or false, not {value!r}"


def test_the_exports_page_offers_the_option(researcher_client, scene):
    page = researcher_client.get(reverse("exports")).content.decode()
    assert '<legend>Options of coco</legend>' in page
    assert 'type="checkbox" name="coco__aggregated"' in page
    response = researcher_client.post(reverse("exports"), {"format": "coco", "coco__aggregated": "on",
                                                    "campaigns": [scene["boxes"].pk]})
    assert response.status_code == 302
    assert DatasetExport.objects.get().options == {"aggregated": True}


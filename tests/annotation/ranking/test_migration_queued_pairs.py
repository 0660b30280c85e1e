"""Migration 0016: the pairs each judge_caption campaign's HITs show (gold pairs aside) become QueuedPair rows."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0015_job_leases"), ("mturk", "0014_job_leases")]
AFTER = [("annotation", "0016_queued_pairs")]


def _state(target):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def test_queued_pairs_are_filled_from_the_hits():
    old = _state(BEFORE)
    Image = old.get_model("annotation", "Image")
    images = [Image.objects.create(key=k, original_name=f"{k}.jpg", format="JPEG", width=8, height=8, file_size=1,
                                   source_url=f"https://example.org/{k}.jpg") for k in "ab"]
    Description = old.get_model("annotation", "Description")
    first, second = (Description.objects.create(image=images[0], text=f"A dog {n} .") for n in (1, 2))
    Campaign = old.get_model("mturk", "Campaign")
    judging = Campaign.objects.create(name="j", task_kind="judge_caption", reward=1)
    other = Campaign.objects.create(name="d", task_kind="describe_image", reward=1)
    HIT = old.get_model("mturk", "HIT")
    HIT.objects.create(campaign=judging, max_assignments=1, position=1, items={"pairs": [
        {"image": images[1].pk, "description": first.pk},
        {"image": images[0].pk, "description": second.pk, "gold": {"relevant": True}}]})
    HIT.objects.create(campaign=judging, max_assignments=1, position=2, items={"pairs": [
        {"image": images[1].pk, "description": second.pk}, {"image": images[1].pk, "description": first.pk}]})
    HIT.objects.create(campaign=other, max_assignments=1, position=1, items={"image": images[0].pk})

    new = _state(AFTER)
    queued = new.get_model("annotation", "QueuedPair").objects.values_list("campaign_id", "image_id", "description_id")
    assert sorted(queued) == [(judging.pk, images[1].pk, first.pk), (judging.pk, images[1].pk, second.pk)]
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # leave the database fully migrated

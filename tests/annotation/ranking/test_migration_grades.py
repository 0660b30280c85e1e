"""Migration 0014: grades move to the Flickr8k release's scale (4 describes the image): every stored grade becomes
5 - grade, in judgements, judge_caption answers, gold pairs, gold items and the grades' wording; and back."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0013_image_set_licence_origin_name"), ("mturk", "0013_worker_identity")]
AFTER = [("annotation", "0014_grades_released_scale")]
OLD_WORDING = ["Without errors", "Minor errors", "Related", "Unrelated"]  # grades 1 to 4, old scale (1 best)


def _state(target):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def test_grades_are_inverted_and_the_inversion_is_reversible():
    old = _state(BEFORE)
    Image = old.get_model("annotation", "Image")
    image = Image.objects.create(key="a", original_name="a.jpg", format="JPEG", width=8, height=8, file_size=1,
                                 source_url="https://example.org/a.jpg")
    caption = old.get_model("annotation", "Description").objects.create(image=image, text="A dog .")
    Judgement = old.get_model("annotation", "CaptionJudgement")
    for grade in (1, 2, 3, 4):
        Judgement.objects.create(image=image, description=caption, source="imported", grade=grade, judge="e")
    Judgement.objects.create(image=image, description=caption, source="crowd", relevant=True)
    Campaign = old.get_model("mturk", "Campaign")
    judging = Campaign.objects.create(name="j", task_kind="judge_caption", reward=1,
                                      options={"graded": True, "grades": " | ".join(OLD_WORDING)})
    listed = Campaign.objects.create(name="l", task_kind="judge_caption", reward=1, options={"grades": OLD_WORDING})
    other = Campaign.objects.create(name="d", task_kind="describe_image", reward=1, options={"grades": "a|b|c|d"})
    HIT = old.get_model("mturk", "HIT")
    hit = HIT.objects.create(campaign=judging, max_assignments=1, items={"pairs": [
        {"image": image.pk, "description": caption.pk}, {"image": image.pk, "description": caption.pk,
                                                        "gold": {"grade": 1}}]})
    untouched = HIT.objects.create(campaign=other, max_assignments=1, items={"gold": {"grade": 1}})
    worker = old.get_model("mturk", "Worker").objects.create(provider="local", external_id="w")
    Assignment = old.get_model("mturk", "Assignment")
    answer = Assignment.objects.create(hit=hit, worker=worker, deadline=timezone.now(),
                                       answer={"judgements": [{"grade": 2}, {"grade": 1}]})
    gold = old.get_model("mturk", "GoldItem").objects.create(
        task_kind="judge_caption", items={"pairs": [{"image": 1, "description": 2}]},
        answer={"judgements": [{"grade": 4}]})

    new = _state(AFTER)
    grades = list(new.get_model("annotation", "CaptionJudgement").objects.order_by("pk").values_list("grade",
                                                                                                     "relevant"))
    assert grades == [(4, None), (3, None), (2, None), (1, None), (None, True)]
    campaigns = new.get_model("mturk", "Campaign").objects
    assert campaigns.get(pk=judging.pk).options == {"graded": True,
                                                    "grades": "Unrelated | Related | Minor errors | Without errors"}
    assert campaigns.get(pk=listed.pk).options == {"grades": OLD_WORDING[::-1]}
    assert campaigns.get(pk=other.pk).options == {"grades": "a|b|c|d"}
    hits = new.get_model("mturk", "HIT").objects
    assert hits.get(pk=hit.pk).items["pairs"][1]["gold"] == {"grade": 4}
    assert hits.get(pk=untouched.pk).items == {"gold": {"grade": 1}}
    assert new.get_model("mturk", "Assignment").objects.get(pk=answer.pk).answer == {
        "judgements": [{"grade": 3}, {"grade": 4}]}
    assert new.get_model("mturk", "GoldItem").objects.get(pk=gold.pk).answer == {"judgements": [{"grade": 1}]}

    back = _state(BEFORE)
    assert list(back.get_model("annotation", "CaptionJudgement").objects.order_by("pk")
                .values_list("grade", flat=True)) == [1, 2, 3, 4, None]
    assert back.get_model("mturk", "Campaign").objects.get(pk=judging.pk).options["grades"] == " | ".join(
        OLD_WORDING)
    assert back.get_model("mturk", "Assignment").objects.get(pk=answer.pk).answer == {
        "judgements": [{"grade": 2}, {"grade": 1}]}
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

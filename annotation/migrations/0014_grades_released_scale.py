"""Grades follow the Flickr8k release's scale: 4 describes the image without errors ... 1 unrelated (they were
stored the other way round, 1 best). Every stored grade becomes 5 - grade: imported and crowd judgements, and in
judge_caption campaigns the grades of answers, of gold pairs in HIT items and of gold items, and the wording of the
4 grades (option `grades`, now listed from grade 1 to grade 4). The change is its own inverse, so the migration
reverses by running it again."""
from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.db.models import F

KIND = "judge_caption"


def _flip(judgement: Any) -> Any:
    if isinstance(judgement, dict) and isinstance(judgement.get("grade"), int) \
            and not isinstance(judgement["grade"], bool) and 1 <= judgement["grade"] <= 4:
        return {**judgement, "grade": 5 - judgement["grade"]}
    return judgement


def _flip_answer(answer: Any) -> Any:
    if isinstance(answer, dict) and isinstance(answer.get("judgements"), list):
        return {**answer, "judgements": [_flip(j) for j in answer["judgements"]]}
    return answer


def _flip_items(items: Any) -> Any:
    if isinstance(items, dict) and isinstance(items.get("pairs"), list):
        return {**items, "pairs": [{**p, "gold": _flip(p["gold"])} if isinstance(p, dict) and "gold" in p else p
                                   for p in items["pairs"]]}
    return items


def _flip_wording(options: Any) -> Any:
    grades = options.get("grades") if isinstance(options, dict) else None
    if isinstance(grades, list) and len(grades) == 4:
        return {**options, "grades": grades[::-1]}
    if isinstance(grades, str) and grades.count("|") == 3:
        return {**options, "grades": " | ".join(text.strip() for text in reversed(grades.split("|")))}
    return options


def flip_grades(apps: Any, schema_editor: Any) -> None:
    CaptionJudgement = apps.get_model("annotation", "CaptionJudgement")
    Campaign = apps.get_model("mturk", "Campaign")
    HIT = apps.get_model("mturk", "HIT")
    Assignment = apps.get_model("mturk", "Assignment")
    GoldItem = apps.get_model("mturk", "GoldItem")
    CaptionJudgement.objects.filter(grade__gte=1, grade__lte=4).update(grade=5 - F("grade"))
    for campaign in Campaign.objects.filter(task_kind=KIND).only("pk", "options").iterator():
        options = _flip_wording(campaign.options)
        if options != campaign.options:
            Campaign.objects.filter(pk=campaign.pk).update(options=options)
    for hit in HIT.objects.filter(campaign__task_kind=KIND).only("pk", "items").iterator():
        items = _flip_items(hit.items)
        if items != hit.items:
            HIT.objects.filter(pk=hit.pk).update(items=items)
    for assignment in Assignment.objects.filter(hit__campaign__task_kind=KIND).exclude(answer=None) \
            .only("pk", "answer").iterator():
        answer = _flip_answer(assignment.answer)
        if answer != assignment.answer:
            Assignment.objects.filter(pk=assignment.pk).update(answer=answer)
    for gold in GoldItem.objects.filter(task_kind=KIND).only("pk", "items", "answer").iterator():
        items, answer = _flip_items(gold.items), _flip_answer(gold.answer)
        if (items, answer) != (gold.items, gold.answer):
            GoldItem.objects.filter(pk=gold.pk).update(items=items, answer=answer)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0013_image_set_licence_origin_name'),
        ('mturk', '0013_worker_identity'),
    ]

    operations = [
        migrations.AlterField(
            model_name='captionjudgement',
            name='grade',
            field=models.PositiveSmallIntegerField(blank=True, help_text="Graded judgement on the Flickr8k release's scale: 4 describes the image without errors, 3 minor errors, 2 somewhat related, 1 unrelated.", null=True),
        ),
        migrations.RunPython(flip_grades, flip_grades),
    ]

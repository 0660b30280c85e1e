"""The pairs each judge_caption campaign already shows (gold pairs aside), one row per pair under a unique key, so
that queueing a submission's pairs looks them up instead of reading every HIT; filled from the HITs' items."""
from __future__ import annotations

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def fill(apps: Any, schema_editor: Any) -> None:
    HIT = apps.get_model("mturk", "HIT")
    Image = apps.get_model("annotation", "Image")
    Description = apps.get_model("annotation", "Description")
    QueuedPair = apps.get_model("annotation", "QueuedPair")
    pairs: set[tuple[int, int, int]] = set()
    for campaign_id, items in HIT.objects.filter(campaign__task_kind="judge_caption") \
            .values_list("campaign_id", "items").iterator(chunk_size=2000):
        for pair in (items or {}).get("pairs", []) if isinstance(items, dict) else []:
            if isinstance(pair, dict) and "gold" not in pair:
                pairs.add((campaign_id, int(pair["image"]), int(pair["description"])))
    images = set(Image.objects.filter(id__in={i for _, i, _ in pairs}).values_list("id", flat=True))
    descriptions = set(Description.objects.filter(id__in={d for _, _, d in pairs}).values_list("id", flat=True))
    QueuedPair.objects.bulk_create([QueuedPair(campaign_id=c, image_id=i, description_id=d)
                                    for c, i, d in sorted(pairs) if i in images and d in descriptions],
                                   batch_size=1000, ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0015_job_leases'),
        ('mturk', '0013_worker_identity'),
    ]

    operations = [
        migrations.CreateModel(
            name='QueuedPair',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='mturk.campaign')),
                ('description', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.description')),
                ('image', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.image')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('campaign', 'image', 'description'), name='pair_queued_once')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]

"""Vocabularies own their labels, step 1 of 3 (schema): Concept gets its vocabulary (nullable until the labels are
shared out, 0010), whether it is offered to workers, and a name unique per vocabulary only (0011). The three steps
are separate migrations so that PostgreSQL never alters a table in the transaction that changed its rows."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0008_compositional"),
        ("mturk", "0011_quality_job"),
    ]

    operations = [
        migrations.AddField(
            model_name="vocabulary",
            name="description",
            field=models.CharField(blank=True, help_text="What the labels are for.", max_length=300),
        ),
        migrations.AddField(
            model_name="concept",
            name="vocabulary",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                    to="annotation.vocabulary"),
        ),
        migrations.AddField(
            model_name="concept",
            name="offered",
            field=models.BooleanField(default=True,
                                      help_text="Offered to workers (else kept for what refers to it)."),
        ),
        migrations.AlterField(
            model_name="concept",
            name="name",
            field=models.CharField(max_length=100),
        ),
    ]

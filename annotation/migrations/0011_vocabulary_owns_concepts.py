"""Vocabularies own their labels, step 3 of 3 (schema): every concept has its vocabulary (0010 gave each one), the
shared many-to-many list goes, and a name is unique within its vocabulary."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0010_own_vocabularies"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="vocabulary",
            name="concepts",
        ),
        migrations.AlterField(
            model_name="concept",
            name="vocabulary",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="concepts",
                                    to="annotation.vocabulary"),
        ),
        migrations.AlterModelOptions(
            name="concept",
            options={"ordering": ["name", "vocabulary_id"]},
        ),
        migrations.AddConstraint(
            model_name="concept",
            constraint=models.UniqueConstraint(fields=("vocabulary", "name"), name="concept_name_once_per_vocabulary"),
        ),
    ]

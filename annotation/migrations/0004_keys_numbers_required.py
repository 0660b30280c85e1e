from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("annotation", "0003_fill_keys_numbers_tokens")]
    operations = [
        migrations.AlterField(
            model_name="image",
            name="key",
            field=models.CharField(
                help_text="Stable dataset id used in exports and imports (default: the file name without extension).",
                max_length=200, unique=True,
            ),
        ),
        migrations.AlterField(model_name="box", name="number", field=models.PositiveIntegerField()),
    ]

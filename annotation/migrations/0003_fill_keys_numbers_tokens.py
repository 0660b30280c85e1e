"""Give existing rows their new values: image keys, per-image box numbers, description tokens."""
from pathlib import PurePosixPath

from django.db import migrations


def fill(apps, schema_editor):
    from metrics.text.markup import tokenize

    Image = apps.get_model("annotation", "Image")
    Box = apps.get_model("annotation", "Box")
    Description = apps.get_model("annotation", "Description")
    taken: set[str] = set()
    for image in Image.objects.order_by("id"):
        stem = PurePosixPath(image.original_name.replace("\\", "/")).stem or f"image-{image.pk}"
        key, n = stem[:190], 2
        while key in taken:
            key, n = f"{stem[:190]}-{n}", n + 1
        taken.add(key)
        Image.objects.filter(pk=image.pk).update(key=key)
    numbers: dict[int, int] = {}
    for box in Box.objects.order_by("image_id", "id"):
        Box.objects.filter(pk=box.pk).update(number=numbers.get(box.image_id, 0))
        numbers[box.image_id] = numbers.get(box.image_id, 0) + 1
    for description in Description.objects.filter(tokens=[]):
        Description.objects.filter(pk=description.pk).update(tokens=tokenize(description.text))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0002_grounded")]
    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]

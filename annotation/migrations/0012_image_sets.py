"""Image sets (collections) and the sets of the images stored before them: the demo's generated scenes (file names
scene-NNN.jpg at 800 x 600, and the photos of the simulated demo albums) go into the "Demo" set, every other image
into "Imported images". No image, box or description changes."""
import re

import django.db.models.deletion
from django.db import migrations, models

DEMO_SCENE = re.compile(r"scene-\d{3}\.jpg")
BATCH = 5000


def file_existing_images(apps, schema_editor):
    Image = apps.get_model("annotation", "Image")
    ImageSet = apps.get_model("annotation", "ImageSet")
    ImageSetTag = apps.get_model("annotation", "ImageSetTag")
    ImageSetMember = apps.get_model("annotation", "ImageSetMember")
    Photo = apps.get_model("storyboard", "Photo")
    demo_ids = set(Photo.objects.filter(album__is_simulated=True).values_list("image_id", flat=True))
    demo_ids |= {pk for pk, name in Image.objects.filter(width=800, height=600, original_name__startswith="scene-")
                 .values_list("pk", "original_name") if DEMO_SCENE.fullmatch(name)}
    other_ids = Image.objects.exclude(pk__in=demo_ids).values_list("pk", flat=True).iterator(chunk_size=BATCH)
    for name, source, is_demo, ids in (("Demo", "demo", True, iter(sorted(demo_ids))),
                                       ("Imported images", "existing", False, other_ids)):
        image_set = None
        batch: list[int] = []
        for pk in [*ids, None]:
            if pk is not None:
                batch.append(pk)
            if batch and (pk is None or len(batch) >= BATCH):
                if image_set is None:
                    image_set, _ = ImageSet.objects.get_or_create(
                        name=name, defaults={"source": source, "is_demo": is_demo})
                    if is_demo:
                        ImageSetTag.objects.get_or_create(image_set=image_set, name="demo")
                ImageSetMember.objects.bulk_create(
                    [ImageSetMember(image_set=image_set, image_id=i) for i in batch], ignore_conflicts=True)
                batch = []


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0011_vocabulary_owns_concepts'),
        ('storyboard', '0003_story_agreement'),
    ]

    operations = [
        migrations.CreateModel(
            name='ImageSet',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100, unique=True)),
                ('source', models.CharField(blank=True, help_text='How its images came: "images" (files or a zip), "api", "coco", "imageclef", "demo", "existing" (images stored before sets existed).', max_length=40)),
                ('is_demo', models.BooleanField(default=False, help_text="The demo's images: left out of the wizard's choices unless this set is chosen.")),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['is_demo', 'name'],
            },
        ),
        migrations.CreateModel(
            name='ImageSetMember',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('added_at', models.DateTimeField(auto_now_add=True)),
                ('image', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='set_members', to='annotation.image')),
                ('image_set', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='members', to='annotation.imageset')),
            ],
            options={
                'ordering': ['image_set_id', 'image_id'],
            },
        ),
        migrations.AddField(
            model_name='imageset',
            name='images',
            field=models.ManyToManyField(related_name='sets', through='annotation.ImageSetMember', to='annotation.image'),
        ),
        migrations.CreateModel(
            name='ImageSetTag',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(db_index=True, max_length=50)),
                ('image_set', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tags', to='annotation.imageset')),
            ],
            options={
                'ordering': ['image_set_id', 'name'],
            },
        ),
        migrations.AddIndex(
            model_name='imagesetmember',
            index=models.Index(fields=['image', 'image_set'], name='image_set_member_by_image'),
        ),
        migrations.AddConstraint(
            model_name='imagesetmember',
            constraint=models.UniqueConstraint(fields=('image_set', 'image'), name='image_in_set_once'),
        ),
        migrations.AddConstraint(
            model_name='imagesettag',
            constraint=models.UniqueConstraint(fields=('image_set', 'name'), name='image_set_tag_once'),
        ),
        migrations.RunPython(file_existing_images, migrations.RunPython.noop),
    ]

# The content types of the moved models go with them (annotation -> evaluation), so that the permissions given on
# them and the admin's log entries about their rows carry over. A content type the new label got already (by a
# migrate that ran before this one) is merged into the moved one: its permissions' holders and its log entries
# pass to the moved row's, then it is deleted. Backward, the same the other way.

from django.conf import settings
from django.db import migrations

MODELS = ('humanevaluation', 'evaluationitem', 'evaluatedsystem', 'automaticscoring', 'systemoutput',
          'humanjudgement')


def _move(apps, old_label, new_label):
    ContentType = apps.get_model('contenttypes', 'ContentType')
    Permission = apps.get_model('auth', 'Permission')
    LogEntry = apps.get_model('admin', 'LogEntry')
    Group = apps.get_model('auth', 'Group')
    User = apps.get_model(settings.AUTH_USER_MODEL)
    group_permissions = Group.permissions.through
    user_permissions = User.user_permissions.through
    for model in MODELS:
        moved = ContentType.objects.filter(app_label=old_label, model=model).first()
        if moved is None:
            continue
        already = ContentType.objects.filter(app_label=new_label, model=model).first()
        if already is not None:
            kept = {p.codename: p for p in Permission.objects.filter(content_type=moved)}
            for duplicate in Permission.objects.filter(content_type=already):
                permission = kept.get(duplicate.codename)
                if permission is None:
                    duplicate.content_type = moved
                    duplicate.save(update_fields=['content_type'])
                    continue
                for through, holder in ((group_permissions, 'group_id'), (user_permissions, 'user_id')):
                    holders = set(through.objects.filter(permission=permission).values_list(holder, flat=True))
                    for row in through.objects.filter(permission=duplicate):
                        if getattr(row, holder) not in holders:
                            through.objects.create(permission=permission, **{holder: getattr(row, holder)})
                duplicate.delete()
            LogEntry.objects.filter(content_type=already).update(content_type=moved)
            already.delete()
        moved.app_label = new_label
        moved.save(update_fields=['app_label'])
    ContentType.objects.clear_cache()


def forwards(apps, schema_editor):
    _move(apps, 'annotation', 'evaluation')


def backwards(apps, schema_editor):
    _move(apps, 'evaluation', 'annotation')


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0001_initial'),
        ('admin', '0003_logentry_add_action_flag_choices'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]

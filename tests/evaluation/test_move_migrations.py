"""The move of human evaluation's models from annotation to evaluation (annotation 0020, evaluation 0001 and 0002):
the rows stay where they are and read through the new models, the content types move with their permissions and
log entries (one the new label got already is merged), and the way back restores the old labels."""
from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evaluation.models import EvaluatedSystem, EvaluationItem, HumanEvaluation

BEFORE = [("annotation", "0019_human_eval_scoring")]


def migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    ContentType.objects.clear_cache()
    return MigrationExecutor(connection)


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_rows_content_types_and_permissions():
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = migrate(BEFORE).loader.project_state(BEFORE).apps
        OldEvaluation = old.get_model("annotation", "HumanEvaluation")
        evaluation = OldEvaluation.objects.create(name="kept", output_kind="caption", test_set="image_set:1")
        old.get_model("annotation", "EvaluationItem").objects.create(evaluation_id=evaluation.pk, name="1",
                                                                     position=0)
        old.get_model("annotation", "EvaluatedSystem").objects.create(evaluation_id=evaluation.pk, name="sys")
        # the content types and permissions the test database had got (the way back gave them the old label)
        old_type = ContentType.objects.get(app_label="annotation", model="humanevaluation")
        old_change = Permission.objects.get(content_type=old_type, codename="change_humanevaluation")
        group = Group.objects.create(name="evaluators")
        group.permissions.add(old_change)
        user = User.objects.create(username="someone")
        entry = LogEntry.objects.create(content_type=old_type, object_id=str(evaluation.pk), object_repr="kept",
                                        action_flag=2, user=user)
        # a content type the new label got already (a migrate that ran before), with a permission given to a user
        system_type = ContentType.objects.get(app_label="annotation", model="evaluatedsystem")
        early_type = ContentType.objects.create(app_label="evaluation", model="evaluatedsystem")
        early_view = Permission.objects.create(content_type=early_type, codename="view_evaluatedsystem", name="v")
        user.user_permissions.add(early_view)

        migrate(leaves)
        assert list(HumanEvaluation.objects.values_list("pk", "name")) == [(evaluation.pk, "kept")]
        assert (EvaluationItem.objects.count(), EvaluatedSystem.objects.get().evaluation_id) == (1, evaluation.pk)
        assert ContentType.objects.get_for_model(HumanEvaluation).pk == old_type.pk
        assert ContentType.objects.get_for_model(EvaluatedSystem).pk == system_type.pk
        assert not ContentType.objects.filter(pk=early_type.pk).exists()
        assert list(group.permissions.values_list("content_type__app_label", "codename")) == [
            ("evaluation", "change_humanevaluation")]
        assert User.objects.get(pk=user.pk).has_perm("evaluation.view_evaluatedsystem")
        assert LogEntry.objects.get(pk=entry.pk).content_type_id == old_type.pk

        migrate(BEFORE)
        assert set(ContentType.objects.filter(pk__in=[old_type.pk, system_type.pk]).values_list("app_label",
                                                                                               flat=True)) == {
            "annotation"}
        assert OldEvaluation.objects.get().name == "kept"
    finally:
        migrate(leaves)

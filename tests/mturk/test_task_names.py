"""Celery work is queued by the task's registered name (mturk.jobs.names): every name the code queues is a
registered task, the registered names stay those messages and schedules already carry, and resolving a name keeps
the task's base class (the fire-and-forget failure recording)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction

from config.celery import app
from mturk.jobs import FireAndForget, UnknownTask, job_models, send_after_commit, task_named
from mturk.services.campaign_tasks import CampaignTask

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("annotation", "storyboard", "mturk", "metrics", "config")
QUEUING = {"send_after_commit", "task_named"}  # the calls whose first argument is a task's name

# The names messages in a broker and beat schedules carry: they never change.
REGISTERED = [
    "annotation.ranking.tasks.refresh_leaderboard", "annotation.tasks.evaluate_compositional",
    "annotation.tasks.make_thumbnails", "annotation.tasks.parse_captions", "annotation.tasks.render_images",
    "annotation.tasks.score_human_eval_system", "mturk.tasks.apply_review_rules", "mturk.tasks.build_dataset_export",
    "mturk.tasks.compute_campaign_quality", "mturk.tasks.create_marketplace_hits", "mturk.tasks.grant_participation",
    "mturk.tasks.poll_marketplace_events", "mturk.tasks.prolific_handle_events", "mturk.tasks.prolific_publish",
    "mturk.tasks.prolific_push_decisions", "mturk.tasks.publish_new_hits", "mturk.tasks.release_idle_tasks",
    "mturk.tasks.run_import_job", "mturk.tasks.sweep_background_jobs", "mturk.tasks.sync_marketplace",
    "storyboard.tasks.score_all_stories", "storyboard.tasks.score_new_stories",
]


def registered() -> set[str]:
    app.loader.import_default_modules()
    return {name for name in app.tasks if not name.startswith("celery.")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> dict[str, tuple[Path, ast.Module]]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts and "." not in path.stem:
                found[_module_name(path)] = (path, ast.parse(path.read_text(encoding="utf-8")))
    return found


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[:len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def queued_names() -> dict[str, str]:
    """Every task name the code queues ({name: where}), read from the source: the first argument of
    send_after_commit / task_named, a string or a module-level constant (of the module or imported from another)."""
    sources = _sources()
    constants: dict[str, dict[str, str]] = {}
    imported: dict[str, dict[str, tuple[str, str]]] = {}
    for module, (path, tree) in sources.items():
        constants[module], imported[module] = {}, {}
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                constants[module][node.targets[0].id] = node.value.value
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, node, path.name == "__init__.py")
                for alias in node.names:
                    imported[module][alias.asname or alias.name] = (source, alias.name)
    found: dict[str, str] = {}
    for module, (path, tree) in sources.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args and
                    getattr(node.func, "id", getattr(node.func, "attr", None)) in QUEUING):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            argument = node.args[0]
            if module == "mturk.jobs.queue" and isinstance(argument, ast.Name) and argument.id in {"name"}:
                continue  # send_after_commit's own use of task_named
            if module == "mturk.jobs.queue" and isinstance(argument, ast.Attribute):
                continue  # hand_off: a job model's job_task (checked below)
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found[argument.value] = where
            elif isinstance(argument, ast.Name) and argument.id in constants[module]:
                found[constants[module][argument.id]] = where
            elif isinstance(argument, ast.Name) and argument.id in imported[module]:
                source, name = imported[module][argument.id]
                assert name in constants.get(source, {}), f"{where}: {argument.id} is no string constant of {source}"
                found[constants[source][name]] = where
            else:
                pytest.fail(f"{where}: a task is queued by a name this test cannot read (a string, or a module-level "
                            "string constant)")
    return found


def test_the_registered_names_stay():
    assert sorted(registered()) == REGISTERED


def test_every_name_the_code_queues_is_a_registered_task():
    names = queued_names()
    assert {"mturk.tasks.publish_new_hits", "annotation.ranking.tasks.refresh_leaderboard"} <= set(names)
    unknown = {name: where for name, where in names.items() if name not in registered()}
    assert not unknown, f"queued under names no tasks module registers: {unknown}"


@pytest.mark.django_db
def test_every_job_kind_and_schedule_names_a_registered_task():
    kinds = {model.__name__: model.job_task for model in job_models()}
    assert len(kinds) >= 6
    assert {kind: name for kind, name in kinds.items() if name not in registered()} == {}
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled - registered() == set()


def test_a_task_resolved_by_name_keeps_its_base_class():
    assert isinstance(task_named("mturk.tasks.publish_new_hits"), CampaignTask)
    assert isinstance(task_named("annotation.tasks.make_thumbnails"), FireAndForget)
    assert task_named("annotation.tasks.make_thumbnails").recovery


@pytest.mark.django_db
def test_an_unknown_name_fails_where_it_is_queued():
    with pytest.raises(UnknownTask, match="mturk.tasks.no_such_task"):
        task_named("mturk.tasks.no_such_task")
    with transaction.atomic(), pytest.raises(UnknownTask):
        send_after_commit("mturk.tasks.publish_new_hit", 1)  # a typo: raised at the call, not lost after commit

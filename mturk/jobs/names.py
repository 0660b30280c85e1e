"""Celery tasks by their registered name: the code that queues work names the task (a module-level constant, a
model's `job_task`), so that it never imports a `tasks` module, and a `tasks` module imports the services it
calls without an import loop. A name no tasks module registers fails here, loudly, where it is used (and the
test of the task names finds it before any run)."""
from __future__ import annotations

from typing import Any

from celery import current_app


class UnknownTask(LookupError):
    pass


def task_named(name: str) -> Any:
    """The Celery task registered under `name` (its base class and options with it: FireAndForget,
    CampaignTask...). The apps' tasks modules are imported first when the name is not known yet (Celery's
    autodiscovery is lazy)."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    try:
        return current_app.tasks[name]
    except KeyError:
        raise UnknownTask(f"no Celery task is registered under the name '{name}'") from None

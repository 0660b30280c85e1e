"""Store, then hand off: jobs are sent to the broker after their row is committed, and a broker that cannot be
reached leaves the job stored and queued for the sweeper, never an error for the person who asked for it."""
from __future__ import annotations

import logging
from typing import Any

from celery import current_app
from django.apps import apps
from django.db import transaction
from django.utils import timezone

from .fire import FireAndForget, Handoff, run_in_process
from .models import BackgroundJob

log = logging.getLogger(__name__)


def job_models() -> list[type[BackgroundJob]]:
    """Every concrete kind of background job (each names the task that runs it)."""
    return [model for model in apps.get_models() if issubclass(model, BackgroundJob)]


def _eager() -> bool:
    return bool(current_app.conf.task_always_eager)


def hand_off(model: type[BackgroundJob], pk: int) -> bool:
    """Send the job to its task; True once the broker took it. Without a broker (in-process tasks) the job runs
    here and its errors propagate as any in-process task's do."""
    if not model.job_task:
        raise TypeError(f"{model.__name__} names no job_task")
    if model.job_task not in current_app.tasks:
        current_app.loader.import_default_modules()  # the apps' tasks modules (autodiscovery is lazy)
    task = current_app.tasks[model.job_task]
    if _eager():
        model._default_manager.filter(pk=pk).update(handed_off_at=timezone.now())
        task.delay(pk)
        return True
    try:
        task.apply_async(args=[pk])
    except Exception as exc:  # whatever the transport raises: the job is stored, the sweeper sends it later
        log.warning("%s %s is stored but could not be handed to the broker (%s: %s); the sweeper will send it "
                    "when the broker is back", model._meta.verbose_name, pk, type(exc).__name__, exc)
        return False
    model._default_manager.filter(pk=pk).update(handed_off_at=timezone.now())
    return True


def dispatch(job: BackgroundJob, robust: bool = False) -> None:
    """Hand the stored job to the broker once the current transaction commits (at once outside one).
    `robust`: without a broker, a job that fails in-process is logged instead of raised at the caller."""
    model, pk = type(job), job.pk
    transaction.on_commit(lambda: hand_off(model, pk), robust=robust)


def send_after_commit(task: Any, *args: Any, countdown: float | None = None) -> Handoff:
    """Queue a fire-and-forget task once the transaction commits; a broker error is logged, not raised (a periodic
    task or an action derives the same work again). Without a broker the task runs here when the transaction
    commits, and a failure is recorded (fire.FireAndForget), not raised. The returned Handoff tells how it went
    once the transaction has committed."""
    label = task.describe() if isinstance(task, FireAndForget) else task.name
    handoff = Handoff(task=task.name, label=label, in_process=_eager())

    def send() -> None:
        if handoff.in_process:
            run_in_process(task, args, handoff)
            return
        try:
            task.apply_async(args=args, countdown=countdown)
        except Exception as exc:
            handoff.sent = False
            log.warning("task %s%r could not be queued (%s: %s); the periodic task that covers it will do the work",
                        task.name, args, type(exc).__name__, exc)
        else:
            handoff.sent = True

    transaction.on_commit(send)
    return handoff

"""Celery application. With no broker configured, tasks run in-process (eager)."""
import os

from celery import Celery
from celery.signals import worker_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

from common.observability import celery_signals  # noqa: E402,F401  (request ids, job metrics, worker logs)


@worker_init.connect
def _refuse_public_secret_key(**kwargs) -> None:
    """A worker signs links and keys export ids: it does not start with the public key outside DEBUG
    (SystemExit, since Celery logs and ignores the exceptions of signal handlers)."""
    from django.core.exceptions import ImproperlyConfigured

    from config.secret_key import refuse_public_key_outside_debug

    try:
        refuse_public_key_outside_debug()
    except ImproperlyConfigured as refusal:
        raise SystemExit(f"ImproperlyConfigured: {refusal}") from refusal


@worker_ready.connect
def _sweep_jobs_on_start(**kwargs) -> None:
    """A worker starting (after a crash, a deploy, the broker back) sends what the broker never took and takes up
    the jobs whose worker stopped (mturk.jobs); a failure here is logged and the worker starts anyway."""
    import logging

    from mturk.jobs import sweep

    try:
        report = sweep()
    except Exception:
        logging.getLogger(__name__).exception("the job sweep at worker start failed")
        return
    logging.getLogger(__name__).info("job sweep at worker start: %s sent, %s taken up again, %s failed",
                                     len(report.sent), len(report.requeued), len(report.failed))

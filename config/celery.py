"""Celery application. With no broker configured, tasks run in-process (eager)."""
import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

from config.observability import celery_signals  # noqa: E402,F401  (request ids, job metrics, worker logs)


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

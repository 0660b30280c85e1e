"""`manage.py check_worker_health`: exit 0 if a worker here could work (broker and database answer), else 1 naming what
fails. For an exec probe where the worker's health port is not used."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from common.observability.worker_health import check_worker_health


class Command(BaseCommand):
    help = "Check that a Celery worker can reach the broker and the database (exit 1 if not)."

    def handle(self, *args: Any, **options: Any) -> None:
        health = check_worker_health()
        if not health.ok:
            raise CommandError(health.describe())
        self.stdout.write("ok")

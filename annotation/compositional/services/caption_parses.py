"""Stored dependency parses of the descriptions: every caption is parsed once by the current parser
(settings.COMPOSITIONAL_PARSER) and its Parse kept, so that occurrence tables, splits and reports never parse again.

Parsing runs as a ParseJob (a Celery job, in-process without a broker; pattern of mturk.quality.services.jobs), one
open at a time: it parses in id order the descriptions without a parse by the current parser (a parse by another
parser is replaced), batch by batch, and saves its progress after each batch, so a redelivered job goes on where it
got to. Descriptions stored later (approved describe_image answers, new imports) are parsed by the next job, which
the console's Parse button or the parse_captions command starts."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from metrics.compositional.parser import CaptionParser, load_parser, parser_name
from mturk.jobs import claim, dispatch, finish, lease

from ...models import Description
from ..models import CaptionParse, ParseJob

log = logging.getLogger(__name__)

OPEN = (ParseJob.Status.QUEUED, ParseJob.Status.RUNNING)
BATCH_SIZE = 512
PARSE_LOCK = 0x70617273  # the advisory lock key of parse requests

Progress = Callable[[ParseJob], None]


def current_parser() -> CaptionParser:
    """The parser settings.COMPOSITIONAL_PARSER names (loaded once per process)."""
    return load_parser(settings.COMPOSITIONAL_PARSER)


def current_parser_name() -> str:
    """The current parser's name, without loading a spaCy pipeline for it."""
    return parser_name(settings.COMPOSITIONAL_PARSER)


def unparsed_descriptions(parser_name: str):
    """Descriptions without a parse by `parser_name` (none yet, or one by another parser)."""
    return Description.objects.exclude(parse__parser=parser_name)


def open_job() -> ParseJob | None:
    """The queued or running job, if any (one whose worker died is taken up again or failed by the job queue's
    sweeper, mturk.jobs: it always ends)."""
    return (ParseJob.objects.filter(status__in=OPEN)
            .order_by("-created_at", "-id").first())


def _one_request_at_a_time() -> None:
    """Serialise requests until the transaction ends (a PostgreSQL advisory lock; SQLite writes one at a time)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PARSE_LOCK])


def request_parse(user: Any = None) -> ParseJob:
    """The open parse job, or a new one queued once this transaction commits."""
    name = current_parser_name()
    with transaction.atomic():
        _one_request_at_a_time()
        existing = open_job()
        if existing is not None:
            return existing
        job = ParseJob.objects.create(parser=name, total=unparsed_descriptions(name).count(),
                                      created_by=user if getattr(user, "is_authenticated", False) else None)
        dispatch(job)
    return job


def _parse_batch(job: ParseJob, parser: CaptionParser, batch_size: int) -> int:
    rows = list(unparsed_descriptions(parser.name).filter(id__gt=job.last_description_id)
                .order_by("id").values_list("id", "text")[:batch_size])
    if not rows:
        return 0
    parses = parser.parse([text for _, text in rows])
    if len(parses) != len(rows):
        raise RuntimeError(f"the parser {parser.name} returned {len(parses)} parses for {len(rows)} captions")
    with transaction.atomic():
        # A description deleted while its batch was parsed is skipped (its parse would have nothing to belong to).
        still = set(Description.objects.filter(pk__in=[pk for pk, _ in rows]).values_list("pk", flat=True))
        CaptionParse.objects.bulk_create(
            [CaptionParse(description_id=pk, parser=parser.name, data=parse.to_json())
             for (pk, _), parse in zip(rows, parses, strict=True) if pk in still],
            update_conflicts=True, unique_fields=["description"], update_fields=["parser", "data"])
        job.done += len(rows)
        job.total = max(job.total, job.done)
        job.last_description_id = rows[-1][0]
        job.heartbeat_at = timezone.now()
        job.save(update_fields=["done", "total", "last_description_id", "updated_at", "heartbeat_at"])
    return len(rows)


def run_parse_job(job: ParseJob, batch_size: int = BATCH_SIZE, progress: Progress | None = None) -> ParseJob:
    """Parse (from queued, or from running when a killed job is redelivered: it goes on after
    last_description_id). Ends done, or failed with the error (which is raised again)."""
    if not claim(job, updated_at=timezone.now()):
        return job
    with lease(job):
        return _run(job, batch_size, progress)


def _run(job: ParseJob, batch_size: int, progress: Progress | None) -> ParseJob:
    try:
        parser = current_parser()
        if parser.name != job.parser:
            # The setting changed since the job was asked for: it parses with the parser now configured.
            job.parser = parser.name
            job.total = job.done + unparsed_descriptions(parser.name).filter(id__gt=job.last_description_id).count()
            job.save(update_fields=["parser", "total", "updated_at"])
        while _parse_batch(job, parser, batch_size):
            if progress is not None:
                progress(job)
    except Exception as exc:
        log.exception("parse job %s failed", job.pk)
        _finish(job, ParseJob.Status.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    return _finish(job, ParseJob.Status.DONE, "")


def _finish(job: ParseJob, status: str, error: str) -> ParseJob:
    job.status, job.error, job.finished_at = status, error, timezone.now()
    finish(job, ["status", "error", "finished_at", "updated_at"])
    return job


def run_parse_job_by_id(job_id: int) -> None:
    """The Celery task's body; a job that no longer exists is skipped."""
    job = ParseJob.objects.filter(pk=job_id).first()
    if job is None:
        log.warning("parse job %s no longer exists", job_id)
        return
    run_parse_job(job)


def parse_all(progress: Progress | None = None, batch_size: int = BATCH_SIZE, user: Any = None) -> int:
    """Parse in this process every description without a parse by the current parser, as a ParseJob of its own
    (the same code path as the background job); `progress` is called with the job after each batch. Returns how
    many captions were parsed."""
    name = current_parser_name()
    job = ParseJob.objects.create(parser=name, total=unparsed_descriptions(name).count(),
                                  created_by=user if getattr(user, "is_authenticated", False) else None)
    if progress is not None:
        progress(job)
    return run_parse_job(job, batch_size=batch_size, progress=progress).done

"""Background work of compositional generalization. The tasks keep the names they were queued under
(annotation.tasks.*): messages already in the broker carry them."""
from celery import shared_task

from .services.caption_parses import run_parse_job_by_id
from .services.evaluations import run_evaluation_by_id


@shared_task(name="annotation.tasks.parse_captions", acks_late=True)
def parse_captions(job_id: int) -> None:
    """Parse the descriptions a ParseJob covers (services.caption_parses), going on where it got to."""
    run_parse_job_by_id(job_id)


@shared_task(name="annotation.tasks.evaluate_compositional", acks_late=True)
def evaluate_compositional(evaluation_id: int) -> None:
    """Score a stored CompositionalEvaluation (services.evaluations)."""
    run_evaluation_by_id(evaluation_id)

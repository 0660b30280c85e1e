"""Background work of human evaluation (the task keeps the name it is queued under: annotation.tasks.*)."""
from celery import shared_task

from .services.scoring import run_scoring_by_id


@shared_task(name="annotation.tasks.score_human_eval_system", acks_late=True)
def score_human_eval_system(job_id: int) -> None:
    """Score a stored system's outputs (services.scoring)."""
    run_scoring_by_id(job_id)

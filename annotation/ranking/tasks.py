"""Background work of ranking evaluation."""
from celery import shared_task

from .services.leaderboards import refresh_leaderboard_by_id


@shared_task(name="annotation.ranking.tasks.refresh_leaderboard", acks_late=True)
def refresh_leaderboard(pool_id: int) -> None:
    """Store the pool's leaderboard figures on its current judgements (services.leaderboards); a job that finds
    them current does nothing, so a repeated or redelivered message is harmless."""
    refresh_leaderboard_by_id(pool_id)

"""Automatic scores of a stored system, as a background job (models.AutomaticScoring, the crowd core's job queue):
an upload (or the reference system of a new evaluation) is stored first, then queued here once its transaction
commits; the job scores the outputs against the items' references (services.automatic: BLEU-4, CIDEr, METEOR, and
the registered providers' metrics) and stores them in EvaluatedSystem.automatic. The human reference is scored
against the other references of each item (leave one out). A job that fails keeps the reason; the system stays
judged either way (its automatic columns are empty)."""
from __future__ import annotations

import logging
from typing import Any

from mturk.jobs import dispatch, running

from ..models import AutomaticScoring, EvaluatedSystem, HumanEvaluation
from ..registry import AutomaticScores, automatic_score_providers
from .automatic import automatic_scores

log = logging.getLogger(__name__)


def queue_scoring(system: EvaluatedSystem) -> AutomaticScoring:
    """Store the system's scoring job and hand it to the queue once the current transaction commits (without a
    broker it runs in-process then; a failure is recorded on the job, not raised at the caller)."""
    job = AutomaticScoring.objects.create(system=system)
    dispatch(job, robust=True)
    return job


def provided_scores(evaluation: HumanEvaluation, system: str, outputs: dict[str, str]) -> AutomaticScores:
    """The metrics the registered automatic score providers give of these outputs (e.g. compositional Recall@K when
    the system has a compositional evaluation on the test set); a metric already named is not replaced."""
    extra: AutomaticScores = {}
    for provider in automatic_score_providers():
        for metric, scores in (provider.scores(evaluation, system, outputs) or {}).items():
            extra.setdefault(metric, scores)
    return extra


def system_scores(system: EvaluatedSystem) -> dict[str, Any]:
    """The automatic scores of a stored system's outputs (what the job stores)."""
    evaluation = system.evaluation
    rows = system.outputs.order_by("item__position").values_list("item__name", "text", "item__references")
    outputs = {name: text for name, text, _ in rows}
    if system.role == EvaluatedSystem.Role.REFERENCE:  # its output is each item's first reference
        references = {name: list(refs or [])[1:] for name, _, refs in rows}
    else:
        references = {name: list(refs or []) for name, _, refs in rows}
    scores = automatic_scores(evaluation.output_kind, outputs, references)
    if system.role == EvaluatedSystem.Role.SYSTEM:
        for metric, extra in provided_scores(evaluation, system.name, outputs).items():
            scores.setdefault(metric, extra)
    return scores


def run_scoring(job: AutomaticScoring) -> AutomaticScoring:
    """Score the job's system (from queued, or running when a killed job is redelivered: scoring again is
    harmless); done, or failed with the error (raised again)."""
    with running(job) as run:
        if run is not None:
            scores = system_scores(job.system)
            EvaluatedSystem.objects.filter(pk=job.system_id).update(automatic=scores)
    return job


def run_scoring_by_id(job_id: int) -> None:
    job = AutomaticScoring.objects.select_related("system__evaluation").filter(pk=job_id).first()
    if job is None:
        log.warning("automatic scoring %s no longer exists", job_id)
        return
    run_scoring(job)

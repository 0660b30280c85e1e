"""Analysing a human evaluation: metrics.human_eval.analyse on its judgement records (the attention checks left
out), with the systems' automatic scores and a seed derived from the evaluation's, stored on the evaluation.

Synchronous: the analysis of 10 systems x 1,000 items x 3 judges takes about 2 s (bench/human_eval_analysis.py),
and the records are read in chunks (annotation.human_eval.selectors.judgement_records)."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from django.utils import timezone

from metrics.human_eval import RecordError, analyse

from ..aspects import ASPECTS
from ..models import HumanEvaluation
from ..selectors import automatic_scores, judgement_records


class AnalysisError(ValueError):
    """The judgements cannot be analysed; the message says why. Nothing is stored."""


def numeric_seed(seed: str) -> int:
    """The generator's seed of an evaluation's seed: the number itself when it is one, else the first 8 bytes of
    its SHA-256 (stable across processes, unlike hash())."""
    if seed.isdigit():
        return int(seed)
    return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")


def rating_scale(evaluation: HumanEvaluation) -> list[int] | None:
    """Points 1..n when every aspect asked has the same n-point scale (the agreement's value domain), else None
    (the analysis then takes the values seen)."""
    sizes = {len(ASPECTS[name].scale) for name in evaluation.aspects or [] if name in ASPECTS}
    return list(range(1, sizes.pop() + 1)) if len(sizes) == 1 else None


def analyse_evaluation(evaluation: HumanEvaluation) -> dict[str, Any]:
    """Analyse every judgement stored so far, store the analysis with its number of judgements and time, and
    return it. Raises AnalysisError when there is no judgement or a record cannot be read."""
    counted = [0]

    def records() -> Iterator[dict[str, Any]]:  # counted as analyse reads them, never all held as dicts
        for record in judgement_records(evaluation):
            counted[0] += 1
            yield record

    scores = automatic_scores(evaluation)
    try:
        analysis = analyse(records(), seed=numeric_seed(evaluation.seed), scale=rating_scale(evaluation),
                           automatic=scores["automatic"], automatic_systems=scores["automatic_systems"])
    except (RecordError, ValueError) as exc:
        raise AnalysisError(f"'{evaluation.name}': {exc}") from None
    if not counted[0]:
        raise AnalysisError(f"'{evaluation.name}' has no judgement to analyse yet")
    evaluation.analysis = analysis
    evaluation.analysed_judgements = counted[0]
    evaluation.analysed_at = timezone.now()
    evaluation.save(update_fields=["analysis", "analysed_judgements", "analysed_at"])
    return analysis

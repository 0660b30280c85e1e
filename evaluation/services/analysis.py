"""Analysing a human evaluation: metrics.human_eval.analyse on its judgement records (the attention checks left
out), with the systems' automatic scores and a seed derived from the evaluation's, stored on the evaluation.

The researcher sets the number of random sign patterns of the permutation tests that are not exact (pairs judged
on more than 20 items), from PERMUTATION_RESAMPLES_MIN to PERMUTATION_RESAMPLES_MAX (the API, the console's
Analyse form, `report_human_eval --analyse --permutation-resamples`); unset, the evaluation's last analysis's
number is kept, else the default (100,000). It is stored in the analysis's settings.

Synchronous: the analysis of 10 systems x 1,000 items x 3 judges takes seconds (bench/human_eval_analysis.py; the
permutation tests' 100,000 random sign patterns add about 40%), and the records are read in chunks
(evaluation.selectors.judgement_records)."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from django.utils import timezone

from metrics.human_eval import RecordError, analyse
from metrics.human_eval.significance import PERMUTATION_RESAMPLES

from ..aspects import ASPECTS
from ..models import HumanEvaluation
from ..selectors import automatic_scores, judgement_records

PERMUTATION_RESAMPLES_MIN = 1_000
PERMUTATION_RESAMPLES_MAX = 1_000_000  # about 10 s a question for 10 systems x 1,000 items


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


def permutation_resamples_of(evaluation: HumanEvaluation, requested: int | None = None) -> int:
    """The number of random sign patterns to use: the one requested (checked), else the last analysis's, else the
    default."""
    if requested is None:
        stored = (evaluation.analysis or {}).get("settings", {}).get("permutation_resamples")
        return stored if isinstance(stored, int) else PERMUTATION_RESAMPLES
    if isinstance(requested, bool) or not isinstance(requested, int) or not (
            PERMUTATION_RESAMPLES_MIN <= requested <= PERMUTATION_RESAMPLES_MAX):
        raise AnalysisError(f"permutation resamples: a whole number from {PERMUTATION_RESAMPLES_MIN:,} to "
                            f"{PERMUTATION_RESAMPLES_MAX:,}, not {requested!r}")
    return requested


def analyse_evaluation(evaluation: HumanEvaluation, *, permutation_resamples: int | None = None) -> dict[str, Any]:
    """Analyse every judgement stored so far, store the analysis with its number of judgements and time, and
    return it. `permutation_resamples`: see the module. Raises AnalysisError when there is no judgement, a record
    cannot be read or the number of resamples is out of range; nothing is stored then."""
    resamples = permutation_resamples_of(evaluation, permutation_resamples)
    counted = [0]

    def records() -> Iterator[dict[str, Any]]:  # counted as analyse reads them, never all held as dicts
        for record in judgement_records(evaluation):
            counted[0] += 1
            yield record

    scores = automatic_scores(evaluation)
    try:
        analysis = analyse(records(), seed=numeric_seed(evaluation.seed), scale=rating_scale(evaluation),
                           permutation_resamples=resamples, automatic=scores["automatic"],
                           automatic_systems=scores["automatic_systems"])
    except (RecordError, ValueError) as exc:
        raise AnalysisError(f"'{evaluation.name}': {exc}") from None
    if not counted[0]:
        raise AnalysisError(f"'{evaluation.name}' has no judgement to analyse yet")
    evaluation.analysis = analysis
    evaluation.analysed_judgements = counted[0]
    evaluation.analysed_at = timezone.now()
    evaluation.save(update_fields=["analysis", "analysed_judgements", "analysed_at"])
    return analysis

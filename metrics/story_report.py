"""The stories-and-descriptions report (the VIST paper's sections 4 and 5) as JSON-serializable data.

    report = story_report({"dii": [...], "dis": [...], "sis": [...]}, stories, crowd=None)
    html = story_report_html(report)

- Tier statistics (Table 2's computable columns) and top words by normalized PMI (Table 3): `metrics.story_stats`.
  Each tier's list holds one text per text-image pair (for SIS: one storylet, not one whole story).
- Inter-worker agreement: every story is scored against the other stories of the same photo sequence (same album
  and same photo ids in the same order) with METEOR 1.5 (hter task weights; the best of the other stories), BLEU-4
  and CIDEr (all the other stories as references; CIDEr's IDF over all the scored stories). Stories whose sequence
  has no other story cannot be scored: they are counted and listed under `skipped_story_ids`.
- When stories carry a mean human rating, the correlation of each metric's per-story score with it (Table 4):
  Pearson r, Spearman rho, Kendall tau and their p-values, over the stories that have both a rating and scores.

One JVM serves the whole report: pass a running `metrics.meteor.Meteor` as `meteor_runner`, or leave it None and
the report starts one (only when some sequence has two stories) and stops it before returning.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from metrics.correlation import correlation_table
from metrics.meteor import METEOR_SETTING, Meteor, MeteorScorer
from metrics.story_report_html import story_report_html
from metrics.story_scores import bleu4, cider
from metrics.story_stats import MIN_COUNT, TOP_K, tier_statistics, top_words

__all__ = ["MeteorScorer", "StoryText", "inter_worker_agreement", "story_report", "story_report_html"]

METRICS = ("meteor", "bleu4", "cider")
DEFINITIONS = {
    "meteor": f"{METEOR_SETTING} of each story against the other stories of its sequence, the best of them; "
              "mean over stories",
    "bleu4": "BLEU-4 (pycocoevalcap, closest reference length, unsmoothed) of each story against all the other "
             "stories of its sequence; mean over stories, and corpus-level (n-gram counts summed over stories)",
    "cider": "CIDEr (pycocoevalcap, n = 4, sigma = 6, x10) of each story against all the other stories of its "
             "sequence, IDF over the references of all scored stories; mean over stories",
    "npmi": "npmi(w, t) = log(p(w,t) / (p(w) p(t))) / -log p(w,t) over token occurrences across the tiers; a word is "
            "ranked for a tier when seen at least min_count times in it; punctuation is never listed",
    "vocabulary": "distinct tokens seen more than once in the tier",
}


@dataclass(frozen=True)
class StoryText:
    """One story: its id, photo sequence (photo ids in story order), album, normalized whole text, mean rating."""

    story_id: str
    sequence: tuple[str, ...]
    album_id: str
    text: str
    rating: float | None = None


SequenceKey = tuple[str, tuple[str, ...]]


def sequence_key(story: StoryText) -> SequenceKey:
    return story.album_id, tuple(story.sequence)


def _check(stories: Sequence[StoryText]) -> None:
    seen: set[str] = set()
    for story in stories:
        if story.story_id in seen:
            raise ValueError(f"story '{story.story_id}' is given twice")
        seen.add(story.story_id)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _std(values: Sequence[float]) -> float | None:
    mean = _mean(values)
    if mean is None:
        return None
    return math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))


def _against_others(stories: Sequence[StoryText]) -> tuple[list[StoryText], list[list[str]], list[str]]:
    """The stories that have other stories on their sequence, those others' texts, and the rest's ids."""
    groups: dict[SequenceKey, list[StoryText]] = {}
    for story in stories:
        groups.setdefault(sequence_key(story), []).append(story)
    scored, references, skipped = [], [], []
    for story in stories:
        others = [other.text for other in groups[sequence_key(story)] if other is not story]
        if others:
            scored.append(story)
            references.append(others)
        else:
            skipped.append(story.story_id)
    return scored, references, skipped


def agreement_stories(stories: Sequence[StoryText]) -> list[tuple[StoryText, list[str]]]:
    """Each story that inter_worker_agreement scores with METEOR, with the texts of the other stories of its
    sequence (in the order given)."""
    scored, references, _ = _against_others(stories)
    return list(zip(scored, references, strict=True))


def agreement_pairs(stories: Sequence[StoryText]) -> list[tuple[str, list[str]]]:
    """The (story, other stories of its sequence) pairs inter_worker_agreement scores with METEOR."""
    return [(story.text, refs) for story, refs in agreement_stories(stories)]


def inter_worker_agreement(stories: Sequence[StoryText], meteor: MeteorScorer | None = None, *,
                           meteor_unavailable: str | None = None) -> dict[str, Any]:
    """Each story against the other stories of its sequence: METEOR, BLEU-4, CIDEr per story and their means.
    With `meteor_unavailable` (why, e.g. no Java) METEOR is left out: its scores are None."""
    _check(stories)
    scored, references, skipped = _against_others(stories)
    hypotheses = [story.text for story in scored]
    pairs = list(zip(hypotheses, references, strict=True))
    meteor_scores: list[float] | None  # None: METEOR is left out
    if meteor_unavailable is not None:
        meteor_scores = None
    elif not pairs:
        meteor_scores = []
    elif meteor is None:
        with Meteor() as runner:
            meteor_scores = runner.score_many(pairs)
    else:
        meteor_scores = meteor.score_many(pairs)
    meteor_column: Sequence[float | None] = [None] * len(pairs) if meteor_scores is None else meteor_scores
    bleu, cide = bleu4(hypotheses, references), cider(hypotheses, references)
    per_story = [
        {"story_id": story.story_id, "album_id": story.album_id, "sequence": list(story.sequence),
         "references": len(refs), "meteor": m, "bleu4": b, "cider": c, "rating": story.rating}
        for story, refs, m, b, c in zip(scored, references, meteor_column, bleu.per_item, cide.per_item, strict=True)
    ]
    return {
        "stories_scored": len(scored),
        "stories_skipped": len(skipped),
        "skipped_story_ids": skipped,
        "sequences_scored": len({sequence_key(story) for story in scored}),
        **({"meteor_mean": None, "meteor_std": None} if meteor_scores is None
           else {"meteor_mean": _mean(meteor_scores), "meteor_std": _std(meteor_scores)}),
        "bleu4_mean": bleu.mean, "bleu4_corpus": bleu.corpus, "bleu4_std": _std(bleu.per_item),
        "cider_mean": cide.mean, "cider_std": _std(cide.per_item),
        "per_story": per_story,
    }


def _correlations(per_story: list[dict[str, Any]], metrics: Sequence[str]) -> dict[str, Any] | None:
    rated = [row for row in per_story if row["rating"] is not None]
    if not rated:
        return None
    ratings = [row["rating"] for row in rated]
    return {
        "rated_stories": len(rated),
        "table": correlation_table({metric: [row[metric] for row in rated] for metric in metrics}, ratings),
    }


def _story_summary(stories: Sequence[StoryText]) -> dict[str, Any]:
    sizes = Counter(sequence_key(story) for story in stories)
    ratings = [story.rating for story in stories if story.rating is not None]
    return {
        "stories": len(stories),
        "albums": len({story.album_id for story in stories}),
        "sequences": len(sizes),
        "stories_per_sequence": {str(size): count for size, count in sorted(Counter(sizes.values()).items())},
        "rated_stories": len(ratings),
        "rating_mean": _mean(ratings),
        "tokens_per_story": _mean([len(story.text.split()) for story in stories]),
    }


def story_report(tiers: Mapping[str, Sequence[str]], stories: Sequence[StoryText], crowd: dict | None = None,
                 meteor_runner: MeteorScorer | None = None, *, npmi_k: int = TOP_K,
                 npmi_min_count: int = MIN_COUNT, meteor_unavailable: str | None = None) -> dict[str, Any]:
    """The whole report as a JSON-serializable dict (see the module docstring); `crowd` is included as given.
    With `meteor_unavailable` the report leaves METEOR out and says why (`meteor_error`)."""
    agreement = inter_worker_agreement(stories, meteor_runner, meteor_unavailable=meteor_unavailable)
    metrics = [m for m in METRICS if m != "meteor" or meteor_unavailable is None]
    report = {
        "kind": "stories",
        "definitions": DEFINITIONS,
        "tiers": [asdict(row) for row in tier_statistics(tiers)],
        "top_words": {tier: [asdict(word) for word in words]
                      for tier, words in top_words(tiers, k=npmi_k, min_count=npmi_min_count).items()},
        "npmi": {"k": npmi_k, "min_count": npmi_min_count},
        "stories": _story_summary(stories),
        "meteor_setting": f"Agreement and correlation figures use {METEOR_SETTING}.",
        "agreement": agreement,
        "correlations": _correlations(agreement["per_story"], metrics),
        "crowd": crowd,
    }
    if meteor_unavailable is not None:
        report["meteor_error"] = meteor_unavailable
    return report

"""Reads for ranking evaluation: the pool as systems need it, majority relevance judgements, and the
leaderboard (stored figures, read in one query; their computation from the current judgements, which the
background job of services.leaderboards stores).

Relevance: a caption is relevant to its original image by definition; any other pair is relevant when the
majority of its binary judgements (crowd and imported) says so. A tie, or no judgement, counts as not relevant
(unjudged), as in metrics.ranking."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import krippendorff
import numpy as np
from django.db.models import Count, QuerySet

from metrics import ranking
from metrics.story_scores import bleu4, cider, rouge_l
from metrics.text.markup import tokenize
from mturk.models import Campaign
from mturk.states import AssignmentStatus

from ..models import Description
from .models import CaptionJudgement, PoolCaption, PoolImage, RankingSubmission, TestPool
from .services.submissions import DIRECTIONS, PoolIndex, Scores, submission_scores


def test_pools() -> QuerySet[TestPool]:
    return TestPool.objects.annotate(
        images=Count("pool_images", distinct=True), captions=Count("pool_captions", distinct=True),
        systems=Count("submissions", distinct=True)).order_by("-created_at", "-id")


@dataclass(frozen=True)
class PoolSource:
    """A describe_image campaign a pool can draw from, with its approved captions."""

    campaign: Campaign
    approved_captions: int


def pool_sources() -> list[PoolSource]:
    """The describe_image campaigns, real ones first and newest first, each with its approved captions (two
    queries whatever the number of campaigns)."""
    campaigns = list(Campaign.objects.filter(task_kind="describe_image").order_by("is_simulated", "-created_at", "-id"))
    approved = Description.objects.filter(assignment__status=AssignmentStatus.APPROVED,
                                          assignment__hit__campaign__task_kind="describe_image")
    counts = dict(approved.values("assignment__hit__campaign_id").annotate(n=Count("id")).values_list(
        "assignment__hit__campaign_id", "n"))
    return [PoolSource(c, counts.get(c.pk, 0)) for c in campaigns]


def find_pool(name_or_id: str) -> TestPool | None:
    """The test pool of this name, else of this id."""
    return TestPool.objects.filter(name=name_or_id).first() or (
        TestPool.objects.filter(pk=int(name_or_id)).first() if name_or_id.isdigit() else None)


def pool_contents(pool: TestPool) -> dict[str, Any]:
    """The pool as a system needs it: images (id, url, row) and captions (id, text, column, original image)."""
    images = [{"id": p.image_id, "key": p.image.key, "url": p.image.display_url, "index": p.index}
              for p in PoolImage.objects.filter(pool=pool).select_related("image").order_by("index")]
    captions = [{"id": p.description_id, "text": p.description.text, "index": p.index, "image": p.image_id}
                for p in PoolCaption.objects.filter(pool=pool).select_related("description").order_by("index")]
    return {"id": pool.pk, "name": pool.name, "created_at": pool.created_at, "images": images,
            "captions": captions}


@dataclass
class Votes:
    yes: int = 0
    no: int = 0
    grades: list[int] = field(default_factory=list)  # imported graded judgements

    @property
    def majority(self) -> bool | None:
        """True or False by majority; None for a tie or no vote (unjudged)."""
        if self.yes == self.no:
            return None
        return self.yes > self.no


def pool_votes(pool: TestPool) -> dict[tuple[int, int], Votes]:
    """Every judged pair of the pool's images and captions: binary votes (crowd, imported), imported grades."""
    rows = CaptionJudgement.objects.filter(
        image_id__in=PoolImage.objects.filter(pool=pool).values("image_id"),
        description_id__in=PoolCaption.objects.filter(pool=pool).values("description_id"),
    ).exclude(source=CaptionJudgement.Source.GOLD).values_list("image_id", "description_id", "source", "relevant",
                                                               "grade")
    votes: dict[tuple[int, int], Votes] = defaultdict(Votes)
    for image_id, description_id, source, relevant, grade in rows:
        pair = votes[(image_id, description_id)]
        if relevant is True:
            pair.yes += 1
        elif relevant is False:
            pair.no += 1
        if grade is not None and source == CaptionJudgement.Source.IMPORTED:
            pair.grades.append(grade)
    return dict(votes)


def agreement(votes: dict[tuple[int, int], Votes]) -> dict[str, Any]:
    """Pairs with two or more binary votes: how many, the share on which every vote agreed, and Krippendorff's
    alpha (nominal, any number of judges per pair; None when it is undefined: no pair, or one answer only)."""
    multi = [v for v in votes.values() if v.yes + v.no >= 2]
    unanimous = sum(1 for v in multi if v.yes == 0 or v.no == 0)
    alpha = None
    if multi and len({answer for v in multi for answer, n in ((True, v.yes), (False, v.no)) if n}) == 2:
        alpha = float(krippendorff.alpha(value_counts=np.array([[v.no, v.yes] for v in multi]),
                                          level_of_measurement="nominal"))
    return {"pairs": len(multi), "unanimous": unanimous, "unanimous_share": unanimous / len(multi) if multi else None,
            "alpha": alpha}


def judged_matrices(index: PoolIndex, votes: dict[tuple[int, int], Votes]) -> tuple[np.ndarray, np.ndarray]:
    """(relevant, decided) over the pool's pairs: the pairs a majority judged relevant, and those with a majority
    either way (ties and unjudged pairs are neither). The original pairs are added by metrics.ranking."""
    relevant = np.zeros(index.shape, dtype=bool)
    decided = np.zeros(index.shape, dtype=bool)
    row = {image_id: n for n, image_id in enumerate(index.image_ids)}
    col = {caption_id: n for n, caption_id in enumerate(index.caption_ids)}
    for (image_id, description_id), pair in votes.items():
        if pair.majority is not None and image_id in row and description_id in col:
            decided[row[image_id], col[description_id]] = True
            relevant[row[image_id], col[description_id]] = pair.majority
    return relevant, decided


def _judged_count(top_pairs: dict[str, Any], direction: str, decided: np.ndarray) -> int:
    pairs = top_pairs.get(direction, [])
    return int(sum(1 for r, c in pairs if decided[r, c]))


@dataclass
class Judged:
    """What every system's figures are computed against: the pool's index, its votes and their majorities."""

    pool: TestPool
    index: PoolIndex
    votes: dict[tuple[int, int], Votes]
    relevant: np.ndarray
    decided: np.ndarray
    references: dict[int, list[str]] | None = None  # read once, for the first system that generated captions

    @classmethod
    def of(cls, pool: TestPool) -> Judged:
        index = PoolIndex.of(pool)
        votes = pool_votes(pool)
        return cls(pool, index, votes, *judged_matrices(index, votes))


def system_figures(submission: RankingSubmission, scores: Scores, judged: Judged) -> dict[str, Any]:
    """A system's leaderboard figures (every metric per direction, generated captions' scores) on the current
    majority judgements: what is stored per submission (RankingSubmission.board)."""
    generated = None
    if scores.captions:
        if judged.references is None:
            judged.references = pool_references(judged.pool)
        generated = generated_scores(scores.captions, judged.references)
    directions: dict[str, Any] = {}
    for direction, metrics in scores.evaluate(judged.index.caption_image, judged.relevant).items():
        metrics["judged_pairs"] = _judged_count(submission.top_pairs, direction, judged.decided)
        metrics["top_pairs"] = len(submission.top_pairs.get(direction, []))
        directions[direction] = metrics
    return {"directions": directions, "generated": generated}


def pool_figures(judged: Judged) -> dict[str, Any]:
    """The pool's own figures (its size, judged pairs, agreement, kappa): what is stored per pool (TestPool.board)."""
    votes = judged.votes
    return {"images": judged.index.shape[0], "captions": judged.index.shape[1],
            "judged_pairs": sum(1 for v in votes.values() if v.majority is not None), "agreement": agreement(votes),
            "kappa": _kappa(votes)}


def _board(pool: TestPool, figures: dict[str, Any], systems: list[dict[str, Any]]) -> dict[str, Any]:
    return {"pool": {"id": pool.pk, "name": pool.name, "images": figures["images"], "captions": figures["captions"]},
            "systems": systems, "judged_pairs": figures["judged_pairs"], "agreement": figures["agreement"],
            "spearman": _spearman(systems), "kappa": figures["kappa"]}


def computed_leaderboard(pool: TestPool) -> dict[str, Any]:
    """Systems with every metric per direction, recomputed now from the submission files and the current majority
    judgements (what the background job stores; `leaderboard` reads the stored figures)."""
    judged = Judged.of(pool)
    systems = [{"id": submission.pk, "system": submission.system, "created_at": submission.created_at,
                **system_figures(submission, submission_scores(submission, judged.index), judged)}
               for submission in RankingSubmission.objects.filter(pool=pool).order_by("system")]
    return _board(pool, pool_figures(judged), systems)


def leaderboard(pool: TestPool) -> dict[str, Any]:
    """The stored leaderboard: the pool's and each system's figures as last stored, in two queries (four before
    the pool's first computation). `stale` is true while judgements or a submission that arrived since wait for the
    background job (services.leaderboards), and the page shows the figures as updating; `pending` lists the
    systems not computed yet."""
    stored = TestPool.objects.filter(pk=pool.pk).values(
        "judgements_version", "board", "board_version", "board_updated_at").get()
    version = stored["judgements_version"]
    rows = list(RankingSubmission.objects.filter(pool=pool).order_by("system")
                .values("id", "system", "created_at", "board", "board_version"))
    figures = stored["board"] if "images" in stored["board"] else {
        "images": pool.pool_images.count(), "captions": pool.pool_captions.count(), "judged_pairs": 0,
        "agreement": agreement({}), "kappa": _kappa({})}
    # PostgreSQL's jsonb keeps no key order: the directions and the kappa thresholds are put back in theirs
    figures["kappa"] = {**figures["kappa"], "thresholds": dict(sorted(
        figures["kappa"].get("thresholds", {}).items(), key=lambda item: -int(item[0])))}
    systems = [{"id": row["id"], "system": row["system"], "created_at": row["created_at"],
                "directions": {d: row["board"]["directions"][d] for d in DIRECTIONS
                               if d in row["board"].get("directions", {})},
                "generated": row["board"].get("generated")}
               for row in rows]
    board = _board(pool, figures, systems)
    board["pending"] = [row["system"] for row in rows if not row["board"]]
    board["stale"] = stored["board_version"] < version or any(row["board_version"] < version or not row["board"]
                                                              for row in rows)
    board["updated_at"] = stored["board_updated_at"]
    return board


def pool_references(pool: TestPool) -> dict[int, list[str]]:
    """Per pool image, its captions' texts (the references of generated captions)."""
    references: dict[int, list[str]] = defaultdict(list)
    for image_id, text in PoolCaption.objects.filter(pool=pool).order_by("index") \
            .values_list("image_id", "description__text"):
        references[image_id].append(text)
    return dict(references)


def _tokens(text: str) -> str:
    return " ".join(tokenize(text.lower()))


def generated_scores(captions: dict[int, str], references: dict[int, list[str]]) -> dict[str, Any]:
    """BLEU-4 (corpus level), ROUGE-L and CIDEr (means) of a system's generated captions against the pool's
    captions of the same images (lowercased, tokenized as descriptions are), over the images it captioned."""
    images = sorted(i for i in captions if references.get(i))
    hypotheses = [_tokens(captions[i]) for i in images]
    gold = [[_tokens(text) for text in references[i]] for i in images]
    return {"images": len(images), "bleu4": bleu4(hypotheses, gold).corpus, "rouge_l": rouge_l(hypotheses, gold).mean,
            "cider": cider(hypotheses, gold).mean}


def _spearman(systems: list[dict[str, Any]]) -> dict[str, float | None]:
    """Per direction, Spearman's rho between the systems' R@10 and their R-precision (None: under two systems)."""
    out: dict[str, float | None] = {}
    for direction in DIRECTIONS:
        rows = [s["directions"][direction] for s in systems if direction in s["directions"]]
        out[direction] = (ranking.spearman_rho([r["R@10"] for r in rows], [r["r_precision"] for r in rows])
                          if len(rows) >= 2 else None)
    return out


def _kappa(votes: dict[tuple[int, int], Votes]) -> dict[str, Any]:
    """Cohen's kappa of the binary majority vs imported grades at each threshold (pairs having both, a pair's
    grade the median of its experts', the better middle one for an even number: `ranking.expert_grade`); None at a
    threshold where it is undefined (both constant and equal)."""
    both = [(v.majority, ranking.expert_grade(v.grades)) for v in votes.values()
            if v.majority is not None and v.grades]
    if not both:
        return {"pairs": 0, "thresholds": {}}
    binary = [b for b, _ in both]
    grades = [g for _, g in both]
    return {"pairs": len(both),
            "thresholds": {str(t): k for t, k in ranking.kappa_at_thresholds(binary, grades).items()}}

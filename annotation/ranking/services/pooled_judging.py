"""Pooled judging: the union of the submitted systems' top-k pairs that are not judged yet (and not queued yet)
goes to the pool's judge_caption campaign, created on first use, so judgements accumulate and are reused by
every later system. A caption's pair with its own original image is relevant by definition and never queued.

Settings (`RANKING_JUDGING`, from the RANKING_JUDGING_* environment variables): `provider` (the default
provider, settings.DEFAULT_CROWD_PROVIDER), `assignments_per_hit` (3 judges per pair), `pairs_per_hit` (10),
`gold_per_hit` (1, when gold pairs exist), `publish` (False: the campaign and its new HITs stay drafts until a
researcher publishes them)."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from mturk.models import Campaign
from mturk.providers.registry import default_provider_name
from mturk.services.campaigns import add_hits, create_campaign, publish_campaign

from ..models import CaptionJudgement, QueuedPair, RankingSubmission, TestPool
from .judging_items import judging_items

CHUNK = 500  # pairs looked up per query: a submission's queries grow with its pairs, never with the queue
DEFAULTS: dict[str, Any] = {"provider": default_provider_name(), "assignments_per_hit": 3, "pairs_per_hit": 10,
                            "gold_per_hit": 1, "publish": False}


def judging_config() -> dict[str, Any]:
    return {**DEFAULTS, **getattr(settings, "RANKING_JUDGING", {})}


def judging_campaign_name(pool: TestPool) -> str:
    return f"Relevance judgements: {pool.name}"[:200]


def judging_campaign(pool: TestPool) -> Campaign | None:
    return Campaign.objects.filter(name=judging_campaign_name(pool), task_kind="judge_caption").first()


def _chunks(pairs: set[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    ordered = sorted(pairs)
    return [ordered[start:start + CHUNK] for start in range(0, len(ordered), CHUNK)]


def _found(rows: Any, chunk: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of the chunk's pairs, those among `rows` (a query filtered on the chunk's images and captions)."""
    wanted = set(chunk)
    return {pair for pair in rows.filter(image_id__in={i for i, _ in chunk},
                                         description_id__in={d for _, d in chunk})
            .values_list("image_id", "description_id").distinct() if pair in wanted}


def queued_pairs(campaign: Campaign | None, pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of `pairs` (image id, description id), those the campaign's HITs already show (gold pairs excepted): one
    query per chunk of pairs, whatever the number of HITs queued."""
    if campaign is None or not pairs:
        return set()
    queued = QueuedPair.objects.filter(campaign=campaign)
    return set().union(*(_found(queued, chunk) for chunk in _chunks(pairs)))


def judged_pairs(pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of `pairs`, those with a binary crowd or imported judgement already (one query per chunk of pairs)."""
    if not pairs:
        return set()
    judged = CaptionJudgement.objects.filter(relevant__isnull=False).exclude(source=CaptionJudgement.Source.GOLD)
    return set().union(*(_found(judged, chunk) for chunk in _chunks(pairs)))


def submission_pairs(submission: RankingSubmission) -> set[tuple[int, int]]:
    """The submission's top-k pairs in both directions, as (image id, description id), originals left out."""
    pool = submission.pool
    images = dict(pool.pool_images.values_list("index", "image_id"))
    captions = {index: (d, i) for index, d, i in pool.pool_captions.values_list("index", "description_id", "image_id")}
    out: set[tuple[int, int]] = set()
    for direction in ("description", "search"):
        for row, col in submission.top_pairs.get(direction, []):
            description_id, original_image = captions[col]
            if images[row] != original_image:
                out.add((images[row], description_id))
    return out


def queue_pooled_pairs(submission: RankingSubmission) -> int:
    """Queue the submission's top-k pairs not judged or queued yet; returns how many pairs were queued."""
    pool = submission.pool
    config = judging_config()
    with transaction.atomic():
        campaign = judging_campaign(pool)
        if campaign is not None:
            Campaign.objects.select_for_update().filter(pk=campaign.pk).first()  # one queue at a time
        pairs = submission_pairs(submission)
        pairs -= judged_pairs(pairs)
        pairs -= queued_pairs(campaign, pairs)
        if not pairs:
            return 0
        gold: list[tuple[int, int, bool | int]] = [(i, d, bool(r)) for i, d, r in CaptionJudgement.objects.filter(
            source=CaptionJudgement.Source.GOLD, relevant__isnull=False)
            .order_by("id").values_list("image_id", "description_id", "relevant")]
        gold_per_hit = min(config["gold_per_hit"], config["pairs_per_hit"] - 1) if gold else 0
        items = judging_items(sorted(pairs), gold, config["pairs_per_hit"], gold_per_hit)
        if campaign is None:
            campaign = create_campaign(name=judging_campaign_name(pool), task_kind="judge_caption",
                                       provider=config["provider"],
                                       assignments_per_hit=config["assignments_per_hit"],
                                       options={"pairs_per_hit": config["pairs_per_hit"]},
                                       created_by=submission.created_by)
        # the pairs are new to the campaign (QueuedPair's unique key), so each item is: no HIT is read back
        add_hits(campaign, items, known_new=True)
        QueuedPair.objects.bulk_create([QueuedPair(campaign=campaign, image_id=i, description_id=d)
                                        for i, d in sorted(pairs)], batch_size=1000)
    if config["publish"]:
        publish_campaign(campaign)
    return len(pairs)

"""Writes and reads of stored agreement scores: each story's METEOR against the other stories of its photo
sequence (what the stories report averages), computed once in one warm JVM and kept in `StoryAgreement`.

A new approved story changes the references of the other stories of its sequence, so `queue_scoring` (called when
a story is recorded) queues one background job a little later: approvals that land together are scored in one
JVM. The job scores the albums that have a story without a whole-sequence score; `score_stories` (also behind
the `score_stories` command) recomputes every missing or stale score of the albums it is given."""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Exists, OuterRef

from metrics.meteor import Meteor, pair_key
from metrics.story_report import StoryText, agreement_stories
from mturk.jobs import task_named

from ..models import Story, StoryAgreement, Storylet

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from metrics.meteor import MeteorScorer

ALBUM_BATCH = 200  # albums read, scored and stored together
QUEUED = "storyboard:agreement-scoring-queued"
SCORE_NEW_STORIES = "storyboard.tasks.score_new_stories"  # the job after approvals
SCORE_ALL_STORIES = "storyboard.tasks.score_all_stories"  # `score_stories --background`
DELAY_SECONDS = 30  # approvals within this time share one job (one JVM)
QUEUED_FOR_SECONDS = DELAY_SECONDS + 3600  # a lost job is queued again by a later approval after this


@dataclass(frozen=True)
class CurrentPair:
    """A story with the texts of every other story of its photo sequence, and the key of that pair."""

    story: int
    key: str
    hypothesis: str
    references: list[str]


@dataclass
class ScoringReport:
    stories: int = 0  # stories looked at
    scored: int = 0  # pairs sent to METEOR
    reused: int = 0  # scores an export had already stored for the same references


def _batches(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def album_stories(album_ids: Iterable[int]) -> list[tuple[int, StoryText]]:
    """The stories of these albums as the SIND export builds them (album id, photo ids and normalized texts in
    story order, whole text joined by spaces), in export order (album, setting, id)."""
    rows = Storylet.objects.filter(story__album_id__in=list(album_ids)).order_by(
        "story__album_id", "story__setting", "story_id", "order").values_list(
        "story_id", "story__album__external_id", "photo__external_id", "text")
    stories: list[tuple[int, str, list[str], list[str]]] = []
    for story, album, photo, text in rows:
        if not stories or stories[-1][0] != story:
            stories.append((story, album, [], []))
        stories[-1][2].append(photo)
        stories[-1][3].append(text)
    return [(pk, StoryText(story_id=str(pk), sequence=tuple(photos), album_id=album, text=" ".join(texts)))
            for pk, album, photos, texts in stories]


def current_pairs(album_ids: Iterable[int]) -> list[CurrentPair]:
    """Every story of these albums against every other story of its sequence (no references: alone on it)."""
    stories = album_stories(album_ids)
    references = {int(story.story_id): refs for story, refs in agreement_stories([s for _, s in stories])}
    return [CurrentPair(pk, pair_key(story.text, references.get(pk, [])), story.text, references.get(pk, []))
            for pk, story in stories]


def albums_with_unscored_stories() -> list[int]:
    """Albums with a story that has no whole-sequence score (a story recorded since the last job)."""
    scored = StoryAgreement.objects.filter(story=OuterRef("pk"), whole_sequence=True)
    return sorted(set(Story.objects.filter(~Exists(scored)).order_by().values_list("album_id", flat=True).distinct()))


def score_stories(album_ids: Iterable[int] | None = None, *, meteor: MeteorScorer | None = None,
                  progress: Callable[[int], None] | None = None) -> ScoringReport:
    """Compute and store the missing or stale whole-sequence scores of the stories of these albums (every album
    when None), one JVM for all of them (started only when something is to be scored, stopped at the end; or
    the `meteor` given). `progress` is called with the number of stories of each batch done."""
    albums = sorted(set(album_ids if album_ids is not None else
                        Story.objects.order_by().values_list("album_id", flat=True).distinct()))
    report = ScoringReport()
    with ExitStack() as jvm:
        for batch in _batches(albums, ALBUM_BATCH):
            pairs = current_pairs(batch)
            stored = {(story, key): whole for story, key, whole in StoryAgreement.objects.filter(
                story_id__in=[p.story for p in pairs]).values_list("story_id", "references_hash", "whole_sequence")}
            reuse = [p for p in pairs if stored.get((p.story, p.key)) is False]
            missing = [p for p in pairs if (p.story, p.key) not in stored]
            to_score = [p for p in missing if p.references]
            scores: list[float] = []
            if to_score:
                if meteor is None:
                    meteor = jvm.enter_context(Meteor())
                scores = meteor.score_many([(p.hypothesis, p.references) for p in to_score])
            by_story = dict(zip((p.story for p in to_score), scores, strict=True))
            with transaction.atomic():
                changed = [p.story for p in (*reuse, *missing)]
                StoryAgreement.objects.filter(story_id__in=changed, whole_sequence=True).delete()  # stale ones
                StoryAgreement.objects.filter(
                    story_id__in=[p.story for p in reuse], whole_sequence=False,
                    references_hash__in=[p.key for p in reuse]).update(whole_sequence=True)
                # an export (or an overlapping job) may have stored the same score since `stored` was read
                StoryAgreement.objects.bulk_create([
                    StoryAgreement(story_id=p.story, references_hash=p.key, references=len(p.references),
                                   whole_sequence=True, meteor=by_story.get(p.story)) for p in missing],
                    update_conflicts=True, unique_fields=["story", "references_hash"],
                    update_fields=["references", "whole_sequence", "meteor"])
            report.stories += len(pairs)
            report.scored += len(to_score)
            report.reused += len(reuse)
            if progress is not None:
                progress(len(pairs))
    return report


def score_new_stories(meteor: MeteorScorer | None = None) -> ScoringReport:
    """The background job after approvals: score the albums that have a story without a whole-sequence score."""
    cache.delete(QUEUED)  # approvals from now on queue another job
    return score_stories(albums_with_unscored_stories(), meteor=meteor)


def queue_scoring() -> None:
    """After the current transaction commits, queue the scoring job (once per DELAY_SECONDS: approvals that land
    together share one job and one JVM). Off when STORY_SCORES_AFTER_APPROVAL is false (the default without a
    Celery broker): then the export scores what is missing."""
    if not settings.STORY_SCORES_AFTER_APPROVAL:
        return
    job = task_named(SCORE_NEW_STORIES)

    def send() -> None:
        try:
            if cache.add(QUEUED, True, timeout=QUEUED_FOR_SECONDS):
                job.apply_async(countdown=DELAY_SECONDS)
        except Exception as exc:  # Redis (cache or broker) away: the approval stands; the export scores what is missing
            log.warning("story scoring not queued (%s: %s); the next approval or the export scores these stories",
                        type(exc).__name__, exc)

    transaction.on_commit(send)


def stored_meteor(pairs: Iterable[tuple[int, str]]) -> dict[tuple[int, str], float | None]:
    """The stored scores of these (story, key) pairs that exist."""
    wanted = set(pairs)
    found: dict[tuple[int, str], float | None] = {}
    for batch in _batches(sorted({story for story, _ in wanted}), 500):
        for story, key, meteor in StoryAgreement.objects.filter(story_id__in=batch).values_list(
                "story_id", "references_hash", "meteor"):
            if (story, key) in wanted:
                found[(story, key)] = meteor
    return found


def store_meteor(scores: Iterable[tuple[int, str, int, float]]) -> None:
    """Keep scores an export computed: (story, key, number of references, METEOR)."""
    StoryAgreement.objects.bulk_create(
        [StoryAgreement(story_id=story, references_hash=key, references=references, meteor=meteor)
         for story, key, references, meteor in scores],
        batch_size=500, ignore_conflicts=True)

"""The stories report attached to a SIND export: report/stories.json and report/stories.html.

Tier statistics and top words (Huang et al. 2016, Tables 2 and 3), inter-worker agreement (METEOR 1.5 with
the hter weights, BLEU-4, CIDEr; each story against the other stories of its sequence), their
correlation with the mean human rating when ratings exist (Table 4), and the crowd figures."""
from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING

from metrics.meteor import Meteor, MeteorError, MeteorScorer
from metrics.story_report import StoryText, agreement_pairs, story_report
from metrics.story_report_html import story_report_html

if TYPE_CHECKING:
    from mturk.exports import ExportBundle

    from .exports.sind import SindWriter

log = logging.getLogger(__name__)
REPORT_SAMPLE = 1000


def report_sample_limit(options: dict) -> int:
    """The `report_sample` option (stories in the agreement sample, 0 = all; default REPORT_SAMPLE), or an
    ExportError naming it when it is not a whole number of 0 or more."""
    from mturk.exports import ExportError

    value = options.get("report_sample", REPORT_SAMPLE)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ExportError(f"option report_sample must be a whole number of stories, 0 or more (0 = all), "
                          f"not {value!r}")
    return value


def exported_stories(writer: SindWriter) -> list[StoryText]:
    ratings = writer.collected.ratings
    return [
        StoryText(story_id=str(story_id), sequence=photos, album_id=album, text=" ".join(texts),
                  rating=sum(ratings[story_id]) / len(ratings[story_id]) if ratings.get(story_id) else None)
        for story_id, (album, photos, texts) in sorted(writer.collected.stories.items())
    ]


def agreement_sample(stories: list[StoryText], limit: int) -> list[StoryText]:
    """Whole photo sequences, picked by a hash of their ids (the same pick in every export), until
    `limit` stories are reached; all stories when `limit` is 0 or not reached."""
    if not limit or len(stories) <= limit:
        return stories
    groups: dict[tuple[str, tuple[str, ...]], list[StoryText]] = {}
    for story in stories:
        groups.setdefault((story.album_id, story.sequence), []).append(story)

    def rank(key: tuple[str, tuple[str, ...]]) -> bytes:
        return hashlib.sha256("\x00".join((key[0], *key[1])).encode()).digest()

    picked: list[StoryText] = []
    for key in sorted(groups, key=rank):
        if len(picked) + len(groups[key]) > limit:
            continue
        picked += groups[key]
    return sorted(picked, key=lambda s: int(s.story_id))


@contextmanager
def meteor_for_report() -> Iterator[PrefetchedMeteor | MeteorError]:
    """The report's METEOR JVM, started before the export writes its files so that it loads its
    paraphrase tables meanwhile (a separate process); or the error saying why there is none."""
    try:
        scorer = Meteor()
    except MeteorError as exc:
        yield exc
        return
    with scorer as meteor:
        yield PrefetchedMeteor(meteor)


def start_scoring(bundle: ExportBundle, meteor: PrefetchedMeteor | MeteorError) -> Callable[[SindWriter], None]:
    """The export's hook once its stories are written: score the agreement sample in the background.
    Checks the `report_sample` option first, so that a bad value stops the export before it writes anything."""
    report_sample_limit(bundle.options)

    def stories_written(writer: SindWriter) -> None:
        if isinstance(meteor, PrefetchedMeteor):
            meteor.prefetch(agreement_pairs(report_stories(bundle, writer)[1]))

    return stories_written


class PrefetchedMeteor:
    """METEOR scores computed ahead in a background thread (the JVM scores while the export writes its
    other files); score_many of the same pairs then waits for them instead of scoring again."""

    def __init__(self, meteor: MeteorScorer) -> None:
        self._meteor = meteor
        self._pairs: list[tuple[str, list[str]]] = []
        self._scores: list[float] | None = None
        self._error: MeteorError | None = None
        self._thread: threading.Thread | None = None

    def prefetch(self, pairs: list[tuple[str, list[str]]]) -> None:
        def score() -> None:
            try:
                self._scores = self._meteor.score_many(pairs)
            except MeteorError as exc:
                self._error = exc

        self._pairs = pairs
        self._thread = threading.Thread(target=score, name="meteor-prefetch", daemon=True)
        self._thread.start()

    def score_many(self, pairs: Iterable[tuple[str, Sequence[str]]]) -> list[float]:
        pairs = [(hypothesis, list(references)) for hypothesis, references in pairs]
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        if self._scores is not None and pairs == self._pairs:
            return list(self._scores)
        return self._meteor.score_many(pairs)


def report_stories(bundle: ExportBundle, writer: SindWriter) -> tuple[list[StoryText], list[StoryText], int]:
    """Every exported story, the agreement sample, and the sample limit."""
    everything = exported_stories(writer)
    limit = report_sample_limit(bundle.options)
    return everything, agreement_sample(everything, limit), limit


def write_story_report(bundle: ExportBundle, writer: SindWriter, meteor: MeteorScorer | MeteorError) -> None:
    """METEOR costs about 2 ms per story-reference pair, so agreement and correlations are measured
    on a sample of `report_sample` stories (default 1,000; 0 = all); tier statistics use everything."""
    everything, stories, limit = report_stories(bundle, writer)
    crowd = {"campaigns": [asdict(s) for s in bundle.crowd_statistics(bundle.campaigns)]}
    try:
        if isinstance(meteor, MeteorError):
            raise meteor
        report = story_report(writer.collected.texts, stories, crowd, meteor)
    except MeteorError as exc:  # the data is still exported; the report says why METEOR is missing
        log.error("stories report without METEOR: %s", exc)
        report = story_report(writer.collected.texts, stories, crowd, meteor_unavailable=str(exc))
        bundle.notes.append(f"The stories report has no METEOR scores: {exc}")
    report["sample"] = {"stories": len(stories), "of": len(everything), "limit": limit}
    bundle.write_json("report/stories.json", report)
    bundle.write_text("report/stories.html", story_report_html(report))

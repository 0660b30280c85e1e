"""The stories report attached to a SIND export: report/stories.json and report/stories.html.

Tier statistics and top words (Huang et al. 2016, Tables 2 and 3), inter-worker agreement (METEOR 1.5 with
the hter weights, BLEU-4, CIDEr; each story against the other stories of its sequence), their
correlation with the mean human rating when ratings exist (Table 4), and the crowd figures."""
from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING

from metrics.meteor import Meteor, MeteorError, MeteorScorer, pair_key
from metrics.story_report import StoryText, agreement_stories, story_report
from metrics.story_report_html import story_report_html

from .services.agreement_scores import store_meteor, stored_meteor

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle

    from .exports.sind import SindWriter

log = logging.getLogger(__name__)
REPORT_SAMPLE = 1000


def report_sample_limit(options: dict) -> int:
    """The `report_sample` option (stories in the agreement sample, 0 = all; default REPORT_SAMPLE), or an
    ExportError naming it when it is not a whole number of 0 or more."""
    from mturk.datasets.formats import ExportError

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
def meteor_for_report() -> Iterator[ReportMeteor]:
    """The report's METEOR scores: stored ones, and the missing ones computed in one JVM (stopped at the end)."""
    meteor = ReportMeteor()
    try:
        yield meteor
    finally:
        meteor.close()


def start_scoring(bundle: ExportBundle, meteor: ReportMeteor) -> Callable[[SindWriter], None]:
    """The export's hook once its stories are written: read the agreement sample's stored scores, and score the
    missing ones in the background. Checks the `report_sample` option first, so that a bad value stops the
    export before it writes anything."""
    report_sample_limit(bundle.options)

    def stories_written(writer: SindWriter) -> None:
        story_pk = {export_id: pk for pk, export_id in writer.stories.export_id.items()}
        meteor.prepare([(story_pk[int(story.story_id)], story.text, references)
                        for story, references in agreement_stories(report_stories(bundle, writer)[1])])

    return stories_written


class ReportMeteor:
    """METEOR for the stories report: the stored score of each (story, references) pair when there is one
    (`storyboard.services.agreement_scores`); the others are scored in one JVM, started only then, in a
    background thread while the export writes its other files, and stored (`store`)."""

    def __init__(self) -> None:
        self._known: dict[str, float] = {}  # pair key -> score
        self._missing: list[tuple[int, str, str, list[str]]] = []  # story pk, pair key, hypothesis, references
        self._meteor: MeteorScorer | None = None
        self._jvm = ExitStack()
        self._prefetched: PrefetchedMeteor | None = None
        self._error: MeteorError | None = None
        self._stored = False

    def prepare(self, stories: list[tuple[int, str, list[str]]]) -> None:
        """Look up the stored scores of these (story pk, text, references); start scoring the others."""
        keyed = [(pk, pair_key(text, references), text, references) for pk, text, references in stories]
        stored = stored_meteor((pk, key) for pk, key, _, _ in keyed)
        for pk, key, text, references in keyed:
            score = stored.get((pk, key))
            if score is None:
                self._missing.append((pk, key, text, references))
            else:
                self._known[key] = score
        if self._missing:
            meteor = self._start()
            if meteor is not None:
                self._prefetched = PrefetchedMeteor(meteor)
                self._prefetched.prefetch([(text, references) for _, _, text, references in self._missing])

    def _start(self) -> MeteorScorer | None:
        """The JVM (started at the first call), or None when it cannot start (`_error` says why)."""
        if self._meteor is None and self._error is None:
            try:
                self._meteor = self._jvm.enter_context(Meteor())
            except MeteorError as exc:
                self._error = exc
                return None
        return self._meteor

    def score_many(self, pairs: Iterable[tuple[str, Sequence[str]]]) -> list[float]:
        pairs = [(hypothesis, list(references)) for hypothesis, references in pairs]
        if self._prefetched is not None:
            missing = [(text, references) for _, _, text, references in self._missing]
            for (_, key, _, _), score in zip(self._missing, self._prefetched.score_many(missing), strict=True):
                self._known[key] = score
            self._prefetched = None
        keys = [pair_key(hypothesis, references) for hypothesis, references in pairs]
        unknown = [pair for pair, key in zip(pairs, keys, strict=True) if key not in self._known]
        if unknown:
            meteor = self._start()
            if meteor is None:
                raise self._error or MeteorError("METEOR did not start")
            for key, score in zip([pair_key(h, r) for h, r in unknown], meteor.score_many(unknown), strict=True):
                self._known[key] = score
        return [self._known[key] for key in keys]

    def store(self) -> None:
        """Keep the scores computed for the prepared pairs."""
        if not self._stored:
            store_meteor((pk, key, len(references), self._known[key])
                         for pk, key, _, references in self._missing if key in self._known)
            self._stored = True

    def close(self) -> None:
        self._jvm.close()


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


def write_story_report(bundle: ExportBundle, writer: SindWriter, meteor: MeteorScorer) -> None:
    """Agreement and correlations are measured on a sample of `report_sample` stories (default 1,000; 0 = all;
    METEOR costs about 2 ms per story-reference pair when a score is not stored yet); tier statistics use
    everything."""
    everything, stories, limit = report_stories(bundle, writer)
    crowd = {"campaigns": [asdict(s) for s in bundle.crowd_statistics(bundle.campaigns)]}
    try:
        report = story_report(writer.collected.texts, stories, crowd, meteor)
    except MeteorError as exc:  # the data is still exported; the report says why METEOR is missing
        log.error("stories report without METEOR: %s", exc)
        report = story_report(writer.collected.texts, stories, crowd, meteor_unavailable=str(exc))
        bundle.notes.append(f"The stories report has no METEOR scores: {exc}")
    report["sample"] = {"stories": len(stories), "of": len(everything), "limit": limit}
    bundle.write_json("report/stories.json", report)
    bundle.write_text("report/stories.html", story_report_html(report))

"""Stored agreement scores: the background job after approval, the export reading them (no JVM when all are
stored, one JVM for the missing ones), staleness when a sequence gains a story, and the report's figures equal
to those computed from scratch."""
from __future__ import annotations

import json
import zipfile

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings

from metrics.meteor import pair_key
from mturk.datasets.formats import run_export
from storyboard.models import Story, StoryAgreement, Storylet
from storyboard.services import agreement_scores
from storyboard.services.agreement_scores import (
    QUEUED,
    albums_with_unscored_stories,
    current_pairs,
    score_new_stories,
    score_stories,
)
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.factories import make_album

pytestmark = pytest.mark.django_db


def workflow(albums: int, ratings: bool = True):
    campaigns = create_story_workflow("Stories", [make_album(6) for _ in range(albums)], ratings=ratings,
                                      publish=True, is_simulated=True)
    run_story_workflow(campaigns, seed=albums)
    return campaigns


def stories_report(path) -> dict:
    return json.loads(zipfile.ZipFile(path).read("report/stories.json"))


class Counting:
    """A METEOR factory lending the session's JVM and counting the JVMs asked for and the pairs scored."""

    def __init__(self, lend) -> None:
        self.lend = lend
        self.started = 0
        self.pairs: list[tuple[str, list[str]]] = []

    def __call__(self):
        self.started += 1
        counting = self

        class Scorer:
            def __enter__(self):
                self.real = counting.lend().__enter__()
                return self

            def __exit__(self, *exc):
                return None

            def score_many(self, pairs):
                pairs = [(h, list(r)) for h, r in pairs]
                counting.pairs += pairs
                return self.real.score_many(pairs)

        return Scorer()


def no_jvm():
    raise AssertionError("a JVM was started")


def test_the_report_from_stored_scores_equals_the_report_from_scratch(tmp_path, monkeypatch, _session_meteor):
    workflow(3)
    run_export("sind", tmp_path / "scratch.zip", [])  # nothing stored: every score computed (today's path)
    scratch = stories_report(tmp_path / "scratch.zip")
    assert scratch["agreement"]["stories_scored"] > 0 and scratch["agreement"]["meteor_mean"] is not None
    StoryAgreement.objects.all().delete()

    job = Counting(_session_meteor)
    monkeypatch.setattr(agreement_scores, "Meteor", job)
    done = score_stories()
    assert job.started == 1 and done.stories == Story.objects.count() and done.scored == len(job.pairs) > 0

    monkeypatch.setattr("storyboard.reports.Meteor", no_jvm)
    run_export("sind", tmp_path / "stored.zip", [])
    assert stories_report(tmp_path / "stored.zip") == scratch


def test_an_export_scores_only_the_missing_scores_in_one_jvm_and_stores_them(tmp_path, monkeypatch, _session_meteor):
    workflow(2)
    score_stories()
    scored = StoryAgreement.objects.filter(meteor__isnull=False)
    dropped = list(scored.order_by("story_id")[:2].values_list("story_id", "references_hash"))
    StoryAgreement.objects.filter(story_id__in=[story for story, _ in dropped]).delete()

    export = Counting(_session_meteor)
    monkeypatch.setattr("storyboard.reports.Meteor", export)
    run_export("sind", tmp_path / "s.zip", [])
    assert export.started == 1 and [pair_key(h, r) for h, r in export.pairs] == [key for _, key in dropped]
    assert set(StoryAgreement.objects.filter(story_id__in=[s for s, _ in dropped]).values_list(
        "story_id", "references_hash")) == set(dropped)

    monkeypatch.setattr("storyboard.reports.Meteor", no_jvm)
    run_export("sind", tmp_path / "again.zip", [])
    assert stories_report(tmp_path / "again.zip") == stories_report(tmp_path / "s.zip")


def test_a_new_story_on_a_sequence_makes_the_scores_of_that_sequence_stale(monkeypatch, _session_meteor):
    workflow(2)
    assert score_stories().scored > 0
    assert albums_with_unscored_stories() == []
    told = Story.objects.filter(retellings__isnull=False).first()
    assert told is not None
    new = Story.objects.create(album=told.album, setting=told.setting, sequence_of=told)
    Storylet.objects.bulk_create([
        Storylet(story=new, order=s.order, photo=s.photo, original_text="x", text=f"something else happened {s.order}")
        for s in told.storylets.all()])
    assert albums_with_unscored_stories() == [told.album_id]

    photos = list(told.storylets.order_by("order").values_list("photo_id", flat=True))
    same_sequence = [story for story in told.album.stories.all()
                     if list(story.storylets.order_by("order").values_list("photo_id", flat=True)) == photos]
    job = Counting(_session_meteor)
    monkeypatch.setattr(agreement_scores, "Meteor", job)
    done = score_new_stories()
    assert job.started == 1 and done.scored == len(same_sequence) > 2
    assert albums_with_unscored_stories() == []
    for pair in current_pairs([told.album_id]):  # one current score per story, the stale ones gone
        rows = StoryAgreement.objects.filter(story_id=pair.story, whole_sequence=True)
        assert list(rows.values_list("references_hash", flat=True)) == [pair.key]

    monkeypatch.setattr(agreement_scores, "Meteor", no_jvm)
    assert score_stories().scored == 0  # everything current: no JVM


def test_a_batch_of_albums_is_scored_in_one_jvm(monkeypatch, _session_meteor):
    workflow(3)
    monkeypatch.setattr(agreement_scores, "ALBUM_BATCH", 1)
    job = Counting(_session_meteor)
    monkeypatch.setattr(agreement_scores, "Meteor", job)
    progress: list[int] = []
    done = score_stories(progress=progress.append)
    assert job.started == 1 and len(progress) == 3 and sum(progress) == done.stories == Story.objects.count()
    alone = [p for p in current_pairs(Story.objects.values_list("album_id", flat=True)) if not p.references]
    assert StoryAgreement.objects.filter(meteor__isnull=True).count() == len(alone)
    assert StoryAgreement.objects.count() == Story.objects.count()


def test_a_score_an_export_stored_while_the_job_was_scoring_does_not_fail_the_job(monkeypatch, _session_meteor):
    workflow(1)
    job = Counting(_session_meteor)
    monkeypatch.setattr(agreement_scores, "Meteor", job)
    original = job.__call__

    def export_stores_first():
        scorer = original()
        real_score_many = scorer.score_many

        def score_many(pairs):
            scores = real_score_many(pairs)
            first = next(p for p in current_pairs(Story.objects.values_list("album_id", flat=True)) if p.references)
            StoryAgreement.objects.create(story_id=first.story, references_hash=first.key,  # what an export stores
                                          references=len(first.references), whole_sequence=False, meteor=0.5)
            return scores

        scorer.score_many = score_many
        return scorer

    monkeypatch.setattr(agreement_scores, "Meteor", export_stores_first)

    done = score_stories()

    assert StoryAgreement.objects.count() == Story.objects.count() == done.stories
    assert not StoryAgreement.objects.filter(whole_sequence=False).exists()


@override_settings(STORY_SCORES_AFTER_APPROVAL=True)
def test_approvals_queue_one_scoring_job_after_commit(monkeypatch, django_capture_on_commit_callbacks):
    cache.delete(QUEUED)
    queued: list[dict] = []
    monkeypatch.setattr("storyboard.tasks.score_new_stories.apply_async", lambda **kwargs: queued.append(kwargs))
    with django_capture_on_commit_callbacks(execute=True):
        workflow(2)
    assert Story.objects.count() > 2
    assert queued == [{"countdown": agreement_scores.DELAY_SECONDS}]  # many approvals, one job
    assert albums_with_unscored_stories() != []
    cache.delete(QUEUED)


@override_settings(STORY_SCORES_AFTER_APPROVAL=True,
                   CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                       "LOCATION": "redis://127.0.0.1:9/0"}})  # nothing listens on port 9
def test_with_redis_away_approvals_still_stand_and_the_stories_stay_unscored(monkeypatch, caplog,
                                                                           django_capture_on_commit_callbacks):
    queued: list[dict] = []
    monkeypatch.setattr("storyboard.tasks.score_new_stories.apply_async", lambda **kwargs: queued.append(kwargs))
    with django_capture_on_commit_callbacks(execute=True):
        workflow(1)
    assert queued == [] and Story.objects.exists() and albums_with_unscored_stories() != []
    assert "story scoring not queued (ConnectionError" in caplog.text


def test_without_the_setting_approvals_queue_nothing(monkeypatch, django_capture_on_commit_callbacks):
    cache.delete(QUEUED)
    queued: list[dict] = []
    monkeypatch.setattr("storyboard.tasks.score_new_stories.apply_async", lambda **kwargs: queued.append(kwargs))
    with override_settings(STORY_SCORES_AFTER_APPROVAL=False), django_capture_on_commit_callbacks(execute=True):
        workflow(1)
    assert queued == []


def test_the_command_scores_what_is_missing(monkeypatch, _session_meteor, capsys):
    workflow(2)
    job = Counting(_session_meteor)
    monkeypatch.setattr(agreement_scores, "Meteor", job)
    call_command("score_stories")
    assert f"{Story.objects.count():,} stories: {len(job.pairs):,} scored" in capsys.readouterr().out
    assert albums_with_unscored_stories() == [] and job.started == 1
    call_command("score_stories")
    assert "0 scored" in capsys.readouterr().out and job.started == 1

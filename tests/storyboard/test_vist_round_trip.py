"""Imported VIST data in use: the released files written back by the SIND export (same ids, texts, order, split),
the platform's own export imported back and exported identically, evaluation against the released test stories,
and rating and re-telling campaigns on imported stories and albums."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from common.safe_archives import SafeZip
from mturk.datasets.formats import run_export
from mturk.services.review import approve_submitted
from storyboard.models import (
    Album,
    ChosenSequence,
    Photo,
    SequenceDescription,
    Setting,
    Story,
    Storylet,
    StoryRating,
)
from storyboard.services.story_runs import score_story_run
from storyboard.services.vist_import.importer import import_vist
from storyboard.services.vist_import.records import zip_files
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.factories import make_album
from tests.worker_flow import start_task, submit

from .test_story_kinds import TEXTS, campaign_of, page_payload

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vist"
TIERS = ("sis", "dii", "dis")


def exported(tmp_path: Path, name: str) -> dict[str, bytes]:
    run_export("sind", tmp_path / name, [], {"report_sample": 0})
    with zipfile.ZipFile(tmp_path / name) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n.split("/")[0] in TIERS}


def test_released_files_come_back_with_the_same_records(tmp_path):
    import_vist([FIXTURES])
    files = exported(tmp_path, "out.zip")
    for name in ("sis/test.story-in-sequence.json", "sis/val.story-in-sequence.json",
                 "dii/test.description-in-isolation.json"):
        released, written = json.loads((FIXTURES / name).read_text()), json.loads(files[name])
        kept = [a for a in released["annotations"] if a[0]["story_id" if "sis" in name else "photo_flickr_id"]
                not in ("45532", "2999")]  # the story and the description of the photo the release leaves out
        assert written["annotations"] == kept, name
        assert written["images"] == released["images"] and written["albums"] == released["albums"], name
        assert written["type"] == released["type"] and written["info"]["split"] == name.split("/")[1].split(".")[0]
    assert json.loads(files["sis/train.story-in-sequence.json"])["annotations"] == []


def test_platform_export_imports_back_and_exports_identically(tmp_path, monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC))
    campaigns = create_story_workflow("Round", [make_album(6) for _ in range(3)], publish=True, is_simulated=True)
    run_story_workflow(campaigns, seed=3)
    first = exported(tmp_path, "first.zip")
    stories = Story.objects.count()
    # a new installation: the albums, stories and descriptions are gone
    for model in (SequenceDescription, ChosenSequence, Storylet):
        model.objects.all().delete()
    Story.objects.exclude(sequence_of=None).delete()
    Story.objects.all().delete()
    Photo.objects.all().delete()
    Album.objects.all().delete()
    with SafeZip(tmp_path / "first.zip") as archive:
        files = zip_files(archive)
        summary = import_vist(files)
    assert summary.stories == stories and summary.skipped_stories == 0
    assert summary.dis > 0 and summary.dii > 0
    assert exported(tmp_path, "second.zip") == first


def _submission(tmp_path: Path, album: str, photos: list[str], text: str) -> bytes:
    return json.dumps({"team_name": "t", "output_stories": [
        {"album_id": album, "photo_sequence": photos, "story_text_normalized": text}]}).encode()


def test_evaluation_against_the_released_test_stories(tmp_path):
    import_vist([FIXTURES])
    make_album(6, external_id="72157600000000001x")  # a collected album: not a reference of --released
    human = " ".join(Story.objects.get(external_id="45530").storylets.order_by("order").values_list("text", flat=True))
    data = _submission(tmp_path, "72157600000000001", [str(1000 + i) for i in range(5)], human)
    result = score_story_run(data, [], "test", released=True)
    assert result["meteor"] == pytest.approx(1.0) and result["matched"] == 1
    assert result["reference_sequences"] == 2  # album A's sequence (told, then re-told) and story 45533's
    assert score_story_run(data, [], "val", released=True)["matched"] == 0
    (tmp_path / "run.json").write_bytes(data)
    out = io.StringIO()
    call_command("evaluate_stories", str(tmp_path / "run.json"), "--split", "test", "--released", stdout=out)
    assert "METEOR = 1.0000" in out.getvalue() and "1 of 1 generated stories matched" in out.getvalue()


def test_rating_and_retelling_campaigns_on_imported_stories(client):
    import_vist([FIXTURES])
    told = Story.objects.get(external_id="45530")
    rate = campaign_of("rate_story", [{"story": told.pk}])
    token = start_task(client, rate)
    assert [c["text"] for c in page_payload(client, token)["story"]["cards"]][0] == "We went to the craft fair."
    assert submit(client, {"token": token, "answer": {"rating": 4}}).status_code == 201
    approve_submitted(rate)
    assert list(StoryRating.objects.values_list("story_id", "rating")) == [(told.pk, 4)]
    retell = campaign_of("retell_story", [{"album": told.album_id}])
    token = start_task(client, retell)
    sequences = page_payload(client, token)["sequences"]
    assert [s["id"] for s in sequences] == [told.pk]
    assert [p["url"] for p in sequences[0]["photos"]][0] == "https://farm1.staticflickr.com/2/1000_a1b2c3d4e5_o.jpg"
    assert submit(client, {"token": token, "answer": {"sequence": told.pk, "texts": TEXTS}}).status_code == 201
    approve_submitted(retell)
    retold = Story.objects.get(setting=Setting.RETELL, assignment__isnull=False)
    assert retold.sequence_of_id == told.pk and retold.storylets.count() == 5

"""Management commands: import, create, publish, export, seed_demo."""
import json
import logging
import zipfile
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Box, Concept, Correspondence, Description, Image
from mturk.models import Assignment, Campaign
from mturk.selectors.campaigns import campaigns_with_progress, progress_of
from storyboard.models import Album, Story, StoryRating
from tests.factories import image_bytes, submitted

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def test_create_import_publish(tmp_path):
    run("create_campaign", "--name", "cli", "--kind", "describe_image", "--reward", "0.07", "--assignments", "2",
        "--options", '{"min_words": 6}', "--title", "Describe a photo", "--description", "One sentence per photo.")
    created = Campaign.objects.get(name="cli")
    assert (created.title, created.description) == ("Describe a photo", "One sentence per photo.")
    folder = tmp_path / "pics"
    folder.mkdir()
    (folder / "a.png").write_bytes(image_bytes())
    (folder / "b.jpg").write_bytes(image_bytes("JPEG"))
    (folder / "c.jpg").write_bytes(b"broken")
    output = run("import_images", str(folder), "--campaign", "cli")
    assert "2 imported, 0 already known, 1 refused" in output
    assert "refused c.jpg: not an image" in output
    assert "2 HIT(s) added to campaign 'cli'" in output
    output = run("publish_campaign", "cli")
    assert "Published 2 HIT(s)" in output and "$0.28 with fees" in output
    worker_lines = [line for line in output.splitlines() if line.startswith("Worker link: ")]
    assert len(worker_lines) == 1 and "/w/" in worker_lines[0]
    assert Campaign.objects.get(name="cli").options == {"min_words": 6}


def test_import_zip_reports_escaping_entry(tmp_path):
    archive = tmp_path / "batch.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("ok.png", image_bytes())
        z.writestr("../../etc/evil.png", image_bytes())
    output = run("import_images", str(archive))
    assert "1 imported" in output and "refused ../../etc/evil.png: entry escapes the target folder" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["import_images", "/no/such/place"], "does not exist"),
        (["publish_campaign", "nope"], "no campaign named or numbered 'nope'"),
        (["create_campaign", "--name", "x", "--kind", "paint"], "unknown task kind 'paint'"),
        (["create_campaign", "--name", "x", "--kind", "describe_image", "--reward", "abc"], "'abc' is not a number"),
        (["create_campaign", "--name", "x", "--kind", "describe_image", "--options", "{"], "not valid JSON"),
        (["export_dataset", "--format", "nope", "--out", "/tmp/x"], "unknown export format 'nope'"),
        (["export_dataset", "--format", "assignments-jsonl", "--out", "/tmp/x", "--option", "colour=red"], "colour"),
        (["export_dataset", "--format", "assignments-jsonl", "--out", "/tmp/x", "--option", "colour"],
         "expected NAME=VALUE"),
    ],
)
def test_cli_errors_are_clear(args, message):
    with pytest.raises(CommandError, match=message):
        call_command(*args)


def test_publish_with_unknown_provider():
    run("create_campaign", "--name", "p", "--kind", "describe_image")
    with pytest.raises(CommandError, match="unknown provider 'nowhere'"):
        call_command("publish_campaign", "p", "--provider", "nowhere")


def test_export_assignments_jsonl(tmp_path):
    from tests.factories import make_campaign

    campaign = make_campaign(images=1, name="exp")
    done = submitted(campaign)
    out = tmp_path / "out" / "answers.zip"
    assert "Wrote 1 record(s)" in run("export_dataset", "--format", "assignments-jsonl", "--out", str(out),
                                      "--campaign", "exp")
    with zipfile.ZipFile(out) as archive:
        record = json.loads(archive.read("assignments.jsonl").decode().strip())
        card = archive.read("README.md").decode()
        crowd = json.loads(archive.read("report/crowd.json"))
    assert record["assignment_id"] == done.pk and record["answer"] == done.answer
    assert record["worker"] == f"local:{done.worker.external_id}"
    assert "| exp | describe_image | local | 0.10 | 2 | 1 | 0 | 0 |" in card
    assert "> Describe all the important parts of the scene" in card
    assert crowd["campaigns"][0]["workers"] == 1 and crowd["campaigns"][0]["answered"] == 1
    assert not (tmp_path / "out" / "answers.zip.partial").exists()


def test_seed_demo_is_idempotent(django_capture_on_commit_callbacks, caplog):
    caplog.set_level(logging.INFO)
    with django_capture_on_commit_callbacks(execute=True):
        first = run("seed_demo")
    # What `make demo` prints before the login, the links and the token: its two lines (the key file, "Setting
    # up"), the summary and what to try; no log line (there were 281, one per in-process job and a broker warning)
    logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.INFO]
    assert logged == []
    before_login = first.split("Researcher login: ")[0].splitlines()
    assert 2 + len(before_login) <= 20 and before_login[0].startswith("Demo data: ")
    counts = (Image.objects.count(), Box.objects.count(), Concept.objects.count(), Album.objects.count(),
              Campaign.objects.count())
    second = run("seed_demo")
    assert counts == (Image.objects.count(), Box.objects.count(), Concept.objects.count(),
                      Album.objects.count(), Campaign.objects.count())
    assert counts[0] == 24 + 36 and counts[3] == 3 and counts[4] == 3 + 5 + 2 and counts[1] > 0  # 2: human evaluations
    assert all(album.photos.count() == 12 for album in Album.objects.all())
    link = [line for line in first.splitlines() if line.startswith("Worker link: ")]
    assert link and link == [line for line in second.splitlines() if line.startswith("Worker link: ")]
    assert Campaign.objects.get(name="Demo: describe images").status == "active"
    # the simulated campaigns are marked by their flag (the pages add "(simulated)"), not by their names too, and
    # closed once their work is done: shown completed, not active
    simulated = Campaign.objects.filter(is_simulated=True)
    assert simulated.count() == 2 + 5 + 2 and not Campaign.objects.filter(name__contains="(simulated)").exists()
    assert {progress_of(c).status_label for c in campaigns_with_progress().filter(is_simulated=True)} == {
        "Completed"}
    # the completed grounded campaign: 12 images x 5 simulated descriptions, each linked, all approved
    described = Campaign.objects.get(name="Demo: grounded descriptions, 1 describe")
    linked = Campaign.objects.get(name="Demo: grounded descriptions, 2 link words")
    assert described.is_simulated and linked.is_simulated and linked.source_stage == described
    assert Description.objects.filter(source="simulated", assignment__hit__campaign=described).count() == 60
    # the completed story workflow: every stage done by simulated workers, marked simulated
    stories = {c.name.rsplit(" · ", 1)[1]: c for c in Campaign.objects.filter(name__startswith="Demo: visual stories")}
    assert set(stories) == {"tell", "retell", "dii", "dis", "rate"} and all(c.is_simulated for c in stories.values())
    assert Story.objects.count() == 15 and StoryRating.objects.count() == 75
    assert "export_dataset --format sind" in first
    assert Correspondence.objects.filter(source="simulated", description__source="simulated").count() == 60
    assert not Assignment.objects.filter(hit__campaign__in=[described, linked]).exclude(status="approved").exists()
    assert Image.objects.filter(thumb_small="").count() == 0

"""The whole visual-stories workflow with simulated workers: stage chaining, majority and discard
rules, one album per worker across stages, and the SIND export checked against vist-format.md."""
from __future__ import annotations

import io
import json
import zipfile
from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from mturk.datasets.formats import write_export
from mturk.models import HIT, Assignment
from mturk.services.review import approve_submitted
from mturk.states import AssignmentStatus
from mturk.work.services.assignments import NoTaskAvailable, assign_next_hit, get_or_create_worker, submit_answer
from storyboard.models import ChosenSequence, SequenceDescription, Setting, Story, Storylet, StoryRating
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.factories import make_album

pytestmark = pytest.mark.django_db

STRING_FIELDS_SIS = {"album_id", "original_text", "photo_flickr_id", "setting", "story_id", "storylet_id", "text",
                     "tier", "worker_id"}


def export_files(campaigns=(), **options) -> dict[str, object]:
    buffer = io.BytesIO()
    write_export("sind", buffer, list(campaigns), options)
    with zipfile.ZipFile(buffer) as archive:
        return {name: (json.loads(archive.read(name)) if name.endswith(".json") else archive.read(name))
                for name in archive.namelist()}


@pytest.fixture
def finished():
    albums = [make_album(8) for _ in range(3)]
    campaigns = create_story_workflow("Stories", albums, ratings=True, publish=True, is_simulated=True)
    answered = run_story_workflow(campaigns, seed=7)
    return albums, campaigns, answered


def test_every_stage_runs_with_the_seeds_numbers(finished):
    albums, campaigns, answered = finished
    assert answered == {"tell": 6, "retell": 9, "dii": 45, "dis": 9, "rate": 75}
    assert Story.objects.filter(setting=Setting.TELL).count() == 6
    assert Story.objects.filter(setting=Setting.RETELL).count() == 9
    assert Storylet.objects.count() == 15 * 5
    assert ChosenSequence.objects.count() == 3
    for chosen in ChosenSequence.objects.all():
        votes = Counter(s.sequence_of_id for s in Story.objects.filter(album=chosen.album, setting=Setting.RETELL))
        assert votes[chosen.sequence_id] == chosen.votes >= 2
    assert SequenceDescription.objects.count() == 3 * 3 * 5
    assert StoryRating.objects.count() == 15 * 5
    # DII: one HIT per photo of each chosen sequence, 3 workers each, grouped under the album
    dii_hits = HIT.objects.filter(campaign=campaigns["dii"])
    assert dii_hits.count() == 15
    assert {h.group for h in dii_hits} == {f"album:{a.pk}" for a in albums}


def test_no_worker_does_two_stages_of_one_album(finished):
    albums, campaigns, _ = finished
    campaigns_of: dict[tuple[int, str], set[int]] = {}
    for worker, group, campaign in Assignment.objects.values_list("worker_id", "hit__group", "hit__campaign_id"):
        campaigns_of.setdefault((worker, group), set()).add(campaign)
    assert len(campaigns_of) > 20
    assert all(group.startswith("album:") for _, group in campaigns_of)
    assert max(len(c) for c in campaigns_of.values()) == 1
    # a storyteller of an album is refused that album's re-telling even when HITs are open
    teller = Story.objects.filter(setting=Setting.TELL).select_related("worker").first().worker
    hit = HIT.objects.get(campaign=campaigns["retell"], items={"album": teller.stories.first().album_id})
    HIT.objects.filter(pk=hit.pk).update(max_assignments=10)
    with pytest.raises(NoTaskAvailable):
        assign_next_hit(campaigns["retell"], teller)


def test_an_album_skipped_by_two_storytellers_is_discarded():
    kept, dropped = make_album(6), make_album(6)
    campaigns = create_story_workflow("Skips", [kept, dropped], publish=True)
    for number in range(2):
        worker = get_or_create_worker("local", f"T{number}")
        for _ in range(2):
            assignment = assign_next_hit(campaigns["tell"], worker)
            if assignment.hit.items["album"] == dropped.pk:
                answer = {"skip": True, "reason": "Only pictures of documents."}
            else:
                photos = list(kept.photos.values_list("pk", flat=True))[:5]
                answer = {"cards": [{"photo": p, "text": f"Sentence number {i} of this little story."}
                                    for i, p in enumerate(photos)]}
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id, answer=answer)
    approve_submitted(campaigns["tell"])
    assert [h.items for h in HIT.objects.filter(campaign=campaigns["retell"])] == [{"album": kept.pk}]
    assert campaigns["tell"].hits.filter(assignments__status=AssignmentStatus.APPROVED).distinct().count() == 2


def test_sind_export_follows_the_vist_format(finished):
    albums, campaigns, _ = finished
    files = export_files()
    album_ids = {a.external_id for a in albums}
    for tier, kind in (("sis", "story-in-sequence"), ("dii", "description-in-isolation"),
                       ("dis", "description-in-sequence")):
        seen_albums: set[str] = set()
        for split in ("train", "val", "test"):
            data = files[f"{tier}/{split}.{kind}.json"]
            assert list(data) == ["info", "type", "images", "albums", "annotations"]
            assert data["type"] == kind
            for image in data["images"]:
                assert all(isinstance(v, str) for v in image.values())
                assert image["media"] == "photo"
            for album in data["albums"]:
                assert all(isinstance(v, str) for v in album.values())
                seen_albums.add(album["id"])
            for annotation in data["annotations"]:
                assert isinstance(annotation, list) and len(annotation) == 1
            # photos in time order within each album
            by_album: dict[str, list[str]] = {}
            for image in data["images"]:
                by_album.setdefault(image["album_id"], []).append(image["datetaken"])
            assert all(times == sorted(times) for times in by_album.values())
        assert seen_albums == album_ids

    sis = [ann[0] for split in ("train", "val", "test")
           for ann in files[f"sis/{split}.story-in-sequence.json"]["annotations"]]
    assert len(sis) == 75
    for row in sis:
        assert set(row) == STRING_FIELDS_SIS | {"worker_arranged_photo_order"}
        assert all(isinstance(row[k], str) for k in STRING_FIELDS_SIS)
        assert isinstance(row["worker_arranged_photo_order"], int)
        assert int(row["storylet_id"]) == 5 * int(row["story_id"]) + row["worker_arranged_photo_order"]
        assert row["tier"] == "story-in-sequence"
        assert row["text"] == row["text"].lower()
        assert not row["worker_id"].startswith("SIMULATED")
    # stories are contiguous blocks sorted by position; ids consecutive within an album; telling first
    blocks: list[tuple[str, list[int], str, str]] = []
    for row in sis:
        if not blocks or blocks[-1][0] != row["story_id"]:
            blocks.append((row["story_id"], [], row["album_id"], row["setting"]))
        blocks[-1][1].append(row["worker_arranged_photo_order"])
    assert len(blocks) == 15 == len({b[0] for b in blocks})
    assert all(orders == list(range(5)) for _, orders, _, _ in blocks)
    for album in album_ids:
        mine = [b for b in blocks if b[2] == album]
        ids = [int(b[0]) for b in mine]
        assert ids == list(range(ids[0], ids[0] + 5))
        assert [b[3] for b in mine] == ["first-2-pick-and-tell"] * 2 + ["last-3-pick-old-and-tell"] * 3

    dii = [ann[0] for split in ("train", "val", "test")
           for ann in files[f"dii/{split}.description-in-isolation.json"]["annotations"]]
    assert len(dii) == 45
    assert all(set(r) == {"album_id", "photo_flickr_id", "photo_order_in_story", "text", "original_text", "tier",
                          "worker_id"} for r in dii)
    assert {r["tier"] for r in dii} == {"descriptions-in-isolation"}
    dis = [ann[0] for split in ("train", "val", "test")
           for ann in files[f"dis/{split}.description-in-sequence.json"]["annotations"]]
    assert len(dis) == 45
    assert {r["tier"] for r in dis} == {"descriptions-in-sequence"}
    # DII and DIS describe the chosen sequence, at its positions
    for chosen in ChosenSequence.objects.select_related("album"):
        photos = list(Storylet.objects.filter(story=chosen.sequence).order_by("order")
                      .values_list("photo__external_id", flat=True))
        mine = [
            (r["photo_flickr_id"], r["photo_order_in_story"]) for r in dii if r["album_id"] == chosen.album.external_id
        ]
        assert sorted(set(mine), key=lambda p: p[1]) == [(p, i) for i, p in enumerate(photos)]
        assert Counter(mine) == {(p, i): 3 for i, p in enumerate(photos)}
    ratings = files["ratings/story-ratings.json"]["ratings"]
    assert len(ratings) == 75
    assert b"Contains simulated results" in files["README.md"]


def test_names_are_anonymized_and_originals_kept(finished):
    files = export_files()
    sis = [ann[0] for split in ("train", "val", "test")
           for ann in files[f"sis/{split}.story-in-sequence.json"]["annotations"]]
    first = [r for r in sis if r["worker_arranged_photo_order"] == 0]
    assert first and all("[male]" in r["text"] or "[female]" in r["text"] for r in first)
    assert all("location" in r["text"] for r in first)
    assert all(any(n in r["original_text"] for n in ("John", "Mary", "Peter", "Susan", "David", "Emma")) for r in first)


def test_split_is_deterministic_and_by_album(finished):
    a, b = export_files(), export_files()
    for name in a:
        if name.startswith(("sis/", "dii/", "dis/")):
            assert a[name]["annotations"] == b[name]["annotations"]
    other = export_files(split_seed="another")
    splits = {
        split: {al["id"] for al in a[f"sis/{split}.story-in-sequence.json"]["albums"]}
        for split in ("train", "val", "test")
    }
    assert sum(len(s) for s in splits.values()) == 3
    assert other.keys() == a.keys()


def test_human_stories_challenge_file_scores_meteor_one(finished, tmp_path):
    files = export_files()
    stories = [
        s
        for split in ("train", "val", "test")
        for s in files[f"challenge/{split}.human-stories.json"]["output_stories"]
    ]
    assert len(stories) == len({(s["album_id"], tuple(s["photo_sequence"])) for s in stories}) >= 3
    submission = tmp_path / "human.json"
    submission.write_text(json.dumps({"team_name": "human", "output_stories": stories}))
    out = io.StringIO()
    call_command("evaluate_stories", str(submission), "--out", str(tmp_path / "scores.json"), stdout=out)
    assert "METEOR = 1.0000" in out.getvalue()
    result = json.loads((tmp_path / "scores.json").read_text())
    assert result["matched"] == len(stories) and result["unmatched"] == 0
    assert all(row["meteor"] == 1.0 for row in result["per_sequence"])
    # a story that is not a human one scores lower
    worse = [{**s, "story_text_normalized": "the cat sat on the mat ."} for s in stories]
    submission.write_text(json.dumps({"team_name": "cat", "output_stories": worse}))
    out = io.StringIO()
    call_command("evaluate_stories", str(submission), stdout=out)
    assert float(out.getvalue().split("METEOR = ")[1].split()[0]) < 0.2


def test_evaluate_stories_names_bad_entries(finished, tmp_path):
    submission = tmp_path / "bad.json"
    submission.write_text(json.dumps({"output_stories": [{"album_id": "x", "photo_sequence": "nope"}]}))
    with pytest.raises(CommandError, match=r"output_stories\[0\]"):
        call_command("evaluate_stories", str(submission))


def test_story_evaluation_api(finished, api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = export_files()
    stories = [s for split in ("train", "val", "test")
               for s in files[f"challenge/{split}.human-stories.json"]["output_stories"]]
    body = json.dumps({"team_name": "t", "output_stories": stories}).encode()
    response = api.post("/api/story-evaluations/", {"submission": SimpleUploadedFile("s.json", body)},
                        format="multipart")
    assert response.status_code == 200, response.content
    assert response.json()["meteor"] == 1.0 and response.json()["matched"] == len(stories) >= 3
    bad = api.post("/api/story-evaluations/", {"submission": SimpleUploadedFile("s.json", b"{")}, format="multipart")
    assert bad.status_code == 400 and bad.json()["errors"]


def test_story_evaluation_api_without_human_stories(api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = json.dumps({"output_stories": [{"album_id": "a", "photo_sequence": ["p"],
                                           "story_text_normalized": "x"}]}).encode()
    response = api.post("/api/story-evaluations/", {"submission": SimpleUploadedFile("s.json", body)},
                        format="multipart")
    assert response.status_code == 409 and response.json()["detail"] == "there are no human stories to compare with"


def test_export_carries_the_stories_report(finished):
    files = export_files()
    report = files["report/stories.json"]
    tiers = {row["tier"]: row for row in report["tiers"]}
    assert tiers["sis"]["pairs"] == 75 and tiers["dii"]["pairs"] == 45 and tiers["dis"]["pairs"] == 45
    agreement = report["agreement"]
    assert agreement["stories_scored"] + agreement["stories_skipped"] == 15 and agreement["stories_scored"] >= 9
    assert report["sample"] == {"stories": 15, "of": 15, "limit": 1000}
    assert 0 < agreement["meteor_mean"] < 1 and 0 < agreement["bleu4_mean"] < 1 and agreement["cider_mean"] > 0
    table = report["correlations"]["table"]
    assert set(table) == {"meteor", "bleu4", "cider"} and table["meteor"]["n"] == agreement["stories_scored"]
    html = files["report/stories.html"].decode()
    assert "<svg" in html and "METEOR" in html

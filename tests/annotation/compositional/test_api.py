"""The compositional API: concept pairs (list with concepts, define with field errors, delete, load the seed's,
import all or nothing), the occurrence table (unknown pairs and campaigns named), and the parse job."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.compositional.models import CaptionParse, ConceptPair, LexicalConcept, ParseJob
from annotation.compositional.services.caption_parses import current_parser
from annotation.compositional.services.concept_pairs import load_seed_pairs, save_pair
from annotation.models import Description, Image
from mturk.models import Campaign
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db


def _queries(api, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = api.get(url)
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries)


def _captions(*texts: str) -> list[Description]:
    image = Image.objects.create(key="img", original_name="img.jpg", format="JPEG", width=640, height=480,
                                 file_size=0)
    return [Description.objects.create(image=image, text=t, source="imported") for t in texts]


def test_list_pairs_with_their_concepts_in_constant_queries(api):
    save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat", modifier_synonyms=[],
              noun_synonyms=["cats", "kitten"], category="colour", heldout_group="1")
    few = _queries(api, "/api/compositional/pairs/")
    listed = api.get("/api/compositional/pairs/").json()
    assert listed["count"] == 1
    pair = listed["results"][0]
    assert {k: v for k, v in pair.items() if k != "created_at"} == {
        "name": "black_cat", "kind": "adjective_noun", "category": "colour", "heldout_group": "1",
        "source": "researcher",
        "modifier": {"name": "black", "part_of_speech": "adjective", "synonyms": ["black"], "source": "researcher"},
        "noun": {"name": "cat", "part_of_speech": "noun", "synonyms": ["cat", "cats", "kitten"],
                 "source": "researcher"}}
    load_seed_pairs()
    assert _queries(api, "/api/compositional/pairs/") == few
    assert api.get("/api/compositional/pairs/").json()["count"] == 24  # black_cat is the seed's too: kept
    assert api.get("/api/compositional/pairs/eat_man/").json()["modifier"]["part_of_speech"] == "verb"


def test_define_a_pair_and_refusals_at_their_field(api):
    body = {"name": "furry_dog", "kind": "adjective_noun", "modifier": "furry", "noun": "dog",
            "modifier_synonyms": ["fluffy"], "noun_synonyms": ["dogs"], "category": "texture"}
    created = api.post("/api/compositional/pairs/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["modifier"]["synonyms"] == ["furry", "fluffy"]
    updated = api.post("/api/compositional/pairs/", {**body, "heldout_group": "g"}, format="json")
    assert updated.status_code == 200 and updated.json()["heldout_group"] == "g"
    refused = api.post("/api/compositional/pairs/", {**body, "name": "furry_kat", "noun": "kat", "noun_synonyms": None},
                       format="json")
    assert refused.status_code == 400
    assert refused.json() == {"noun": ["noun: 'kat' is not a defined noun; give noun_synonyms to define it (its "
                                       "synonyms, e.g. kat)"]}
    wrong_kind = api.post("/api/compositional/pairs/", {**body, "kind": "verb_noun"}, format="json")
    assert wrong_kind.status_code == 400 and list(wrong_kind.json()) == ["kind"]
    assert api.post("/api/compositional/pairs/", {"name": "x"}, format="json").status_code == 400
    assert list(ConceptPair.objects.values_list("name", flat=True)) == ["furry_dog"]
    assert not LexicalConcept.objects.filter(name="kat").exists()


def test_delete_a_pair(api):
    save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat", modifier_synonyms=[],
              noun_synonyms=[])
    assert api.delete("/api/compositional/pairs/black_cat/").status_code == 204
    assert not ConceptPair.objects.exists()
    assert api.delete("/api/compositional/pairs/black_cat/").status_code == 404


def test_load_the_seed(api):
    assert api.post("/api/compositional/pairs/load-seed/").json() == {"created": 24, "pairs": 24}
    assert api.post("/api/compositional/pairs/load-seed/").json() == {"created": 0, "pairs": 24}


def test_import_pairs(api):
    good = {"concepts": [{"name": "brown", "part_of_speech": "adjective", "synonyms": []},
                         {"name": "horse", "part_of_speech": "noun", "synonyms": ["horses"]}],
            "pairs": [{"name": "brown_horse", "kind": "adjective_noun", "modifier": "brown", "noun": "horse"}]}
    bad = {**good, "pairs": good["pairs"] + [{"name": "red_horse", "kind": "adjective_noun", "modifier": "red",
                                              "noun": "horse"}]}
    refused = api.post("/api/compositional/pairs/import/",
                       {"file": SimpleUploadedFile("p.json", json.dumps(bad).encode())}, format="multipart")
    assert refused.status_code == 400
    assert refused.json() == {"detail": "the file has errors", "errors": [
        "pairs[1] (red_horse): modifier: 'red' is not a defined adjective; give modifier_synonyms to define it (its "
        "synonyms, e.g. red)"]}
    assert not LexicalConcept.objects.exists()
    imported = api.post("/api/compositional/pairs/import/",
                        {"file": SimpleUploadedFile("p.json", json.dumps(good).encode())}, format="multipart")
    assert imported.status_code == 201 and imported.json() == {"imported": 1}
    assert ConceptPair.objects.get().noun.synonyms == ["horse", "horses"]


def test_occurrences(api):
    load_seed_pairs()
    _captions("A black cat sits on a mat.", "The cat is black.", "A cat next to a black dog.")
    CaptionParse.objects.bulk_create(
        CaptionParse(description=d, parser=current_parser().name, data=current_parser().parse([d.text])[0].to_json())
        for d in Description.objects.all()[:2])
    url = "/api/compositional/occurrences/?pairs=black_cat,eat_man"
    table = api.get(url).json()
    assert (table["images"], table["captions"], table["unparsed"]) == (1, 2, 1)
    assert table["parser"] == current_parser().name and len(table["notes"]) == 1
    assert table["rows"][0] == {"name": "black_cat", "kind": "adjective_noun", "category": "colour",
                                "heldout_group": "1", "images": 1, "captions": 2, "by_count": {"2": 1},
                                "mean_per_image": 2.0, "noun_images": 1, "modifier_images": 1}
    assert table["rows"][1]["name"] == "eat_man" and table["rows"][1]["images"] == 0
    few = _queries(api, url)
    _captions_more = Image.objects.create(key="more", original_name="m.jpg", format="JPEG", width=1, height=1,
                                          file_size=0)
    for n in range(10):
        Description.objects.create(image=_captions_more, text=f"caption {n}", source="imported")
    assert _queries(api, url) == few
    assert len(api.get("/api/compositional/occurrences/").json()["rows"]) == 24
    unknown = api.get("/api/compositional/occurrences/?pairs=black_cat,purple_cow")
    assert unknown.status_code == 400 and unknown.json() == {"pairs": ["unknown concept pair(s): purple_cow"]}


def test_occurrences_in_campaigns(api):
    load_seed_pairs()
    campaign = make_campaign(images=1)
    assert api.get(f"/api/compositional/occurrences/?pairs=black_cat&campaign={campaign.pk}").json()["images"] == 0
    boxes = make_campaign(images=1, name="boxes", publish=False)
    Campaign.objects.filter(pk=boxes.pk).update(task_kind="draw_boxes")
    for query, message in [("campaign=abc", "'abc' is not a campaign id"),
                           (f"campaign={campaign.pk + 1000}", f"no campaign {campaign.pk + 1000}"),
                           (f"campaign={campaign.pk},{boxes.pk}", "not describe_image campaign(s): boxes")]:
        refused = api.get(f"/api/compositional/occurrences/?{query}")
        assert refused.status_code == 400 and refused.json() == {"campaign": [message]}


def test_parse_coverage_and_job(api, django_capture_on_commit_callbacks):
    _captions("A black cat.", "A man eats a pizza.")
    before = api.get("/api/compositional/parse/").json()
    assert before == {"coverage": {"descriptions": 2, "parsed": 0, "parser": current_parser().name}, "job": None}
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post("/api/compositional/parse/")
    assert started.status_code == 202 and started.json()["status"] == "queued"
    # Without a broker the job runs in-process once the request's transaction commits.
    job = ParseJob.objects.get()
    assert started.json()["id"] == job.pk and job.status == "done" and job.done == 2
    after = api.get("/api/compositional/parse/").json()
    assert after["coverage"]["parsed"] == 2
    assert {k: after["job"][k] for k in ("id", "status", "total", "done", "error")} == {
        "id": job.pk, "status": "done", "total": 2, "done": 2, "error": ""}


def test_anonymous_is_refused(client):
    for url in ("/api/compositional/pairs/", "/api/compositional/occurrences/", "/api/compositional/parse/"):
        assert client.get(url).status_code in (401, 403)
    assert client.post("/api/compositional/pairs/load-seed/").status_code in (401, 403)
    assert not ConceptPair.objects.exists()

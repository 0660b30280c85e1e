"""The console pages of compositional generalization: the pairs page (parse coverage and the parse job, the
occurrence table, the seed's pairs, adding and deleting a pair), the evaluations page (upload, refusal, list) and an
evaluation's page with its report; constant query counts.

The corpus is the small COCO-format fixture (coco_fixture/captions.json), parsed with the real parser. By hand, with
the seed's pairs: black_cat is in 3 captions of 301 ("A black cat sitting...", "A black cat sleeping...", "Two black
cats...") and 2 of 307 ("The cat is black.", "The cats are black and sleepy.") -> 2 images, 5 captions, one image
with 2 and one with 3, mean 2.5; eat_man in 3 captions of 304 ("A man eats...", "A man eating...", "A man who
eats...") and not in 305 ("A man next to a horse that eats.") -> 1 image, 3 captions. In COCO mode black_cat's
evaluation image is 307 (val2014)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.compositional.models import CaptionParse, CompositionalEvaluation, ConceptPair, ParseJob
from annotation.compositional.services.caption_parses import parse_all
from annotation.compositional.services.concept_pairs import load_seed_pairs, save_pair
from annotation.compositional.services.evaluations import run_evaluation_by_id, submit_evaluation
from annotation.models import Description, Image
from annotation.services.coco_import.importer import import_coco
from tests.queries import queries_for

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "coco_fixture"
CAPTIONS = 60  # 12 images, 5 captions each


@pytest.fixture
def corpus(db):
    import_coco(FIXTURE / "captions.json")


@pytest.fixture
def parsed(corpus):
    parse_all()


def row_of(html: str, name: str) -> str:
    """The pairs table's row of one pair."""
    match = re.search(rf'<tr>\s*<th scope="row" data-label="Pair"><span>{name} .*?</tr>', html, re.S)
    assert match, f"no row of {name}"
    return match.group(0)


def cell(row: str, label: str) -> str:
    match = re.search(rf'<td data-label="{re.escape(label)}"[^>]*>(.*?)</td>', row, re.S)
    assert match, f"no {label} cell"
    return re.sub(r"\s+", " ", match.group(1)).strip()


def test_pages_need_a_researcher(client, corpus):
    for url in ("/compositional/", "/compositional/evaluations/", "/compositional/parse/status/"):
        assert client.get(url).status_code == 302
    assert client.post("/compositional/parse/").status_code == 302
    assert not ParseJob.objects.exists()


def test_menu_links_the_page(researcher_client):
    assert 'href="/compositional/">Compositional</a>' in researcher_client.get("/").content.decode()


def test_coverage_and_the_parse_button(researcher_client, corpus, django_capture_on_commit_callbacks):
    html = researcher_client.get("/compositional/").content.decode()
    assert f"0 of {CAPTIONS} captions parsed by" in html
    assert "Parse captions</button>" in html and "<progress" not in html
    # the job starts when the request's transaction commits (here: as the view returns, as with a broker)
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post("/compositional/parse/")
    assert response.status_code == 302
    assert CaptionParse.objects.count() == CAPTIONS
    page = researcher_client.get("/compositional/").content.decode()
    assert "The captions are being parsed in the background" in page
    assert f"{CAPTIONS} of {CAPTIONS} captions parsed by" in page


def test_a_running_parse_job_shows_its_progress(researcher_client, corpus):
    job = ParseJob.objects.create(parser="spacy", total=60, done=24, status=ParseJob.Status.RUNNING)
    html = researcher_client.get("/compositional/").content.decode()
    assert '<progress id="parse-progress" max="60" value="24">' in html
    assert 'data-status="/compositional/parse/status/"' in html
    assert "Parse captions</button>" not in html  # one job at a time
    assert researcher_client.get("/compositional/parse/status/").json() == {
        "status": "running", "finished": False, "done": 24, "total": 60, "error": ""}
    job.status, job.error = ParseJob.Status.FAILED, "the parser is not installed"
    job.save()
    assert researcher_client.get("/compositional/parse/status/").json()["finished"] is True
    page = researcher_client.get("/compositional/").content.decode()
    assert "The last parse failed: the parser is not installed" in page


def test_seed_pairs_and_their_occurrences(researcher_client, parsed):
    html = researcher_client.get("/compositional/").content.decode()
    assert "Load the seed's 24 pairs</button>" in html and "No concept pairs yet" in html
    assert researcher_client.post("/compositional/pairs/load-seed/").status_code == 302
    html = researcher_client.get("/compositional/").content.decode()
    assert "The seed&#x27;s pairs loaded: 24 new." in html
    assert "Load the seed's 24 pairs</button>" not in html
    assert html.count('<th scope="row" data-label="Pair">') == 24
    black_cat = row_of(html, "black_cat")
    assert cell(black_cat, "Images") == "2" and cell(black_cat, "Captions") == "5"
    assert cell(black_cat, "Images by captions 1/2/3/4/5+") == "0 / 1 / 1 / 0 / 0"
    assert cell(black_cat, "Mean per image") == "2.50"
    assert cell(black_cat, "Category") == "colour" and cell(black_cat, "Group") == "1"
    eat_man = row_of(html, "eat_man")
    assert cell(eat_man, "Images") == "1" and cell(eat_man, "Captions") == "3"
    assert cell(eat_man, "Images by captions 1/2/3/4/5+") == "0 / 0 / 1 / 0 / 0"
    assert "noun–verb" in eat_man
    assert "Counted over 12 images and 60 parsed captions." in html
    assert "--option pairs=big_bird,big_cat" in html  # the command, with the first stored pairs


def test_occurrences_are_counted_again_when_the_parses_or_the_pairs_change(researcher_client, parsed):
    load_seed_pairs()
    first = queries_for(researcher_client, "/compositional/")
    again = queries_for(researcher_client, "/compositional/")
    assert again < first  # the table is reused: no pass over the parses
    image = Image.objects.get(origin__external_id=9)
    Description.objects.create(image=image, text="A black cat asleep on a sofa.", source="coco")
    parse_all()
    html = researcher_client.get("/compositional/").content.decode()
    assert cell(row_of(html, "black_cat"), "Images") == "3"  # 9 now has a black cat
    save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat", noun_synonyms=["dog"])
    html = researcher_client.get("/compositional/").content.decode()
    # the noun's forms are now cat and dog: 302's black dogs ("A cat next to a black dog.") count too
    assert cell(row_of(html, "black_cat"), "Images") == "4"


def test_add_a_pair_and_errors_at_their_fields(researcher_client, parsed):
    refused = researcher_client.post("/compositional/pairs/", {
        "name": "striped_cat", "kind": "adjective_noun", "modifier": "striped", "noun": "cat"})
    assert refused.status_code == 400
    html = refused.content.decode()
    # a new concept needs its synonyms: said at the adjective's field, described by it, nothing stored
    error = re.search(r'<p class="field-error" id="id_modifier_error">(.*?)</p>', html).group(1)
    # the field named by its label, not by the service's parameter name
    assert error.startswith("&#x27;striped&#x27; is not a defined adjective; "
                            "give &quot;Adjective or verb synonyms&quot;")
    assert re.search(r'<input[^>]*aria-invalid="true"[^>]*aria-describedby="[^"]*id_modifier_error"[^>]*'
                     r'id="id_modifier"', html)
    assert 'value="striped_cat"' in html  # what was typed stays
    assert not ConceptPair.objects.exists()
    missing = researcher_client.post("/compositional/pairs/", {"name": "", "kind": "adjective_noun"})
    assert missing.status_code == 400 and 'id="id_name_error"' in missing.content.decode()
    saved = researcher_client.post("/compositional/pairs/", {
        "name": "striped_cat", "kind": "adjective_noun", "modifier": "striped", "noun": "cat",
        "modifier_synonyms": "striped, stripy", "noun_synonyms": "cat, cats, kitten", "category": "pattern",
        "heldout_group": "A"})
    assert saved.status_code == 302
    pair = ConceptPair.objects.select_related("modifier", "noun").get()
    assert (pair.kind, pair.category, pair.heldout_group) == ("adjective_noun", "pattern", "A")
    assert pair.modifier.synonyms == ["striped", "stripy"] and pair.noun.synonyms == ["cat", "cats", "kitten"]
    # "A striped cat sits on a sofa." (image 9) is the fixture's one striped cat
    row = row_of(researcher_client.get("/compositional/").content.decode(), "striped_cat")
    assert cell(row, "Images") == "1" and cell(row, "Captions") == "1"


def test_delete_a_pair_after_its_confirmation(researcher_client, parsed):
    pair = save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat",
                     modifier_synonyms=["black"], noun_synonyms=["cat"])
    url = f"/compositional/pairs/{pair.pk}/delete/"
    assert f'action="{url}" data-confirm' in researcher_client.get("/compositional/").content.decode()
    step = researcher_client.get(url)
    assert step.status_code == 200 and ConceptPair.objects.exists()  # the GET only asks
    assert 'id="confirm-action"' in step.content.decode() and "Delete black_cat</button>" in step.content.decode()
    assert researcher_client.post(url).status_code == 302
    assert not ConceptPair.objects.exists()


def test_pairs_page_query_count_does_not_grow_with_pairs(researcher_client, parsed):
    save_pair(name="black_cat", kind="adjective_noun", modifier="black", noun="cat",
              modifier_synonyms=["black"], noun_synonyms=["cat"])
    few = queries_for(researcher_client, "/compositional/")
    load_seed_pairs()
    ParseJob.objects.create(parser="spacy", total=1, status=ParseJob.Status.DONE)
    assert queries_for(researcher_client, "/compositional/") == few


def generated_for_307(first: str) -> bytes:
    captions = [first, "a car parked on a street", "a black cat on a car", "a car", "an animal"]
    return json.dumps({"307": captions}).encode()


def test_submit_an_evaluation_follow_it_and_read_it(researcher_client, parsed):
    load_seed_pairs()
    page = researcher_client.get("/compositional/evaluations/").content.decode()
    assert "<legend>Group 1</legend>" in page and 'value="black_cat"' in page
    refused = researcher_client.post("/compositional/evaluations/", {
        "system": "writer", "k": 5, "split_seed": "compositional", "pairs": ["black_cat"],
        "file": SimpleUploadedFile("g.json", b'{"307": []}')})  # the format is checked in the request
    assert refused.status_code == 400
    assert "The submission was not stored:" in refused.content.decode()
    assert "expected a non-empty list of captions" in refused.content.decode()
    assert not CompositionalEvaluation.objects.exists()

    response = researcher_client.post("/compositional/evaluations/", {
        "system": "writer", "k": 2, "split_seed": "compositional", "pairs": ["black_cat"],
        "file": SimpleUploadedFile("g.json", generated_for_307("a black cat sitting on a car"))})
    assert response.status_code == 302
    evaluation = CompositionalEvaluation.objects.get()
    assert response["Location"] == f"/compositional/evaluations/{evaluation.pk}/"
    assert (evaluation.system, evaluation.pairs, evaluation.k) == ("writer", ["black_cat"], 2)
    queued = researcher_client.get(response["Location"]).content.decode()
    assert 'id="evaluation-progress"' in queued and "<iframe" not in queued
    assert researcher_client.get(f"/compositional/evaluations/{evaluation.pk}/status/").json()["finished"] is False
    assert researcher_client.get(f"/compositional/evaluations/{evaluation.pk}/report.html").status_code == 409

    run_evaluation_by_id(evaluation.pk)  # what the background job does
    done = researcher_client.get(response["Location"]).content.decode()
    # 307's first generated caption contains black_cat: Recall@2 = 1 of 1 image
    assert '<dt>Average Recall@2 (%)</dt><dd class="average">100.0</dd>' in done
    assert "<dt>Colour</dt><dd>100.0" in done  # black_cat is the colour category's one pair
    # 307 has 2 reference captions with black_cat: it counts for n = 1 and 2, no image for n = 3..5
    assert "n = 2: 100.0</span> · <span>n = 3: none" in done
    assert "METEOR" in done and "CIDEr 0.000" in done  # one image: every n-gram in all its documents, IDF 0
    assert f'<iframe class="report-frame" src="/compositional/evaluations/{evaluation.pk}/report.html"' in done
    report = researcher_client.get(f"/compositional/evaluations/{evaluation.pk}/report.html")
    assert report.status_code == 200 and "black_cat" in report.content.decode()
    assert report["X-Frame-Options"] == "SAMEORIGIN" and "sandbox" in report["Content-Security-Policy"]
    back = (f'<a href="/compositional/evaluations/{evaluation.pk}/" target="_top">'
            f"\u2190 Evaluation #{evaluation.pk} (writer)")
    assert back in report.content.decode()  # opened by itself: a way back to the evaluation
    framed = researcher_client.get(f"/compositional/evaluations/{evaluation.pk}/report.html",
                                   headers={"Sec-Fetch-Dest": "iframe"})
    assert "black_cat" in framed.content.decode() and back not in framed.content.decode()
    download = researcher_client.get(f"/compositional/evaluations/{evaluation.pk}/report.html?download=1")
    assert download["Content-Disposition"].startswith("attachment;") and back not in download.content.decode()
    listed = researcher_client.get("/compositional/evaluations/").content.decode()
    assert f'href="/compositional/evaluations/{evaluation.pk}/">writer</a>' in listed
    assert '<td data-label="Average Recall@K (%)">100.0</td>' in listed
    # only the third caption has the pair: not in the first 2
    missed = submit_evaluation(system="late", content=generated_for_307("a cat sitting on a car"), pairs=["black_cat"],
                               k=2)
    run_evaluation_by_id(missed.pk)
    assert ('<dd class="average">0.0</dd>' in
            researcher_client.get(f"/compositional/evaluations/{missed.pk}/").content.decode())


def test_a_failed_evaluation_says_why(researcher_client, corpus):
    evaluation = CompositionalEvaluation.objects.create(system="broken", pairs=["black_cat"],
                                                        status=CompositionalEvaluation.Status.FAILED,
                                                        error="the corpus changed since the upload")
    html = researcher_client.get(f"/compositional/evaluations/{evaluation.pk}/").content.decode()
    assert "The evaluation failed: the corpus changed since the upload" in html


def test_evaluation_pages_query_counts_do_not_grow(researcher_client, parsed):
    load_seed_pairs()

    def submit(system: str) -> CompositionalEvaluation:
        return submit_evaluation(system=system, content=generated_for_307("a black cat"), pairs=["black_cat"])

    first = submit("one")
    few = queries_for(researcher_client, "/compositional/evaluations/")
    detail = queries_for(researcher_client, f"/compositional/evaluations/{first.pk}/")
    for system in ("two", "three", "four"):
        submit(system)
    run_evaluation_by_id(first.pk)
    CompositionalEvaluation.objects.filter(system="two").update(status=CompositionalEvaluation.Status.RUNNING,
                                                                 total=4, done=1)
    assert queries_for(researcher_client, "/compositional/evaluations/") == few
    assert queries_for(researcher_client, f"/compositional/evaluations/{first.pk}/") == detail


def test_a_file_over_the_limit_is_refused(researcher_client, corpus, monkeypatch):
    from annotation.compositional import views

    monkeypatch.setattr(views, "MAX_BYTES", 10)
    refused = researcher_client.post("/compositional/evaluations/", {
        "system": "big", "k": 5, "split_seed": "compositional",
        "file": SimpleUploadedFile("g.json", generated_for_307("a black cat"))})
    assert refused.status_code == 400 and "the file is larger than 10 bytes" in refused.content.decode()
    assert not CompositionalEvaluation.objects.exists()


def test_evaluate_a_held_out_group(researcher_client, parsed):
    load_seed_pairs()
    page = researcher_client.get("/compositional/evaluations/").content.decode()
    assert '<option value="1">1</option>' in page and '<option value="4">4</option>' in page
    # group 1's pairs have one evaluation image in the fixture: 307 (black_cat)
    response = researcher_client.post("/compositional/evaluations/", {
        "system": "grouped", "k": 5, "split_seed": "compositional", "group": "1",
        "file": SimpleUploadedFile("g.json", generated_for_307("a black cat"))})
    assert response.status_code == 302
    evaluation = CompositionalEvaluation.objects.get()
    assert sorted(evaluation.pairs) == ["big_bird", "black_cat", "eat_man", "lie_woman", "red_bus", "small_plane"]

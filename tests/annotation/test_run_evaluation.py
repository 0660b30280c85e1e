"""Scoring a system run against the gold grounded descriptions: POST /api/evaluations/ and `manage.py evaluate_run`.

Expected scores are computed by hand (see the comments), with the gold data built directly with the models."""
from __future__ import annotations

import csv
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Box, Concept, Correspondence, Description, Image, WordLink
from mturk.services.campaigns import create_campaign
from tests.factories import label_vocabulary, make_image

pytestmark = pytest.mark.django_db

# The design document's worked example: seven gold descriptions of one image and the boxes each references.
STREET_GOLDS = [[2, 0, 5, 3], [2, 3], [2, 5, 3], [2, 3], [2, 3], [2, 5, 3], [2, 5, 0, 3]]
STREET_RUN = "street\tA [woman]^2 leans on a [car]^3 , the [woman]^2 smiles ."
# S = {2, 3}: every gold set contains 2 and 3, so P = 1; R = mean(2/|G_m|) = (2/4 + 1 + 2/3 + 1 + 1 + 2/3 + 2/4) / 7
# = 16/21 = 0.7619; F = 2 * 16/21 / (1 + 16/21) = 32/37 = 0.8649.
PARK_RUN = "park\tA [ball]^1 ."
# park: golds {0}, {0, 1}; S = {1}: P = (0 + 1) / 2 = 0.5, R = (0/1 + 1/2) / 2 = 0.25, F = 2 * .5 * .25 / .75 = 1/3.
EMPTY_RUN = "empty\t"  # "empty" has boxes but no gold description that references one: skipped
# beach (gold {0}) is not in the run: missing, scored with S = {} (P = R = F = 0).
RUN = "\n".join(["# system X", STREET_RUN, PARK_RUN, "", EMPTY_RUN]) + "\n"

# Over beach, park, street: P = (0, .5, 1) -> 0.5 ± 0.4082; R = (0, .25, .7619) -> 0.3373 ± 0.3171;
# F = (0, .3333, .8649) -> 0.3994 ± 0.3562 (population standard deviations).
SUMMARY = {"p_mean": 0.5, "p_std": 0.4082, "r_mean": 0.3373, "r_std": 0.3171, "f_mean": 0.3994, "f_std": 0.3562,
           "images": 3}
PER_IMAGE = [("beach", 0.0, 0.0, 0.0), ("park", 0.5, 0.25, 0.3333), ("street", 1.0, 0.7619, 0.8649)]


def gold_image(key: str, concepts: list[str]) -> Image:
    image = make_image(f"{key}.png")
    assert image.key == key
    for number, name in enumerate(concepts):
        concept = Concept.objects.get_or_create(vocabulary=label_vocabulary(), name=name)[0]
        Box.objects.create(image=image, number=number, concept=concept,
                           x=number, y=number, width=10, height=10)
    return image


def gold_description(image: Image, boxes: list[int] | None, *later: list[int]) -> Description:
    """A description whose token i links box boxes[i] (None: no correspondence yet); `later` adds more workers'."""
    tokens = [f"w{i}" for i in range(8)]
    description = Description.objects.create(image=image, text=" ".join(tokens), tokens=tokens, source="gold")
    for links in ([boxes] if boxes is not None else []) + list(later):
        correspondence = Correspondence.objects.create(description=description, source="gold")
        for token, number in enumerate(links):
            WordLink.objects.create(correspondence=correspondence, token_index=token,
                                    box=Box.objects.get(image=image, number=number))
    return description


@pytest.fixture
def gold() -> dict[str, Image]:
    street = gold_image("street", ["dress", "wheel", "woman", "car", "hat", "man"])
    for boxes in STREET_GOLDS[:-1]:
        gold_description(street, boxes)
    gold_description(street, STREET_GOLDS[-1], [4])  # a second worker's links ({4}) must not count
    gold_description(street, None)  # not linked yet: not in M
    park = gold_image("park", ["dog", "ball"])
    gold_description(park, [0])
    gold_description(park, [0, 1])
    empty = gold_image("empty", ["tree"])
    gold_description(empty, [])  # linked, but references no box
    beach = gold_image("beach", ["sea"])
    gold_description(beach, [0])
    make_image("unboxed.png")  # no boxes: not part of the default gold data
    return {"street": street, "park": park, "empty": empty, "beach": beach}


def upload(text: str | bytes, name: str = "run.txt") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode() if isinstance(text, str) else text, content_type="text/plain")


def rounded(result: dict) -> tuple:
    summary = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in result["summary"].items()}
    per_image = [(row["key"], round(row["p"], 4), round(row["r"], 4), round(row["f"], 4))
                 for row in result["per_image"]]
    return summary, per_image


# --- API ---------------------------------------------------------------------------------------------


def test_worked_example(api, gold):
    response = api.post("/api/evaluations/", {"run": upload(STREET_RUN + "\n")}, format="multipart")
    assert response.status_code == 200, response.json()
    street = next(row for row in response.json()["per_image"] if row["key"] == "street")
    assert street["p"] == pytest.approx(1.0)
    assert street["r"] == pytest.approx(16 / 21) and round(street["r"], 4) == 0.7619
    assert street["f"] == pytest.approx(32 / 37) and round(street["f"], 4) == 0.8649


def test_scores_summary_skipped_and_missing(api, gold):
    response = api.post("/api/evaluations/", {"run": upload(RUN)}, format="multipart")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"summary", "per_image", "skipped", "missing"}
    assert rounded(body) == (SUMMARY, PER_IMAGE)
    assert body["skipped"] == [{"key": "empty", "reason": "no gold description references a box"}]
    assert body["missing"] == ["beach"]


def test_scope_by_campaign(api, gold):
    campaign = create_campaign(name="park only", task_kind="describe_image", items=[{"image": gold["park"].pk}])
    response = api.post("/api/evaluations/", {"run": upload(PARK_RUN), "campaigns": [campaign.pk]},
                        format="multipart")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert rounded(body)[1] == [("park", 0.5, 0.25, 0.3333)]
    assert (body["skipped"], body["missing"], body["summary"]["images"]) == ([], [], 1)
    # Out of the campaign's scope, "street" is an unknown image.
    refused = api.post("/api/evaluations/", {"run": upload(STREET_RUN), "campaigns": [campaign.pk]},
                       format="multipart")
    assert refused.status_code == 400
    assert refused.json()["errors"] == ["line 1: unknown image key 'street'"]


def test_every_error_is_reported_with_its_line(api, gold):
    run = "\n".join([
        STREET_RUN,
        "nope\tA [dog]^0 .",
        "park\tA [dog]^0 and a [cat]^9 .",
        "beach\tThe [sea]^x .",
        "street\tA [woman]^2 .",
        "empty A tree",
        "unboxed\tA [thing]^0 .",
    ])
    response = api.post("/api/evaluations/", {"run": upload(run)}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"detail": "the run has errors", "errors": [
        "line 2: unknown image key 'nope'",
        "line 3: image 'park' has no box 9",
        "line 4: malformed markup: malformed link '[sea]^x' (expected [word]^<box id>, one word per bracket)",
        "line 5: image 'street' given twice (first on line 1)",
        "line 6: no tab between the image key and the sentence",
        "line 7: unknown image key 'unboxed'",
    ]}


def test_non_utf8_run_is_refused(api, gold):
    response = api.post("/api/evaluations/", {"run": upload(b"street\t\xff\n")}, format="multipart")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error.startswith("the run is not UTF-8 text (")


def test_run_file_is_required_and_campaigns_must_exist(api, gold):
    missing = api.post("/api/evaluations/", {}, format="multipart")
    assert missing.status_code == 400 and "run" in missing.json()
    unknown = api.post("/api/evaluations/", {"run": upload(RUN), "campaigns": [999999]}, format="multipart")
    assert unknown.status_code == 400 and "campaigns" in unknown.json()


def test_too_large_a_run_is_refused(api, gold, settings):
    settings.RUN_MAX_BYTES = 10
    response = api.post("/api/evaluations/", {"run": upload(RUN)}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"detail": "the run is larger than 10 bytes"}


def test_empty_gold_data_scores_nothing(api):
    response = api.post("/api/evaluations/", {"run": upload("# nothing\n")}, format="multipart")
    assert response.status_code == 200
    assert response.json() == {"summary": {"p_mean": 0.0, "p_std": 0.0, "r_mean": 0.0, "r_std": 0.0, "f_mean": 0.0,
                                           "f_std": 0.0, "images": 0}, "per_image": [], "skipped": [], "missing": []}


def test_anonymous_and_non_staff_are_refused(gold):
    assert APIClient().post("/api/evaluations/", {"run": upload(RUN)}, format="multipart").status_code == 401
    user = get_user_model().objects.create_user("bob", "bob@example.org", "pw-of-bob")
    clerk = APIClient()
    clerk.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert clerk.post("/api/evaluations/", {"run": upload(RUN)}, format="multipart").status_code == 403


# --- CLI ---------------------------------------------------------------------------------------------


def run_command(*args) -> str:
    out = StringIO()
    call_command("evaluate_run", *map(str, args), stdout=out, stderr=out)
    return out.getvalue()


def test_cli_prints_scores_and_writes_per_image_csv(tmp_path, gold):
    run_file = tmp_path / "system-x.txt"
    run_file.write_text(RUN, encoding="utf-8")
    output = run_command(run_file)
    scores_csv = tmp_path / "system-x.scores.csv"
    assert output.splitlines() == [
        "P = 0.5000 ± 0.4082",
        "R = 0.3373 ± 0.3171",
        "F = 0.3994 ± 0.3562",
        "3 images scored, 1 missing from the run (scored as empty), 1 without gold links (skipped)",
        f"Per-image scores: {scores_csv}",
    ]
    with scores_csv.open(newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == [
            ["image", "p", "r", "f"],
            ["beach", "0.0000", "0.0000", "0.0000"],
            ["park", "0.5000", "0.2500", "0.3333"],
            ["street", "1.0000", "0.7619", "0.8649"],
        ]


def test_cli_out_and_campaign_options(tmp_path, gold):
    campaign = create_campaign(name="park only", task_kind="describe_image", items=[{"image": gold["park"].pk}])
    run_file = tmp_path / "run.txt"
    run_file.write_text(PARK_RUN + "\n", encoding="utf-8")
    out = tmp_path / "scores" / "park.csv"
    out.parent.mkdir()
    output = run_command(run_file, "--campaign", "park only", "--out", out)
    assert "P = 0.5000 ± 0.0000" in output and "1 images scored, 0 missing" in output
    assert out.read_text(encoding="utf-8").splitlines() == ["image,p,r,f", "park,0.5000,0.2500,0.3333"]
    assert run_command(run_file, "--campaign", str(campaign.pk), "--out", out).splitlines()[0] == "P = 0.5000 ± 0.0000"


def test_cli_errors_name_the_line_and_write_nothing(tmp_path, gold):
    run_file = tmp_path / "bad.txt"
    run_file.write_text(STREET_RUN + "\nnope\tA [dog]^0 .\npark\tA [cat]^7 .\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        run_command(run_file)
    assert str(caught.value) == (f"{run_file}:\nline 2: unknown image key 'nope'\n"
                                 "line 3: image 'park' has no box 7")
    assert not (tmp_path / "bad.scores.csv").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such/run.txt"], "cannot read /no/such/run.txt"),
        (["{run}", "--campaign", "nope"], "no campaign named or numbered 'nope'"),
    ],
)
def test_cli_refuses_missing_file_and_unknown_campaign(tmp_path, gold, args, message):
    run_file = tmp_path / "run.txt"
    run_file.write_text(RUN, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        run_command(*[str(run_file) if a == "{run}" else a for a in args])

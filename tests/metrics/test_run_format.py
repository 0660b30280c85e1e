"""The system-run format: parsing, every error with its line number, missing images, scoring a run."""
from __future__ import annotations

import pytest

from metrics.run_format import RunFormatError, evaluate_run, missing_images, parse_run
from tests.metrics import make_image


@pytest.fixture
def images():
    return {
        "img1": make_image("img1", ["dress", "wheel", "woman", "car"], [[2, 0], [2, 3]]),
        "img2": make_image("img2", ["dog", "ball"], [[0, 1]]),
        "img3": make_image("img3", ["tree"], [[0]]),
    }


def errors_of(text, images) -> list[str]:
    with pytest.raises(RunFormatError) as caught:
        parse_run(text, images)
    return caught.value.errors


def test_parses_selections_comments_blank_lines_and_empty_sentences(images):
    text = ("\ufeff# system X, run 1\n"
            "img1\tA [woman]^2 leans on a [car]^3 , the [woman]^2 smiles .\r\n"
            "\n"
            "img2\t\n")
    assert parse_run(text, images) == {"img1": frozenset({2, 3}), "img2": frozenset()}
    assert parse_run(text.encode("utf-8"), images) == parse_run(text, images)


def test_missing_tab(images):
    assert errors_of("img1 A [woman]^2 .\n", images) == [
        "line 1: no tab between the image key and the sentence"]


def test_malformed_markup(images):
    (error,) = errors_of("img1\tA [woman]^x .", images)
    assert error.startswith("line 1: malformed markup:") and "[woman]^x" in error


def test_unknown_image_key(images):
    assert errors_of("# header\nnope\tA [dog]^0 .", images) == ["line 2: unknown image key 'nope'"]


def test_box_not_in_the_image(images):
    assert errors_of("img2\tA [dog]^0 and a [cat]^7 and [x]^5 .", images) == ["line 1: image 'img2' has no box 5, 7"]


def test_same_image_twice(images):
    assert errors_of("img1\tA [woman]^2 .\nimg1\tA [car]^3 .", images) == [
        "line 2: image 'img1' given twice (first on line 1)"]


def test_all_errors_are_collected(images):
    text = "img1\tok\nbad line\nnope\tx\nimg2\t[dog]^9\nimg1\tagain\nimg3\t[tree]^\n"
    errors = errors_of(text, images)
    assert [error.split(":")[0] for error in errors] == ["line 2", "line 3", "line 4", "line 5", "line 6"]
    assert "line 2" in str(RunFormatError(errors))


def test_not_utf8(images):
    assert errors_of(b"img1\t\xff\xfe", images)[0].startswith("the run is not UTF-8 text")


def test_missing_images_are_scored_with_an_empty_selection(images):
    selections = parse_run("img1\tA [woman]^2 and a [car]^3 .", images)
    assert missing_images(selections, images) == ["img2", "img3"]
    result = evaluate_run("img1\tA [woman]^2 and a [car]^3 .", images)
    assert result["missing"] == ["img2", "img3"]
    assert result["summary"]["images"] == 3
    scores = {row["key"]: row for row in result["per_image"]}
    # img1: golds {2, 0}, {2, 3}; S = {2, 3}: P = (1/2 + 1)/2 = 3/4, R = (1/2 + 1)/2 = 3/4.
    assert scores["img1"]["p"] == pytest.approx(0.75) and scores["img1"]["r"] == pytest.approx(0.75)
    assert scores["img2"] == {"key": "img2", "p": 0.0, "r": 0.0, "f": 0.0}
    assert result["summary"]["f_mean"] == pytest.approx(0.75 / 3)
    assert evaluate_run("img1\t", list(images.values()))["missing"] == ["img2", "img3"]

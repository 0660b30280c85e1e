"""Story METEOR equals the official VIST challenge evaluator's (to 1e-4), bracket tokens and all.

The reference figures come from `vist_official/OfficialVistMeteor.java`, run with Java's source launcher against the
same `meteor-1.5.jar`: it calls the METEOR Java API exactly as the official evaluator (`EvalVISTSharedTask` of the
VIST-Challenge-NAACL-2018 repository) does, independently of our stdio wrapper. The human stories are read from a
story-in-sequence file as the official evaluator reads them (`getGsStoryHash`, `VistStory.getNormalizedStoryText`):
grouped by `story_id`, storylets sorted by `worker_arranged_photo_order`, texts joined with a space, trimmed.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from metrics.meteor import Meteor, meteor_jar
from metrics.story_eval import evaluate_stories, parse_submission, references_of
from metrics.story_report import DEFINITIONS, StoryText
from tests.metrics.test_meteor import shared_meteor

OFFICIAL = Path(__file__).parent / "vist_official" / "OfficialVistMeteor.java"

# Human stories (story id, album, [(photo, text) in photo order]); written to the SIS file out of order.
HUMAN = [
    ("10", "a1", [("p1", "[male] and [female] went to the beach ."), ("p2", "the water was cold !"),
                  ("p3", "[male] 's dog loved it ."), ("p4", "they met friends from [organization] ."),
                  ("p5", "it was a great day .")]),
    ("11", "a1", [("p1", "we drove to [location] for the day ."), ("p2", "the kids played in the sand ."),
                  ("p3", "the dog ran after the ball ."), ("p4", "everyone had a good time ."),
                  ("p5", "we went home happy .")]),
    ("12", "a1", [("p1", "the family arrived at the beach"), ("p2", "mary-kate swam ||| a lot"),
                  ("p3", "a||b the dog barked"), ("p4", "we ate lunch"), ("p5", "the sun set")]),
    ("20", "a2", [("q1", "the [organization] parade started downtown ."), ("q2", "there were many floats ."),
                  ("q3", "[female] waved at the crowd ."), ("q4", "the band played loud music ."),
                  ("q5", "at the end everyone cheered .")]),
    ("30", "a3", [("r1", "the café was busy ."), ("r2", "[male] ordered a coffee ."), ("r3", "it was too hot ."),
                  ("r4", "he waited ."), ("r5", "then he drank it .")]),
    ("31", "a3", [("r1", "we met at the café ."), ("r2", "the coffee was great ."), ("r3", "[female] had tea ."),
                  ("r4", "we talked for hours ."), ("r5", "it was a nice afternoon .")]),
]
SUBMITTED = {
    ("a1", ("p1", "p2", "p3", "p4", "p5")):
        "[male] and his dog went to the beach . The water was cold ! they met [organization] friends .",
    ("a2", ("q1", "q2", "q3", "q4", "q5")): "everyone is happy . " * 4 + "everyone is happy .",
    ("a3", ("r1", "r2", "r3", "r4", "r5")): "[female] had a coffee at the café . it was hot .\nwe talked | a lot .",
}


def sis_file() -> dict:
    rows = [[{"story_id": story, "album_id": album, "photo_flickr_id": photo, "worker_arranged_photo_order": order,
              "text": text, "original_text": text, "tier": "story-in-sequence"}]
            for story, album, storylets in HUMAN for order, (photo, text) in enumerate(storylets)]
    return {"annotations": rows[::-1]}  # out of order: the reader sorts the storylets


def official_references(sis: dict) -> dict[str, list[str]]:
    """getGsStoryHash: {photo ids joined by "-" (in storylet order): [story text, ...]}."""
    stories: dict[str, list[dict]] = {}
    for (annotation,) in sis["annotations"]:
        stories.setdefault(annotation["story_id"], []).append(annotation)
    references: dict[str, list[str]] = {}
    for storylets in stories.values():
        storylets.sort(key=lambda storylet: storylet["worker_arranged_photo_order"])
        key = "".join(storylet["photo_flickr_id"] + "-" for storylet in storylets)
        text = "".join(storylet["text"] + " " for storylet in storylets).strip()
        references.setdefault(key, []).append(text)
    return references


def official_scores(references: dict[str, list[str]], submitted: dict[str, str]) -> tuple[dict[str, float], float]:
    """Per-sequence maxima and their mean, computed by the official call path of the METEOR API."""
    if shutil.which("java") is None:
        pytest.fail("Java is needed: run scripts/install-system-deps.sh")
    keys = list(references)
    lines = "".join("\t".join(quote(text, safe="") for text in [submitted[key], *references[key]]) + "\n"
                    for key in keys)
    jar = meteor_jar()
    result = subprocess.run(["java", "-Xmx2G", "-cp", str(jar), str(OFFICIAL)], input=lines.encode("utf-8"),
                            capture_output=True, cwd=jar.parent, timeout=300, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    output = result.stdout.decode().split("\n")
    *maxima, mean = [line for line in output if line and not line.startswith(("Picked up", "Note:"))]
    assert mean.startswith("mean ")
    return dict(zip(keys, map(float, maxima), strict=True)), float(mean.split()[1])


@pytest.fixture(scope="module")
def meteor(pytestconfig: pytest.Config) -> Meteor:
    return shared_meteor(pytestconfig)


def test_story_meteor_equals_the_official_evaluator(meteor: Meteor):
    sis = sis_file()
    submitted = {"".join(photo + "-" for photo in photos): text for (_, photos), text in SUBMITTED.items()}
    expected_per_sequence, expected_mean = official_scores(official_references(sis), submitted)

    ours = references_of(StoryText(story, tuple(photo for photo, _ in storylets), album,
                                   " ".join(text for _, text in storylets))
                         for story, album, storylets in HUMAN)
    submission = json.dumps({"output_stories": [
        {"album_id": album, "photo_sequence": list(photos), "story_text_normalized": text}
        for (album, photos), text in SUBMITTED.items()]})
    result = evaluate_stories(parse_submission(submission), ours, meteor)

    assert result["matched"] == len(SUBMITTED) and result["uncovered"] == 0
    assert result["meteor"] == pytest.approx(expected_mean, abs=1e-4)
    for row in result["per_sequence"]:
        key = "".join(photo + "-" for photo in row["photo_sequence"])
        assert row["meteor"] == pytest.approx(expected_per_sequence[key], abs=1e-4)
    # the fixture tells the settings apart: with -norm ("[male]" read as "[ male ]") the figure moves by far more
    assert 0.05 < expected_mean < 0.95 and len(set(expected_per_sequence.values())) == len(SUBMITTED)


def test_no_normalization_is_asked_of_the_jar(meteor: Meteor):
    assert "-norm" not in meteor.command and "-lower" not in meteor.command
    assert meteor.command[-7:] == ["-", "-", "-stdio", "-l", "en", "-t", "hter"]
    # the jar sees "[male]" as one token: it does not match "[female]", and case is kept as the official does
    assert meteor.score("[male] went home .", ["[female] went home ."]) < meteor.score(
        "[male] went home .", ["[male] went home ."]) == 1.0
    assert meteor.score("The cat sat .", ["the cat sat ."]) < 1.0
    assert "without -norm" in DEFINITIONS["meteor"] and "official VIST challenge evaluator" in DEFINITIONS["meteor"]

"""Challenge-format submissions: parse errors naming the entry, scores with the real METEOR jar, the smoke test."""
from __future__ import annotations

import json

import pytest

from metrics.meteor import Meteor
from metrics.story_eval import (
    GeneratedStory,
    SubmissionError,
    evaluate_stories,
    human_stories_submission,
    parse_submission,
    references_of,
)
from metrics.story_report import StoryText
from tests.metrics.test_meteor import shared_meteor

BEACH = "we went to the beach today . it was a lot of fun ."
BEACH_2 = "the family spent the day at the beach . the kids loved the water ."
PARTY = "we had a party with a big cake . everyone sang ."
PARTY_2 = "there was cake at the party . [female] blew out the candles ."
PARK = "the dog ran around the park all day . he was tired ."
REFERENCES = {
    ("al1", ("p1", "p2", "p3", "p4", "p5")): [BEACH, BEACH_2],
    ("al1", ("p1", "p3", "p6", "p7", "p8")): [PARTY, PARTY_2, BEACH],
    ("al2", ("q1", "q2", "q3", "q4", "q5")): [PARK],
}


@pytest.fixture(scope="module")
def meteor(pytestconfig: pytest.Config) -> Meteor:
    return shared_meteor(pytestconfig)


def entry(album="al1", sequence=("p1", "p2", "p3", "p4", "p5"), text=BEACH) -> dict:
    photos = list(sequence) if isinstance(sequence, tuple) else sequence
    return {"album_id": album, "photo_sequence": photos, "story_text_normalized": text}


def submission(*entries) -> str:
    return json.dumps({"team_name": "t", "evaluation_info": {"additional_description": "d"},
                       "output_stories": list(entries)})


def errors_of(data) -> list[str]:
    with pytest.raises(SubmissionError) as raised:
        parse_submission(data)
    assert str(raised.value) == "\n".join(raised.value.errors)
    return raised.value.errors


def test_parse_a_valid_submission_with_bom_and_bytes():
    data = ("\ufeff" + submission(entry(), entry("al2", ("q1",), "x"))).encode("utf-8")
    assert parse_submission(data) == [GeneratedStory("al1", ("p1", "p2", "p3", "p4", "p5"), BEACH),
                                      GeneratedStory("al2", ("q1",), "x")]
    assert parse_submission(json.dumps({"output_stories": []})) == []  # team name and info are optional


@pytest.mark.parametrize("data, message", [
    (b"\xff\xfe{", "the submission is not UTF-8 text"),
    ("{'output_stories': []}", "the submission is not JSON: Expecting property name"),
    ("", "the submission is not JSON"),
    ("[]", "the submission must be a JSON object with an 'output_stories' list"),
    ('{"team_name": "t"}', "'output_stories' is missing"),
    ('{"output_stories": {"album_id": "1"}}', "'output_stories' is not a list"),
])
def test_unreadable_documents(data, message):
    errors = errors_of(data)
    assert len(errors) == 1 and errors[0].startswith(message)


def test_every_bad_entry_is_named():
    data = json.dumps({"team_name": 7, "output_stories": [
        entry(),
        "a story",
        {"album_id": "al1", "photo_sequence": ["p1"]},
        entry(sequence="p1 p2"),
        entry(sequence=["p1", 2]),
        entry(sequence=[]),
        entry(album=44277),
        entry(text=None),
        entry(),
        entry(album="al2"),
    ]})
    assert errors_of(data) == [
        "'team_name' must be a string",
        "output_stories[1]: not an object",
        "output_stories[2]: missing 'story_text_normalized'",
        'output_stories[3]: \'photo_sequence\' must be a non-empty list of strings (photo ids), got "p1 p2"',
        "output_stories[4]: 'photo_sequence' must be a non-empty list of strings (photo ids), got [\"p1\", 2]",
        "output_stories[5]: 'photo_sequence' must be a non-empty list of strings (photo ids), got []",
        "output_stories[6]: 'album_id' must be a non-empty string, got 44277",
        "output_stories[7]: 'story_text_normalized' must be a string, got null",
        "output_stories[8]: duplicate photo sequence of album 'al1' (first given in output_stories[0])",
    ]


def test_human_stories_score_meteor_one(meteor: Meteor):
    document = human_stories_submission(REFERENCES, team_name="humans")
    assert document["team_name"] == "humans"
    assert [story["story_text_normalized"] for story in document["output_stories"]] == [BEACH, PARTY, PARK]
    result = evaluate_stories(parse_submission(json.dumps(document)), REFERENCES, meteor)
    assert result["meteor"] == 1.0
    assert [row["meteor"] for row in result["per_sequence"]] == [1.0, 1.0, 1.0]
    assert result["bleu4"] > 0.9999
    assert (result["generated"], result["matched"], result["unmatched"], result["uncovered"]) == (3, 3, 0, 0)
    assert json.loads(json.dumps(result)) == result


def test_meteor_is_the_best_reference_averaged_over_sequences(meteor: Meteor):
    generated = [GeneratedStory("al1", ("p1", "p3", "p6", "p7", "p8"), BEACH),  # identical to the third reference
                 GeneratedStory("al2", ("q1", "q2", "q3", "q4", "q5"), BEACH)]
    result = evaluate_stories(generated, REFERENCES, meteor)
    other = meteor.score(BEACH, [PARK])
    assert [row["meteor"] for row in result["per_sequence"]] == [1.0, other]
    assert result["meteor"] == pytest.approx((1.0 + other) / 2)
    assert other < 0.5
    assert result["uncovered"] == 1
    assert result["uncovered_sequences"] == [{"album_id": "al1", "photo_sequence": ["p1", "p2", "p3", "p4", "p5"]}]


def test_unmatched_sequences_are_counted_not_scored(meteor: Meteor):
    generated = [GeneratedStory("al1", ("p1", "p2", "p3", "p4", "p5"), BEACH_2),
                 GeneratedStory("al1", ("p5", "p4", "p3", "p2", "p1"), BEACH),  # the photos in another order
                 GeneratedStory("al9", ("p1", "p2", "p3", "p4", "p5"), BEACH)]  # another album
    result = evaluate_stories(generated, REFERENCES, meteor)
    assert (result["generated"], result["matched"], result["unmatched"], result["uncovered"]) == (3, 1, 2, 2)
    assert result["unmatched_sequences"] == [
        {"album_id": "al1", "photo_sequence": ["p5", "p4", "p3", "p2", "p1"]},
        {"album_id": "al9", "photo_sequence": ["p1", "p2", "p3", "p4", "p5"]},
    ]
    assert result["meteor"] == 1.0  # BEACH_2 is one of the references of its sequence
    assert len(result["per_sequence"]) == 1


def test_nothing_matched(meteor: Meteor):
    result = evaluate_stories([GeneratedStory("x", ("y",), "z")], REFERENCES, meteor)
    assert result["meteor"] is None and result["bleu4"] is None and result["cider"] is None
    assert result["matched"] == 0 and result["unmatched"] == 1 and result["uncovered"] == 3


def test_references_of_stories_keep_the_first_story_first():
    stories = [StoryText("1", ("a", "b"), "al", "first ."), StoryText("2", ("c",), "al", "other ."),
               StoryText("3", ("a", "b"), "al", "second ."), StoryText("4", ("a", "b"), "al2", "elsewhere .")]
    references = references_of(stories)
    assert references == {("al", ("a", "b")): ["first .", "second ."], ("al", ("c",)): ["other ."],
                          ("al2", ("a", "b")): ["elsewhere ."]}
    document = human_stories_submission({**references, ("al", ("z",)): []})
    assert [story["story_text_normalized"] for story in document["output_stories"]] == ["first .", "other .",
                                                                                          "elsewhere ."]
    assert document["evaluation_info"] == {"additional_description": "the first human story of each photo sequence"}

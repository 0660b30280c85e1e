"""The stories report on a small fixture: structure, agreement scores (real METEOR jar), correlations, HTML."""
from __future__ import annotations

import json
import statistics

import numpy as np
import pytest
from scipy import stats

import metrics.story_report as story_report_module
from metrics.meteor import Meteor
from metrics.story_report import StoryText, inter_worker_agreement, story_report, story_report_html
from tests.metrics.test_meteor import shared_meteor

BEACH = "we went to the beach today . it was a lot of fun ."
DOG = "the dog ran around the park all day ."
PARTY = "we had a party with a big cake ."
CAKE = "there was cake at the party ."
SEQUENCE = ("p1", "p2", "p3")
TIERS = {
    "dii": ["a man sitting on a bench .", "a woman standing in front of a house .", "a man sitting ."],
    "dis": ["a man is sitting on the bench .", "the woman stands ."],
    "sis": ["we went to the park .", "[female] was happy .", "we went home ."],
}


@pytest.fixture(scope="module")
def meteor(pytestconfig: pytest.Config) -> Meteor:
    return shared_meteor(pytestconfig)


def make_stories(rated: bool = True) -> list[StoryText]:
    def rating(value: float) -> float | None:
        return value if rated else None

    return [
        StoryText("s1", SEQUENCE, "al1", BEACH, rating(4.0)),
        StoryText("s2", SEQUENCE, "al1", BEACH, rating(3.0)),  # the same text as s1
        StoryText("s3", SEQUENCE, "al1", DOG, rating(1.0)),
        StoryText("s4", ("p4", "p5"), "al1", PARTY, rating(5.0)),
        StoryText("s5", ("p4", "p5"), "al1", CAKE, None),
        StoryText("s6", ("p9",), "al2", "a lonely story .", rating(2.0)),  # alone on its sequence
        StoryText("s7", SEQUENCE, "al3", BEACH, rating(2.0)),  # same photo ids, another album: another sequence
    ]


class Spy:
    """Counts the calls a report makes to the METEOR scorer."""

    def __init__(self, meteor: Meteor):
        self.meteor, self.calls = meteor, []

    def score_many(self, pairs):
        pairs = list(pairs)
        self.calls.append(pairs)
        return self.meteor.score_many(pairs)


@pytest.fixture(scope="module")
def report(meteor: Meteor) -> dict:
    return story_report(TIERS, make_stories(), {"workers": 5}, meteor, npmi_min_count=1)


def by_id(report: dict) -> dict[str, dict]:
    return {row["story_id"]: row for row in report["agreement"]["per_story"]}


def test_report_structure_and_json(report: dict):
    assert set(report) == {"kind", "definitions", "tiers", "top_words", "npmi", "stories", "meteor_setting",
                           "agreement", "correlations", "crowd"}
    assert json.loads(json.dumps(report)) == report
    assert report["crowd"] == {"workers": 5}
    assert report["npmi"] == {"k": 10, "min_count": 1}
    assert [row["tier"] for row in report["tiers"]] == ["dii", "dis", "sis"]
    assert report["tiers"][0] == {"tier": "dii", "pairs": 3, "tokens": 20, "vocabulary": 4, "vocabulary_all": 12,
                                  "mean_tokens": pytest.approx(20 / 3)}
    assert [word["word"] for word in report["top_words"]["sis"][:2]] == ["we", "went"]  # twice in sis, nowhere else
    assert report["stories"] == {"stories": 7, "albums": 3, "sequences": 4,
                                 "stories_per_sequence": {"1": 2, "2": 1, "3": 1}, "rated_stories": 6,
                                 "rating_mean": pytest.approx(17 / 6), "tokens_per_story": pytest.approx(71 / 7)}


def test_each_story_is_scored_against_the_other_stories_of_its_sequence(report: dict, meteor: Meteor):
    agreement = report["agreement"]
    assert agreement["stories_scored"] == 5 and agreement["sequences_scored"] == 2
    assert agreement["stories_skipped"] == 2 and agreement["skipped_story_ids"] == ["s6", "s7"]
    rows = by_id(report)
    assert list(rows) == ["s1", "s2", "s3", "s4", "s5"]
    assert [rows[key]["references"] for key in rows] == [2, 2, 2, 1, 1]
    assert rows["s1"]["meteor"] == rows["s2"]["meteor"] == 1.0  # an identical story is among the others
    assert rows["s3"]["meteor"] == meteor.score(DOG, [BEACH, BEACH]) < 0.5
    assert rows["s4"]["meteor"] == meteor.score(PARTY, [CAKE])
    assert rows["s5"]["meteor"] == meteor.score(CAKE, [PARTY])
    assert rows["s1"]["bleu4"] > 0.9999 and rows["s3"]["bleu4"] < 0.01
    assert rows["s1"]["cider"] > rows["s3"]["cider"]
    meteor_scores = [row["meteor"] for row in rows.values()]
    assert agreement["meteor_mean"] == pytest.approx(sum(meteor_scores) / 5)
    assert agreement["meteor_std"] == pytest.approx(statistics.pstdev(meteor_scores))
    assert agreement["bleu4_mean"] == pytest.approx(sum(row["bleu4"] for row in rows.values()) / 5)
    assert agreement["cider_mean"] == pytest.approx(sum(row["cider"] for row in rows.values()) / 5)
    assert 0 < agreement["bleu4_corpus"] < 1


def test_correlations_use_the_rated_scored_stories(report: dict):
    correlations = report["correlations"]
    assert correlations["rated_stories"] == 4  # s1..s4; s5 has no rating, s6 and s7 no scores
    rows = [by_id(report)[key] for key in ("s1", "s2", "s3", "s4")]
    ratings = [4.0, 3.0, 1.0, 5.0]
    for metric in ("meteor", "bleu4", "cider"):
        values = correlations["table"][metric]
        # 4 points: exact over the 24 orderings of the ratings, not the t test's normal assumption
        expected = stats.pearsonr([row[metric] for row in rows], ratings,
                                  method=stats.PermutationMethod(n_resamples=np.inf))
        assert values["n"] == 4 and values["note"] is None
        assert values["pearson_r"] == pytest.approx(expected.statistic)
        assert values["pearson_p"] == pytest.approx(expected.pvalue)
        assert values["pearson_method"] == "exact: all 24 orderings"
        assert values["kendall_tau"] == pytest.approx(stats.kendalltau([row[metric] for row in rows], ratings)[0])


def test_one_scorer_call_per_report(meteor: Meteor):
    spy = Spy(meteor)
    report = story_report(TIERS, make_stories(rated=False), None, spy)
    assert len(spy.calls) == 1 and len(spy.calls[0]) == 5
    assert report["correlations"] is None and report["crowd"] is None


def test_the_report_starts_and_stops_its_own_scorer(monkeypatch: pytest.MonkeyPatch):
    events = []

    class Runner:
        def __enter__(self):
            events.append("start")
            return self

        def __exit__(self, *exc):
            events.append("stop")

        def score_many(self, pairs):
            pairs = list(pairs)
            events.append(len(pairs))
            return [0.5] * len(pairs)

    monkeypatch.setattr(story_report_module, "Meteor", Runner)
    story_report(TIERS, make_stories())
    assert events == ["start", 5, "stop"]
    events.clear()
    alone = [StoryText("x", ("p",), "a", "one story .", 3.0)]
    report = story_report({"sis": ["one story ."]}, alone)  # nothing to score: no JVM at all
    assert events == []
    assert report["agreement"]["meteor_mean"] is None and report["agreement"]["bleu4_corpus"] is None
    assert report["correlations"] is None


def test_duplicate_story_ids_are_refused(meteor: Meteor):
    stories = make_stories()
    with pytest.raises(ValueError, match="story 's1' is given twice"):
        inter_worker_agreement([*stories, stories[0]], meteor)


def test_html_page(report: dict):
    page = story_report_html(report)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<svg") == 3  # vocabulary bars, METEOR histogram, METEOR against rating
    assert page.count("<circle") == 4  # one dot per rated, scored story
    assert "<script" not in page
    for label in ("METEOR", "BLEU-4", "CIDEr", "Pearson r", "Spearman ρ", "Kendall τ", "workers"):
        assert label in page
    assert f'{report["agreement"]["meteor_mean"]:.3f}' in page


def test_html_without_ratings_or_data(meteor: Meteor):
    page = story_report_html(story_report(TIERS, make_stories(rated=False), None, meteor))
    assert page.count("<svg") == 2 and "No story has a rating" in page
    empty = story_report_html(story_report({}, [], None, meteor))
    assert "<svg" not in empty and "0 stories on 0 sequences" in empty


def test_html_escapes_data(meteor: Meteor):
    evil = "<script>alert(1)</script>"
    stories = [StoryText(evil, ("<p>",), "<b>album</b>", "a <i>story</i> .", 3.0),
               StoryText("ok", ("<p>",), "<b>album</b>", "another <i>story</i> .", 4.0),
               StoryText("alone", ("q",), "a", "x", None)]
    report = story_report({"sis": ["<b> <b> went"]}, stories, {"<i>cost</i>": "<img src=x>"}, meteor,
                          npmi_min_count=1)
    page = story_report_html(report, title=f"Report {evil}")
    assert "<script>" not in page and "<img" not in page and "<b>album</b>" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # story id and title
    assert "&lt;b&gt;album&lt;/b&gt;" in page and "&lt;p&gt;" in page
    assert "&lt;i&gt;cost&lt;/i&gt;" in page and "&lt;img src=x&gt;" in page
    assert "&lt;b&gt; <small>" in page  # the top word of the sis tier


def test_without_meteor_the_report_says_why_and_keeps_the_other_metrics(report: dict):
    bare = story_report(TIERS, make_stories(), None, npmi_min_count=1, meteor_unavailable="no Java")
    assert bare["meteor_error"] == "no Java" and "meteor_error" not in report
    agreement = bare["agreement"]
    assert agreement["meteor_mean"] is None and agreement["meteor_std"] is None
    assert all(row["meteor"] is None for row in agreement["per_story"])
    assert agreement["bleu4_mean"] == report["agreement"]["bleu4_mean"]
    assert set(bare["correlations"]["table"]) == {"bleu4", "cider"}
    assert "No METEOR scores: no Java" in story_report_html(bare)


def test_the_report_states_the_meteor_setting_of_the_official_evaluator(report: dict):
    setting = report["meteor_setting"]
    assert "official VIST challenge evaluator" in setting and "without -norm" in setting and "-t hter" in setting
    assert "-norm -t" not in report["definitions"]["meteor"]
    assert setting in story_report_html(report).replace("&#x27;", "'")


def test_crowd_figures_are_tables_not_python_values(meteor: Meteor):
    crowd = {"campaigns": [
        {"campaign": "Stories · tell", "workers": 3, "approval_rate": 0.5, "effective_hourly_pay": None,
         "simulated": True},
        {"campaign": "Stories · retell", "workers": 4, "approval_rate": 1.0, "effective_hourly_pay": 7.25,
         "simulated": False},
    ], "note": "two stages"}
    page = story_report_html(story_report(TIERS, make_stories(), crowd, meteor, npmi_min_count=1))
    section = page[page.index("<h2>Crowd</h2>"):page.index("<h2>Per-story scores</h2>")]
    assert "{" not in section and "[" not in section and "None" not in section and "True" not in section
    assert ("<tr><th>campaign</th><th>workers</th><th>approval rate</th><th>effective hourly pay</th>"
            "<th>simulated</th></tr>") in section
    assert "<tr><td>Stories · tell</td><td>3</td><td>0.50</td><td>—</td><td>yes</td></tr>" in section
    assert "<tr><td>Stories · retell</td><td>4</td><td>1.00</td><td>7.25</td><td>no</td></tr>" in section
    assert "<tr><th>note</th><td>two stages</td></tr>" in section

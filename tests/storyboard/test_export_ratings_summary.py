"""The SIND export's ratings file: per story the mean rating (and aspect means), and Krippendorff's alpha at the
ordinal level, by hand."""
from __future__ import annotations

import pytest

from storyboard.exports.ratings import rating_summary
from tests.storyboard.test_workflow import export_files, finished  # noqa: F401 (a fixture)


def row(story: str, rating: int, **aspects: int) -> dict:
    return {"story_id": story, "rating": rating, "aspects": aspects, "worker_id": "w"}


def test_means_and_ordinal_alpha_by_hand():
    """Stories 1: (1, 1, 3) and 2: (5, 5, 3); values 1 x2, 3 x2, 5 x2. Ordinal d(1,3) = d(3,5) = (4 - 2)^2 = 4,
    d(1,5) = (6 - 2)^2 = 16; Do = 4 * 4 / 6 = 8/3; De = 2 * (4*4 + 4*4 + 4*16) / 30 = 32/5; alpha = 7/12."""
    summary = rating_summary([row("1", 1, focused=2), row("1", 1, focused=3), row("1", 3),
                              row("2", 5), row("2", 5), row("2", 3, focused=9)])
    assert summary["aggregation"] == "mean of the ratings per story"
    assert summary["stories"] == [
        {"story_id": "1", "ratings": 3, "mean_rating": round(5 / 3, 6), "aspect_means": {"focused": 2.5}},
        {"story_id": "2", "ratings": 3, "mean_rating": round(13 / 3, 6)},  # 9 is off the scale: left out
    ]
    agreement = summary["agreement"]
    assert agreement["krippendorff_alpha"] == pytest.approx(7 / 12)
    assert agreement["level_of_measurement"] == "ordinal" and agreement["value_domain"] == [1, 2, 3, 4, 5]
    # focused: story 1 only, (2, 3), n = 2: o23 = o32 = 1, Do = 2 * d(2,3) / 2 = d(2,3);
    # De = 2 * 1 * 1 * d(2,3) / (2 * 1) = d(2,3): alpha = 0
    assert agreement["aspects"] == {"focused": pytest.approx(0.0)}


def test_alpha_is_none_when_no_story_was_rated_twice():
    summary = rating_summary([row("1", 4), row("2", 2)])
    assert summary["agreement"]["krippendorff_alpha"] is None and "aspects" not in summary["agreement"]
    assert [s["mean_rating"] for s in summary["stories"]] == [4.0, 2.0]


@pytest.mark.django_db
@pytest.mark.usefixtures("finished")
def test_the_exported_file_carries_the_summary_and_the_card_states_alpha():
    files = export_files()
    document = files["ratings/story-ratings.json"]
    assert len(document["ratings"]) == 75
    assert document["agreement"] == rating_summary(document["ratings"])["agreement"]
    assert sum(story["ratings"] for story in document["stories"]) == 75
    card = files["README.md"].decode()
    assert "Krippendorff's alpha of the ratings at the ordinal level (`agreement`): " in card

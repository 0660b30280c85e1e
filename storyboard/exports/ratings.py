"""The ratings file of the SIND/VIST export: the question asked, and the summary added to the raw ratings (mean per
story and per aspect, Krippendorff's alpha)."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

RATING_QUESTION = (
    "If these were my photos, I would like using a story like this to share my experience with my friends."
)


def rating_summary(ratings: list[dict[str, Any]]) -> dict[str, Any]:
    """What the ratings file adds to the raw ratings: per story the mean rating (and the mean of each aspect), and
    Krippendorff's alpha at the ordinal level (krippendorff package) of the rating and of each aspect."""
    from metrics.rating_agreement import LIKERT, unit_alpha

    per_story: dict[str, list[int]] = defaultdict(list)
    per_aspect: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for row in ratings:  # a value off the 1-5 scale (an imported rating) is left out of the summary
        if row["rating"] in LIKERT:
            per_story[row["story_id"]].append(row["rating"])
        for name, value in (row["aspects"] or {}).items():
            if isinstance(value, int) and not isinstance(value, bool) and value in LIKERT:
                per_aspect[name][row["story_id"]].append(value)
    stories = []
    for story_id, values in per_story.items():
        entry: dict[str, Any] = {"story_id": story_id, "ratings": len(values),
                                 "mean_rating": round(sum(values) / len(values), 6)}
        means = {name: round(sum(v) / len(v), 6) for name, by_story in sorted(per_aspect.items())
                 if (v := by_story.get(story_id))}
        if means:
            entry["aspect_means"] = means
        stories.append(entry)
    agreement: dict[str, Any] = {
        "krippendorff_alpha": unit_alpha(list(per_story.values()), LIKERT, "ordinal"),
        "level_of_measurement": "ordinal", "value_domain": list(LIKERT),
    }
    if per_aspect:
        agreement["aspects"] = {name: unit_alpha(list(by_story.values()), LIKERT, "ordinal")
                                for name, by_story in sorted(per_aspect.items())}
    return {"aggregation": "mean of the ratings per story", "stories": stories, "agreement": agreement}

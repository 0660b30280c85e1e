"""Scoring a story run: generated stories in the VIST challenge format against the human stories."""
from __future__ import annotations

from typing import Any

from django.conf import settings

from common.json_input import JsonInputError, limits, parse_json
from metrics.meteor import Meteor
from metrics.story_eval import SubmissionError, evaluate_stories, read_submission, references_of
from mturk.models import Campaign

from ..selectors import story_references


class NoHumanStories(LookupError):
    """There is nothing to compare a run with."""


def score_story_run(data: bytes | str, campaigns: list[Campaign], split: str | None = None,
                    split_seed: str = "sind", released: bool = False) -> dict[str, Any]:
    """METEOR (max over references, mean over sequences), BLEU-4 and CIDEr of a submission; `released`: against
    the stories imported from a release only (VIST's test stories with split="test").

    Raises metrics.story_eval.SubmissionError (listing every bad entry), NoHumanStories, or
    metrics.meteor.MeteorError (no Java)."""
    try:
        document = parse_json(data, limits(max_bytes=settings.RUN_MAX_BYTES))  # nesting, numbers, text: as every JSON
    except JsonInputError as error:
        raise SubmissionError([f"the submission is refused: {error}"]) from None
    generated = read_submission(document)
    references = references_of(story_references(campaigns, split, split_seed, released))
    if not references:
        raise NoHumanStories("there are no " + ("imported released" if released else "human")
                             + " stories to compare with" + (f" in the {split} split" if split else ""))
    with Meteor() as meteor:
        return evaluate_stories(generated, references, meteor)

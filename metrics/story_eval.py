"""Evaluation of generated stories in the VIST challenge submission format.

A submission is UTF-8 JSON (a leading byte-order mark is ignored):

    {"team_name": "...", "evaluation_info": {"additional_description": "..."},
     "output_stories": [{"album_id": "44277", "photo_sequence": ["1741642", ...],
                         "story_text_normalized": "the local parish holds ..."}, ...]}

`team_name` and `evaluation_info` are optional. Each entry of `output_stories` needs a string `album_id`, a
non-empty list of strings `photo_sequence` and a string `story_text_normalized`; a sequence (album id and photo
ids in order) may appear only once. Parsing collects every problem before failing; `SubmissionError.errors` names
the entry of each (`output_stories[3]`).

The references of a sequence are every human story on it, its storylets' normalized `text` joined by single
spaces in photo order: `{(album_id, (photo_id, ...)): [story text, ...]}`. Scores, over the generated stories whose
sequence has references ("matched"; the others are counted as unmatched and left out, as are reference sequences
the submission does not cover, which are counted too):

- METEOR 1.5 as the official VIST challenge evaluator computes it (`metrics.meteor.METEOR_SETTING`): per sequence,
  the maximum over its references; the mean over sequences (the official evaluator refuses a submission that misses a
  sequence; here the mean is over the matched sequences, and the missed ones are counted);
- BLEU-4 (corpus-level) and CIDEr (mean), each story against all the references of its sequence.

`human_stories_submission` builds a submission from the references themselves (the first human story of each
sequence), to smoke-test the evaluator: it must score METEOR 1.0.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.meteor import METEOR_SETTING, MeteorScorer
from metrics.story_report import StoryText, sequence_key
from metrics.story_scores import bleu4, cider

SequenceKey = tuple[str, tuple[str, ...]]
REQUIRED = ("album_id", "photo_sequence", "story_text_normalized")
LISTED = 20  # unmatched / uncovered sequences listed in the result


class SubmissionError(ValueError):
    """A submission that cannot be read; `errors` lists every problem found, each naming its entry."""

    def __init__(self, errors: list[str]):
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class GeneratedStory:
    album_id: str
    photo_sequence: tuple[str, ...]
    text: str

    @property
    def key(self) -> SequenceKey:
        return self.album_id, self.photo_sequence


def _load(data: bytes | str) -> Any:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise SubmissionError([f"the submission is not UTF-8 text ({error})"]) from None
    try:
        return json.loads(data.removeprefix("\ufeff"))
    except json.JSONDecodeError as error:
        raise SubmissionError([f"the submission is not JSON: {error}"]) from None


def _entry(index: int, entry: Any, errors: list[str]) -> GeneratedStory | None:
    where = f"output_stories[{index}]"
    if not isinstance(entry, dict):
        errors.append(f"{where}: not an object")
        return None
    missing = [key for key in REQUIRED if key not in entry]
    if missing:
        errors.append(f"{where}: missing {', '.join(repr(key) for key in missing)}")
        return None
    album_id, sequence, text = entry["album_id"], entry["photo_sequence"], entry["story_text_normalized"]
    problems = []
    if not isinstance(album_id, str) or not album_id:
        problems.append(f"{where}: 'album_id' must be a non-empty string, got {json.dumps(album_id)}")
    if not isinstance(sequence, list) or not sequence or not all(isinstance(photo, str) for photo in sequence):
        problems.append(f"{where}: 'photo_sequence' must be a non-empty list of strings (photo ids), "
                        f"got {json.dumps(sequence)[:200]}")
    if not isinstance(text, str):
        problems.append(f"{where}: 'story_text_normalized' must be a string, got {json.dumps(text)[:200]}")
    errors.extend(problems)
    return None if problems else GeneratedStory(album_id, tuple(sequence), text)


def parse_submission(data: bytes | str) -> list[GeneratedStory]:
    """The generated stories of a challenge-format submission; raises SubmissionError listing every problem."""
    return read_submission(_load(data))


def read_submission(document: Any) -> list[GeneratedStory]:
    """The generated stories of an already parsed submission; raises SubmissionError listing every problem."""
    if not isinstance(document, dict):
        raise SubmissionError(["the submission must be a JSON object with an 'output_stories' list"])
    errors: list[str] = []
    if "team_name" in document and not isinstance(document["team_name"], str):
        errors.append("'team_name' must be a string")
    if "evaluation_info" in document and not isinstance(document["evaluation_info"], dict):
        errors.append("'evaluation_info' must be an object")
    entries = document.get("output_stories")
    if not isinstance(entries, list):
        what = "missing" if "output_stories" not in document else "not a list"
        raise SubmissionError([*errors, f"'output_stories' is {what}"])
    stories: list[GeneratedStory] = []
    first: dict[SequenceKey, int] = {}
    for index, entry in enumerate(entries):
        story = _entry(index, entry, errors)
        if story is None:
            continue
        if story.key in first:
            errors.append(f"output_stories[{index}]: duplicate photo sequence of album '{story.album_id}' "
                          f"(first given in output_stories[{first[story.key]}])")
            continue
        first[story.key] = index
        stories.append(story)
    if errors:
        raise SubmissionError(errors)
    return stories


def _key_json(key: SequenceKey) -> dict[str, Any]:
    return {"album_id": key[0], "photo_sequence": list(key[1])}


def evaluate_stories(generated: Sequence[GeneratedStory], references: Mapping[SequenceKey, Sequence[str]],
                     meteor: MeteorScorer) -> dict[str, Any]:
    """METEOR (max over references, mean over sequences), BLEU-4 and CIDEr of the matched stories, and the counts."""
    matched = [story for story in generated if references.get(story.key)]
    unmatched = [story.key for story in generated if not references.get(story.key)]
    submitted = {story.key for story in generated}
    uncovered = [key for key, refs in references.items() if refs and key not in submitted]
    hypotheses = [story.text for story in matched]
    refs = [list(references[story.key]) for story in matched]
    meteor_scores = meteor.score_many(list(zip(hypotheses, refs, strict=True))) if matched else []
    bleu, cide = bleu4(hypotheses, refs), cider(hypotheses, refs)
    return {
        "metric": f"{METEOR_SETTING}, max over the references of each sequence, mean over sequences",
        "meteor": math.fsum(meteor_scores) / len(meteor_scores) if meteor_scores else None,
        "bleu4": bleu.corpus,
        "cider": cide.corpus,
        "generated": len(generated),
        "matched": len(matched),
        "unmatched": len(unmatched),
        "unmatched_sequences": [_key_json(key) for key in unmatched[:LISTED]],
        "reference_sequences": sum(1 for refs in references.values() if refs),
        "uncovered": len(uncovered),
        "uncovered_sequences": [_key_json(key) for key in uncovered[:LISTED]],
        "per_sequence": [{**_key_json(story.key), "meteor": m, "bleu4": b, "cider": c}
                         for story, m, b, c in zip(matched, meteor_scores, bleu.per_item, cide.per_item, strict=True)],
    }


def references_of(stories: Iterable[StoryText]) -> dict[SequenceKey, list[str]]:
    """{(album_id, photo sequence): [story text, ...]} in the order of `stories` (the first story comes first)."""
    references: dict[SequenceKey, list[str]] = {}
    for story in stories:
        references.setdefault(sequence_key(story), []).append(story.text)
    return references


def human_stories_submission(references: Mapping[SequenceKey, Sequence[str]], team_name: str = "human stories",
                             description: str = "the first human story of each photo sequence") -> dict[str, Any]:
    """A challenge-format submission holding the first human story of every sequence that has one."""
    return {
        "team_name": team_name,
        "evaluation_info": {"additional_description": description},
        "output_stories": [{"album_id": album_id, "photo_sequence": list(sequence), "story_text_normalized": refs[0]}
                           for (album_id, sequence), refs in references.items() if refs],
    }

"""Simulated judges of the demo's human evaluation (evaluation/demo.py): they look at what a person would
see, the picture's true content (the demo scene's objects and their colours, annotation.demo.scenes.scene_contents)
and the texts the task page shows, and answer through the crowd core's services like any worker (assign_next_hit,
submit_answer); every assignment is marked simulated.

What a judge makes of a caption: the things it names (the demo vocabulary's words, with the colours said just
before them) are checked against the picture: a thing the picture does not show is an error, a wrong colour half
of one (precision); and the share of the picture's things it names counts (coverage). The opinion, on the 4-point
scale of the default question, is 1 + 3 x precision x (0.4 + 0.6 x coverage), and 1.5 for a caption that names
nothing it could check (somewhat related at best). A judge adds its own leniency and noise to each rating, and
prefers the caption of higher opinion in a comparison, with noise (a tie when the two are close)."""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from annotation.demo.scenes import COLOURS, CONCEPTS, SceneObject
from mturk.models import Campaign
from mturk.task_kinds import get_task_kind
from mturk.work.services.simulated import work_simulated

NOTHING_NAMED = 1.5
PEOPLE = frozenset({"woman", "man"})
SKIPPED = frozenset({"beach", "party", "leafy", "and"})  # "a green and white beach ball", "a leafy green tree"
IRREGULAR = {"men": "man", "women": "woman", "people": "person", "boys": "man", "girls": "woman"}


def _vocabulary() -> dict[str, str]:
    words = dict(IRREGULAR)
    for spec in CONCEPTS:
        for word in (spec.name, *spec.synonyms):
            if " " not in word:
                words.setdefault(word, spec.name)
                words.setdefault(word + ("es" if word.endswith("s") else "s"), spec.name)
    return words


WORDS = _vocabulary()


def named_things(text: str) -> dict[str, set[str]]:
    """The concepts a caption names, each with the colour words said just before it."""
    tokens = re.findall(r"[a-z]+", text.lower())
    named: dict[str, set[str]] = {}
    for index, token in enumerate(tokens):
        concept = WORDS.get(token)
        if concept is None:
            continue
        colours = named.setdefault(concept, set())
        back = index - 1
        while back >= 0 and (tokens[back] in COLOURS or tokens[back] in SKIPPED):
            if tokens[back] in COLOURS:
                colours.add(tokens[back])
            back -= 1
    return named


def opinion(text: str, shown: Sequence[SceneObject]) -> float:
    """What a person thinks of the caption of a picture showing `shown`, from 1 (unrelated) to 4 (no error)."""
    present: dict[str, set[str]] = {}
    for thing in shown:
        present.setdefault(thing.concept, set()).update(thing.colours)
    if PEOPLE & set(present):
        present.setdefault("person", set()).update(*(present[p] for p in PEOPLE & set(present)))
    named = named_things(text)
    if not named:
        return NOTHING_NAMED
    right = wrong = 0.0
    for concept, colours in named.items():
        if concept not in present:
            wrong += 1
        elif colours and not colours & present[concept]:
            right, wrong = right + 0.5, wrong + 0.5
        else:
            right += 1
    things = {thing.concept for thing in shown}
    covered = {c for c in things if c in named or (c in PEOPLE and "person" in named)}
    precision, coverage = right / (right + wrong), len(covered) / len(things)
    return 1 + 3 * precision * (0.4 + 0.6 * coverage)


Seen = Callable[[str], Sequence[SceneObject]]  # a picture's address -> what it shows


class Judge:
    """One simulated judge: a leniency of its own, and noise on every answer."""

    def __init__(self, rng: random.Random, seen: Seen) -> None:
        self.rng, self.seen = rng, seen
        self.leniency = rng.gauss(0, 0.25)

    def rate(self, payload: dict[str, Any], aspects: list[str]) -> dict[str, Any]:
        shown = self.seen(payload["images"][0]["url"])
        ratings = []
        for output in payload["outputs"]:
            value = round(opinion(output["text"], shown) + self.leniency + self.rng.gauss(0, 0.5))
            ratings.append({aspect: min(4, max(1, value)) for aspect in aspects})
        return {"ratings": ratings}

    def compare(self, payload: dict[str, Any], aspects: list[str]) -> dict[str, Any]:
        shown = self.seen(payload["images"][0]["url"])
        first, second = (opinion(output["text"], shown) for output in payload["outputs"])
        margin = first - second + self.rng.gauss(0, 0.6)
        choice: int | str = "tie" if abs(margin) < 0.2 else 0 if margin > 0 else 1
        return {"preferences": {aspect: choice for aspect in aspects}}


def judge_campaign(campaign: Campaign, seen: Seen, *, judges: int, seed: str) -> int:
    """Simulated judges take and answer every task of the campaign they can; returns the number of answers."""
    kind = get_task_kind(campaign.task_kind)
    aspects = list(kind.options(campaign)["aspects"])
    rng = random.Random(seed)
    crowd = [Judge(rng, seen) for _ in range(judges)]

    def answer(number: int, payload: dict[str, Any]) -> dict[str, Any]:
        judge = crowd[number - 1]
        return (judge.rate if campaign.task_kind == "rate_output" else judge.compare)(payload, aspects)

    return work_simulated(campaign, [f"SIMULATED-JUDGE-{number}" for number in range(1, judges + 1)], answer)

"""Automatic scores of a system's outputs against the items' human references, with the project's metric code:
BLEU-4 and CIDEr (metrics.story_scores, pycocoevalcap's scorers) and METEOR 1.5 (metrics.meteor, needs Java).

Captions are read as the caption metrics read them (metrics.compositional.recall.caption_tokens: lowercased,
punctuation dropped); stories as uploaded (the VIST challenge's `story_text_normalized` is already tokenized), as
metrics.story_eval scores them. Per item: each metric of the output against the item's references. Per system:
BLEU-4 at corpus level, CIDEr and METEOR the mean over the items (as the COCO and VIST evaluations report them).
Items without a reference are left out. When METEOR cannot run (no Java, no jar), its entry has no score and says
why (`unavailable`).

Each call starts a JVM of its own, which loads METEOR's paraphrase table (seconds); a caller that scores several
uploads in a row (the demo) wraps them in `shared_meteor()`, and they share one JVM."""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from typing import Any

from metrics.compositional.recall import caption_tokens
from metrics.meteor import Meteor, MeteorError
from metrics.story_scores import bleu4, cider

from ..models import OutputKind

METRICS = ("bleu4", "cider", "meteor")


def _prepared(kind: str, text: str) -> str:
    return caption_tokens(text) if kind == OutputKind.CAPTION else " ".join(text.split())


class _SharedScorer:
    """One METEOR scorer for the calls of a `shared_meteor()` block, started at the first score; once it has
    failed, every later call says why without trying again."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.scorer: Meteor | None = None
        self.error: str | None = None

    def score(self, pairs: list[tuple[str, list[str]]]) -> tuple[list[float] | None, str | None]:
        if self.error is not None:
            return None, self.error
        try:
            if self.scorer is None:
                self.scorer = self.stack.enter_context(Meteor())
            return self.scorer.score_many(pairs), None
        except MeteorError as exc:
            self.error = str(exc)
            return None, self.error


_SHARED: ContextVar[_SharedScorer | None] = ContextVar("shared_meteor", default=None)


@contextmanager
def shared_meteor() -> Iterator[None]:
    """Within the block, every automatic_scores call scores METEOR with the same scorer (one JVM, closed at the
    end) instead of starting one each: the scores are the same, the paraphrase table is loaded once."""
    with ExitStack() as stack:
        token = _SHARED.set(_SharedScorer(stack))
        try:
            yield
        finally:
            _SHARED.reset(token)


def _meteor(hypotheses: list[str], references: list[list[str]]) -> tuple[list[float] | None, str | None]:
    pairs = list(zip(hypotheses, references, strict=True))
    shared = _SHARED.get()
    if shared is not None:
        return shared.score(pairs)
    try:
        scorer = Meteor()
    except MeteorError as exc:
        return None, str(exc)
    with scorer:
        try:
            return scorer.score_many(pairs), None
        except MeteorError as exc:
            return None, str(exc)


def automatic_scores(kind: str, outputs: Mapping[str, str],
                     references: Mapping[str, Sequence[str]]) -> dict[str, dict[str, Any]]:
    """{metric: {"system": score, "items": {item name: score}}} of `outputs` (item name -> text) against
    `references` (item name -> texts); METEOR with "unavailable" (and no score) when it cannot run."""
    names = [name for name in outputs if references.get(name)]
    hypotheses = [_prepared(kind, outputs[name]) for name in names]
    refs = [[_prepared(kind, text) for text in references[name]] for name in names]
    bleu, cide = bleu4(hypotheses, refs), cider(hypotheses, refs)
    scores: dict[str, dict[str, Any]] = {
        "bleu4": {"system": bleu.corpus, "items": dict(zip(names, bleu.per_item, strict=True))},
        "cider": {"system": cide.mean, "items": dict(zip(names, cide.per_item, strict=True))},
    }
    if not names:
        scores["meteor"] = {"system": None, "items": {}}
        return scores
    meteor, unavailable = _meteor(hypotheses, refs)
    if meteor is None:
        scores["meteor"] = {"system": None, "items": {}, "unavailable": unavailable}
    else:
        scores["meteor"] = {"system": math.fsum(meteor) / len(meteor), "items": dict(zip(names, meteor, strict=True))}
    return scores

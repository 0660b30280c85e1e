"""The corpus an evaluation of generated captions is scored against, and what is wrong with an upload there: one
scan of every caption's stored parse (seconds at COCO's size), so it runs in the evaluation's background job (or
in the command, which runs the evaluation itself)."""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.compositional.splits import CompositionalSplit, split_images
from metrics.compositional.types import ConceptPair
from mturk.models import Campaign

from ..selectors import CorpusScan, scan_corpus

MAX_PROBLEMS = 50


def evaluation_images(split: CompositionalSplit) -> list[str]:
    """The D_eval images of the split's pairs, each once, in the order of the corpus."""
    wanted = {key for keys in split.eval_by_pair.values() for key in keys}
    return [key for key in split.eval if key in wanted]


def _unparsed(unparsed: int, parser: str) -> str:
    return (f"{unparsed} caption{'s have' if unparsed != 1 else ' has'} no parse by {parser}: run `python manage.py "
            "parse_captions` (or Parse captions on the Compositional page) first, so that the split sees every caption")


def sample_keys(keys: Sequence[str], count: int = 5) -> str:
    return ", ".join(keys[:count]) + (", ..." if len(keys) > count else "")


@dataclass
class CorpusCheck:
    """The corpus as an upload is scored against: the scan, the split, the evaluation images, and what is wrong
    with the upload there (each problem named)."""

    scan: CorpusScan
    split: CompositionalSplit
    evaluated: list[str]
    problems: list[str]

    @classmethod
    def of(cls, pairs: Sequence[ConceptPair], campaigns: Sequence[Campaign], seed: str, share: float,
           generated: dict[str, Any], where: dict[str, str] | None = None, *, with_text: bool = False,
           progress: Callable[[int], None] | None = None) -> CorpusCheck:
        scan = scan_corpus(pairs, campaigns=campaigns or None, with_text=with_text, progress=progress)
        problems: list[str] = []
        if scan.unparsed:
            problems.append(_unparsed(scan.unparsed, scan.parser))
        for key in generated:
            if key not in scan.image_ids:
                named = (where or {}).get(key, json.dumps(key))
                problems.append(f"{named}: image {key} is not in the corpus (or none of its captions is parsed)")
        split = split_images(scan.images, [pair.name for pair in pairs], seed=seed, eval_share=share)
        evaluated = evaluation_images(split)
        if not evaluated:
            problems.append(f"the pairs {', '.join(p.name for p in pairs)} have no evaluation image in the corpus")
        missing = [key for key in evaluated if key not in generated]
        if missing:
            problems.append(f"{len(missing)} of the {len(evaluated)} evaluation images have no generated caption: "
                         f"{sample_keys(missing)}")
        if len(problems) > MAX_PROBLEMS:
            problems[MAX_PROBLEMS:] = ["... (more problems not listed)"]
        return cls(scan, split, evaluated, problems)

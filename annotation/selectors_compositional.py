"""Reads for compositional generalization: the stored concept pairs as metrics' ConceptPair, and the corpus (every
description, or the approved describe_image descriptions of some campaigns) as ImageCaptions matched from the
stored parses, without re-parsing.

TO BE IMPLEMENTED (signatures are fixed; see the task description)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from metrics.compositional.types import ConceptPair, ImageCaptions
from mturk.models import Campaign


class UnknownPairs(ValueError):
    """Some named pairs are not defined; the message names them."""


def stored_pairs(names: Sequence[str] | None = None) -> list[ConceptPair]:
    """The named pairs (all when None), in the order given; UnknownPairs naming every unknown one."""
    raise NotImplementedError


@dataclass
class CorpusScan:
    images: list[ImageCaptions]  # ordered by image id; key = the COCO id when the image has one, else Image.key
    image_ids: dict[str, int]  # key -> Image primary key
    texts: dict[str, list[str]] | None  # key -> caption texts in the order of ImageCaptions.matches (with_text)
    captions: int = 0
    unparsed: int = 0  # descriptions of the corpus without a parse by the current parser (left out)
    parser: str = ""
    notes: list[str] = field(default_factory=list)


def scan_corpus(pairs: Sequence[ConceptPair], *, campaigns: Sequence[Campaign] | None = None,
                with_text: bool = False) -> CorpusScan:
    """Every image with descriptions (campaigns=None or empty: all descriptions, imported and collected; else
    the approved describe_image descriptions of those campaigns), each caption matched against `pairs` from its
    stored parse."""
    raise NotImplementedError

"""The pair occurrence table of a compositional split export (`occurrences.json`, `occurrences.tsv`): per held-out
pair the images per split, the captions containing it, how many images have exactly n captions containing it
(the seed's reference agreement) and the mean n over those images; and, as in the authors' occurrence files,
per image its pair, noun and modifier (adjective or verb) occurrences and its COCO subset."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .splits import CompositionalSplit
from .types import ADJECTIVE_NOUN, ConceptPair, ImageCaptions

# key -> pair name -> (captions mentioning the noun, captions mentioning the modifier); absent: (0, 0)
Mentions = Mapping[str, Mapping[str, tuple[int, int]]]

SPLITS = ("train", "val", "eval")
TSV_COLUMNS = ("pair", "kind", "category", "heldout_group", "images", "images_train", "images_val", "images_eval",
               "captions", "images_1", "images_2", "images_3", "images_4", "images_5_or_more", "mean_per_image",
               "noun_images", "modifier_images")


def modifier_field(pair: ConceptPair) -> str:
    """The authors' name of the modifier's count: adjective_occurrences or verb_occurrences."""
    return "adjective_occurrences" if pair.kind == ADJECTIVE_NOUN else "verb_occurrences"


@dataclass
class PairOccurrences:
    pair: ConceptPair
    images: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPLITS, 0))
    captions: int = 0
    by_count: Counter[int] = field(default_factory=Counter)  # n -> images with exactly n captions containing it
    noun_images: int = 0
    modifier_images: int = 0
    # key -> the authors' per-image record, for images mentioning the noun or the modifier (others: all zero)
    occurrence_data: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def total_images(self) -> int:
        return sum(self.by_count.values())

    @property
    def mean_per_image(self) -> float | None:
        images = self.total_images
        return round(self.captions / images, 4) if images else None

    def counts(self) -> dict[str, Any]:
        return {"images": self.total_images, "images_by_split": dict(self.images), "captions": self.captions,
                "by_count": {str(n): self.by_count[n] for n in sorted(self.by_count)},
                "mean_per_image": self.mean_per_image, "noun_images": self.noun_images,
                "modifier_images": self.modifier_images}


def count_occurrences(images: Sequence[ImageCaptions], split: CompositionalSplit, pairs: Sequence[ConceptPair],
                      mentions: Mentions | None = None) -> list[PairOccurrences]:
    """The occurrences of each pair over `images` (every image of the corpus, the unused ones too), in the order
    of `pairs`. Without `mentions` the noun and modifier counts are left at zero."""
    where = split.split_of()
    rows = [PairOccurrences(pair) for pair in pairs]
    for image in images:
        image_mentions = (mentions or {}).get(image.key, {})
        for row in rows:
            name = row.pair.name
            n = image.count(name)
            noun, modifier = image_mentions.get(name, (0, 0))
            if n:
                row.captions += n
                row.by_count[n] += 1
                if image.key in where:
                    row.images[where[image.key]] += 1
            row.noun_images += noun > 0
            row.modifier_images += modifier > 0
            if n or noun or modifier:
                row.occurrence_data[image.key] = {
                    "pair_occurrences": n, modifier_field(row.pair): modifier, "noun_occurrences": noun,
                    "coco_split": image.subset, "split": where.get(image.key, ""),
                }
    return rows


def occurrences_json(rows: Sequence[PairOccurrences], *, parser: str, split: CompositionalSplit) -> dict[str, Any]:
    """The content of occurrences.json."""
    pairs: dict[str, Any] = {}
    for row in rows:
        pair = row.pair
        modifiers = "adjectives" if pair.kind == ADJECTIVE_NOUN else "verbs"
        pairs[pair.name] = {
            "kind": pair.kind, "category": pair.category, "heldout_group": pair.heldout_group,
            "nouns": sorted(pair.noun.synonyms), modifiers: sorted(pair.modifier.synonyms),
            **row.counts(),
            "occurrence_data": dict(sorted(row.occurrence_data.items(), key=lambda item: sort_key(item[0]))),
        }
    return {"parser": parser, "heldout_pairs": list(split.heldout), "split_mode": split.mode, "pairs": pairs}


def occurrences_tsv(rows: Sequence[PairOccurrences]) -> str:
    """The per-pair counts as a table (tab-separated, a header line)."""
    lines = ["\t".join(TSV_COLUMNS)]
    for row in rows:
        by = row.by_count
        mean = row.mean_per_image
        cells = [row.pair.name, row.pair.kind, row.pair.category, row.pair.heldout_group, row.total_images,
                 row.images["train"], row.images["val"], row.images["eval"], row.captions, by[1], by[2], by[3], by[4],
                 sum(count for n, count in by.items() if n >= 5), "" if mean is None else f"{mean:.4f}",
                 row.noun_images, row.modifier_images]
        lines.append("\t".join(str(cell) for cell in cells))
    return "\n".join(lines) + "\n"


def sort_key(key: str) -> tuple[int, int, str]:
    """Image keys in a stable order: COCO ids numerically, then other keys by text."""
    return (0, int(key), "") if key.isdigit() else (1, 0, key)

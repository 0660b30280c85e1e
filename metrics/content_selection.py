"""The content-selection metric of Wang & Gaizauskas (2015, section 3.1), in plain Python.

The metric asks: of the boxes (the image's gold visual inputs) a system chose to mention, how many did the people
who described the image also mention, and how many of theirs did the system cover? For an image I with gold
descriptions m = 1..M, G_m is the set of unique box numbers description m references and S the set of box numbers
the system sentence references:

    P_I = (1/M) * sum_m |G_m ∩ S| / |S|
    R_I = (1/M) * sum_m |G_m ∩ S| / |G_m|
    F_I = 2 * P_I * R_I / (P_I + R_I)

F_I is computed from the image's P_I and R_I. The reported P, R and F are the means of P_I, R_I and F_I over the
scored images, each with its population standard deviation (divide by the number of images, not by one less).

Edge cases, exactly as implemented:

- Gold descriptions that reference no box carry no content-selection information: they are left out of M for
  that image.
- An image with no gold description referencing a box is skipped (not scored) and listed in `skipped` with the
  reason.
- Empty S (the system selects nothing): P_I = R_I = F_I = 0, and the image is still scored.
- P + R = 0 gives F = 0.
- A box listed more than once in a selection or a ranking counts once.
- The human upper bound scores each gold description (with at least one box) in turn as the system sentence
  against the image's other gold descriptions (with at least one box). Per image it averages the per-description
  P, R and F, where F is computed for each held-out description from its own P and R and then averaged (not
  computed from the averaged P and R). Images with fewer than 2 such descriptions are skipped.
- A mean over no images is 0 with standard deviation 0 (`Summary.images` says 0 images were scored).

Every baseline of `metrics.baselines` is a ranking whose first k boxes are its selection at k, so
`prefix_curves` scores all k = 1..k_max of one ranking in a single pass: each box's contribution to the
numerators does not depend on the rest of the selection, so adding a box adds a constant to each sum.
"""
from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

from metrics.grounded import ImageRecord

DEFINITION = (
    "For an image I with gold descriptions m = 1..M, G_m is the set of unique boxes description m references and "
    "S the set of boxes the system sentence references. P_I = (1/M) Σ_m |G_m ∩ S| / |S|, "
    "R_I = (1/M) Σ_m |G_m ∩ S| / |G_m|, F_I = 2 P_I R_I / (P_I + R_I). "
    "P, R and F are the means over the scored images, with population standard deviations."
)

EDGE_CASES = [
    "Gold descriptions that reference no box carry no content-selection information: they are left out of M for "
    "that image.",
    "An image with no gold description referencing a box is skipped (not scored) and listed in `skipped` with the "
    "reason.",
    "Empty S (the system selects nothing): P_I = R_I = F_I = 0, and the image is still scored.",
    "P + R = 0 gives F = 0.",
    "A box listed more than once in a selection or a ranking counts once.",
    "The human upper bound scores each gold description (with at least one box) in turn as the system sentence "
    "against the image's other gold descriptions (with at least one box). Per image it averages the "
    "per-description P, R and F, where F is computed for each held-out description from its own P and R and then "
    "averaged (not computed from the averaged P and R). Images with fewer than 2 such descriptions are skipped.",
    "A mean over no images is 0 with standard deviation 0 (`Summary.images` says 0 images were scored).",
]

NO_LINKED_GOLD = "no gold description references a box"
TOO_FEW_FOR_UPPER_BOUND = "fewer than 2 gold descriptions reference a box (upper bound only)"


class Scores(NamedTuple):
    """Precision, recall and F of one selection (or one image's average)."""

    p: float
    r: float
    f: float


@dataclass(frozen=True)
class ImageScore:
    key: str
    p: float
    r: float
    f: float


@dataclass(frozen=True)
class Skipped:
    """An image left out of a mean, and why (one of the module's reason strings)."""

    key: str
    reason: str


@dataclass(frozen=True)
class Summary:
    p_mean: float
    p_std: float
    r_mean: float
    r_std: float
    f_mean: float
    f_std: float
    images: int  # how many images were scored

    def as_dict(self) -> dict:
        return asdict(self)


def f_measure(p: float, r: float) -> float:
    """Harmonic mean of P and R; 0 when both are 0."""
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def linked_golds(image: ImageRecord) -> list[frozenset[int]]:
    """G_m of the image's gold descriptions that reference at least one box (the others do not count in M)."""
    return [boxes for boxes in (description.boxes for description in image.descriptions) if boxes]


def score_image(golds: Sequence[frozenset[int]], selected: Iterable[int]) -> Scores:
    """P_I, R_I, F_I of one system selection against an image's gold box sets.

    Gold sets that are empty are left out of M; raises ValueError if none is left (the caller skips the image)."""
    golds = [gold for gold in golds if gold]
    if not golds:
        raise ValueError(NO_LINKED_GOLD)
    selection = frozenset(selected)
    if not selection:
        return Scores(0.0, 0.0, 0.0)
    overlaps = [len(gold & selection) for gold in golds]
    p = math.fsum(overlap / len(selection) for overlap in overlaps) / len(golds)
    r = math.fsum(overlap / len(gold) for overlap, gold in zip(overlaps, golds, strict=True)) / len(golds)
    return Scores(p, r, f_measure(p, r))


class GoldIndex:
    """An image's gold sets indexed by box, so that adding a box to a selection updates P and R in O(1).

    Σ_m |G_m ∩ S| grows by the number of gold sets containing the new box, and Σ_m |G_m ∩ S| / |G_m| by the sum of
    1/|G_m| over those sets; P then divides the first sum by M·|S|, R the second by M."""

    def __init__(self, golds: Sequence[frozenset[int]]) -> None:
        golds = [gold for gold in golds if gold]
        if not golds:
            raise ValueError(NO_LINKED_GOLD)
        self.m = len(golds)
        self.hits: dict[int, int] = {}
        self.weights: dict[int, float] = {}
        for gold in golds:
            weight = 1 / len(gold)
            for box in gold:
                self.hits[box] = self.hits.get(box, 0) + 1
                self.weights[box] = self.weights.get(box, 0.0) + weight

    def curves(self, ranking: Sequence[int], k_max: int) -> list[Scores]:
        """Scores of the selections ranking[:min(k, len(ranking))] for k = 1..k_max, in one pass."""
        results: list[Scores] = []
        seen: set[int] = set()
        overlap_sum = 0
        recall_sum = 0.0
        current = Scores(0.0, 0.0, 0.0)
        boxes = iter(ranking)
        for _ in range(k_max):
            for box in boxes:  # advance to the next box not selected yet (duplicates count once)
                if box not in seen:
                    seen.add(box)
                    overlap_sum += self.hits.get(box, 0)
                    recall_sum += self.weights.get(box, 0.0)
                    p = overlap_sum / (self.m * len(seen))
                    r = recall_sum / self.m
                    current = Scores(p, r, f_measure(p, r))
                    break
            results.append(current)
        return results


def prefix_curves(golds: Sequence[frozenset[int]], ranking: Sequence[int], k_max: int) -> list[Scores]:
    """Scores of the top-k selection of `ranking` for every k = 1..k_max (k past the ranking's end keeps it all)."""
    return GoldIndex(golds).curves(ranking, k_max)


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation; (0, 0) for no values. Faster than `statistics` on floats."""
    if not values:
        return 0.0, 0.0
    mean = math.fsum(values) / len(values)
    variance = math.fsum((value - mean) ** 2 for value in values) / len(values)
    return mean, math.sqrt(variance)


def summarize(scores: Iterable[Scores | ImageScore]) -> Summary:
    """Means and population standard deviations of P, R and F over images."""
    ps, rs, fs = [], [], []
    for score in scores:
        ps.append(score.p)
        rs.append(score.r)
        fs.append(score.f)
    p_mean, p_std = mean_std(ps)
    r_mean, r_std = mean_std(rs)
    f_mean, f_std = mean_std(fs)
    return Summary(p_mean, p_std, r_mean, r_std, f_mean, f_std, len(ps))


def upper_bound_scores(images: Iterable[ImageRecord]) -> tuple[list[ImageScore], list[Skipped]]:
    """Per-image human upper bound (each gold description scored against the others), and the skipped images."""
    scores: list[ImageScore] = []
    skipped: list[Skipped] = []
    for image in images:
        golds = linked_golds(image)
        if len(golds) < 2:
            skipped.append(Skipped(image.key, NO_LINKED_GOLD if not golds else TOO_FEW_FOR_UPPER_BOUND))
            continue
        held_out = [score_image(golds[:i] + golds[i + 1:], golds[i]) for i in range(len(golds))]
        n = len(held_out)
        scores.append(ImageScore(
            image.key,
            math.fsum(s.p for s in held_out) / n,
            math.fsum(s.r for s in held_out) / n,
            math.fsum(s.f for s in held_out) / n,
        ))
    return scores, skipped


def human_upper_bound(images: Iterable[ImageRecord]) -> Summary:
    """How well one person's description scores against the others' (see the module docstring for the rules)."""
    scores, _ = upper_bound_scores(images)
    return summarize(scores)


def evaluate_selections(
    images: Sequence[ImageRecord], selections: dict[str, frozenset[int]]
) -> tuple[list[ImageScore], Summary, list[Skipped]]:
    """Score a system run: per-image scores, their summary, and the images that could not be scored.

    An image of `images` absent from `selections` is scored with S = ∅ (P = R = F = 0): a system that says nothing
    about an image selected nothing. Selections for keys not in `images` are ignored (a run may cover more images
    than the split being evaluated; `metrics.run_format.parse_run` rejects unknown keys itself)."""
    per_image: list[ImageScore] = []
    skipped: list[Skipped] = []
    for image in images:
        golds = linked_golds(image)
        if not golds:
            skipped.append(Skipped(image.key, NO_LINKED_GOLD))
            continue
        p, r, f = score_image(golds, selections.get(image.key, frozenset()))
        per_image.append(ImageScore(image.key, p, r, f))
    return per_image, summarize(per_image), skipped


def dataset_statistics(images: Sequence[ImageRecord], top: int = 10) -> dict:
    """Descriptive statistics of the gold data (JSON-serialisable).

    `mean_unique_boxes_per_description` is over ALL gold descriptions, those linking no box counting 0 (a statistic
    of the data, not of the metric); `mean_unique_boxes_per_linked_description` is over those linking >= 1 box.
    `top_concepts` are the `top` concepts with the most (description, unique box) references, ties by name."""
    per_image = [len(image.descriptions) for image in images]
    box_counts = [len(description.boxes) for image in images for description in image.descriptions]
    linked = [count for count in box_counts if count]
    concept_boxes: Counter[str] = Counter()
    references: Counter[str] = Counter()
    for image in images:
        concepts = {box.number: box.concept for box in image.boxes}
        concept_boxes.update(concepts.values())
        for description in image.descriptions:
            references.update(concepts[box] for box in description.boxes if box in concepts)
    return {
        "images": len(images),
        "descriptions": len(box_counts),
        "descriptions_per_image": {
            "mean": math.fsum(per_image) / len(per_image) if per_image else 0.0,
            "median": float(statistics.median(per_image)) if per_image else 0.0,
            "min": min(per_image, default=0),
            "max": max(per_image, default=0),
        },
        "descriptions_without_box": len(box_counts) - len(linked),
        "mean_unique_boxes_per_description": math.fsum(box_counts) / len(box_counts) if box_counts else 0.0,
        "mean_unique_boxes_per_linked_description": math.fsum(linked) / len(linked) if linked else 0.0,
        "boxes_per_image_mean": math.fsum(len(image.boxes) for image in images) / len(images) if images else 0.0,
        "concepts": len(concept_boxes),
        "top_concepts": [{"concept": concept, "boxes": concept_boxes[concept], "references": count}
                         for concept, count in sorted(references.items(), key=lambda item: (-item[1], item[0]))[:top]],
    }

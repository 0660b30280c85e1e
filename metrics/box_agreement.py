"""Agreement between box sets drawn on the same image by different annotators.

A box is a mapping with x, y, width, height (pixels) and a label. Two sets agree on a box when a box of
the other set has the same label and overlaps it: its best-match IoU is the largest IoU with a same-label
box of the other set (0 when there is none). Matching one-to-one (greedy, largest IoU first) at an IoU of
at least `threshold` gives the share of boxes matched."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

Box = Mapping[str, Any]


@dataclass(frozen=True)
class Agreement:
    mean_iou: float  # mean best-match IoU over the boxes of both sets
    matched: float  # share of the boxes of both sets matched one-to-one at IoU >= threshold
    pairs: int = 1  # how many pairs of sets were compared (averaged over pairs)


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (labels ignored)."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    inter = max(0, w) * max(0, h)
    union = a["width"] * a["height"] + b["width"] * b["height"] - inter
    return inter / union if union > 0 else 0.0


def _label(box: Box) -> Hashable:
    return box["label"]


def pair_agreement(first: Sequence[Box], second: Sequence[Box], threshold: float = 0.5) -> Agreement:
    """Agreement of two box sets; two empty sets agree fully."""
    total = len(first) + len(second)
    if total == 0:
        return Agreement(1.0, 1.0)
    overlaps = [[iou(a, b) if _label(a) == _label(b) else 0.0 for b in second] for a in first]
    best = [max(row, default=0.0) for row in overlaps]
    best += [max((row[j] for row in overlaps), default=0.0) for j in range(len(second))]
    candidates = sorted(((value, i, j) for i, row in enumerate(overlaps) for j, value in enumerate(row)
                         if value >= threshold), reverse=True)
    used_first: set[int] = set()
    used_second: set[int] = set()
    for _, i, j in candidates:
        if i not in used_first and j not in used_second:
            used_first.add(i)
            used_second.add(j)
    return Agreement(sum(best) / total, 2 * len(used_first) / total)


def set_agreement(sets: Sequence[Sequence[Box]], threshold: float = 0.5) -> Agreement | None:
    """Mean agreement over every pair of sets; None with fewer than two sets."""
    pairs = [pair_agreement(a, b, threshold) for a, b in combinations(sets, 2)]
    if not pairs:
        return None
    return Agreement(sum(p.mean_iou for p in pairs) / len(pairs), sum(p.matched for p in pairs) / len(pairs),
                     len(pairs))

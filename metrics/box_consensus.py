"""Box sets drawn on the same image by several workers: one-to-one matching, F1 against a known answer or
between workers, and the consensus merge of the sets into one.

A box is a mapping with x, y, width, height (pixels, top-left corner) and a label. No maintained library
aggregates box sets (crowd-kit has none; CVAT's merge lives inside CVAT and datumaro), so this follows CVAT's
consensus merge by hand:

- matching: one-to-one, greedy by IoU (largest first, ties in input order), pairs with IoU >= threshold;
- scoring: a matched pair must also have the same label; F1 = 2 * matched / (boxes of both sets), two empty
  sets agree fully (F1 1);
- merging: boxes of different sets are matched pairwise by IoU >= threshold whatever their labels, the matches
  (largest IoU first) join boxes into clusters that hold at most one box per set; a cluster is kept when its
  votes (its sets, or their weights) reach quorum x all the sets; its label is the most voted (ties: the first
  set's); its box is the member nearest the mean box (largest IoU with it), not the mean itself.

Everything is O(boxes^2) per image, in plain Python (a few boxes per worker)."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NamedTuple

from .box_agreement import Box, iou

# A float comparison margin: a quorum of 0.6 x 5 sets is 3 votes, not 3.0000000000000004.
_EPSILON = 1e-9


class Match(NamedTuple):  # a tuple: made hundreds of thousands of times when measuring a campaign
    first: int  # index in the first set
    second: int  # index in the second set
    iou: float


@dataclass(frozen=True)
class SetScore:
    """How well one box set matches another (the answer against the known answer, or two workers)."""

    matched: int
    precision: float  # matched / boxes of the answer (1 when it has none and the truth has none)
    recall: float  # matched / boxes of the truth
    f1: float
    mean_iou: float | None  # mean IoU of the matched pairs; None when nothing matched


@dataclass(frozen=True)
class MergedBox:
    box: dict[str, Any]  # x, y, width, height of the chosen member, label by vote
    votes: float  # how many sets (or their weight) the cluster holds
    label_votes: dict[Hashable, float]  # label -> votes, most voted first
    members: tuple[tuple[int, int], ...]  # (set index, box index) of each member, by set


@dataclass(frozen=True)
class Merge:
    boxes: list[MergedBox]
    dropped: int  # clusters below the quorum


def _rows(boxes: Sequence[Box]) -> list[tuple[float, float, float, float, float, Hashable]]:
    """x0, y0, x1, y1, area, label per box: IoU from these is several times cheaper than from mappings."""
    return [(b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"], b["width"] * b["height"], b["label"])
            for b in boxes]


def _candidates(first: list[tuple[Any, ...]], second: list[tuple[Any, ...]],
                threshold: float) -> list[tuple[float, int, int, bool]]:
    """(-IoU, i, j, same label) of the pairs with IoU >= threshold (and > 0), the largest IoU first. The IoU is
    inlined: this is the inner loop of measuring a campaign."""
    candidates = []
    for i, (ax0, ay0, ax1, ay1, a_area, a_label) in enumerate(first):
        for j, (bx0, by0, bx1, by1, b_area, b_label) in enumerate(second):
            if bx0 >= ax1 or bx1 <= ax0 or by0 >= ay1 or by1 <= ay0:
                continue  # disjoint
            inter = ((ax1 if ax1 < bx1 else bx1) - (ax0 if ax0 > bx0 else bx0)) * (
                (ay1 if ay1 < by1 else by1) - (ay0 if ay0 > by0 else by0))
            union = a_area + b_area - inter
            value = inter / union if union > 0 else 0.0
            if value >= threshold and value > 0:
                candidates.append((-value, i, j, a_label == b_label))
    candidates.sort()
    return candidates


def _greedy(candidates: list[tuple[float, int, int, bool]], same_label: bool) -> list[Match]:
    used_first: set[int] = set()
    used_second: set[int] = set()
    pairs = []
    for negative, i, j, same in candidates:
        if (same or not same_label) and i not in used_first and j not in used_second:
            used_first.add(i)
            used_second.add(j)
            pairs.append(Match(i, j, -negative))
    return pairs


def _match_rows(first: list[tuple[Any, ...]], second: list[tuple[Any, ...]], threshold: float,
                same_label: bool) -> list[Match]:
    return _greedy(_candidates(first, second, threshold), same_label)


def match(a: Sequence[Box], b: Sequence[Box], threshold: float = 0.5, same_label: bool = True) -> list[Match]:
    """One-to-one matching of two box sets: greedy, the largest IoU first, pairs with IoU >= threshold (and
    the same label unless same_label is False); the pairs by decreasing IoU."""
    return _match_rows(_rows(a), _rows(b), threshold, same_label)


def _score(answer_size: int, truth_size: int, pairs: list[Match]) -> SetScore:
    matched = len(pairs)
    if answer_size + truth_size == 0:
        return SetScore(0, 1.0, 1.0, 1.0, None)
    precision = matched / answer_size if answer_size else 0.0
    recall = matched / truth_size if truth_size else 0.0
    mean = sum(p.iou for p in pairs) / matched if matched else None
    return SetScore(matched, precision, recall, 2 * matched / (answer_size + truth_size), mean)


def set_f1(answer: Sequence[Box], truth: Sequence[Box], threshold: float = 0.5) -> SetScore:
    """Precision, recall and F1 of an answer's boxes against the true boxes: a box counts when it is matched
    one-to-one with a true box of the same label at IoU >= threshold. Both empty: 1."""
    return _score(len(answer), len(truth), match(answer, truth, threshold))


def mean_matched_iou(a: Sequence[Box], b: Sequence[Box], threshold: float = 0.5) -> float | None:
    """Mean IoU of the same-label pairs matched at IoU >= threshold; None when none is."""
    return set_f1(a, b, threshold).mean_iou


def pairwise(sets: Sequence[Sequence[Box]], threshold: float = 0.5) -> dict[tuple[int, int], SetScore]:
    """The score of every pair of sets (i < j), as CVAT's consensus scoring compares replicas pairwise."""
    rows = [_rows(s) for s in sets]
    return {(i, j): _score(len(rows[i]), len(rows[j]), _match_rows(rows[i], rows[j], threshold, True))
            for i, j in combinations(range(len(rows)), 2)}


def answer_agreement(scores: Mapping[tuple[int, int], SetScore], count: int) -> list[float | None]:
    """Per set, its mean F1 against each other set (None with fewer than two sets)."""
    totals = [0.0] * count
    for (i, j), score in scores.items():
        totals[i] += score.f1
        totals[j] += score.f1
    return [total / (count - 1) if count > 1 else None for total in totals]


class _Clusters:
    """Union-find over (set, box) nodes, each cluster with the sets it holds (a node not joined yet is alone)."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = sizes
        self.parent: dict[tuple[int, int], tuple[int, int]] = {}
        self.sets: dict[tuple[int, int], set[int]] = {}

    def find(self, node: tuple[int, int]) -> tuple[int, int]:
        parent = self.parent.get(node, node)
        while parent != node:
            grand = self.parent.get(parent, parent)
            self.parent[node] = grand
            node, parent = parent, grand
        return node

    def join(self, a: tuple[int, int], b: tuple[int, int]) -> None:
        root_a, root_b = self.find(a), self.find(b)
        sets_a = self.sets.get(root_a) or {root_a[0]}
        sets_b = self.sets.get(root_b) or {root_b[0]}
        if root_a == root_b or sets_a & sets_b:
            return  # already together, or it would put two boxes of one set in a cluster
        self.parent[root_b] = root_a
        self.sets[root_a] = sets_a | sets_b
        self.sets.pop(root_b, None)

    def groups(self) -> list[list[tuple[int, int]]]:
        found: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for s, size in enumerate(self.sizes):
            for i in range(size):  # in (set, box) order
                found.setdefault(self.find((s, i)), []).append((s, i))
        return list(found.values())


def merge(sets: Sequence[Sequence[Box]], threshold: float = 0.5, quorum: float = 0.5,
          weights: Sequence[float] | None = None) -> Merge:
    """CVAT's consensus merge of several workers' box sets into one (see the module docstring).

    `weights` (one per set, e.g. each worker's gold accuracy) weigh the votes, the quorum and the mean box;
    by default every set counts 1. The merged boxes come in the order of their first member (set, box)."""
    return consensus(sets, threshold, quorum, weights)[1]


def consensus(sets: Sequence[Sequence[Box]], threshold: float = 0.5, quorum: float = 0.5,
              weights: Sequence[float] | None = None) -> tuple[dict[tuple[int, int], SetScore], Merge]:
    """`pairwise` and `merge` of the same sets at once, each pair's IoUs computed once (what measuring a
    campaign needs per HIT)."""
    if weights is None:
        weights = [1.0] * len(sets)
    if len(weights) != len(sets):
        raise ValueError(f"{len(weights)} weights for {len(sets)} box sets")
    rows = [_rows(s) for s in sets]
    scores, edges = {}, []
    for s, t in combinations(range(len(rows)), 2):
        candidates = _candidates(rows[s], rows[t], threshold)
        scores[(s, t)] = _score(len(rows[s]), len(rows[t]), _greedy(candidates, True))
        edges += [(-m.iou, s, m.first, t, m.second) for m in _greedy(candidates, False)]
    edges.sort()
    clusters = _Clusters([len(r) for r in rows])
    for _, s, i, t, j in edges:
        clusters.join((s, i), (t, j))
    needed = quorum * sum(weights) - _EPSILON
    merged, dropped = [], 0
    for members in sorted(clusters.groups()):
        votes = sum(weights[s] for s, _ in members)
        if votes < needed or votes <= 0:
            dropped += 1
            continue
        merged.append(_merged_box(sets, members, weights, votes))
    return scores, Merge(merged, dropped)


def _merged_box(sets: Sequence[Sequence[Box]], members: list[tuple[int, int]], weights: Sequence[float],
                votes: float) -> MergedBox:
    label_votes: dict[Hashable, float] = {}
    for s, i in members:
        label = sets[s][i]["label"]
        label_votes[label] = label_votes.get(label, 0.0) + weights[s]
    ranked = sorted(label_votes.items(), key=lambda kv: -kv[1])  # stable: ties keep the first set's label first
    mean = {name: sum(weights[s] * sets[s][i][name] for s, i in members) / votes
            for name in ("x", "y", "width", "height")}
    nearest = max(members, key=lambda m: (iou(sets[m[0]][m[1]], mean), -m[0]))  # ties: the first set
    chosen = sets[nearest[0]][nearest[1]]
    box = {"x": chosen["x"], "y": chosen["y"], "width": chosen["width"], "height": chosen["height"],
           "label": ranked[0][0]}
    return MergedBox(box, votes, dict(ranked), tuple(members))

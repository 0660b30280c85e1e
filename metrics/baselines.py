"""The content-selection baselines of Wang & Gaizauskas (2015, sections 4 and 5.1) and the report that scores them.

Each baseline orders an image's boxes; its selection at k is the first min(k, len(ranking)) boxes, so selections
are nested across k and one pass of `prefix_curves` scores every k.

- random: one seeded permutation per image (`random.Random(f"{seed}:{image.key}")` shuffling the boxes in number
  order), so a run is reproducible and the selection at k+1 extends the one at k.
- bbox_size: area descending, ties by box number.
- bbox_position: distance of the box centre to the image centre ascending, ties by box number.
- unigram: concept frequency in the development data descending, ties by box number. The frequency of a concept
  is the number of (description, unique box) references to a box of that concept.
- bigram: counts of concept c2 referenced right after concept c1 (no other box reference in between; the box
  sequence in token order, a box repeated in consecutive tokens counted once), from `<start>` to the first
  reference, between consecutive references and from the last reference to `<end>`. Greedy: the box whose concept
  follows `<start>` most often, then repeatedly the remaining box whose concept most often follows the previously
  chosen concept; it stops when no remaining box's concept has a count > 0 after the previous one, so its ranking
  may not cover every box (why its recall plateaus). Ties: higher unigram frequency, then lower box number.
  Several boxes may share a concept ("dog -> dog" is a valid bigram).
- unigram+position, bigram+position: the boxes sorted by the average of their rank in the text system and in
  bbox_position; boxes the text system did not rank (bigram's unselected boxes) all get the average of the
  ranks left, 0.5 * ((N + 1) - N_s) + N_s for N boxes and N_s ranked; ties by the text rank, then box number.

Development data: the report runs on one data set, so that no image is scored with priors that saw its own
descriptions, the unigram and bigram priors for an image are estimated leave-one-image-out, from all the other
images' gold descriptions (totals are counted once and the image's own counts subtracted on lookup: linear in
the data, not quadratic). Passing `priors_from` (an explicit development set) uses those images' counts as they
are, for every image. Gold descriptions that reference no box contribute nothing to the priors, and references to
box numbers the image does not have are ignored by them (their concept is unknown).
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence

from metrics.content_selection import (
    DEFINITION,
    EDGE_CASES,
    GoldIndex,
    Scores,
    dataset_statistics,
    linked_golds,
    mean_std,
    summarize,
    upper_bound_scores,
)
from metrics.grounded import ImageRecord

START = "<start>"
END = "<end>"
SYSTEMS = ("random", "bbox_size", "bbox_position", "unigram", "bigram", "unigram+position", "bigram+position")
TEXT_SYSTEMS = ("unigram", "bigram", "unigram+position", "bigram+position")
VISUAL_SYSTEMS = ("random", "bbox_size", "bbox_position")


class Priors:
    """Unigram and bigram concept counts, optionally minus a held-out part (leave-one-image-out, without copying)."""

    def __init__(self, unigram: Counter[str], bigram: Counter[tuple[str, str]], held_out: Priors | None = None):
        self.unigram = unigram
        self.bigram = bigram
        self.held_out = held_out

    def unigram_count(self, concept: str) -> int:
        held = self.held_out.unigram[concept] if self.held_out else 0
        return self.unigram[concept] - held

    def bigram_count(self, first: str, second: str) -> int:
        held = self.held_out.bigram[first, second] if self.held_out else 0
        return self.bigram[first, second] - held

    def without(self, held_out: Priors) -> Priors:
        """These counts minus `held_out`'s (which must be part of them)."""
        return Priors(self.unigram, self.bigram, held_out)


def concepts_by_number(image: ImageRecord) -> dict[int, str]:
    return {box.number: box.concept for box in image.boxes}


def count_priors(images: Iterable[ImageRecord], into: Priors | None = None) -> Priors:
    """Unigram and bigram concept counts of the images' gold descriptions (added to `into` if given)."""
    priors = into or Priors(Counter(), Counter())
    for image in images:
        concepts = concepts_by_number(image)
        for description in image.descriptions:
            unique = [concepts[box] for box in description.boxes if box in concepts]
            sequence = [concepts[box] for box in description.box_sequence if box in concepts]
            if not sequence:
                continue
            priors.unigram.update(unique)
            chain = [START, *sequence, END]
            priors.bigram.update(zip(chain, chain[1:], strict=False))
    return priors


def priors_by_image(images: Sequence[ImageRecord], priors_from: Sequence[ImageRecord] | None = None) -> list[Priors]:
    """The priors to use for each image: leave-one-image-out, or `priors_from`'s counts for all."""
    if priors_from is not None:
        shared = count_priors(priors_from)
        return [shared] * len(images)
    own = [count_priors([image]) for image in images]
    totals = Priors(Counter(), Counter())
    for counts in own:
        totals.unigram.update(counts.unigram)
        totals.bigram.update(counts.bigram)
    return [totals.without(counts) for counts in own]


def random_ranking(image: ImageRecord, seed: int = 0) -> list[int]:
    """One seeded permutation of the image's boxes."""
    ranking = sorted(box.number for box in image.boxes)
    random.Random(f"{seed}:{image.key}").shuffle(ranking)
    return ranking


def size_ranking(image: ImageRecord) -> list[int]:
    """Largest box first."""
    return [box.number for box in sorted(image.boxes, key=lambda box: (-box.area, box.number))]


def position_ranking(image: ImageRecord) -> list[int]:
    """Box whose centre is nearest the image centre first."""
    cx, cy = image.width / 2, image.height / 2

    def key(box) -> tuple[float, int]:
        x, y = box.centre
        return math.hypot(x - cx, y - cy), box.number

    return [box.number for box in sorted(image.boxes, key=key)]


def unigram_ranking(image: ImageRecord, priors: Priors) -> list[int]:
    """Boxes whose concept is mentioned most often in the development data first."""
    return [box.number for box in sorted(image.boxes, key=lambda box: (-priors.unigram_count(box.concept), box.number))]


def bigram_ranking(image: ImageRecord, priors: Priors) -> list[int]:
    """Greedy chain of the most frequent next concept from `<start>`; stops when no remaining box can follow."""
    remaining = sorted(image.boxes, key=lambda box: box.number)
    ranking: list[int] = []
    previous = START
    while remaining:
        best = min(remaining, key=lambda box: (
            -priors.bigram_count(previous, box.concept), -priors.unigram_count(box.concept), box.number))
        if priors.bigram_count(previous, best.concept) <= 0:
            break
        ranking.append(best.number)
        remaining.remove(best)
        previous = best.concept
    return ranking


def average_ranks(text: Sequence[int], visual: Sequence[int]) -> dict[int, tuple[float, float]]:
    """Each box's (average rank, text rank) given a text ranking and a complete visual ranking (ranks from 1).

    Boxes the text ranking leaves out share the text rank 0.5 * ((N + 1) - N_s) + N_s, the mean of the ranks
    N_s + 1..N, for N boxes in the visual ranking and N_s in the text ranking."""
    n, n_selected = len(visual), len(text)
    if len(set(visual)) != n or not set(text) <= set(visual) or len(set(text)) != n_selected:
        raise ValueError("the text ranking must list distinct boxes of the visual ranking, which lists each once")
    text_rank = {box: float(rank) for rank, box in enumerate(text, start=1)}
    unranked = 0.5 * ((n + 1) - n_selected) + n_selected
    ranks = {}
    for rank, box in enumerate(visual, start=1):
        t = text_rank.get(box, unranked)
        ranks[box] = ((t + rank) / 2, t)
    return ranks


def combine_rankings(text: Sequence[int], visual: Sequence[int]) -> list[int]:
    """Boxes by average of text and visual rank ascending, ties by text rank, then box number (section 5.1)."""
    ranks = average_ranks(text, visual)
    return sorted(ranks, key=lambda box: (*ranks[box], box))


def system_rankings(image: ImageRecord, priors: Priors, seed: int = 0) -> dict[str, list[int]]:
    """The ranking of every baseline for one image."""
    position = position_ranking(image)
    unigram = unigram_ranking(image, priors)
    bigram = bigram_ranking(image, priors)
    return {
        "random": random_ranking(image, seed),
        "bbox_size": size_ranking(image),
        "bbox_position": position,
        "unigram": unigram,
        "bigram": bigram,
        "unigram+position": combine_rankings(unigram, position),
        "bigram+position": combine_rankings(bigram, position),
    }


def format_mean_std(mean: float, std: float) -> str:
    return f"{mean:.2f} ± {std:.2f}"


def _table_row(name: str, k: int | None, summary: dict) -> dict:
    return {
        "name": name,
        "k": k,
        "p": format_mean_std(summary["p_mean"], summary["p_std"]),
        "r": format_mean_std(summary["r_mean"], summary["r_std"]),
        "f": format_mean_std(summary["f_mean"], summary["f_std"]),
    }


def _curve_summaries(curves: list[list[Scores]], k_max: int) -> list[dict]:
    """Per k, mean and std over images of one system's prefix curves."""
    rows = []
    for index in range(k_max):
        p_mean, p_std = mean_std([curve[index].p for curve in curves])
        r_mean, r_std = mean_std([curve[index].r for curve in curves])
        f_mean, f_std = mean_std([curve[index].f for curve in curves])
        rows.append({"k": index + 1, "p_mean": p_mean, "p_std": p_std, "r_mean": r_mean, "r_std": r_std,
                     "f_mean": f_mean, "f_std": f_std})
    return rows


def content_selection_report(
    images: Sequence[ImageRecord],
    k_max: int = 15,
    seed: int = 0,
    priors_from: Sequence[ImageRecord] | None = None,
) -> dict:
    """Statistics, human upper bound and every baseline at k = 1..k_max, as a JSON-serialisable dict."""
    if k_max < 1:
        raise ValueError("k_max must be at least 1")
    all_priors = priors_by_image(images, priors_from)
    curves: dict[str, list[list[Scores]]] = {name: [] for name in SYSTEMS}
    for image, priors in zip(images, all_priors, strict=True):
        golds = linked_golds(image)
        if not golds:
            continue  # listed by upper_bound_scores below, with the same reason
        index = GoldIndex(golds)
        for name, ranking in system_rankings(image, priors, seed).items():
            curves[name].append(index.curves(ranking, k_max))
    upper_scores, skipped = upper_bound_scores(images)
    # A figure over no image does not exist: the upper bound's means are None and a system scored on no image has
    # no rows (no image with a linked description, or none with two for the upper bound; `skipped` says why).
    upper = summarize(upper_scores).as_dict() if upper_scores else {**dict.fromkeys(
        ("p_mean", "p_std", "r_mean", "r_std", "f_mean", "f_std")), "images": 0}
    baselines = {name: _curve_summaries(system_curves, k_max) if system_curves else []
                 for name, system_curves in curves.items()}
    table = [_table_row("human upper bound", None, upper)] if upper_scores else []
    for name, rows in baselines.items():
        table.extend(_table_row(name, row["k"], row) for row in rows)
    return {
        "metric": {"name": "content selection (Wang & Gaizauskas 2015, section 3.1)", "definition": DEFINITION,
                   "edge_cases": list(EDGE_CASES)},
        "k_max": k_max,
        "seed": seed,
        "priors": ("leave-one-image-out" if priors_from is None
                   else f"development set of {len(priors_from)} images"),
        "statistics": dataset_statistics(images),
        "scored_images": len(next(iter(curves.values()), [])),  # images with a linked description: the systems' n
        "upper_bound": upper,
        "baselines": baselines,
        "table": table,
        "per_image": [{"key": s.key, "p": s.p, "r": s.r, "f": s.f} for s in upper_scores],
        "skipped": [{"key": s.key, "reason": s.reason} for s in skipped],
    }


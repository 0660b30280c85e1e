"""Held-out splits (Nikolaus et al., section 3): D_train is the images none of whose captions contains a held-out
pair; D_val and D_eval are the images with at least one caption containing one.

With COCO's subsets, as the authors split COCO: D_eval is the matching images of the evaluation subset (val2014),
D_val the matching images of the other subsets (train2014). Without subsets (captions collected on the platform),
the matching images are divided between D_val and D_eval by a seeded hash of their key, so the same seed gives
the same split whatever the order the images come in. Either way D_train is every image that matches no held-out
pair."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from .types import ImageCaptions

EVAL_SUBSET = "val2014"


@dataclass
class CompositionalSplit:
    heldout: tuple[str, ...]
    train: list[str] = field(default_factory=list)
    val: list[str] = field(default_factory=list)
    eval: list[str] = field(default_factory=list)
    # For each held-out pair, the D_eval (and D_val) images whose captions contain that pair.
    eval_by_pair: dict[str, list[str]] = field(default_factory=dict)
    val_by_pair: dict[str, list[str]] = field(default_factory=dict)
    mode: str = "subsets"  # "subsets" (COCO's) or "seeded"


def _in_eval(key: str, seed: str, eval_share: float) -> bool:
    digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < eval_share


def split_images(images: Sequence[ImageCaptions], heldout: Sequence[str], *, seed: str = "compositional",
                 eval_subset: str = EVAL_SUBSET, eval_share: float = 0.5) -> CompositionalSplit:
    """Split `images` for the held-out pairs `heldout` (names, as in ImageCaptions.matches). Subsets decide D_val
    and D_eval when some image is in `eval_subset`; otherwise a seeded share `eval_share` of the matching images
    goes to D_eval. Lists keep the order of `images`."""
    names = tuple(dict.fromkeys(heldout))
    if not names:
        raise ValueError("no held-out pair given")
    if not 0 < eval_share < 1:
        raise ValueError("eval_share must be between 0 and 1")
    by_subsets = any(image.subset == eval_subset for image in images)
    split = CompositionalSplit(heldout=names, mode="subsets" if by_subsets else "seeded",
                               eval_by_pair={n: [] for n in names}, val_by_pair={n: [] for n in names})
    for image in images:
        found = [n for n in names if any(n in caption for caption in image.matches)]
        if not found:
            split.train.append(image.key)
            continue
        evaluation = image.subset == eval_subset if by_subsets else _in_eval(image.key, seed, eval_share)
        (split.eval if evaluation else split.val).append(image.key)
        for name in found:
            (split.eval_by_pair if evaluation else split.val_by_pair)[name].append(image.key)
    return split

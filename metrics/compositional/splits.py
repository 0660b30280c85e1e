"""Held-out splits (Nikolaus et al., section 3): D_train is images none of whose captions contains a held-out pair;
D_val and D_eval are the images with at least one caption containing one.

With COCO's subsets, as the authors split COCO: D_eval is the matching images of the evaluation subset (val2014),
D_val the matching images of the other subsets (train2014), and D_train the other images of those other subsets:
the images of the evaluation subset that match no held-out pair are in no split (the authors' D_train is drawn from
COCO's training images only; their `dataset_splits_N.json` leave them out too). Without subsets (captions
collected on the platform), the matching images are divided between D_val and D_eval by a seeded hash of their key,
so the same seed gives the same split whatever the order the images come in, and D_train is every image that
matches no held-out pair. Either way no D_train image has a caption containing a held-out pair, and every D_val and
D_eval image has at least one."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from .types import ImageCaptions

EVAL_SUBSET = "val2014"
SUBSETS = "subsets"
SEEDED = "seeded"


@dataclass
class CompositionalSplit:
    heldout: tuple[str, ...]
    train: list[str] = field(default_factory=list)
    val: list[str] = field(default_factory=list)
    eval: list[str] = field(default_factory=list)
    # Images of the evaluation subset without a held-out pair (subsets mode): in no split.
    unused: list[str] = field(default_factory=list)
    # For each held-out pair, the D_eval (and D_val) images whose captions contain that pair.
    eval_by_pair: dict[str, list[str]] = field(default_factory=dict)
    val_by_pair: dict[str, list[str]] = field(default_factory=dict)
    mode: str = SUBSETS  # SUBSETS (COCO's) or SEEDED
    seed: str = ""
    eval_share: float = 0.5

    def split_of(self) -> dict[str, str]:
        """Each image's split: "train", "val", "eval" (the unused images are not in it)."""
        return {**{key: "train" for key in self.train}, **{key: "val" for key in self.val},
                **{key: "eval" for key in self.eval}}


def in_eval(key: str, seed: str, eval_share: float) -> bool:
    """Seeded mode: whether a matching image goes to D_eval (SHA-256 of seed and key, read as a fraction)."""
    digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < eval_share


def split_images(images: Sequence[ImageCaptions], heldout: Sequence[str], *, seed: str = "compositional",
                 eval_subset: str = EVAL_SUBSET, eval_share: float = 0.5) -> CompositionalSplit:
    """Split `images` for the held-out pairs `heldout` (names, as in ImageCaptions.matches), held out together.
    Subsets decide D_val and D_eval when some image is in `eval_subset`; otherwise a seeded share `eval_share` of
    the matching images goes to D_eval. Lists keep the order of `images`."""
    names = tuple(dict.fromkeys(heldout))
    if not names:
        raise ValueError("no held-out pair given")
    if not 0 < eval_share < 1:
        raise ValueError("eval_share must be between 0 and 1 (both excluded)")
    by_subsets = any(image.subset == eval_subset for image in images)
    split = CompositionalSplit(heldout=names, mode=SUBSETS if by_subsets else SEEDED,
                               eval_by_pair={n: [] for n in names}, val_by_pair={n: [] for n in names},
                               seed="" if by_subsets else seed, eval_share=eval_share)
    for image in images:
        found = [n for n in names if any(n in caption for caption in image.matches)]
        if not found:
            (split.unused if by_subsets and image.subset == eval_subset else split.train).append(image.key)
            continue
        evaluation = image.subset == eval_subset if by_subsets else in_eval(image.key, seed, eval_share)
        (split.eval if evaluation else split.val).append(image.key)
        for name in found:
            (split.eval_by_pair if evaluation else split.val_by_pair)[name].append(image.key)
    return split


SPLIT_KEYS = (("train", "train_images_split"), ("val", "val_images_split"), ("eval", "test_images_split"))


@dataclass(frozen=True)
class SplitOverlap:
    """One split of two dataset_splits files compared: sizes, shared images, and those in one file only."""

    split: str  # train, val or eval (the authors' test_images_split)
    ours: int
    theirs: int
    common: int

    @property
    def only_ours(self) -> int:
        return self.ours - self.common

    @property
    def only_theirs(self) -> int:
        return self.theirs - self.common

    @property
    def jaccard(self) -> float | None:
        union = self.ours + self.theirs - self.common
        return self.common / union if union else None


def read_dataset_splits(data: object) -> dict[str, set[str]]:
    """The three image sets of a dataset_splits document (the authors' format); ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("not a dataset_splits object (expected train_images_split, val_images_split, "
                         "test_images_split)")
    splits: dict[str, set[str]] = {}
    for split, key in SPLIT_KEYS:
        ids = data.get(key)
        if not isinstance(ids, list):
            raise ValueError(f"{key} is missing or not a list")
        splits[split] = {str(image_id) for image_id in ids}
    return splits


def compare_splits(ours: dict[str, set[str]], theirs: dict[str, set[str]]) -> list[SplitOverlap]:
    """Per split (train, val, eval) how many images the two splits share."""
    return [SplitOverlap(split, len(ours[split]), len(theirs[split]), len(ours[split] & theirs[split]))
            for split, _ in SPLIT_KEYS]

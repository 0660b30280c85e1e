"""A small test pool for the ranking tests: images A, B, C (rows 0-2) with two captions each (columns 0-5:
a1 a2 b1 b2 c1 c2), and a score matrix whose ranks are worked out by hand in the comments."""
from __future__ import annotations

import io

import numpy as np

from annotation.models import Description, Image
from annotation.ranking.models import TestPool
from annotation.ranking.services.pools import create_test_pool
from tests.factories import make_image

# Rows A, B, C; columns a1 a2 b1 b2 c1 c2. Description (per row, sorted): A: a1 first -> rank 1;
# B: a2 8, a1 7, c1 5, c2 4, b2 2, b1 1 -> its first original (b2) at rank 5; C: c1 first -> rank 1.
# Ranks [1, 5, 1]: R@1 = 2/3, R@5 = R@10 = 1, median 1.
# Search (per column): a1 [9 7 1] A first -> 1; a2 [1 8 2] A third -> 3; b1 [8 1 3] B -> 3; b2 [0 2 4] B -> 2;
# c1 [3 5 9] C -> 1; c2 [6 4 8] C -> 1. Ranks [1, 3, 3, 2, 1, 1]: R@1 = 1/2, R@5 = 1, median 1.5.
SCORES = np.array([[9, 1, 8, 0, 3, 6],
                   [7, 8, 1, 2, 5, 4],
                   [1, 2, 3, 4, 9, 8]], dtype=float)


def build_pool(name: str = "pool") -> tuple[TestPool, list[Image], list[Description]]:
    images = [make_image(f"{k}.png") for k in "abc"]
    captions = [Description.objects.create(image=image, text=f"caption {n} of {image.key}", source="imported")
                for image in images for n in (1, 2)]
    return create_test_pool(name, all_descriptions=True), images, captions


def npy(matrix: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, matrix)
    return buffer.getvalue()

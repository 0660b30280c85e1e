"""Benchmark of the ranking metrics on a 1,000 x 5,000 score matrix (1,000 images, 5 original captions each).

Run: .venv/bin/python bench/ranking_metrics.py [--runs 7] [--images 1000] [--captions-per-image 5]
     [--density 0.005 0.05] [--seed 15]

The matrix is seeded Gaussian noise plus a signal on the original pairs (so ranks are spread, not all at the
top or all random); the captions' columns are shuffled. Each relevance matrix marks a seeded random `--density`
share of pairs relevant (0.5 %: about 25 captions per image and 5 images per caption, the size of the judged
top 10 of several systems, counted by comparison; 5 %: 250 and 50, counted by sorting every query) and
`evaluate_matrix` adds the original pairs. Timed, each `--runs` times (median,
min-max of the whole call): `evaluate_matrix` without judgements, `evaluate_matrix` with them (every metric,
both directions), and `top_k(k=10)` in both directions (the pairs a submission sends to pooled judging). Peak
memory: the largest extra allocation during one call (tracemalloc, which sees NumPy's buffers), beside the
score matrix itself (8 bytes a pair). The load average is printed before and after: run it on a quiet machine."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metrics.ranking import evaluate_matrix, top_k  # noqa: E402


def pool(images: int, per_image: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    captions = images * per_image
    caption_image = rng.permutation(np.repeat(np.arange(images), per_image))
    scores = rng.standard_normal((images, captions))
    scores[caption_image, np.arange(captions)] += 2.5
    return scores, caption_image


def relevance(shape: tuple[int, int], density: float, seed: int) -> np.ndarray:
    return np.random.default_rng([seed, round(density * 1e6)]).random(shape) < density


def timed(call: Callable[[], Any], runs: int) -> tuple[list[float], float]:
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--captions-per-image", type=int, default=5)
    parser.add_argument("--density", type=float, nargs="+", default=[0.005, 0.05])
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    scores, caption_image = pool(args.images, args.captions_per_image, args.seed)
    judged = {density: relevance(scores.shape, density, args.seed) for density in args.density}
    print(f"score matrix {scores.shape[0]:,} x {scores.shape[1]:,} ({scores.nbytes / 2**20:.0f} MiB); "
          f"NumPy {np.__version__}, {os.cpu_count()} CPUs")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("evaluate_matrix, automatic (both directions)", lambda: evaluate_matrix(scores, caption_image)),
        *((f"evaluate_matrix, with judgements (both directions), {density:.1%} relevant "
           f"({int(relevant.sum()):,} pairs besides the originals)",
           lambda relevant=relevant: evaluate_matrix(scores, caption_image, relevant))
          for density, relevant in judged.items()),
        ("top_k(k=10), both directions", lambda: (top_k(scores, 10, axis=1), top_k(scores, 10, axis=0))),
    ]
    for relevant in judged.values():
        evaluate_matrix(scores, caption_image, relevant)  # warm-up (imports, page faults)
    for name, call in cases:
        seconds, peak = timed(call, args.runs)
        print(f"{name}: median {statistics.median(seconds):.3f} s "
              f"[{min(seconds):.3f}-{max(seconds):.3f}] over {args.runs} runs, peak extra memory {peak:.0f} MiB")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    result = evaluate_matrix(scores, caption_image, judged[args.density[0]])
    print("description:", {k: round(v, 4) for k, v in result["description"].items()})
    print("search:", {k: round(v, 4) for k, v in result["search"].items()})


if __name__ == "__main__":
    main()

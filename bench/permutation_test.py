"""Benchmark of the paired permutation (sign-flip) test of metrics.human_eval.significance against
`scipy.stats.permutation_test`, which computes the same p-values one pair at a time.

Run: .venv/bin/python bench/permutation_test.py [--runs 3] [--systems 10] [--seed 5]

Per case, `--systems` simulated systems rated on the items (every pair of systems tested: 45 pairs for 10):
30 items with 100,000 random sign patterns (Monte Carlo) and 20 items with every one of the 2^20 patterns
(exact). Times: `compare_all` on all the pairs (its bootstrap at 1,000 resamples included), and scipy on one pair,
times the number of pairs; the best of `--runs`. The largest difference between the two p-values of a pair is
printed for the exact case (the same up to rounding) and, for Monte Carlo, in units of the standard error."""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    import numpy as np
    from scipy import stats

    from metrics.human_eval.bootstrap import generator
    from metrics.human_eval.significance import compare_all

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    print(f"{args.systems} systems, {os.cpu_count()} CPUs; load average before: "
          "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    rng = np.random.default_rng(args.seed)
    for items, resamples, label in ((30, 100_000, "Monte Carlo"), (20, 2 ** 20, "exact")):
        ratings = {f"s{k}": {str(i): float(v) for i, v in enumerate(rng.normal(k * 0.1, 1, items))}
                   for k in range(args.systems)}
        names = list(ratings)
        pairs = list(itertools.combinations(names, 2))
        ours = []
        for _ in range(args.runs):
            started = time.perf_counter()
            rows = compare_all(ratings, names, generator(0), 1000, 0.95, wilcoxon=False,
                               permutation_resamples=100_000)
            ours.append(time.perf_counter() - started)
        theirs = []
        a, b = pairs[0]
        d = np.array([ratings[a][i] - ratings[b][i] for i in sorted(ratings[a])])
        for _ in range(args.runs):
            started = time.perf_counter()
            stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
                                   vectorized=True, n_resamples=resamples, random_state=np.random.default_rng(0))
            theirs.append(time.perf_counter() - started)
        gaps = []
        for row in rows[:5]:
            d = np.array([ratings[row["a"]][i] - ratings[row["b"]][i] for i in sorted(ratings[row["a"]])])
            reference = stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis),
                                               permutation_type="samples", vectorized=True, n_resamples=resamples,
                                               random_state=np.random.default_rng(1)).pvalue
            gap = abs(row["p_permutation"] - reference)
            gaps.append(gap / row["p_permutation_se"] if row["p_permutation_se"] else gap)
        unit = " standard errors" if label == "Monte Carlo" else ""
        print(f"{items} items, {label}: all {len(pairs)} pairs {min(ours):.2f} s; scipy one pair {min(theirs):.2f} s"
              f" (x {len(pairs)} pairs: {min(theirs) * len(pairs):.0f} s); largest gap on 5 pairs "
              f"{max(gaps):.2g}{unit}")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()

"""Benchmark of the human evaluation analysis (metrics.human_eval.analyse): 10 systems x 1,000 items x 3 judges,
absolute ratings and pairwise preferences.

Run: .venv/bin/python bench/human_eval_analysis.py [--runs 5] [--systems 10] [--items 1000] [--judges 3]
     [--resamples 1000] [--permutation-resamples 100000] [--seed 28]

Simulated, seeded: system s has quality s / systems; each item has a difficulty and each of its `--judges` judges
(drawn from a crowd of 100) a leniency. Ratings: every judge of an item rates every system on a 1-5 scale
(systems x items x judges records). Preferences: every judge of an item judges every pair of systems on it, ties
when the noisy margin is small (pairs x items x judges records). Each run is a fresh process (bench/fresh_process.py)
that builds the records, then times `analyse` (1,000 bootstrap resamples: the rating and Bradley-Terry intervals,
the paired tests of every pair with 100,000 random sign patterns for the permutation tests (more than 20 items),
alpha, the correlation with one automatic metric) on the ratings alone, the preferences
alone and both; peak RSS is the whole process's. The load average is printed before and after."""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fresh_process import emit, run_child, spread  # noqa: E402

DESIGNS = ("rating", "pairwise", "both")


def records(systems: int, items: int, judges: int, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    quality = {f"sys{s:02d}": 1.5 + 3 * s / systems for s in range(systems)}
    crowd = rng.normal(0, 0.3, 100)
    out: list[dict[str, Any]] = []
    bleu: dict[str, dict[int, float]] = {name: {} for name in quality}
    for item in range(items):
        difficulty = rng.normal(0, 0.4)
        for judge in rng.choice(100, judges, replace=False):
            for name, q in quality.items():
                value = int(np.clip(round(q + difficulty + crowd[judge] + rng.normal(0, 0.9)), 1, 5))
                out.append({"design": "rating", "system": name, "item": item, "judge": int(judge), "value": value})
            for a, b in itertools.combinations(quality, 2):
                margin = quality[a] - quality[b] + rng.normal(0, 1.0)
                choice = "tie" if abs(margin) < 0.25 else a if margin > 0 else b
                out.append({"design": "pairwise", "system": a, "other": b, "item": item, "judge": int(judge),
                            "choice": choice})
        for name, q in quality.items():
            bleu[name][item] = q / 5 + rng.normal(0, 0.2)
    return out, {"bleu": bleu}


def child(design: str, args: argparse.Namespace) -> None:
    from metrics.human_eval import analyse

    all_records, automatic = records(args.systems, args.items, args.judges, args.seed)
    chosen = all_records if design == "both" else [r for r in all_records if r["design"] == design]
    started = time.perf_counter()
    result = analyse(chosen, seed=args.seed, resamples=args.resamples,
                     permutation_resamples=args.permutation_resamples, automatic=automatic)
    seconds = time.perf_counter() - started
    order = list(result["ratings"]["overall"]["systems"] if design != "pairwise"
                 else result["preferences"]["overall"]["bradley_terry"])
    emit({"analyse_s": seconds, "records": len(chosen), "top": order[0], "bottom": order[-1]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--permutation-resamples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--child", choices=DESIGNS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args)
        return
    names = ("systems", "items", "judges", "resamples", "permutation_resamples", "seed")
    extra = [f"--{name.replace('_', '-')}={getattr(args, name)}" for name in names]
    print(f"{args.systems} systems x {args.items:,} items x {args.judges} judges, {args.resamples} resamples, "
          f"{args.permutation_resamples:,} permutation resamples, {os.cpu_count()} CPUs")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for design in DESIGNS:
        runs = [run_child(__file__, design, dict(os.environ), *extra) for _ in range(args.runs)]
        analysed = spread([r["analyse_s"] for r in runs], digits=2)
        print(f"{design:9s} {runs[0]['records']:>8,} records  analyse {analysed}"
              f"  process {spread([r['wall_s'] for r in runs])}  peak RSS {max(r['rss_mb'] for r in runs):.0f} MB"
              f"  best {runs[0]['top']}, worst {runs[0]['bottom']}")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()

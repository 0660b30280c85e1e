"""Three systems of known quality (a human reference, a good system, a bad one) on 30 items, judged by noisy
simulated judges in both designs: the analysis orders them and the bad system's interval stands apart."""
from __future__ import annotations

import numpy as np

from metrics.human_eval import analyse

QUALITY = {"human": 4.2, "good": 3.7, "bad": 2.2}
PAIRS = [("human", "good"), ("human", "bad"), ("good", "bad")]


def simulated_records(seed: int) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    judges = [f"w{n}" for n in range(12)]
    records: list[dict[str, object]] = []
    for item in range(30):
        difficulty = rng.normal(0, 0.4)  # some items are harder for every system
        chosen = rng.choice(judges, 3, replace=False)
        for judge in chosen:
            leniency = (int(judge[1:]) - 5.5) / 10  # each judge rates a little higher or lower
            for system, quality in QUALITY.items():
                value = int(np.clip(round(quality + difficulty + leniency + rng.normal(0, 0.9)), 1, 5))
                records.append({"design": "rating", "system": system, "item": item, "judge": judge, "value": value})
            for a, b in PAIRS:
                margin = QUALITY[a] - QUALITY[b] + rng.normal(0, 1.0)
                left, right = (a, b) if rng.random() < 0.5 else (b, a)  # side shown at random
                choice = "tie" if abs(margin) < 0.25 else a if margin > 0 else b
                records.append({"design": "pairwise", "system": left, "other": right, "item": item,
                                "judge": judge, "choice": choice})
    return records


def test_simulated_systems_are_ordered_and_the_bad_one_separates():
    result = analyse(simulated_records(2024), seed=1, resamples=1000)
    ratings = result["ratings"]["overall"]["systems"]
    assert list(ratings) == ["human", "good", "bad"]
    assert ratings["bad"]["high"] < min(ratings["good"]["low"], ratings["human"]["low"])
    scores = result["preferences"]["overall"]["bradley_terry"]
    assert list(scores) == ["human", "good", "bad"]
    assert scores["bad"]["high"] < min(scores["good"]["low"], scores["human"]["low"])
    for design in ("ratings", "preferences"):
        tests = {(row["a"], row["b"]): row for row in result[design]["overall"]["comparisons"]}
        for pair in [("human", "bad"), ("good", "bad")]:
            assert tests[pair]["mean_difference"] > 0
            assert tests[pair]["p_permutation"] < 0.01 and tests[pair]["p_bootstrap"] < 0.01
            assert tests[pair]["low"] > 0
    assert result["ratings"]["overall"]["comparisons"][2]["p_wilcoxon"] < 0.001
    assert 0 < result["ratings"]["overall"]["alpha_ordinal"] < 1

"""An analysis read back from a store that reorders an object's keys (PostgreSQL's jsonb) is put back in the
order analyse gave it."""
from __future__ import annotations

from typing import Any

from metrics.human_eval import analyse
from metrics.human_eval.order import in_rank_order


def jsonb(value: Any) -> Any:
    """What PostgreSQL's jsonb gives back: an object's keys by length, then bytes."""
    if isinstance(value, dict):
        return {key: jsonb(value[key]) for key in sorted(value, key=lambda key: (len(key), key))}
    return [jsonb(v) for v in value] if isinstance(value, list) else value


def test_an_analysis_read_back_in_another_key_order_is_put_back_in_rank_order():
    quality = (("zz", 1), ("a-long-name", 4), ("mid", 2))  # best: a-long-name, then mid, then zz
    records: list[dict[str, Any]] = [
        {"design": "rating", "system": name, "item": item, "judge": judge, "aspect": aspect,
         "value": value + (item + judge) % 2}
        for item in range(6) for judge in range(3) for aspect in ("b_aspect", "a") for name, value in quality]
    records += [{"design": "pairwise", "system": "zz", "other": "a-long-name", "item": item, "judge": 0,
                 "choice": "a-long-name" if item else "tie"} for item in range(6)]
    analysis = analyse(records, resamples=50)
    assert list(analysis["ratings"]["b_aspect"]["systems"]) == ["a-long-name", "mid", "zz"]
    stored = jsonb(analysis)
    assert list(stored["ratings"]) == ["a", "b_aspect"] and list(stored["ratings"]["a"]["systems"]) == [
        "zz", "mid", "a-long-name"]
    restored = in_rank_order(stored, ["b_aspect", "a"])
    assert list(restored["ratings"]) == ["b_aspect", "a"]
    for aspect in ("a", "b_aspect"):
        assert list(restored["ratings"][aspect]["systems"]) == list(analysis["ratings"][aspect]["systems"])
    assert list(restored["preferences"]["overall"]["bradley_terry"]) == ["a-long-name", "zz"]
    assert restored["ratings"]["a"]["systems"]["mid"] == analysis["ratings"]["a"]["systems"]["mid"]

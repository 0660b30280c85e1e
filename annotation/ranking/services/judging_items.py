"""HIT items of judge_caption campaigns: image-caption pairs to judge, chunked per HIT, with gold pairs mixed in.

A gold pair's known answer rides in the HIT item (`"gold": {"relevant": ...}` or `{"grade": ...}`): it never
reaches the task page, and the kind's checks compare the worker's answer to it."""
from __future__ import annotations

import random
from typing import Any

GRADES = (1, 2, 3, 4)


def gold_answer(known: bool | int) -> dict[str, Any]:
    """A gold pair's known answer: a bool is a binary judgement, an int a grade from 1 (unrelated) to 4 (describes
    the image)."""
    if isinstance(known, bool):
        return {"relevant": known}
    if isinstance(known, int) and known in GRADES:
        return {"grade": known}
    raise ValueError(f"expected True, False or a grade 1-4, got {known!r}")


def judging_items(pairs: list[tuple[int, int]], gold: list[tuple[int, int, bool | int]], pairs_per_hit: int,
                  gold_per_hit: int) -> list[dict[str, Any]]:
    """HIT items `{"pairs": [{"image": id, "description": id}, ...]}` showing `pairs_per_hit` pairs each (the last
    HIT may show fewer): `pairs_per_hit - gold_per_hit` pairs to judge, in the order given, and `gold_per_hit`
    gold pairs (image id, description id, known answer: True/False, or a grade 1-4) taken in turn from `gold`
    and put at reproducible random places. A gold pair is never shown twice in one HIT, so a HIT has at most
    len(gold) of them. Raises ValueError on bad sizes or a bad gold entry (naming its index)."""
    if pairs_per_hit < 1:
        raise ValueError(f"pairs_per_hit must be at least 1, got {pairs_per_hit}")
    if not 0 <= gold_per_hit < pairs_per_hit:
        raise ValueError(f"gold_per_hit must be from 0 to pairs_per_hit - 1 ({pairs_per_hit - 1}), "
                         f"got {gold_per_hit}")
    if gold_per_hit and not gold:
        raise ValueError("gold_per_hit is set but there are no gold pairs")
    known: list[dict[str, Any]] = []
    for index, entry in enumerate(gold):
        try:
            image, description, answer = entry
            known.append({"image": int(image), "description": int(description), "gold": gold_answer(answer)})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"gold pair {index}: {exc}") from None
    per_hit_gold = min(gold_per_hit, len(known))
    step = pairs_per_hit - gold_per_hit
    items = []
    turn = 0
    for number, start in enumerate(range(0, len(pairs), step)):
        shown: list[dict[str, Any]] = [{"image": int(i), "description": int(d)} for i, d in pairs[start:start + step]]
        places = random.Random(number)
        for _ in range(per_hit_gold):
            gold_pair = known[turn % len(known)]
            shown.insert(places.randint(0, len(shown)), {**gold_pair, "gold": dict(gold_pair["gold"])})
            turn += 1
        items.append({"pairs": shown})
    return items

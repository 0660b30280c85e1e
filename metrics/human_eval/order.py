"""The order of an analysis read back from storage. `analyse` returns its dicts in a meaningful order (the aspects
as first met, the systems best first); a store that does not keep the order of an object's keys (PostgreSQL's
jsonb orders them by length, then bytes) loses it, so a reader puts it back with `in_rank_order` before showing
anything in dict order."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _aspects(groups: Mapping[str, Any], aspects: Sequence[str]) -> dict[str, Any]:
    known = [aspect for aspect in aspects if aspect in groups]
    return {aspect: groups[aspect] for aspect in [*known, *sorted(set(groups) - set(known))]}


def _best_first(rows: Mapping[str, Mapping[str, Any]], figure: str) -> dict[str, Any]:
    def key(item: tuple[str, Mapping[str, Any]]) -> tuple[bool, float, str]:
        value = item[1].get(figure)
        return value is None, -(value or 0.0), item[0]

    return dict(sorted(rows.items(), key=key))


def in_rank_order(analysis: Mapping[str, Any], aspects: Sequence[str] = ()) -> dict[str, Any]:
    """A copy of a stored analysis with its aspects in the order given (then the others, by name) and, per aspect,
    the systems best first as `analyse` lists them: ratings by mean, preferences by Bradley-Terry score (ties by
    name)."""
    ordered = dict(analysis)
    if isinstance(analysis.get("ratings"), Mapping):
        ordered["ratings"] = {aspect: {**figures, "systems": _best_first(figures.get("systems") or {}, "mean")}
                              for aspect, figures in _aspects(analysis["ratings"], aspects).items()}
    if isinstance(analysis.get("preferences"), Mapping):
        ordered["preferences"] = {
            aspect: {**figures, "bradley_terry": _best_first(figures.get("bradley_terry") or {}, "score")}
            for aspect, figures in _aspects(analysis["preferences"], aspects).items()}
    return ordered

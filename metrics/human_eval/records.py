"""The plain records a human evaluation produces, checked: one judgement each.

    {"design": "rating", "system": "sys-a", "item": 42, "judge": "w7", "aspect": "coherent", "value": 4}
    {"design": "pairwise", "system": "sys-a", "other": "sys-b", "item": 42, "judge": "w7", "choice": "sys-b"}

`aspect` is optional ("overall" unless given). A rating's `value` is a number (a Likert point); a preference's
`choice` is the name of the preferred system (`system` or `other`) or "tie". Systems, items and judges are kept
as strings (an image id 42 and "42" are the same item). A bad record raises RecordError naming its position
(counted from 1) and the field, before anything is computed."""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

DESIGNS = ("rating", "pairwise")
TIE = "tie"
DEFAULT_ASPECT = "overall"


class RecordError(ValueError):
    """A judgement record the analysis cannot use; the message names the record."""


class Rating(NamedTuple):
    system: str
    item: str
    judge: str
    aspect: str
    value: float


class Preference(NamedTuple):
    system: str
    other: str
    item: str
    judge: str
    aspect: str
    choice: str  # the preferred system's name, or TIE


def _name(record: Mapping[str, Any], field: str, position: int) -> str:
    value = record.get(field)
    kind = type(value)
    if kind is str and value:  # the usual cases first: a record is read in about a microsecond a field
        return value
    if kind is int:
        return str(value)
    if value is None or isinstance(value, bool) or not isinstance(value, str | int) or str(value) == "":
        raise RecordError(f"record {position}: '{field}' must be a non-empty string or integer, got {value!r}")
    return str(value)


def _rating(record: Mapping[str, Any], position: int, aspect: str) -> Rating:
    value = record.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RecordError(f"record {position}: a rating's 'value' must be a finite number, got {value!r}")
    return Rating(_name(record, "system", position), _name(record, "item", position),
                  _name(record, "judge", position), aspect, float(value))


def _preference(record: Mapping[str, Any], position: int, aspect: str) -> Preference:
    system, other = _name(record, "system", position), _name(record, "other", position)
    if system == other:
        raise RecordError(f"record {position}: a preference compares two different systems, got {system!r} twice")
    if TIE in (system, other):
        raise RecordError(f"record {position}: {TIE!r} is the tie choice and cannot name a system")
    choice = _name(record, "choice", position)
    if choice not in (system, other, TIE):
        raise RecordError(f"record {position}: 'choice' must be {system!r}, {other!r} or {TIE!r}, got {choice!r}")
    return Preference(system, other, _name(record, "item", position), _name(record, "judge", position), aspect,
                      choice)


def parse(records: Iterable[Mapping[str, Any]]) -> tuple[list[Rating], list[Preference]]:
    """The ratings and the preferences among `records`, every record checked (the first bad one raises)."""
    ratings: list[Rating] = []
    preferences: list[Preference] = []
    for position, record in enumerate(records, start=1):
        if not isinstance(record, Mapping):
            raise RecordError(f"record {position}: expected an object, got {type(record).__name__}")
        design = record.get("design")
        aspect = DEFAULT_ASPECT if record.get("aspect") is None else _name(record, "aspect", position)
        if design == "rating":
            ratings.append(_rating(record, position, aspect))
        elif design == "pairwise":
            preferences.append(_preference(record, position, aspect))
        else:
            raise RecordError(f"record {position}: 'design' must be one of {', '.join(DESIGNS)}, got {design!r}")
    return ratings, preferences


def by_aspect(records: Iterable[Rating | Preference]) -> dict[str, list[Any]]:
    """Records grouped by aspect, aspects in order of first appearance."""
    groups: dict[str, list[Any]] = {}
    for record in records:
        groups.setdefault(record.aspect, []).append(record)
    return groups

"""The one way JSON from outside is read: the worker's answers, API bodies and uploaded runs.

`parse_json` refuses, with a `JsonInputError` naming the problem and where (a JSONPath such as
`$.answer.story[2]`): a body larger than `max_bytes`, text that is not UTF-8, malformed JSON, nesting
deeper than `max_depth`, a number written with more than `max_digits` digits or out of the float range,
`NaN`/`Infinity`, strings (values or keys) holding a NUL character or a lone surrogate (no database
column can store them), and an object naming the same key twice (`{"7": [...], "7": [...]}`: Python's json
would keep the last silently).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from .text_input import unstorable

_DIGITS = re.compile(r"\d")


class JsonInputError(ValueError):
    """JSON refused; the message names the problem and where it is. Malformed JSON also has its `line`, `column`
    and `syntax` (what the parser expected)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, syntax: str = "") -> None:
        super().__init__(message)
        self.line, self.column, self.syntax = line, column, syntax


@dataclass(frozen=True)
class JsonLimits:
    max_bytes: int
    max_depth: int
    max_digits: int


def limits(max_bytes: int | None = None) -> JsonLimits:
    """The configured limits (JSON_MAX_BYTES, JSON_MAX_DEPTH, JSON_MAX_NUMBER_DIGITS); `max_bytes` replaces the
    size limit (uploaded runs have RUN_MAX_BYTES)."""
    return JsonLimits(max_bytes=settings.JSON_MAX_BYTES if max_bytes is None else max_bytes,
                      max_depth=settings.JSON_MAX_DEPTH, max_digits=settings.JSON_MAX_NUMBER_DIGITS)


@dataclass(frozen=True)
class _Refused:
    """Stands in for a number the hooks refuse, so that the walk can say where it is."""

    reason: str


def _number_hooks(max_digits: int) -> dict[str, Any]:
    def parse_int(text: str) -> int | _Refused:
        if len(text.lstrip("-")) > max_digits:
            return _Refused(f"a number with more than {max_digits} digits")
        return int(text)

    def parse_float(text: str) -> float | _Refused:
        if len(_DIGITS.findall(text)) > max_digits:
            return _Refused(f"a number with more than {max_digits} digits")
        value = float(text)
        return value if math.isfinite(value) else _Refused(f"the number {text} is out of range")

    def parse_constant(text: str) -> _Refused:
        return _Refused(f"{text} is not a JSON number")

    return {"parse_int": parse_int, "parse_float": parse_float, "parse_constant": parse_constant,
            "object_pairs_hook": unique_keys}


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Refused:
    """json's object_pairs_hook: the object, or a refusal naming the first key given twice (the walk says where)."""
    document = dict(pairs)
    if len(document) == len(pairs):
        return document
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            return _Refused(f"the key {json.dumps(key)} is given twice")
        seen.add(key)
    return document  # not reached: fewer keys than pairs means one repeats


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"{path}[{json.dumps(key)}]"


def _check(document: Any, max_depth: int) -> None:
    """Walk the document without recursion: depth, refused numbers, and text that cannot be stored."""
    stack: list[tuple[str, Any, int]] = [("$", document, 0)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, _Refused):
            raise JsonInputError(f"{path}: {value.reason}")
        if isinstance(value, str):
            problem = unstorable(value)
            if problem:
                raise JsonInputError(f"{path}: the text holds {problem}")
            continue
        if isinstance(value, (dict, list)):
            if depth >= max_depth:
                raise JsonInputError(f"{path}: nested deeper than {max_depth} levels")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in reversed(list(items)):
                if isinstance(key, str):
                    problem = unstorable(key)
                    if problem:
                        raise JsonInputError(f"{path}: a key holds {problem}")
                stack.append((_child(path, key), item, depth + 1))


def parse_json(data: bytes | str, json_limits: JsonLimits | None = None) -> Any:
    """The document in `data`, checked against the limits; raises JsonInputError naming the problem."""
    json_limits = json_limits or limits()
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > json_limits.max_bytes:
        raise JsonInputError(f"the JSON is larger than {json_limits.max_bytes} bytes")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonInputError(f"the JSON is not UTF-8 text ({error})") from None
    try:
        document = json.loads(data.removeprefix("\ufeff"), **_number_hooks(json_limits.max_digits))
    except RecursionError:
        raise JsonInputError(f"$: nested deeper than {json_limits.max_depth} levels") from None
    except json.JSONDecodeError as error:
        raise JsonInputError(f"malformed JSON: {error}", error.lineno, error.colno, error.msg) from None
    _check(document, json_limits.max_depth)
    return document

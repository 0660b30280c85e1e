"""The one way JSON from outside is read: the worker's answers, API bodies and uploaded runs.

`parse_json` refuses, with a `JsonInputError` naming the problem and where (a JSONPath such as
`$.answer.story[2]`): a body larger than `max_bytes`, text that is not UTF-8, malformed JSON, nesting
deeper than `max_depth`, a number written with more than `max_digits` digits or out of the float range,
`NaN`/`Infinity`, strings (values or keys) holding a NUL character or a lone surrogate (no database
column can store them), and an object naming the same key twice (`{"7": [...], "7": [...]}`: Python's json
would keep the last silently).

The nesting depth is capped before anything is parsed, by `JsonShape`: a scan of the bytes that counts the
brackets outside strings, in constant memory (`parse_json` lets through twice its limit, so that the walk after
parsing names the path of what is too deep; anything deeper is refused unparsed). The streamed reader of large
files (mturk/importers.py, `streamed_items`) runs the same scan over the bytes as the parser reads them, and it
also refuses a top-level key given twice.
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


_IN_OBJECT = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*("?)|[\[\]{}]', re.DOTALL)  # a string, or a bracket
_AT_TOP = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*("?)|[\[\]{},]', re.DOTALL)  # and commas, between top-level keys
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*("?)', re.DOTALL)
_KEY_BYTES = 4096  # the most of a top-level key kept to compare it with the others


class JsonShape:
    """The nesting depth and the top-level keys of a JSON text fed in chunks, before any parser sees it: the
    brackets outside strings are counted, and the keys of a top-level object compared (one given twice is
    refused, as `parse_json` refuses any repeated key). Constant memory whatever the text's size or depth (the
    top-level keys aside, each kept up to _KEY_BYTES); the rest of the grammar is the parser's. JsonInputError
    names the byte where the depth is exceeded, or the repeated key."""

    def __init__(self, max_depth: int, top_keys: bool = True) -> None:
        self.max_depth = max_depth
        self.top_keys = top_keys  # compare the top-level keys (False: the depth only)
        self.depth = 0
        self.offset = 0  # bytes fed before the current chunk
        self.in_string = False
        self.escape = False  # the last chunk ended inside a string, just after a backslash
        self.started = False  # a container was opened
        self.top_object = False  # the document is an object
        self.expect_key = False  # the next string at depth 1 is a key
        self.key: bytearray | None = None  # the top-level key being read (its first _KEY_BYTES)
        self.keys: set[str | bytes] = set()

    def feed(self, chunk: bytes) -> None:
        pos, size = 0, len(chunk)
        while pos < size:
            if self.in_string:
                if self.escape:
                    self._key_part(chunk[pos:pos + 1])
                    pos, self.escape = pos + 1, False
                    continue
                rest = _STRING_REST.match(chunk, pos)
                assert rest is not None  # the pattern matches the empty string
                pos = self._string_end(chunk, pos, rest.end(), bool(rest.group(1)))
                continue
            if self.depth >= 2 or (self.started and not self.top_object):  # no top-level key here
                pos = self._inside(chunk, pos)
                continue
            found = (_AT_TOP if self.depth == 1 and self.top_object else _IN_OBJECT).search(chunk, pos)
            if found is None:
                break
            token = chunk[found.start()]
            if token == 0x22:  # a string, whole or begun
                if self.depth == 1 and self.expect_key:
                    self.key, self.expect_key = bytearray(), False
                self.in_string = True
                pos = self._string_end(chunk, found.start() + 1, found.end(), bool(found.group(1)))
                continue
            pos = found.end()
            if token in b"[{":
                self.depth += 1
                if self.depth > self.max_depth:
                    raise JsonInputError(f"nested deeper than {self.max_depth} levels (at byte "
                                         f"{self.offset + found.start()})")
                if not self.started:
                    self.started, self.top_object = True, token == 0x7B and self.top_keys
                    self.expect_key = self.top_object
            elif token in b"]}":
                self.depth -= 1
            else:  # a comma between top-level members
                self.expect_key = True
        self.offset += size

    def _inside(self, chunk: bytes, pos: int) -> int:
        """The brackets of `chunk` from `pos` counted in one regex pass, strings skipped whole, until the chunk
        ends, a string runs past it, or the depth comes back to the top object's members; where to go on."""
        depth, limit, top = self.depth, self.max_depth, self.top_object
        for found in _IN_OBJECT.finditer(chunk, pos):
            token = chunk[found.start()]
            if token == 0x22:
                if found.group(1):
                    continue
                self.depth, self.in_string = depth, True  # the string runs past the chunk
                self.escape = found.end() < len(chunk)
                return len(chunk)
            if token == 0x5B or token == 0x7B:
                depth += 1
                if depth > limit:
                    self.depth = depth
                    raise JsonInputError(f"nested deeper than {limit} levels (at byte {self.offset + found.start()})")
            else:
                depth -= 1
                if top and depth <= 1:
                    self.depth = depth
                    return found.end()
        self.depth = depth
        return len(chunk)

    def _string_end(self, chunk: bytes, start: int, end: int, closed: bool) -> int:
        """The string's bytes from `start` read up to `end` (past its closing quote when `closed`); where to go on."""
        self._key_part(chunk[start:end - 1 if closed else end])
        if closed:
            self.in_string = False
            self._key_end()
            return end
        self.escape = end < len(chunk)  # stopped on a backslash that the next chunk completes
        if self.escape:
            self._key_part(chunk[end:end + 1])
        return len(chunk)

    def _key_part(self, data: bytes) -> None:
        if self.key is not None and len(self.key) < _KEY_BYTES:
            self.key += data[:_KEY_BYTES - len(self.key)]

    def _key_end(self) -> None:
        if self.key is None:
            return
        raw, self.key = bytes(self.key), None
        try:  # as the parser reads it ("\u0061" is "a")
            key: str | bytes = json.loads(b'"' + raw + b'"')
        except ValueError:
            key = raw
        if key in self.keys:
            shown = json.dumps(key) if isinstance(key, str) else repr(key)
            raise JsonInputError(f"the key {shown[:200]} is given twice")
        self.keys.add(key)


def check_depth(data: bytes, max_depth: int) -> None:
    """JsonShape's depth check over a whole text in memory."""
    JsonShape(max_depth, top_keys=False).feed(data)


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
    try:  # twice the limit: a document just past it is parsed, so that the walk below can name the path
        check_depth(data.encode("utf-8", "surrogatepass"), 2 * json_limits.max_depth)
    except JsonInputError:
        raise JsonInputError(f"$: nested deeper than {json_limits.max_depth} levels") from None
    try:
        document = json.loads(data.removeprefix("\ufeff"), **_number_hooks(json_limits.max_digits))
    except RecursionError:
        raise JsonInputError(f"$: nested deeper than {json_limits.max_depth} levels") from None
    except json.JSONDecodeError as error:
        raise JsonInputError(f"malformed JSON: {error}", error.lineno, error.colno, error.msg) from None
    _check(document, json_limits.max_depth)
    return document

"""Text that no database column can store: a NUL character or a lone surrogate (e.g. from undecodable bytes),
or more characters than the column holds; and bytes that are not text at all, said as where the file looks
damaged."""
from __future__ import annotations

import re

from django.db import models

_SURROGATE = re.compile("[\ud800-\udfff]")


def damaged(offset: int, line: int) -> str:
    """What is said of bytes that do not decode as UTF-8 text: where the damage starts (its byte offset from the
    file's start, 0 first) and on which line, not what the decoder expected."""
    return f"not text: the file looks damaged at byte {offset} (line {line})"


def decode_text(data: bytes) -> str:
    """`data` as UTF-8 text (a BOM dropped); ValueError saying where it looks damaged (see `damaged`)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(damaged(exc.start, data.count(b"\n", 0, exc.start) + 1)) from None


def unstorable(text: str) -> str | None:
    """What in `text` cannot be stored ("a NUL character (\\u0000)", ...), or None when it can be."""
    if "\x00" in text:
        return "a NUL character (\\u0000)"
    if _SURROGATE.search(text):
        return "a lone surrogate (\\ud800-\\udfff)"
    return None


def column_length(model: type[models.Model], field_name: str) -> int:
    """The most characters `model`'s field `field_name` holds (its max_length)."""
    field = model._meta.get_field(field_name)
    if not isinstance(field, models.Field) or field.max_length is None:
        raise TypeError(f"{model.__name__}.{field_name} is not a field with a max_length")
    return field.max_length

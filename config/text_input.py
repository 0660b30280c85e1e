"""Text that no database column can store: a NUL character or a lone surrogate (e.g. from undecodable bytes)."""
from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(text: str) -> str | None:
    """What in `text` cannot be stored ("a NUL character (\\u0000)", ...), or None when it can be."""
    if "\x00" in text:
        return "a NUL character (\\u0000)"
    if _SURROGATE.search(text):
        return "a lone surrogate (\\ud800-\\udfff)"
    return None

"""What the review page of the storyboard kinds shows: the photo strip in story order, a text under each photo."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def strip(photos: Sequence[dict[str, Any] | None], texts: Sequence[str]) -> list[dict[str, Any]]:
    """(photo payload, text) cards in story order; a missing photo or text stays empty rather than shifting."""
    count = max(len(photos), len(texts))
    return [{"position": i + 1, "photo": photos[i] if i < len(photos) else None,
             "text": texts[i] if i < len(texts) else ""} for i in range(count)]


def answer_of(answer: Any) -> dict[str, Any]:
    return answer if isinstance(answer, dict) else {}

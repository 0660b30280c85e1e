"""Template filters of the human evaluation pages: an output's name from its place on the page."""
from __future__ import annotations

from django import template

from ..task_kinds.common import output_label as label_of

register = template.Library()


@register.filter
def output_label(index: int, output_kind: str) -> str:
    """{{ forloop.counter0|output_label:options.output_kind }}: "Caption A", "Story 1", ..."""
    return label_of(output_kind, index)

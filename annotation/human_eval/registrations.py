"""Registers the test-set sources this capability owns at app start (AnnotationConfig.ready)."""
from __future__ import annotations

from .registry import register_test_set_source
from .sources import IMAGE_SET

register_test_set_source(IMAGE_SET)

"""Registers human evaluation at app start (evaluation.apps): its task kinds and their quality measures with the
crowd core, its part of the demo data (demo.py), and the test-set source it owns (collections) with its own
registry."""
from __future__ import annotations

from . import demo, quality, tasks  # noqa: F401  (the demo part; the kinds' quality measures; the scoring job's task)
from .registry import register_test_set_source
from .sources import IMAGE_SET
from .task_kinds import compare_outputs, rate_output, samples  # noqa: F401  (the task kinds, wizard samples)

register_test_set_source(IMAGE_SET)

"""Registers human evaluation with the crowd core at app start (annotation.apps)."""
from __future__ import annotations

from . import quality  # noqa: F401  (the quality measures of the two kinds)
from .task_kinds import compare_outputs, rate_output, samples  # noqa: F401  (the task kinds, wizard samples)

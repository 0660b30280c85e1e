"""TO BE IMPLEMENTED (see the task description)."""
from __future__ import annotations


def run_evaluation_by_id(evaluation_id: int) -> None:
    raise NotImplementedError

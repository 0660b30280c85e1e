"""TO BE IMPLEMENTED (see the task description)."""
from __future__ import annotations


def run_parse_job_by_id(job_id: int) -> None:
    raise NotImplementedError

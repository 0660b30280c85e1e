"""Statistics of human evaluations of generated captions and stories (absolute ratings and pairwise preferences):
`analyse(records)` returns the JSON-able analysis; docs/human-evaluation.md describes every statistic."""
from metrics.human_eval.analysis import analyse
from metrics.human_eval.records import RecordError

__all__ = ["RecordError", "analyse"]

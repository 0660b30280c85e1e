"""The leaderboard as a table of text cells (the console page and its tests read it): per system its automatic
scores, then per aspect its human figures with their intervals, side by side."""
from __future__ import annotations

from typing import Any

METRIC_LABELS = {"bleu4": "BLEU-4", "cider": "CIDEr", "meteor": "METEOR", "rouge_l": "ROUGE-L",
                 "compositional_recall": "Compositional Recall@K"}


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def _cell(value: float | None, low: float | None = None, high: float | None = None) -> dict[str, str]:
    return {"value": "–" if value is None else f"{value:.2f}" if low is not None or high is not None
            else f"{value:.3f}", "interval": _interval(low, high)}


def leaderboard_table(board: dict[str, Any]) -> dict[str, Any]:
    """{"automatic": [metric labels], "human": [(aspect, [column labels])], "rows": [{"system", "role", "cells":
    [{"value", "interval"}]}]}: automatic columns first, then each aspect's (mean rating; or Bradley-Terry score
    and win rate)."""
    kinds: dict[str, str] = {}
    for row in board["rows"]:
        for aspect, figures in row["human"].items():
            if figures is not None:
                kinds.setdefault(aspect, figures["kind"])
    human = [(aspect, ["mean rating"] if kinds.get(aspect) == "rating" else ["Bradley-Terry score", "win rate"])
             for aspect in board["aspects"]]
    rows = []
    for row in board["rows"]:
        cells = [_cell(row["automatic"].get(metric)) for metric in board["metrics"]]
        for aspect, columns in human:
            figures = row["human"].get(aspect)
            if figures is None:
                cells += [_cell(None)] * len(columns)
            elif figures["kind"] == "rating":
                cells.append(_cell(figures["mean"], figures["low"], figures["high"]))
            else:
                cells.append(_cell(figures["score"], figures["low"], figures["high"]))
                cells.append(_cell(figures.get("win_rate"), figures.get("win_low"), figures.get("win_high")))
        rows.append({"system": row["system"], "role": row["role"], "cells": cells})
    return {"automatic": [METRIC_LABELS.get(metric, metric) for metric in board["metrics"]], "human": human,
            "rows": rows}

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


def _human_columns(aspects: list[str], figures: list[dict[str, Any] | None]) -> list[tuple[str, list[str]]]:
    """Each aspect with its column labels (mean rating; or Bradley-Terry score and win rate), its kind read from
    the first system that has figures on it."""
    kinds: dict[str, str] = {}
    for human in figures:
        for aspect, found in (human or {}).items():
            if found is not None:
                kinds.setdefault(aspect, found["kind"])
    return [(aspect, ["mean rating"] if kinds.get(aspect) == "rating" else ["Bradley-Terry score", "win rate"])
            for aspect in aspects]


def _human_cells(human: dict[str, Any] | None, columns: list[tuple[str, list[str]]]) -> list[dict[str, str]]:
    cells = []
    for aspect, labels in columns:
        figures = (human or {}).get(aspect)
        if figures is None:
            cells += [_cell(None)] * len(labels)
        elif figures["kind"] == "rating":
            cells.append(_cell(figures["mean"], figures["low"], figures["high"]))
        else:
            cells.append(_cell(figures["score"], figures["low"], figures["high"]))
            cells.append(_cell(figures.get("win_rate"), figures.get("win_low"), figures.get("win_high")))
    return cells


def leaderboard_table(board: dict[str, Any]) -> dict[str, Any]:
    """{"automatic": [metric labels], "human": [(aspect, [column labels])], "rows": [{"system", "role", "cells":
    [{"value", "interval"}]}]}: automatic columns first, then each aspect's (mean rating; or Bradley-Terry score
    and win rate)."""
    human = _human_columns(board["aspects"], [row["human"] for row in board["rows"]])
    rows = [{"system": row["system"], "role": row["role"],
             "cells": [_cell(row["automatic"].get(metric)) for metric in board["metrics"]]
             + _human_cells(row["human"], human)}
            for row in board["rows"]]
    return {"automatic": [METRIC_LABELS.get(metric, metric) for metric in board["metrics"]], "human": human,
            "rows": rows}


def test_set_table(board: dict[str, Any]) -> dict[str, Any]:
    """The leaderboard of a test set (selectors.test_set_leaderboard) as a table: {"automatic": [metric labels],
    "evaluations": [{"id", "name", "design", "human": [(aspect, [column labels])], "width"}], "rows": [{"system",
    "role", "cells"}]}: automatic columns first, then a group per analysed evaluation, its aspects' columns as on
    the evaluation's own leaderboard ("–" where the system was not judged there)."""
    groups = []
    for evaluation in board["evaluations"]:
        if not evaluation["aspects"]:
            continue
        human = _human_columns(evaluation["aspects"], [row["human"][evaluation["name"]] for row in board["rows"]])
        groups.append({"id": evaluation["id"], "name": evaluation["name"], "design": evaluation["design"],
                       "human": human, "width": sum(len(labels) for _, labels in human)})
    rows = [{"system": row["system"], "role": row["role"],
             "cells": [_cell(row["automatic"].get(metric)) for metric in board["metrics"]]
             + [cell for group in groups for cell in _human_cells(row["human"][group["name"]], group["human"])]}
            for row in board["rows"]]
    return {"automatic": [METRIC_LABELS.get(metric, metric) for metric in board["metrics"]], "evaluations": groups,
            "rows": rows}

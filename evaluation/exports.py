"""The exports of a human evaluation: its raw judgements as JSON Lines and CSV (generators of text, one judgement
at a time, so that a response or a file is written in bounded memory), the stored analysis as JSON, and the HTML
report. The API, the console and `manage.py report_human_eval` serve or write these same texts."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from metrics.human_eval.report_html import human_eval_report_html

from .aspects import ASPECTS
from .listing import SIMULATED, is_simulated
from .models import Design, HumanEvaluation
from .selectors import EXPORT_COLUMNS, judgement_rows, leaderboard, stored_analysis

FILES = ("report.html", "analysis.json", "judgements.jsonl", "judgements.csv")


def judgements_jsonl(evaluation: HumanEvaluation) -> Iterator[str]:
    """One JSON object per line and judgement, the columns of EXPORT_COLUMNS (empty ones as null)."""
    for row in judgement_rows(evaluation):
        yield json.dumps(row, ensure_ascii=False) + "\n"


def judgements_csv(evaluation: HumanEvaluation) -> Iterator[str]:
    """A header line, then one line per judgement (empty cells for null)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")

    def line(values: list[Any]) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(values)
        return buffer.getvalue()

    yield line(list(EXPORT_COLUMNS))
    for row in judgement_rows(evaluation):
        yield line(["" if row[column] is None else row[column] for column in EXPORT_COLUMNS])


def analysis_document(evaluation: HumanEvaluation) -> dict[str, Any]:
    """The stored analysis with what it describes: the evaluation, its design and aspects, when it was analysed
    and on how many judgements."""
    return {"evaluation": evaluation.name, "test_set": evaluation.test_set, "output_kind": evaluation.output_kind,
            "design": evaluation.design, "aspects": evaluation.aspects, "seed": evaluation.seed,
            "analysed_at": evaluation.analysed_at.isoformat() if evaluation.analysed_at else None,
            "analysed_judgements": evaluation.analysed_judgements, "simulated": is_simulated(evaluation),
            "analysis": stored_analysis(evaluation) or None}


def analysis_json(evaluation: HumanEvaluation) -> str:
    return json.dumps(analysis_document(evaluation), ensure_ascii=False, indent=1) + "\n"


def report_html(evaluation: HumanEvaluation) -> str:
    """The self-contained HTML report of the stored analysis, with the automatic scores of the leaderboard."""
    board = leaderboard(evaluation)
    automatic = {row["system"]: row["automatic"] for row in board["rows"]}
    seed = (evaluation.analysis or {}).get("settings", {}).get("seed")
    seed_text = evaluation.seed if seed is None else f"{evaluation.seed} (generator seed {seed})"
    description = {"test_set": evaluation.test_set_label or evaluation.test_set,
                   "design": evaluation.get_design_display(), "output_kind": evaluation.get_output_kind_display(),
                   "judges": evaluation.judges, "seed": seed_text,
                   "analysed_at": evaluation.analysed_at.strftime("%Y-%m-%d %H:%M UTC") if evaluation.analysed_at
                   else None, "judgements": evaluation.analysed_judgements,
                   "simulated": f"yes: {SIMULATED}" if is_simulated(evaluation) else None}
    asked = [ASPECTS[name] for name in evaluation.aspects or [] if name in ASPECTS]
    questions = {aspect.name: aspect.comparison if evaluation.design == Design.PAIRWISE else aspect.question
                 for aspect in asked}
    return human_eval_report_html(stored_analysis(evaluation), title=f"Human evaluation: {evaluation.name}",
                                  description=description, automatic=automatic, questions=questions,
                                  scales={aspect.name: len(aspect.scale) for aspect in asked})


def write_exports(evaluation: HumanEvaluation, directory: Path) -> list[Path]:
    """The four files (FILES) in `directory` (made if missing); the raw judgements written as they are read."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / name for name in FILES]
    paths[0].write_text(report_html(evaluation), encoding="utf-8")
    paths[1].write_text(analysis_json(evaluation), encoding="utf-8")
    for path, lines in ((paths[2], judgements_jsonl(evaluation)), (paths[3], judgements_csv(evaluation))):
        with path.open("w", encoding="utf-8", newline="") as out:
            out.writelines(lines)
    return paths

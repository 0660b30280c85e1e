"""Ranked submissions: a system's rankings (JSON) or score matrix (.npy, .npz, CSV) on a test pool, checked
(every problem named by its line or index; nothing is stored when there is one), stored, evaluated with
metrics.ranking, and its top-k pairs queued for judging."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction

from common.json_input import JsonInputError, limits, parse_json
from common.safe_archives import ReadRefused, text_lines
from common.safe_arrays import ArrayRefused, read_array
from metrics import ranking

from ..models import RankingSubmission, TestPool

DEFAULT_TOP_K = 10
MAX_ERRORS = 50  # a wholly wrong file would name every cell
DIRECTIONS = ("description", "search")


class SubmissionError(ValueError):
    """A submission with problems; `errors` names each one (line or index)."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors[:5]) + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""))
        self.errors = errors


@dataclass
class PoolIndex:
    """A pool's ids and matrix indices, as a submission is checked against them."""

    image_ids: list[int]
    caption_ids: list[int]
    caption_image: np.ndarray  # per caption (column), the row of its original image

    @classmethod
    def of(cls, pool: TestPool) -> PoolIndex:
        image_ids = list(pool.pool_images.order_by("index").values_list("image_id", flat=True))
        row = {image_id: n for n, image_id in enumerate(image_ids)}
        captions = list(pool.pool_captions.order_by("index").values_list("description_id", "image_id"))
        return cls(image_ids, [d for d, _ in captions], np.array([row[i] for _, i in captions], dtype=np.int64))

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.image_ids), len(self.caption_ids)


@dataclass
class Scores:
    """Score matrices per direction (None: the direction was not submitted) and generated captions."""

    description: np.ndarray | None
    search: np.ndarray | None
    captions: dict[int, str] = field(default_factory=dict)

    def of(self, direction: str) -> np.ndarray | None:
        return self.description if direction == "description" else self.search

    def evaluate(self, caption_image: np.ndarray, relevant: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
        """metrics.ranking.evaluate_matrix per submitted direction; a score matrix serving both directions is
        evaluated once."""
        evaluated: dict[int, dict[str, Any]] = {}
        metrics: dict[str, dict[str, Any]] = {}
        for direction in DIRECTIONS:
            matrix = self.of(direction)
            if matrix is None:
                continue
            if id(matrix) not in evaluated:
                evaluated[id(matrix)] = ranking.evaluate_matrix(matrix, caption_image, relevant)
            metrics[direction] = evaluated[id(matrix)][direction]
        return metrics


def parse_submission(content: bytes, name: str, index: PoolIndex) -> Scores:
    """Read a submission; raises SubmissionError naming every problem."""
    suffix = PurePath(name).suffix.lower()
    if suffix == ".json":
        return _parse_json(content, index)
    if suffix in (".npy", ".npz"):
        return _matrix_scores(_load_numpy(content, name, index), index)
    if suffix in (".csv", ".txt"):
        return _matrix_scores(_load_csv(content, index), index)
    raise SubmissionError([f"{name}: unknown format (send .json rankings, or a .npy, .npz or .csv score matrix)"])


def _load_numpy(content: bytes, name: str, index: PoolIndex) -> np.ndarray:
    """The score matrix, its header checked first (numeric, the pool's shape, at most RANKING_MAX_BYTES) so that
    nothing larger than the pool's matrix is ever allocated (common/safe_arrays.py)."""
    try:
        loaded = read_array(content, PurePath(name).name, index.shape, settings.RANKING_MAX_BYTES,
                            "(images, captions)")
    except (ArrayRefused, OSError) as exc:
        raise SubmissionError([str(exc)]) from None
    return loaded.astype(np.float64, copy=False)


def _load_csv(content: bytes, index: PoolIndex) -> np.ndarray:
    """One line per image, one value per caption: read line by line into the pool's matrix (never more rows
    than the pool has images)."""
    errors: list[str] = []
    n_images, n_captions = index.shape
    matrix = np.full(index.shape, np.nan)
    rows = 0
    try:
        for line_no, line in text_lines(io.BytesIO(content), "the CSV"):
            if len(errors) >= MAX_ERRORS:
                break
            cells = next(csv.reader([line]), [])
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != n_captions:
                errors.append(f"line {line_no}: {len(cells)} values, expected {n_captions} (one per caption)")
                continue
            for col, cell in enumerate(cells if rows < n_images else ()):
                try:
                    matrix[rows, col] = float(cell)
                except ValueError:
                    errors.append(f"line {line_no}, column {col + 1}: not a number: {cell.strip()[:30]!r}")
            rows += 1
    except ReadRefused as exc:
        raise SubmissionError([str(exc).removeprefix("the CSV ")]) from None
    if rows != n_images and len(errors) < MAX_ERRORS:
        errors.append(f"{rows} lines, expected {n_images} (one per image)")
    if errors:
        raise SubmissionError(errors[:MAX_ERRORS])
    return matrix


def _matrix_scores(matrix: np.ndarray, index: PoolIndex) -> Scores:
    if matrix.shape != index.shape:
        raise SubmissionError([f"the matrix has shape {matrix.shape}, expected {index.shape} (images, captions)"])
    bad = np.argwhere(~np.isfinite(matrix))
    if len(bad):
        errors = [f"row {i}, column {j}: {matrix[i, j]} (not a finite number)" for i, j in bad[:MAX_ERRORS]]
        if len(bad) > MAX_ERRORS:
            errors.append(f"... {len(bad)} cells in all")
        raise SubmissionError(errors)
    return Scores(matrix, matrix)


def _parse_json(content: bytes, index: PoolIndex) -> Scores:
    try:  # nesting, numbers, text: checked as every JSON the platform reads
        doc = parse_json(content, limits(max_bytes=settings.RANKING_MAX_BYTES))
    except JsonInputError as exc:
        raise SubmissionError([f"not JSON: {exc}"]) from None
    if not isinstance(doc, dict):
        raise SubmissionError(["the JSON must be an object with \"description\" and/or \"search\" rankings"])
    unknown = sorted(set(doc) - {*DIRECTIONS, "captions"})
    errors = [f"unknown key \"{k}\"" for k in unknown]
    if not any(d in doc for d in DIRECTIONS):
        errors.append("no rankings: give \"description\" (per image, caption ids) and/or \"search\" "
                      "(per caption, image ids)")
    image_row = {image_id: n for n, image_id in enumerate(index.image_ids)}
    caption_col = {caption_id: n for n, caption_id in enumerate(index.caption_ids)}
    description = _rankings(doc, "description", image_row, caption_col, "image", "caption", errors)
    search = _rankings(doc, "search", caption_col, image_row, "caption", "image", errors)
    captions = _generated(doc, image_row, errors)
    if errors:
        raise SubmissionError(errors[:MAX_ERRORS])
    s_description, s_search = ranking.scores_from_rankings(index.shape[0], index.shape[1], description, search)
    return Scores(s_description if description is not None else None,
                  s_search if search is not None else None, captions)


def _rankings(doc: dict[str, Any], direction: str, queries: dict[int, int], items: dict[int, int],
              query_name: str, item_name: str, errors: list[str]) -> dict[int, list[int]] | None:
    """`{"<query id>": [item ids, best first]}` as matrix indices; problems appended to `errors`."""
    if direction not in doc:
        return None
    given = doc[direction]
    if not isinstance(given, dict):
        errors.append(f"\"{direction}\" must map each {query_name} id to a list of {item_name} ids")
        return None
    out: dict[int, list[int]] = {}
    keys: dict[int, str] = {}  # query id -> the key that gave it ("7" and "07" are one image)
    for key, ranked in given.items():
        where = f"{direction}[\"{key}\"]"
        query = _as_id(key)
        if query is None or query not in queries:
            errors.append(f"{where}: unknown {query_name} id {key!r} (not in the pool)")
            continue
        if query in keys:
            errors.append(f"{where}: {query_name} id {query} is ranked twice (also as \"{keys[query]}\")")
            continue
        keys[query] = key
        if not isinstance(ranked, list):
            errors.append(f"{where}: not a list of {item_name} ids")
            continue
        seen: set[int] = set()
        indices: list[int] = []
        for position, item in enumerate(ranked):
            item_id = _as_id(item)
            if item_id is None or item_id not in items:
                errors.append(f"{where}[{position}]: unknown {item_name} id {item!r} (not in the pool)")
            elif item_id in seen:
                errors.append(f"{where}[{position}]: {item_name} id {item_id} listed twice")
            else:
                seen.add(item_id)
                indices.append(items[item_id])
        out[queries[query]] = indices
    missing = [q for q in queries if q not in keys]
    if missing:
        shown = ", ".join(str(m) for m in missing[:20]) + (" ..." if len(missing) > 20 else "")
        errors.append(f"\"{direction}\": {len(missing)} {query_name}(s) of the pool not ranked: {shown}")
    return out


def _generated(doc: dict[str, Any], image_row: dict[int, int], errors: list[str]) -> dict[int, str]:
    given = doc.get("captions", {})
    if not isinstance(given, dict):
        errors.append("\"captions\" must map image ids to one generated caption each")
        return {}
    out: dict[int, str] = {}
    keys: dict[int, str] = {}
    for key, text in given.items():
        image_id = _as_id(key)
        if image_id is None or image_id not in image_row:
            errors.append(f"captions[\"{key}\"]: unknown image id {key!r} (not in the pool)")
            continue
        if image_id in keys:
            errors.append(f"captions[\"{key}\"]: image id {image_id} is given twice (also as \"{keys[image_id]}\")")
            continue
        keys[image_id] = key
        if not isinstance(text, str) or not text.strip():
            errors.append(f"captions[\"{key}\"]: not a caption text")
        else:
            out[image_id] = text.strip()
    return out


def _as_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def evaluate_scores(scores: Scores, index: PoolIndex, k: int = DEFAULT_TOP_K) -> tuple[dict, dict]:
    """The automatic metrics per direction (metrics.ranking.evaluate_matrix) and the top-k pairs ([row, column]
    indices) per direction."""
    metrics: dict[str, Any] = scores.evaluate(index.caption_image)
    top_pairs: dict[str, list[list[int]]] = {}
    if scores.description is not None:
        best = ranking.top_k(scores.description, k, axis=1)  # per image, its best captions
        top_pairs["description"] = [[int(row), int(col)] for row in range(best.shape[0]) for col in best[row]]
    if scores.search is not None:
        best = ranking.top_k(scores.search, k, axis=0)  # per caption, its best images
        top_pairs["search"] = [[int(row), int(col)] for col in range(best.shape[0]) for row in best[col]]
    return metrics, top_pairs


def submit_ranking(pool: TestPool, system: str, content: bytes, name: str, *, k: int = DEFAULT_TOP_K,
                   created_by: Any = None) -> RankingSubmission:
    """Check, store, evaluate and pool a system's submission. Raises SubmissionError (nothing stored)."""
    system = system.strip()
    if not system:
        raise SubmissionError(["the submission needs a system name"])
    if RankingSubmission.objects.filter(pool=pool, system=system).exists():
        raise SubmissionError([f"system '{system}' has already submitted to pool '{pool.name}'"])
    index = PoolIndex.of(pool)
    scores = parse_submission(content, name, index)
    metrics, top_pairs = evaluate_scores(scores, index, k)
    if scores.captions:
        metrics["generated_captions"] = len(scores.captions)
    from .leaderboards import submission_added
    from .pooled_judging import queue_pooled_pairs

    with transaction.atomic():
        submission = RankingSubmission(pool=pool, system=system, original_name=PurePath(name).name[:255],
                                       created_by=created_by, top_pairs=top_pairs, metrics=metrics)
        submission.file.save(f"{pool.pk}-{PurePath(name).name}", ContentFile(content), save=False)
        submission.save()
        queue_pooled_pairs(submission)
        submission_added(submission)  # its leaderboard figures are computed and stored in the background
    return submission


def submission_scores(submission: RankingSubmission, index: PoolIndex) -> Scores:
    """The stored submission's score matrices (as checked when it was submitted)."""
    with submission.file.open("rb") as handle:
        content = handle.read()
    return parse_submission(content, submission.original_name or submission.file.name, index)

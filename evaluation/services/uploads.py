"""A system's outputs on an evaluation's test set, uploaded as a file: captions in the COCO results format
(`[{"image_id": 391895, "caption": "..."}, ...]`, image_id a number or a string, matched to the items' names),
stories in the VIST challenge format (metrics.story_eval: `output_stories[{album_id, photo_sequence,
story_text_normalized}]`, matched to "<album_id>:<photo id>,<photo id>,...").

All or nothing: every problem is named by its entry (`[12]: image_id 999 is not in the test set`), and nothing is
stored when there is one. Every item needs exactly one output; a system name is used once per evaluation; outputs
are taken while the evaluation is a draft. The file is read whole under RUN_MAX_BYTES with the checks of every JSON
the platform reads (common.json_input: depth, numbers, text, keys given twice)."""
from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from common.json_input import JsonInputError, limits, parse_json
from metrics.story_eval import SubmissionError, read_submission

from ..models import EvaluatedSystem, HumanEvaluation, OutputKind, SystemOutput
from .scoring import queue_scoring

MAX_ERRORS = 50
MISSING_LISTED = 10


class UploadError(ValueError):
    """An upload refused; `errors` names each problem (its entry)."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors[:5]) + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""))
        self.errors = errors


class _Errors(list[str]):
    def add(self, message: str) -> None:
        if len(self) < MAX_ERRORS:
            self.append(message)
        elif len(self) == MAX_ERRORS:
            self.append("... (more problems not listed)")


def _captions(document: Any, names: set[str], errors: _Errors) -> dict[str, str]:
    if not isinstance(document, list):
        errors.add('the file must be a JSON list of {"image_id": ..., "caption": "..."} (the COCO results format)')
        return {}
    outputs: dict[str, str] = {}
    first: dict[str, int] = {}
    for index, entry in enumerate(document):
        where = f"[{index}]"
        if not isinstance(entry, dict) or "image_id" not in entry or "caption" not in entry:
            errors.add(f"{where}: expected an object with image_id and caption")
            continue
        image_id, caption = entry["image_id"], entry["caption"]
        if isinstance(image_id, bool) or not isinstance(image_id, int | str) or not str(image_id).strip():
            errors.add(f"{where}: image_id must be a whole number or a non-empty string, got {json.dumps(image_id)}")
            continue
        name = str(image_id).strip()
        if not isinstance(caption, str) or not caption.strip():
            errors.add(f"{where} (image {name}): the caption must be a non-empty string")
            continue
        if name not in names:
            errors.add(f"{where}: image_id {name} is not in the test set")
            continue
        if name in first:
            errors.add(f"{where}: image_id {name} has a caption already (at [{first[name]}]): one per image")
            continue
        first[name] = index
        outputs[name] = caption.strip()
    return outputs


def _stories(document: Any, names: set[str], errors: _Errors) -> dict[str, str]:
    try:
        stories = read_submission(document)  # a bad entry fails the whole file: every index stays its entry's
    except SubmissionError as exc:
        for message in exc.errors:
            errors.add(message)
        return {}
    outputs: dict[str, str] = {}
    for index, story in enumerate(stories):
        name = f"{story.album_id}:{','.join(story.photo_sequence)}"
        if name not in names:
            errors.add(f"output_stories[{index}]: the photo sequence {name} is not in the test set")
        elif not story.text.strip():
            errors.add(f"output_stories[{index}] ({name}): the story is empty")
        else:
            outputs[name] = story.text
    return outputs


def read_outputs(evaluation: HumanEvaluation, content: bytes, file_name: str = "") -> dict[str, str]:
    """Item name -> output text of the upload; UploadError naming every problem (the file, then each entry)."""
    errors = _Errors()
    names = list(evaluation.items.order_by("position").values_list("name", flat=True))
    try:
        document = parse_json(content, limits(max_bytes=settings.RUN_MAX_BYTES))
    except JsonInputError as exc:
        raise UploadError([f"{file_name or 'the file'}: not valid JSON: {exc}"]) from None
    read = _captions if evaluation.output_kind == OutputKind.CAPTION else _stories
    outputs = read(document, set(names), errors)
    if not errors:
        missing = [name for name in names if name not in outputs]
        if missing:
            shown = ", ".join(missing[:MISSING_LISTED]) + (" ..." if len(missing) > MISSING_LISTED else "")
            errors.add(f"{len(missing)} of the {len(names)} items of the test set have no output: {shown}")
    if errors:
        raise UploadError(list(errors))
    return {name: outputs[name] for name in names}


def upload_outputs(evaluation: HumanEvaluation, *, system: str, content: bytes,
                   file_name: str = "") -> EvaluatedSystem:
    """Store a system's outputs (one per item) and queue their automatic scoring (services.scoring: against the
    references, and the registered providers' metrics); UploadError (nothing stored)."""
    system = (system or "").strip()
    if evaluation.status != HumanEvaluation.Status.DRAFT:
        raise UploadError([f"evaluation '{evaluation.name}' is launched: outputs are taken while it is a draft"])
    if not system:
        raise UploadError(["system: give the system's name"])
    if len(system) > 200:
        raise UploadError(["system: at most 200 characters"])
    if evaluation.systems.filter(name=system).exists():
        raise UploadError([f"system: '{system}' is already in evaluation '{evaluation.name}'"])
    outputs = read_outputs(evaluation, content, file_name)
    items = dict(evaluation.items.values_list("name", "pk"))
    try:
        with transaction.atomic():
            if HumanEvaluation.objects.select_for_update().get(pk=evaluation.pk).status != HumanEvaluation.Status.DRAFT:
                raise UploadError([f"evaluation '{evaluation.name}' was launched meanwhile: nothing stored"])
            stored = EvaluatedSystem.objects.create(evaluation=evaluation, name=system, file_name=file_name[:300])
            SystemOutput.objects.bulk_create([SystemOutput(system=stored, item_id=items[name], text=text)
                                              for name, text in outputs.items()])
            queue_scoring(stored)
    except IntegrityError:
        raise UploadError([f"system: '{system}' is already in evaluation '{evaluation.name}'"]) from None
    stored.refresh_from_db()  # scored already when the job ran in-process (no broker), else queued
    return stored



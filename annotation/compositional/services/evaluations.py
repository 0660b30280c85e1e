"""Evaluations of a system's generated captions for compositional generalization (Nikolaus et al.): the upload is
checked (every problem named; nothing stored when there is one), stored as a CompositionalEvaluation, then scored by
a background job (Celery; in-process without a broker): the generated captions are parsed by the
COMPOSITIONAL_PARSER (each distinct caption once), matched against the held-out pairs, and scored for Recall@K per
pair, per category, on average and by reference agreement, with BLEU-4, METEOR and CIDEr of the first caption.

Uploads, in rank order (best first), K captions per evaluation image:

- the COCO results format: ``[{"image_id": 391895, "caption": "a man riding a bike"}, ...]`` (an image's entries
  in rank order);
- or an object: ``{"391895": ["a man riding a bike", ...], ...}``.

Images are named by their COCO id when they have one (else by their key on the platform). Every evaluation image of
the chosen pairs must have at least one caption; an image with fewer than K captions is scored with the captions it
has (the report says how many such images there are), and captions past the K-th are not read. Images of the
corpus that are not evaluation images are accepted and not scored; images the corpus does not know are refused.

The evaluation images of each pair are those of the compositional export given the same options: `split_images`
over the corpus (every description, or the approved describe_image descriptions of the chosen campaigns) with the
same split seed and eval share. As the export does, an upload is refused while some caption of the corpus has no
parse by the current parser.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.json_input import JsonInputError, limits, parse_json
from metrics.compositional.matching import PairMatcher
from metrics.compositional.parser import load_parser
from metrics.compositional.recall import DEFINITIONS, caption_metrics, compositional_recall
from metrics.compositional.report_html import compositional_report_html
from metrics.compositional.types import ConceptPair
from metrics.meteor import Meteor, MeteorError
from mturk.jobs import claim, dispatch, finish, lease
from mturk.models import Campaign

from ..models import CompositionalEvaluation
from ..selectors import UnknownPairs, corpus_descriptions, stored_pairs
from .evaluation_corpus import CorpusCheck, sample_keys

log = logging.getLogger(__name__)

DEFAULT_EVAL_SHARE = 0.5  # as split_images and the compositional export
_SHARE_ERROR = "eval_share: must be a number between 0 and 1 (both excluded)"
MAX_ERRORS = 50  # a wholly wrong file would name every entry
MAX_K = 100
EXAMPLES = 3  # recalled captions kept per pair for the report
PARSE_BATCH = 500  # captions parsed between two progress updates
# Uploads of generated captions (COCO val2014: ~40k images x 5 captions, ~15 MB); the setting can raise it.
MAX_BYTES: int = getattr(settings, "COMPOSITIONAL_MAX_BYTES", 100 * 1024 * 1024)
OPEN = (CompositionalEvaluation.Status.QUEUED, CompositionalEvaluation.Status.RUNNING)
Progress = Callable[[int, int], None]


class EvaluationRejected(ValueError):
    """An upload with problems; `errors` names each one (index or key)."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors[:5]) + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""))
        self.errors = errors


class EvaluationFailed(RuntimeError):
    """The stored evaluation cannot be scored any more (the corpus or the pairs changed since it was submitted)."""


class _Errors(list[str]):
    def add(self, message: str) -> None:
        if len(self) < MAX_ERRORS:
            self.append(message)
        elif len(self) == MAX_ERRORS:
            self.append("... (more problems not listed)")


def _caption_problem(caption: Any) -> str | None:
    if not isinstance(caption, str):
        return "the caption is not a string"
    if not caption.strip():
        return "the caption is empty"
    return None


def _image_key(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    key = str(value).strip()
    return key or None


def read_generated(content: bytes, errors: _Errors) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The upload as image key -> captions (rank order), and where each image was first named (for messages)."""
    try:
        document = parse_json(content, limits(max_bytes=MAX_BYTES))
    except JsonInputError as exc:
        errors.add(f"not valid JSON: {exc}")
        return {}, {}
    generated: dict[str, list[str]] = {}
    where: dict[str, str] = {}
    if isinstance(document, list):
        for index, entry in enumerate(document):
            if not isinstance(entry, dict):
                errors.add(f"[{index}]: expected an object with image_id and caption")
                continue
            key = _image_key(entry.get("image_id"))
            if key is None:
                errors.add(f"[{index}]: image_id must be a whole number or a non-empty string")
                continue
            if (problem := _caption_problem(entry.get("caption"))) is not None:
                errors.add(f"[{index}] (image {key}): {problem}")
                continue
            generated.setdefault(key, []).append(entry["caption"].strip())
            where.setdefault(key, f"[{index}]")
    elif isinstance(document, dict):
        for raw_key, captions in document.items():
            key = _image_key(raw_key)
            if key is None:
                errors.add(f"{json.dumps(raw_key)}: the image id is empty")
                continue
            if key in where:  # " 307" beside "307": the same image named twice
                errors.add(f"{json.dumps(raw_key)}: image {key} is named twice (also as {where[key]})")
                continue
            where[key] = json.dumps(raw_key)
            if not isinstance(captions, list) or not captions:
                errors.add(f"{json.dumps(raw_key)}: expected a non-empty list of captions")
                continue
            for index, caption in enumerate(captions):
                if (problem := _caption_problem(caption)) is not None:
                    errors.add(f"{json.dumps(raw_key)}[{index}]: {problem}")
            generated[key] = [c.strip() for c in captions if isinstance(c, str)]
    else:
        errors.add('expected a list of {"image_id": ..., "caption": ...} (the COCO results format) or an object '
                   'mapping image ids to lists of captions')
    if not generated and not errors:
        errors.add("the file holds no caption")
    return generated, where


def chosen_pairs(pairs: Sequence[str] | None, group: str, errors: _Errors) -> list[ConceptPair]:
    """The named pairs, or the pairs of the held-out group, or every stored pair."""
    names = [name.strip() for name in pairs or [] if name.strip()]
    group = (group or "").strip()
    if names and group:
        errors.add("give either pairs or a held-out group, not both")
        return []
    try:
        if names:
            return stored_pairs(names)
        found = stored_pairs(None)
    except UnknownPairs as exc:
        errors.add(str(exc))
        return []
    if group:
        found = [pair for pair in found if pair.heldout_group == group]
        if not found:
            errors.add(f"no concept pair is in the held-out group '{group}'")
    elif not found:
        errors.add("no concept pair is defined: define pairs or load the seed's pairs first")
    return found


def submit_evaluation(*, system: str, content: bytes, file_name: str = "", pairs: Sequence[str] | None = None,
                      group: str = "", k: int = 5, split_seed: str = "compositional", user: Any = None,
                      campaigns: Sequence[Campaign] | None = None, eval_share: float = DEFAULT_EVAL_SHARE,
                      background: bool = True) -> CompositionalEvaluation:
    """Check the upload's format and the chosen pairs (EvaluationRejected naming every problem; nothing stored), store
    it, and queue the evaluation once this transaction commits; the job checks the images against the corpus and
    fails naming each problem. `background=False`: the caller runs `run_evaluation` itself, and the images are
    checked against the corpus here too, before anything is stored. `campaigns`, `split_seed` and `eval_share`
    choose the corpus and the split as the compositional export does (every description by default)."""
    errors = _Errors()
    chosen_campaigns = list(campaigns or [])
    if isinstance(eval_share, bool) or not isinstance(eval_share, int | float) or not 0 < eval_share < 1:
        errors.add(_SHARE_ERROR)
    system = (system or "").strip()
    if not system:
        errors.add("system: give the system's name")
    elif len(system) > 200:
        errors.add("system: at most 200 characters")
    if not isinstance(k, int) or not 1 <= k <= MAX_K:
        errors.add(f"k: must be a whole number from 1 to {MAX_K}")
    split_seed = (split_seed or "").strip() or "compositional"
    chosen = chosen_pairs(pairs, group, errors)
    generated, where = read_generated(content, errors)
    # The images are checked against the corpus (a scan of every caption's parse: seconds at COCO's size) here only
    # when the caller runs the evaluation itself; a queued evaluation checks them in its job, which fails naming
    # the same problems. They are checked even when entries are wrong.
    if not background and chosen and where and not errors.count(_SHARE_ERROR):
        for problem in CorpusCheck.of(chosen, chosen_campaigns, split_seed, eval_share, generated, where).problems:
            errors.add(problem)
    if errors:
        raise EvaluationRejected(list(errors))
    with transaction.atomic():
        evaluation = CompositionalEvaluation.objects.create(
            system=system, k=k, pairs=[pair.name for pair in chosen], generated=generated,
            created_by=user if getattr(user, "is_authenticated", False) else None,
            result={"request": {"file_name": file_name, "group": (group or "").strip(), "split_seed": split_seed,
                                "eval_share": eval_share, "campaigns": [c.pk for c in chosen_campaigns]}})
        if background:
            # robust: without a broker the job runs here, and a failed run is recorded on the evaluation, not raised
            # at the caller, who asked for it to be queued
            dispatch(evaluation, robust=True)
    return evaluation


def run_evaluation(evaluation: CompositionalEvaluation, progress: Progress | None = None) -> CompositionalEvaluation:
    """Score the stored upload (from queued, or running when a killed job is redelivered: scoring again is
    harmless); done with the result, or failed with the error (and the error raised again)."""
    if not claim(evaluation, done=0):
        return evaluation
    request = evaluation.result.get("request", {})
    try:
        with lease(evaluation):
            result = _evaluate(evaluation, request, progress)
    except Exception as exc:
        log.exception("compositional evaluation %s failed", evaluation.pk)
        _finish(evaluation, CompositionalEvaluation.Status.FAILED, {"request": request},
                f"{type(exc).__name__}: {exc}")
        raise
    return _finish(evaluation, CompositionalEvaluation.Status.DONE, {"request": request, **result}, "")


def run_evaluation_by_id(evaluation_id: int) -> None:
    evaluation = CompositionalEvaluation.objects.filter(pk=evaluation_id).first()
    if evaluation is None:
        log.warning("compositional evaluation %s no longer exists", evaluation_id)
        return
    run_evaluation(evaluation)


def _finish(evaluation: CompositionalEvaluation, status: str, result: dict[str, Any],
            error: str) -> CompositionalEvaluation:
    evaluation.status, evaluation.result, evaluation.error = status, result, error
    evaluation.finished_at = timezone.now()
    finish(evaluation, ["status", "result", "error", "finished_at"])
    return evaluation


def _parse_all(evaluation: CompositionalEvaluation, texts: list[str], matcher: PairMatcher,
               progress: Progress | None, read: int = 0) -> tuple[dict[str, frozenset[str]], str]:
    """The pairs each distinct text contains, parsed in batches with the done count saved after each (after the
    `read` corpus captions; `progress` counts the generated captions alone)."""
    parser = load_parser(settings.COMPOSITIONAL_PARSER)
    evaluation.total, evaluation.done = read + len(texts), read
    evaluation.save(update_fields=["total", "done"])
    matched: dict[str, frozenset[str]] = {}
    for start in range(0, len(texts), PARSE_BATCH):
        batch = texts[start:start + PARSE_BATCH]
        for text, parse in zip(batch, parser.parse(batch), strict=True):
            matched[text] = matcher.matches(parse)
        evaluation.done, evaluation.heartbeat_at = read + start + len(batch), timezone.now()
        evaluation.save(update_fields=["done", "heartbeat_at"])
        if progress is not None:
            progress(start + len(batch), len(texts))
    return matched, parser.name


def _evaluate(evaluation: CompositionalEvaluation, request: dict[str, Any],
              progress: Progress | None) -> dict[str, Any]:
    pairs = stored_pairs(evaluation.pairs)
    seed = request.get("split_seed") or "compositional"
    share = request.get("eval_share", DEFAULT_EVAL_SHARE)
    campaign_ids = request.get("campaigns", [])
    campaigns = list(Campaign.objects.filter(pk__in=campaign_ids))
    if len(campaigns) != len(campaign_ids):
        raise EvaluationFailed("a campaign of the corpus was deleted since the upload")
    k, uploaded = evaluation.k, evaluation.generated
    corpus = corpus_descriptions(campaigns or None).count()  # progress: the corpus's captions read, then the
    evaluation.total, evaluation.done = corpus, 0            # distinct generated captions parsed
    evaluation.save(update_fields=["total", "done"])

    def scanned(read: int) -> None:
        evaluation.done = read
        evaluation.save(update_fields=["done"])

    check = CorpusCheck.of(pairs, campaigns, seed, share, uploaded, with_text=True, progress=scanned)
    if check.problems:
        raise EvaluationFailed("the upload does not fit the corpus: " + "; ".join(check.problems))
    scan, split, evaluated = check.scan, check.split, check.evaluated
    captions = {key: list(uploaded[key])[:k] for key in evaluated}
    texts = list(dict.fromkeys(text for key in evaluated for text in captions[key]))
    matcher = PairMatcher(pairs)
    matched, parser_name = _parse_all(evaluation, texts, matcher, progress, read=corpus)
    found = {key: [matched[text] for text in captions[key]] for key in evaluated}
    wanted = set(evaluated)
    recall = compositional_recall(found, [image for image in scan.images if image.key in wanted], pairs,
                                  split.eval_by_pair, k)
    texts_of = scan.texts or {}
    metrics = _caption_metrics({key: captions[key][0] for key in evaluated}, {key: texts_of[key] for key in evaluated})
    short = [key for key in evaluated if len(uploaded[key]) < k]
    notes = list(scan.notes)
    if short:
        notes.append(f"{len(short)} evaluation images have fewer than K = {k} generated captions (scored with the "
                     f"captions they have): {sample_keys(short)}")
    if (long := sum(1 for key in evaluated if len(uploaded[key]) > k)):
        notes.append(f"{long} evaluation images have more than K = {k} generated captions: the first {k} are read")
    if (ignored := len(uploaded) - len(evaluated)):
        notes.append(f"{ignored} uploaded images are not evaluation images of these pairs and are not scored")
    if parser_name != scan.parser:
        notes.append(f"the generated captions were parsed by {parser_name}, the references by {scan.parser}")
    return {
        "system": evaluation.system, "k": k, "parser": parser_name,
        "split": {"mode": split.mode, "seed": seed, "eval_share": share, "eval_images": len(evaluated),
                  "heldout": list(split.heldout), "group": request.get("group", ""), "campaigns": campaign_ids},
        "recall": recall.to_json(),
        "examples": _examples(pairs, split.eval_by_pair, captions, matched, k),
        "per_image": per_image_recall(found, split.eval_by_pair, [pair.name for pair in pairs]),
        "caption_metrics": metrics,
        "uploaded": {"images": len(uploaded), "captions": sum(len(c) for c in uploaded.values()),
                     "short_images": len(short), "long_images": long, "ignored_images": ignored},
        "notes": notes,
        "definitions": DEFINITIONS,
    }


def per_image_recall(found: dict[str, list[frozenset[str]]], eval_by_pair: dict[str, list[str]],
                     pairs: Sequence[str]) -> dict[str, float]:
    """Per evaluation image, the share of its held-out pairs (those it is an evaluation image of) that one of its
    first K generated captions holds (`found`: the pairs each of those captions holds): the segment-level score a
    human evaluation correlates with its judgements."""
    held: dict[str, list[str]] = {}
    for name in pairs:
        for key in dict.fromkeys(eval_by_pair.get(name, [])):
            held.setdefault(key, []).append(name)
    return {key: sum(any(name in names for names in found.get(key, [])) for name in held[key]) / len(held[key])
            for key in held}


def _examples(pairs: Sequence[ConceptPair], eval_by_pair: dict[str, list[str]], captions: dict[str, list[str]],
              matched: dict[str, frozenset[str]], k: int) -> dict[str, list[dict[str, Any]]]:
    """For each pair, the first few recalled images with the generated caption that holds the pair and its rank."""
    examples: dict[str, list[dict[str, Any]]] = {}
    for pair in pairs:
        rows: list[dict[str, Any]] = []
        for key in eval_by_pair.get(pair.name, []):
            rank = next((n for n, text in enumerate(captions[key][:k], 1) if pair.name in matched[text]), None)
            if rank is not None:
                rows.append({"image": key, "rank": rank, "caption": captions[key][rank - 1]})
                if len(rows) == EXAMPLES:
                    break
        examples[pair.name] = rows
    return examples


def _caption_metrics(hypotheses: dict[str, str], references: dict[str, list[str]]) -> dict[str, Any]:
    """BLEU-4, METEOR and CIDEr with one JVM for the report; METEOR none, with the reason, when Java is missing."""
    try:
        meteor = Meteor()
    except MeteorError as exc:
        return caption_metrics(hypotheses, references, None, meteor_unavailable=str(exc))
    with meteor:
        try:
            return caption_metrics(hypotheses, references, meteor)
        except MeteorError as exc:
            return caption_metrics(hypotheses, references, None, meteor_unavailable=str(exc))


def evaluation_report_html(evaluation: CompositionalEvaluation) -> str:
    """The HTML report of a finished evaluation; ValueError when it is not done."""
    if evaluation.status != CompositionalEvaluation.Status.DONE:
        raise ValueError(f"evaluation {evaluation.pk} is {evaluation.status}, not done")
    return compositional_report_html(evaluation.result)

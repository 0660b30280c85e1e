"""Console pages of compositional generalization (Nikolaus et al.): the concept pairs with how often the corpus holds
them and the stored parses they are matched from (/compositional/), and the evaluations of systems' generated
captions (/compositional/evaluations/, one page each with its report). Thin: the selectors read, the services
act; parsing and evaluating run as background jobs that the pages follow."""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.core.cache import cache
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from metrics.html.page import with_back_link
from mturk.datasets.views.exports import REPORT_CSP
from mturk.views.access import researcher_required
from mturk.views.campaign_confirm import Confirmation

from .models import CaptionParse, CompositionalEvaluation, ConceptPair, ParseJob
from .selectors import (
    OccurrenceTable,
    ParseCoverage,
    latest_parse_job,
    pair_occurrences,
    parse_coverage,
    stored_pairs,
)
from .services.caption_parses import request_parse
from .services.concept_pairs import ConceptPairError, delete_pair, load_seed_pairs, save_pair
from .services.evaluations import (
    MAX_BYTES,
    EvaluationRejected,
    evaluation_report_html,
    submit_evaluation,
)

OPEN = (ParseJob.Status.QUEUED, ParseJob.Status.RUNNING)
FINISHED = (ParseJob.Status.DONE, ParseJob.Status.FAILED)
EVALUATIONS_SHOWN = 50
OCCURRENCES_CACHE_SECONDS = 3600  # a table stays as long as the parses and the pairs it counts are unchanged
KINDS = [(ConceptPair.Kind.ADJECTIVE_NOUN, "adjective–noun (black cat)"),
         (ConceptPair.Kind.NOUN_VERB, "noun–verb (man eat)")]


# ---------------------------------------------------------------------------------------------------------------
# Forms

def _words(value: str) -> list[str]:
    """Synonyms as typed: comma-separated, spaces around them dropped, empty ones ignored."""
    return [word.strip() for word in value.split(",") if word.strip()]


class PairForm(forms.Form):
    name = forms.CharField(max_length=100, help_text='As the seed names pairs: "black_cat", "eat_man". '
                                                     "An existing name updates that pair.")
    kind = forms.ChoiceField(choices=KINDS)
    modifier = forms.CharField(max_length=100, label="Adjective or verb",
                               help_text='The concept\'s name, e.g. "black" or "eat".')
    noun = forms.CharField(max_length=100, help_text='e.g. "cat" or "man".')
    modifier_synonyms = forms.CharField(
        required=False, label="Adjective or verb synonyms",
        help_text="Comma-separated word forms; needed when the concept is new (its name is always one).")
    noun_synonyms = forms.CharField(required=False, label="Noun synonyms",
                                    help_text='Comma-separated, e.g. "cat, kitten, kitty".')
    category = forms.CharField(required=False, max_length=40,
                               help_text='For the per-category figures: "colour", "size", "transitive", '
                                         '"intransitive", or any label.')
    heldout_group = forms.CharField(required=False, max_length=40, label="Held-out group",
                                    help_text="Pairs of one group are held out together.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def save(self) -> ConceptPair:
        data = self.cleaned_data
        return save_pair(name=data["name"].strip(), kind=data["kind"], modifier=data["modifier"].strip(),
                         noun=data["noun"].strip(), modifier_synonyms=_words(data["modifier_synonyms"]) or None,
                         noun_synonyms=_words(data["noun_synonyms"]) or None, category=data["category"].strip(),
                         heldout_group=data["heldout_group"].strip())

    def add_service_error(self, exc: ConceptPairError) -> None:
        """The service's message at the field it names (its `field`), without the field's name in front and with
        the form's labels for the fields it mentions; else above the form."""
        named = exc.field if exc.field in self.fields else None
        message = str(exc)
        if named and message.startswith(f"{named}: "):
            message = message[len(named) + 2:]
        for name in sorted(self.fields, key=len, reverse=True):  # modifier_synonyms before modifier
            label = str(self.fields[name].label or name)
            message = re.sub(rf"\b{name}\b", f'"{label}"', message) if "_" in name else message
        self.add_error(named, message)


class EvaluationForm(forms.Form):
    file = forms.FileField(label="Generated captions (JSON)",
                           help_text='K captions per evaluation image, best first: [{"image_id": 391895, '
                                     '"caption": "..."}, ...] or {"391895": ["...", ...]}.')
    system = forms.CharField(max_length=200, label="System name")
    pairs = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple, label="Held-out pairs",
                                      help_text="None ticked and no group: every stored pair.")
    group = forms.ChoiceField(required=False, label="Or a held-out group")
    k = forms.IntegerField(min_value=1, max_value=100, initial=5, label="K (captions per image)")
    split_seed = forms.CharField(max_length=100, initial="compositional", label="Split seed",
                                 help_text="The seed of the split (the export's): it decides the evaluation images.")

    def __init__(self, *args: Any, pairs: Sequence[ConceptPair] = (), **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.stored = list(pairs)
        self._choices(self.fields["pairs"], [(p.name, p.name) for p in self.stored])
        groups = sorted({p.heldout_group for p in self.stored if p.heldout_group})
        self._choices(self.fields["group"], [("", "none (the ticked pairs)")] + [(g, g) for g in groups])

    @staticmethod
    def _choices(field: forms.Field, choices: list[tuple[str, str]]) -> None:
        assert isinstance(field, forms.ChoiceField)
        field.choices = choices

    def pair_groups(self) -> list[tuple[str, list[Any]]]:
        """The pairs' checkboxes grouped by held-out group (pairs without one last)."""
        boxes = {box.data["value"]: box for box in self["pairs"]}
        grouped: dict[str, list[Any]] = {}
        for pair in sorted(self.stored, key=lambda p: (p.heldout_group == "", p.heldout_group, p.name)):
            grouped.setdefault(pair.heldout_group, []).append(boxes[pair.name])
        return list(grouped.items())


# ---------------------------------------------------------------------------------------------------------------
# The pairs page

@dataclass
class PairRow:
    pair: ConceptPair
    occurrence: Any  # PairOccurrence, or None when the corpus could not be read
    counts: list[int]  # images with exactly n = 1, 2, 3, 4 captions containing the pair, then with 5 or more


def _by_count(by_count: dict[int, int]) -> list[int]:
    return [by_count.get(n, 0) for n in range(1, 5)] + [sum(v for n, v in by_count.items() if n >= 5)]


def occurrences(pairs: list[ConceptPair], coverage: ParseCoverage) -> OccurrenceTable:
    """The occurrence table of the pairs over every stored parse: one pass over the corpus (about 0.8 s per 20k
    captions on SQLite), so reused until a parse or a pair changes (the count and the last of the parses, and every
    pair's definition, make the cache key)."""
    last = CaptionParse.objects.filter(parser=coverage.parser).aggregate(last=Max("description_id"))["last"]
    definitions = [[p.name, p.kind, p.category, p.heldout_group, p.modifier.name, p.modifier.synonyms, p.noun.name,
                    p.noun.synonyms] for p in pairs]
    state = [coverage.parser, coverage.descriptions, coverage.parsed, last, definitions]
    key = "compositional-occurrences:" + hashlib.sha256(json.dumps(state).encode()).hexdigest()
    table = cache.get(key)
    if not isinstance(table, OccurrenceTable):
        table = pair_occurrences(stored_pairs([p.name for p in pairs]))
        cache.set(key, table, OCCURRENCES_CACHE_SECONDS)
    return table


def _pairs_page(request: HttpRequest, form: PairForm | None = None, status: int = 200) -> HttpResponse:
    pairs = list(ConceptPair.objects.select_related("modifier", "noun"))
    coverage = parse_coverage()
    table = occurrences(pairs, coverage) if pairs else None
    by_name = {row.name: row for row in table.rows} if table is not None else {}
    rows = [PairRow(pair, by_name.get(pair.name),
                    _by_count(by_name[pair.name].by_count) if pair.name in by_name else []) for pair in pairs]
    job = latest_parse_job()
    return render(request, "annotation/compositional/pairs.html", {
        "rows": rows, "table": table, "coverage": coverage, "job": job,
        "parsing": job is not None and job.status in OPEN,
        "has_seed": any(p.source == "seed" for p in pairs),
        "form": form or PairForm(), "names": ",".join(p.name for p in pairs[:2]),
    }, status=status)


@require_GET
@researcher_required
def pairs_page(request: HttpRequest) -> HttpResponse:
    return _pairs_page(request)


@require_POST
@researcher_required
def add_pair(request: HttpRequest) -> HttpResponse:
    form = PairForm(request.POST)
    if form.is_valid():
        try:
            pair = form.save()
        except ConceptPairError as exc:
            form.add_service_error(exc)
        else:
            messages.success(request, f"Pair {pair.name} saved.")
            return redirect("compositional-page")
    return _pairs_page(request, form=form, status=400)


@require_POST
@researcher_required
def load_seed(request: HttpRequest) -> HttpResponse:
    added = load_seed_pairs()
    messages.success(request, f"The seed's pairs loaded: {added} new.")
    return redirect("compositional-page")


@require_http_methods(["GET", "POST"])
@researcher_required
def remove_pair(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the confirmation step (a dialog on the page with JavaScript); POST: the deletion."""
    pair = get_object_or_404(ConceptPair.objects.select_related("modifier", "noun"), pk=pk)
    if request.method == "POST":
        try:
            delete_pair(pair)
        except ConceptPairError as exc:
            messages.error(request, f"{pair.name} not deleted: {exc}")
        else:
            messages.success(request, f"Pair {pair.name} deleted.")
        return redirect("compositional-page")
    confirmation = Confirmation(
        title=f"Delete pair {pair.name}", action_url=request.path, button=f"Delete {pair.name}", danger=True,
        what=[f"The pair {pair.name} ({pair.modifier.name} + {pair.noun.name}) is no longer offered for splits "
              "and evaluations. Its concepts, the stored parses and past evaluations stay."])
    return render(request, "mturk/confirm_action.html", {
        "confirmation": confirmation, "back": reverse("compositional-page"), "here": request.path})


@require_POST
@researcher_required
def parse(request: HttpRequest) -> HttpResponse:
    """Ask for a parse of the captions without one: a background job (run at once without a broker)."""
    job = request_parse(user=request.user)
    job.refresh_from_db()
    if job.status == ParseJob.Status.DONE:
        messages.success(request, f"Captions parsed: {job.done} of {job.total}.")
    elif job.status == ParseJob.Status.FAILED:
        messages.error(request, f"Not parsed: {job.error}")
    else:
        messages.info(request, "The captions are being parsed in the background; this page shows the figures "
                               "when it is done.")
    return redirect("compositional-page")


def _progress(job: ParseJob | CompositionalEvaluation) -> dict[str, Any]:
    return {"status": job.status, "finished": job.status in FINISHED, "done": job.done, "total": job.total,
            "error": job.error}


@require_GET
@researcher_required
def parse_status(request: HttpRequest) -> JsonResponse:
    """The latest parse job's state, as JSON, for the page to follow it."""
    job = latest_parse_job()
    if job is None:
        return JsonResponse({"status": None, "finished": True, "done": 0, "total": 0, "error": ""})
    return JsonResponse(_progress(job))


# ---------------------------------------------------------------------------------------------------------------
# Evaluations

def _recall(result: dict[str, Any]) -> dict[str, Any]:
    recall = result.get("recall")
    return recall if isinstance(recall, dict) else {}


def recall_average(result: dict[str, Any]) -> float | None:
    """The average Recall@K over the pairs, from an evaluation's stored result (None when not there)."""
    average = _recall(result).get("average")
    value = average.get("recall") if isinstance(average, dict) else None
    return float(value) if isinstance(value, int | float) else None


def percent(value: Any) -> str:
    """A recall as the report writes it: a percentage with one decimal; "none" when it has no images."""
    return f"{100 * value:.1f}" if isinstance(value, int | float) else "none"


def _average_percent(result: dict[str, Any]) -> str | None:
    """The average as a percentage; None when the evaluation has no result yet."""
    return percent(recall_average(result)) if _recall(result) else None


def _rows(value: Any) -> list[dict[str, Any]]:
    return [row for row in value if isinstance(row, dict)] if isinstance(value, list) else []


@dataclass
class Summary:
    """What an evaluation's page shows above its report: the means per category, by reference agreement (recall
    over the images where at least n reference captions contain the pair), and the caption metrics."""

    categories: list[dict[str, Any]]
    by_agreement: list[dict[str, Any]]
    metrics: dict[str, Any]

    @classmethod
    def of(cls, result: dict[str, Any]) -> Summary:
        metrics = result.get("caption_metrics")
        categories = [{**row, "percent": percent(row.get("recall"))}
                      for row in _rows(_recall(result).get("categories"))]
        by_agreement = [{**row, "percent": percent(row.get("recall"))}
                        for row in _rows(_recall(result).get("by_agreement"))]
        return cls(categories, by_agreement, metrics if isinstance(metrics, dict) else {})


def _evaluations_page(request: HttpRequest, form: EvaluationForm | None = None, errors: Sequence[str] = (),
                      status: int = 200) -> HttpResponse:
    pairs = list(ConceptPair.objects.only("name", "heldout_group"))
    evaluations = list(CompositionalEvaluation.objects.defer("generated")[:EVALUATIONS_SHOWN])
    return render(request, "annotation/compositional/evaluations.html", {
        "form": form or EvaluationForm(pairs=pairs), "errors": errors,
        "rows": [(e, _average_percent(e.result or {})) for e in evaluations],
        "shown": EVALUATIONS_SHOWN,
    }, status=status)


@require_http_methods(["GET", "POST"])
@researcher_required
def evaluations(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _evaluations_page(request)
    form = EvaluationForm(request.POST, request.FILES, pairs=list(ConceptPair.objects.only("name", "heldout_group")))
    errors: list[str] = []
    if form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size > MAX_BYTES:  # the service's limit, as the API's
            errors = [f"the file is larger than {MAX_BYTES} bytes"]
        else:
            data = form.cleaned_data
            try:
                evaluation = submit_evaluation(
                    system=data["system"].strip(), content=upload.read(), file_name=upload.name,
                    pairs=data["pairs"] or None, group=data["group"] or "", k=data["k"],
                    split_seed=data["split_seed"].strip(), user=request.user)
            except EvaluationRejected as exc:
                errors = list(exc.errors)
            else:
                messages.success(request, f"{evaluation.system} submitted: evaluation #{evaluation.pk}.")
                return redirect("compositional-page-evaluation", pk=evaluation.pk)
    return _evaluations_page(request, form=form, errors=errors, status=400)


@require_GET
@researcher_required
def evaluation(request: HttpRequest, pk: int) -> HttpResponse:
    item = get_object_or_404(CompositionalEvaluation.objects.defer("generated"), pk=pk)
    return render(request, "annotation/compositional/evaluation.html", {
        "evaluation": item, "open": item.status in OPEN, "average": _average_percent(item.result or {}),
        "summary": Summary.of(item.result or {}),
        "done": item.status == CompositionalEvaluation.Status.DONE,
    })


@require_GET
@researcher_required
def evaluation_status(request: HttpRequest, pk: int) -> JsonResponse:
    item = get_object_or_404(CompositionalEvaluation.objects.defer("generated", "result"), pk=pk)
    return JsonResponse(_progress(item))


@require_GET
@xframe_options_sameorigin  # shown in a frame on the evaluation's page
@researcher_required
def evaluation_report(request: HttpRequest, pk: int) -> HttpResponse:
    """The HTML report of a finished evaluation, self-contained, served with no script and in a sandbox."""
    item = get_object_or_404(CompositionalEvaluation.objects.defer("generated"), pk=pk)
    if item.status != CompositionalEvaluation.Status.DONE:
        return HttpResponse(f"Evaluation #{item.pk} is {item.status}: its report exists once it is done.",
                            status=409, content_type="text/plain; charset=utf-8")
    report = evaluation_report_html(item)
    download = bool(request.GET.get("download"))
    if not download and request.headers.get("Sec-Fetch-Dest") != "iframe":  # opened by itself: a way back
        report = with_back_link(report, reverse("compositional-page-evaluation", args=[item.pk]),
                                f"Evaluation #{item.pk} ({item.system})")
    response = HttpResponse(report, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = REPORT_CSP
    if download:
        response["Content-Disposition"] = f'attachment; filename="compositional-evaluation-{item.pk}.html"'
    return response

"""Reads of human evaluations: the evaluations with their counts, the judgement records the analysis reads
(metrics.human_eval.analyse), the systems' automatic scores as its options, the raw judgements of the exports,
and the leaderboard built from the stored analysis.

The judgements of an evaluation can be many (10 systems x 1,000 items x 3 judges x aspects): they are read as
tuples (`values_list`) in chunks (`iterator`), never as model instances, in a constant number of queries whatever
their number."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Count, F, QuerySet
from django.db.models.functions import Coalesce

from metrics.human_eval.order import in_rank_order

from .listing import evaluation_rows
from .models import Design, EvaluatedSystem, EvaluationItem, HumanEvaluation, HumanJudgement, SystemOutput

CHUNK = 2000  # rows fetched at a time
TIE = "tie"
ATTENTION = EvaluatedSystem.Role.ATTENTION


def human_evaluations() -> QuerySet[HumanEvaluation]:
    """Every evaluation, newest first, with its numbers of items and systems (listing.evaluation_rows) and of
    judgements."""
    return evaluation_rows().annotate(judgement_count=Count("judgements", distinct=True))


def analysed_judgements(evaluation: HumanEvaluation) -> QuerySet[HumanJudgement]:
    """The judgements the analysis reads: those of the evaluation, none about an attention check's output."""
    return (HumanJudgement.objects.filter(evaluation=evaluation)
            .exclude(output__system__role=ATTENTION)
            .exclude(other__system__role=ATTENTION))


def judgement_records(evaluation: HumanEvaluation) -> Iterator[dict[str, Any]]:
    """The records of metrics.human_eval.analyse, one per judgement, the attention checks' left out: rating
    {design, system, item, judge, aspect, value}; pairwise {design, system, other, item, judge, aspect, choice}
    with choice the preferred system's name or "tie". Names: EvaluatedSystem.name, EvaluationItem.name, the
    worker's id as a string (the assignment's worker when the judgement has none).

    Three queries whatever the number of judgements: the evaluation's outputs with their system's name and role,
    its items' names, and the judgements' own columns read in chunks, named from the first two in Python (joining
    five tables for every judgement made the read several times slower: bench/human_eval_stored.py); a fourth
    when some judgement has no worker."""
    outputs = {pk: (name, role) for pk, name, role in (SystemOutput.objects.filter(system__evaluation=evaluation)
                                                       .values_list("id", "system__name", "system__role"))}
    items = dict(EvaluationItem.objects.filter(evaluation=evaluation).values_list("id", "name"))
    rows = (HumanJudgement.objects.filter(evaluation=evaluation).order_by("id")
            .values_list("output_id", "other_id", "preferred_id", "item_id", "worker_id", "assignment_id", "aspect",
                         "value"))
    assignment_workers: dict[int, int] | None = None
    pairwise = evaluation.design == Design.PAIRWISE
    for output, other, preferred, item, worker, assignment, aspect, value in rows.iterator(chunk_size=CHUNK):
        system, role = outputs[output]
        if role == ATTENTION or (other is not None and outputs[other][1] == ATTENTION):
            continue
        if worker is None:
            if assignment_workers is None:
                assignment_workers = dict(HumanJudgement.objects.filter(evaluation=evaluation, worker__isnull=True)
                                          .values_list("assignment_id", "assignment__worker_id").distinct())
            worker = assignment_workers[assignment]
        if pairwise:
            yield {"design": "pairwise", "system": system, "other": None if other is None else outputs[other][0],
                   "item": items[item],
                   "judge": str(worker), "aspect": aspect,
                   "choice": TIE if preferred is None else outputs[preferred][0]}
        else:
            yield {"design": "rating", "system": system, "item": items[item], "judge": str(worker),
                   "aspect": aspect, "value": value}


EXPORT_COLUMNS = ("evaluation", "design", "system", "item", "judge", "aspect", "value", "choice", "other",
                  "position", "time", "assignment")


def judgement_rows(evaluation: HumanEvaluation) -> Iterator[dict[str, Any]]:
    """Every judgement of the evaluation as the exports write it (the attention checks' too, marked by their
    system's name), in one query read in chunks: {evaluation, design, system, item, judge, aspect, value, choice,
    other, position, time, assignment}; rating: `value`, choice and other empty; pairwise: `choice` the preferred
    system's name or "tie", `other` the other system, value empty. `position`: where `system`'s output was shown
    (0 first); `time`: when the judgement was stored (ISO 8601); `assignment`: the crowd assignment's id."""
    rows = (HumanJudgement.objects.filter(evaluation=evaluation)
            .annotate(judge=Coalesce(F("worker_id"), F("assignment__worker_id")))
            .order_by("id")
            .values_list("output__system__name", "other__system__name", "preferred__system__name", "preferred_id",
                         "item__name", "judge", "aspect", "value", "position", "created_at", "assignment_id"))
    pairwise = evaluation.design == Design.PAIRWISE
    for (system, other, preferred, preferred_id, item, judge, aspect, value, position, created_at,
         assignment) in rows.iterator(chunk_size=CHUNK):
        yield {"evaluation": evaluation.name, "design": evaluation.design, "system": system, "item": item,
               "judge": str(judge), "aspect": aspect, "value": None if pairwise else value,
               "choice": (TIE if preferred_id is None else preferred) if pairwise else None,
               "other": other if pairwise else None, "position": position, "time": created_at.isoformat(),
               "assignment": assignment}


def automatic_scores(evaluation: HumanEvaluation) -> dict[str, dict[str, dict[str, Any]]]:
    """The `automatic` and `automatic_systems` options of metrics.human_eval.analyse from the judged systems'
    stored scores: {"automatic": {metric: {system: {item: score}}}, "automatic_systems": {metric: {system:
    score}}}."""
    segments: dict[str, dict[str, Any]] = {}
    systems: dict[str, dict[str, Any]] = {}
    for name, automatic in (evaluation.systems.exclude(role=ATTENTION).order_by("id")
                            .values_list("name", "automatic")):
        for metric, scores in (automatic or {}).items():
            if not isinstance(scores, dict):
                continue
            if scores.get("items"):
                segments.setdefault(metric, {})[name] = dict(scores["items"])
            if scores.get("system") is not None:
                systems.setdefault(metric, {})[name] = scores["system"]
    return {"automatic": segments, "automatic_systems": systems}


def _first_aspect(evaluation: HumanEvaluation, analysed: dict[str, Any]) -> str | None:
    for aspect in [*(evaluation.aspects or []), *analysed]:
        if aspect in analysed:
            return aspect
    return None


def stored_analysis(evaluation: HumanEvaluation) -> dict[str, Any]:
    """The stored analysis in the order `analyse` gave it (the database's JSON may not keep the order of keys):
    the evaluation's aspects first, the systems best first."""
    return in_rank_order(evaluation.analysis or {}, evaluation.aspects or [])


def _human_figures(evaluation: HumanEvaluation) -> tuple[list[str], dict[str, dict[str, dict[str, Any]]]]:
    """The analysed aspects in order and, per system and aspect, its human figures from the stored analysis
    (ratings: mean with its interval; preferences: Bradley-Terry score and win rate with their intervals)."""
    analysis = stored_analysis(evaluation)
    human: dict[str, dict[str, dict[str, Any]]] = {}
    aspects: list[str] = []
    for aspect, figures in (analysis.get("ratings") or {}).items():
        aspects.append(aspect)
        for system, row in figures["systems"].items():
            human.setdefault(system, {})[aspect] = {"kind": "rating", "mean": row["mean"], "low": row["low"],
                                                    "high": row["high"], "ratings": row["ratings"]}
    for aspect, figures in (analysis.get("preferences") or {}).items():
        if aspect not in aspects:
            aspects.append(aspect)
        for system, row in figures["bradley_terry"].items():
            human.setdefault(system, {})[aspect] = {
                "kind": "preference", "score": row["score"], "low": row["low"], "high": row["high"],
                "win_rate": row.get("win_rate"), "win_low": row.get("win_low"), "win_high": row.get("win_high")}
    return aspects, human


def _figure(figures: dict[str, Any]) -> float:
    """The figure a leaderboard ranks on: the mean rating, or the Bradley-Terry score."""
    return float(figures["mean"] if figures["kind"] == "rating" else figures["score"])


def leaderboard(evaluation: HumanEvaluation) -> dict[str, Any]:
    """One row per analysed system (the attention checks never), from the stored analysis: its automatic system
    scores and, per aspect, its human figures (ratings: mean with its interval; preferences: Bradley-Terry score
    and win rate with their intervals). Best first on the first aspect (the overall question); systems judged but
    not analysed yet come last. {"aspects", "metrics", "design", "analysed_at", "analysed_judgements",
    "judgements", "stale", "rows": [{"system", "role", "automatic": {metric: score}, "human": {aspect: {...}}}]}."""
    aspects, human = _human_figures(evaluation)
    systems = list(evaluation.systems.exclude(role=ATTENTION).order_by("id").values_list("name", "role",
                                                                                         "automatic"))
    metrics = sorted({metric for _, _, automatic in systems for metric, scores in (automatic or {}).items()
                      if isinstance(scores, dict)})
    first = _first_aspect(evaluation, {aspect: True for aspect in aspects})

    def key(entry: tuple[str, str, Any]) -> tuple[int, float, str]:
        figures = human.get(entry[0], {}).get(first or "")
        if figures is None:
            return (1, 0.0, entry[0])
        return (0, -_figure(figures), entry[0])

    rows = [{"system": name, "role": role,
             "automatic": {metric: (automatic or {}).get(metric, {}).get("system") for metric in metrics},
             "human": {aspect: human.get(name, {}).get(aspect) for aspect in aspects}}
            for name, role, automatic in sorted(systems, key=key)]
    judgements = analysed_judgements(evaluation).count()
    return {"evaluation": evaluation.name, "design": evaluation.design, "aspects": aspects, "metrics": metrics,
            "analysed_at": evaluation.analysed_at, "analysed_judgements": evaluation.analysed_judgements,
            "judgements": judgements, "stale": judgements != evaluation.analysed_judgements, "rows": rows}


def test_set_leaderboard(test_set: str) -> dict[str, Any]:
    """Every evaluation of one test set ("<source>:<key>"), newest first, analysed or not, and one row per system
    name across them (the attention checks never): its automatic system scores and, per evaluation (by name) and
    aspect, its human figures from that evaluation's stored analysis (as `leaderboard`'s); a system's entry is None
    for an evaluation it was not in, and an aspect's None when it was not analysed there.

    The automatic scores are those of the newest evaluation that has them (`automatic_from` names it): every
    evaluation of the test set scores against the same references, so they agree. Rows best first on the first
    aspect of the newest analysed evaluation; the systems it has no figure for come after, by name. `stale` per
    evaluation when judgements arrived since its analysis. Three queries whatever the number of evaluations and
    systems: the evaluations, their systems, and their analysable judgements counted per evaluation.
    {"test_set", "test_set_label", "metrics", "ranked_by": {"evaluation", "aspect"} | None, "evaluations": [{"id",
    "name", "design", "status", "aspects", "analysed_at", "analysed_judgements", "judgements", "stale"}], "rows":
    [{"system", "role", "automatic": {metric: score}, "automatic_from", "human": {evaluation: {aspect: {...}} |
    None}}]}."""
    evaluations = list(HumanEvaluation.objects.filter(test_set=test_set).order_by("-created_at", "-id")
                       .only("id", "name", "design", "status", "aspects", "analysis", "analysed_at",
                             "analysed_judgements", "test_set", "test_set_label"))
    counts = dict(_analysed_counts(evaluations))
    figures = {evaluation.pk: _human_figures(evaluation) for evaluation in evaluations}
    names = {evaluation.pk: evaluation.name for evaluation in evaluations}
    members: dict[str, dict[int, str]] = {}  # system -> {evaluation id: role}
    automatic: dict[str, tuple[str, dict[str, Any]]] = {}  # system -> (evaluation, its scores), the newest first
    newest_first = {evaluation.pk: index for index, evaluation in enumerate(evaluations)}
    systems = (EvaluatedSystem.objects.filter(evaluation__test_set=test_set).exclude(role=ATTENTION)
               .values_list("evaluation_id", "name", "role", "automatic"))
    for evaluation_id, name, role, scores in sorted(systems, key=lambda entry: (newest_first[entry[0]], entry[1])):
        members.setdefault(name, {})[evaluation_id] = role
        scores = {metric: value["system"] for metric, value in (scores or {}).items()
                  if isinstance(value, dict) and value.get("system") is not None}
        if scores and name not in automatic:
            automatic[name] = (names[evaluation_id], scores)
    metrics = sorted({metric for _, scores in automatic.values() for metric in scores})
    ranked = next(((evaluation, first) for evaluation in evaluations if evaluation.analysed_at is not None
                   for first in [_first_aspect(evaluation, {a: True for a in figures[evaluation.pk][0]})]
                   if first is not None), None)

    def key(name: str) -> tuple[int, float, str]:
        found = figures[ranked[0].pk][1].get(name, {}).get(ranked[1]) if ranked else None
        return (1, 0.0, name) if found is None else (0, -_figure(found), name)

    rows = [{"system": name, "role": next(iter(members[name].values())),
             "automatic": {metric: automatic.get(name, ("", {}))[1].get(metric) for metric in metrics},
             "automatic_from": automatic[name][0] if name in automatic else None,
             "human": {evaluation.name: ({aspect: figures[evaluation.pk][1].get(name, {}).get(aspect)
                                          for aspect in figures[evaluation.pk][0]}
                                         if evaluation.pk in members[name] else None)
                       for evaluation in evaluations}}
            for name in sorted(members, key=key)]
    return {"test_set": test_set,
            "test_set_label": next((e.test_set_label for e in evaluations if e.test_set_label), ""),
            "metrics": metrics,
            "ranked_by": {"evaluation": ranked[0].name, "aspect": ranked[1]} if ranked else None,
            "evaluations": [{"id": evaluation.pk, "name": evaluation.name, "design": evaluation.design,
                             "status": evaluation.status, "aspects": figures[evaluation.pk][0],
                             "analysed_at": evaluation.analysed_at,
                             "analysed_judgements": evaluation.analysed_judgements,
                             "judgements": counts.get(evaluation.pk, 0),
                             "stale": counts.get(evaluation.pk, 0) != evaluation.analysed_judgements}
                            for evaluation in evaluations],
            "rows": rows}


def _analysed_counts(evaluations: list[HumanEvaluation]) -> Iterator[tuple[int, int]]:
    """(evaluation id, number of judgements the analysis reads) of each evaluation with some, in one query."""
    return iter(HumanJudgement.objects.filter(evaluation__in=evaluations)
                .exclude(output__system__role=ATTENTION).exclude(other__system__role=ATTENTION)
                .order_by().values("evaluation").annotate(count=Count("id")).values_list("evaluation", "count"))

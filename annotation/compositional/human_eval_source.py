"""The evaluation images of a stored (done) compositional evaluation as a test set of human evaluation: the D_eval
images of its concept pairs, split again as the evaluation was scored (its pairs, campaigns, split seed and eval
share: services.evaluation_corpus.CorpusCheck), each a caption item named as the upload named it (COCO id, else
the image's key), its references the corpus's captions of the image (those the split read: parsed ones).

And compositional Recall@K as an automatic metric of such a human evaluation: an uploaded system that has a done
compositional evaluation of the same split gets its average Recall@K as `compositional_recall`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluation.models import HumanEvaluation, OutputKind
from evaluation.registry import AutomaticScoreProvider, AutomaticScores, TestItem, TestSetSource
from mturk.models import Campaign

from .models import CompositionalEvaluation
from .selectors import stored_pairs
from .services.evaluation_corpus import CorpusCheck
from .services.evaluations import DEFAULT_EVAL_SHARE


def _choices() -> list[tuple[str, str]]:
    done = CompositionalEvaluation.objects.filter(status=CompositionalEvaluation.Status.DONE).order_by("-id")
    return [(str(pk), f"{system} (evaluation {pk})") for pk, system in done.values_list("pk", "system")]


def _items(key: str) -> list[TestItem]:
    evaluation = (CompositionalEvaluation.objects.filter(pk=int(key), status=CompositionalEvaluation.Status.DONE)
                  .first() if key.isdigit() else None)
    if evaluation is None:
        raise LookupError(f"there is no done compositional evaluation with id {key!r}")
    request = evaluation.result.get("request", {})
    campaigns = list(Campaign.objects.filter(pk__in=request.get("campaigns", [])))
    check = CorpusCheck.of(stored_pairs(evaluation.pairs), campaigns, request.get("split_seed") or "compositional",
                           request.get("eval_share", DEFAULT_EVAL_SHARE), evaluation.generated, with_text=True)
    if check.problems:
        raise LookupError(f"compositional evaluation {key} no longer fits the corpus: {'; '.join(check.problems)}")
    texts = check.scan.texts or {}
    return [TestItem(name=name, images=[check.scan.image_ids[name]], references=list(texts.get(name, [])))
            for name in check.evaluated]


COMPOSITIONAL = TestSetSource(
    name="compositional", label="Compositional evaluation images", output_kind=OutputKind.CAPTION,
    choices=_choices, items=_items,
    description="The evaluation images of a done compositional evaluation (key: its id), split as it was scored; "
                "references: the corpus's captions of each.")


def _split_of(evaluation: CompositionalEvaluation) -> tuple[Any, ...]:
    """What decides an evaluation's images: its pairs, split seed, eval share and campaigns (as `_items` re-splits)."""
    request = evaluation.result.get("request", {})
    return (sorted(evaluation.pairs), request.get("split_seed") or "compositional",
            float(request.get("eval_share", DEFAULT_EVAL_SHARE)), sorted(request.get("campaigns", [])))


def _recall_scores(evaluation: HumanEvaluation, system: str, outputs: Mapping[str, str]) -> AutomaticScores | None:
    """`compositional_recall` of `system` on a `compositional:<id>` test set: the average Recall@K (the mean over
    the pairs with evaluation images, result["recall"]["average"]["recall"]) of the system's latest done
    compositional evaluation whose split is that of evaluation <id>; None when it has none. Per item, the share of
    the image's held-out pairs recalled (result["per_image"]) when the evaluation stored it (those scored before
    it did: system level only, as recomputing them would parse the generated captions again)."""
    source, _, key = evaluation.test_set.partition(":")
    if source != COMPOSITIONAL.name or not key.isdigit():
        return None
    done = CompositionalEvaluation.objects.filter(status=CompositionalEvaluation.Status.DONE)
    base = done.filter(pk=int(key)).first()
    if base is None:
        return None
    split = _split_of(base)
    for candidate in done.filter(system=system).order_by("-id"):
        average = candidate.result.get("recall", {}).get("average", {})
        if _split_of(candidate) == split and average.get("recall") is not None:
            items = {name: score for name, score in (candidate.result.get("per_image") or {}).items()
                     if name in outputs}
            return {"compositional_recall": {"system": average["recall"], "items": items, "k": candidate.k,
                                             "pairs": average.get("pairs"), "evaluation": candidate.pk}}
    return None


RECALL = AutomaticScoreProvider(
    name="compositional_recall", scores=_recall_scores,
    description="On a compositional test set: the average Recall@K of the system's done compositional evaluation "
                "of the same split (system level).")

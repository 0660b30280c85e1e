"""The evaluation images of a stored (done) compositional evaluation as a test set of human evaluation: the D_eval
images of its concept pairs, split again as the evaluation was scored (its pairs, campaigns, split seed and eval
share: services.evaluation_corpus.CorpusCheck), each a caption item named as the upload named it (COCO id, else
the image's key), its references the corpus's captions of the image (those the split read: parsed ones)."""
from __future__ import annotations

from annotation.human_eval.models import OutputKind
from annotation.human_eval.registry import TestItem, TestSetSource
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

"""Reading vocabularies: the list with label counts, one vocabulary's labels, the wizard's choices and the labels
a draw_boxes campaign offers. Each in a constant number of queries."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet

from ..models import Concept, Vocabulary

DEMO_VOCABULARY = "demo"  # what seed_demo creates: offered last, never the default of a new study
PREVIEW_LABELS = 12  # labels named in a wizard choice's preview


@dataclass(frozen=True)
class VocabularyRow:
    vocabulary: Vocabulary
    labels: int  # offered to workers
    kept: int  # kept for what refers to them, not offered
    boxes: int


def vocabulary_rows() -> list[VocabularyRow]:
    """Every vocabulary, newest first, the demo's last; one query."""
    rows = (Vocabulary.objects
            .annotate(labels=Count("concepts", filter=Q(concepts__offered=True), distinct=True),
                      kept=Count("concepts", filter=Q(concepts__offered=False), distinct=True),
                      boxes=Count("concepts__boxes", distinct=True))
            .order_by("-created_at", "-pk"))
    found = [VocabularyRow(v, v.labels, v.kept, v.boxes) for v in rows]
    return sorted(found, key=lambda row: row.vocabulary.name == DEMO_VOCABULARY)


def vocabulary_labels(vocabulary: Vocabulary) -> list[Concept]:
    """Its labels by name (offered or not), each with its parent; one query."""
    return list(Concept.objects.filter(vocabulary=vocabulary).select_related("parent").order_by("name"))


def offered_labels(vocabulary: str) -> list[Concept]:
    """The labels a draw_boxes campaign offers: the named vocabulary's; without a name (campaigns made before
    vocabularies were owned), every offered label once per name (the oldest of each name)."""
    if vocabulary:
        return list(Concept.objects.filter(vocabulary__name=vocabulary, offered=True).order_by("name"))
    first: dict[str, Concept] = {}
    for concept in Concept.objects.filter(offered=True).order_by("name", "pk"):
        first.setdefault(concept.name, concept)
    return list(first.values())


@dataclass(frozen=True)
class VocabularyChoice:
    name: str
    labels: list[str]  # the first PREVIEW_LABELS, by name
    count: int


def vocabulary_choices() -> list[VocabularyChoice]:
    """The vocabularies the wizard offers, newest first and the demo's last, with their labels; two queries."""
    rows = vocabulary_rows()
    names: dict[int, list[str]] = {row.vocabulary.pk: [] for row in rows}
    for vocabulary_id, name in (Concept.objects.filter(offered=True).order_by("vocabulary_id", "name")
                                .values_list("vocabulary_id", "name")):
        names[vocabulary_id].append(name)
    return [VocabularyChoice(row.vocabulary.name, names[row.vocabulary.pk][:PREVIEW_LABELS], row.labels)
            for row in rows]


def vocabularies_with_labels() -> QuerySet[Vocabulary]:
    """Vocabularies by name, each with `offered_labels` (by name, with their parent): two queries a page."""
    labels = Concept.objects.filter(offered=True).select_related("parent").order_by("name")
    return Vocabulary.objects.prefetch_related(Prefetch("concepts", queryset=labels, to_attr="offered_labels"))

"""Vocabularies own their labels, step 2 of 3 (data): each concept is given its vocabulary (was: global concepts in a
many-to-many list).

A concept of one vocabulary becomes that vocabulary's. A concept of several is kept by the vocabulary that the
most draw_boxes campaigns name (ties: the oldest), and each other vocabulary gets its own copy (same name,
synset, synonyms); the boxes and the draw_boxes answers of the campaigns that named vocabulary V, and the gold
items only such campaigns used, then refer to V's copy. A concept in no vocabulary goes to a vocabulary
"labels without a vocabulary". A parent outside a vocabulary is copied into it as a label not offered to workers,
so every vocabulary keeps its hierarchy. Every box keeps its label text."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from django.db import migrations

ORPHANS = "labels without a vocabulary"


def _remap(answer: Any, mapping: dict[int, int]) -> Any:
    """An answer or gold answer {"boxes": [{"concept": id, ...}]} with its concept ids mapped."""
    if not isinstance(answer, dict) or not isinstance(answer.get("boxes"), list):
        return answer
    boxes = [{**b, "concept": mapping.get(b["concept"], b["concept"])}
             if isinstance(b, dict) and type(b.get("concept")) is int else b for b in answer["boxes"]]
    return {**answer, "boxes": boxes}


def own(apps: Any, schema_editor: Any) -> None:
    Concept = apps.get_model("annotation", "Concept")
    Vocabulary = apps.get_model("annotation", "Vocabulary")
    Box = apps.get_model("annotation", "Box")
    Campaign = apps.get_model("mturk", "Campaign")
    Assignment = apps.get_model("mturk", "Assignment")
    HIT = apps.get_model("mturk", "HIT")
    GoldItem = apps.get_model("mturk", "GoldItem")
    members: dict[int, list[int]] = defaultdict(list)
    for concept_id, vocabulary_id in (Vocabulary.concepts.through.objects.order_by("vocabulary_id", "concept_id")
                                      .values_list("concept_id", "vocabulary_id")):
        members[concept_id].append(vocabulary_id)
    by_name = {name: pk for pk, name in Vocabulary.objects.values_list("pk", "name")}
    uses: Counter[int] = Counter()
    campaign_vocabulary: dict[int, int] = {}  # draw_boxes campaign -> the vocabulary it names
    for pk, options in Campaign.objects.filter(task_kind="draw_boxes").values_list("pk", "options"):
        vocabulary = by_name.get((options or {}).get("vocabulary") or "")
        if vocabulary:
            campaign_vocabulary[pk] = vocabulary
            uses[vocabulary] += 1
    orphans: list[int] = []

    def orphan_vocabulary() -> int:
        if not orphans:
            name, n = ORPHANS, 1
            while Vocabulary.objects.filter(name=name).exists():
                n += 1
                name = f"{ORPHANS} ({n})"
            orphans.append(Vocabulary.objects.create(name=name).pk)
        return orphans[0]

    originals = {c.pk: c for c in Concept.objects.order_by("pk")}
    label: dict[tuple[int, int], int] = {}  # (original concept, vocabulary) -> that vocabulary's concept
    todo: list[tuple[int, int]] = []
    for concept in originals.values():
        vocabularies = members.get(concept.pk) or [orphan_vocabulary()]
        owner = max(vocabularies, key=lambda v: (uses[v], -v))
        concept.vocabulary_id = owner
        concept.save(update_fields=["vocabulary"])
        label[(concept.pk, owner)] = concept.pk
        todo.append((concept.pk, owner))
        for vocabulary in vocabularies:
            if vocabulary != owner:
                copy = Concept.objects.create(vocabulary_id=vocabulary, name=concept.name, synset=concept.synset,
                                              synonyms=concept.synonyms, offered=True)
                label[(concept.pk, vocabulary)] = copy.pk
                todo.append((concept.pk, vocabulary))
    while todo:  # each vocabulary's hierarchy inside it: a missing ancestor is copied in, not offered to workers
        original, vocabulary = todo.pop()
        parent = originals[original].parent_id
        if parent is not None and (parent, vocabulary) not in label:
            source = originals[parent]
            label[(parent, vocabulary)] = Concept.objects.create(
                vocabulary_id=vocabulary, name=source.name, synset=source.synset, synonyms=source.synonyms,
                offered=False).pk
            todo.append((parent, vocabulary))
        Concept.objects.filter(pk=label[(original, vocabulary)]).update(
            parent_id=label[(parent, vocabulary)] if parent is not None else None)
    mappings: dict[int, dict[int, int]] = defaultdict(dict)  # vocabulary -> {original id: its copy's id}
    for (original, vocabulary), pk in label.items():
        if pk != original:
            mappings[vocabulary][original] = pk
    remapped = {c: v for c, v in campaign_vocabulary.items() if v in mappings}
    for pk, concept_id, campaign in (Box.objects.filter(assignment__hit__campaign_id__in=remapped)
                                     .values_list("pk", "concept_id", "assignment__hit__campaign_id")):
        new = mappings[remapped[campaign]].get(concept_id)
        if new is not None:
            Box.objects.filter(pk=pk).update(concept_id=new)
    for assignment in (Assignment.objects.filter(hit__campaign_id__in=remapped, answer__isnull=False)
                       .select_related("hit").only("pk", "answer", "hit__campaign_id")):
        answer = _remap(assignment.answer, mappings[remapped[assignment.hit.campaign_id]])
        if answer != assignment.answer:
            Assignment.objects.filter(pk=assignment.pk).update(answer=answer)
    gold_vocabularies: dict[int, set[int | None]] = defaultdict(set)
    for gold, campaign in HIT.objects.filter(gold_item__task_kind="draw_boxes").values_list("gold_item_id",
                                                                                             "campaign_id"):
        gold_vocabularies[gold].add(campaign_vocabulary.get(campaign))
    for gold in GoldItem.objects.filter(pk__in=gold_vocabularies):
        used = gold_vocabularies[gold.pk]
        vocabulary = next(iter(used))
        if len(used) == 1 and vocabulary in mappings:
            answer = _remap(gold.answer, mappings[vocabulary])
            if answer != gold.answer:
                GoldItem.objects.filter(pk=gold.pk).update(answer=answer)


def share(apps: Any, schema_editor: Any) -> None:
    """Back to global concepts: one concept per name (the oldest), in the vocabularies that had one of that name;
    what referred to a dropped copy refers to the kept one."""
    Concept = apps.get_model("annotation", "Concept")
    Vocabulary = apps.get_model("annotation", "Vocabulary")
    Box = apps.get_model("annotation", "Box")
    kept: dict[str, int] = {}
    replaced: dict[int, int] = {}
    for pk, name in Concept.objects.order_by("pk").values_list("pk", "name"):
        if name in kept:
            replaced[pk] = kept[name]
        else:
            kept[name] = pk
    through = Vocabulary.concepts.through
    pairs = {(replaced.get(pk, pk), vocabulary) for pk, vocabulary, offered in
             Concept.objects.values_list("pk", "vocabulary_id", "offered") if offered}
    through.objects.bulk_create([through(concept_id=c, vocabulary_id=v) for c, v in sorted(pairs)])
    for old, new in replaced.items():
        Box.objects.filter(concept_id=old).update(concept_id=new)
        Concept.objects.filter(parent_id=old).update(parent_id=new)
    Concept.objects.filter(pk__in=replaced).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0009_concept_vocabulary"),
    ]

    operations = [
        migrations.RunPython(own, share),
    ]

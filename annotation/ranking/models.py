"""Ranking evaluation (image description as ranking): frozen test pools of images and their captions, systems'
ranked submissions, and binary (or graded) relevance judgements of image-caption pairs, collected once by
judge_caption campaigns or imported, and reused by every later system."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class TestPool(models.Model):
    """A named, frozen set of captions, each tied to its original image. Row i of a score matrix is the pool's
    image with index i; column j its caption with index j."""

    __test__ = False  # not a pytest test class

    name = models.CharField(max_length=200, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    # The stored leaderboard (services.leaderboards): `judgements_version` goes up with every change to the
    # judgements of the pool's pairs; `board` holds the pool's figures computed at `board_version`, and each
    # submission its own at its `board_version`. Lower than `judgements_version`: stale, a job is updating it.
    judgements_version = models.PositiveIntegerField(default=1)
    board = models.JSONField(default=dict, blank=True)
    board_version = models.PositiveIntegerField(default=0)
    board_queued_at = models.DateTimeField(null=True, blank=True)
    board_updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class PoolImage(models.Model):
    pool = models.ForeignKey(TestPool, on_delete=models.CASCADE, related_name="pool_images")
    image = models.ForeignKey("annotation.Image", on_delete=models.PROTECT, related_name="+")
    index = models.PositiveIntegerField()

    class Meta:
        ordering = ["pool_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "image"], name="pool_image_once"),
            models.UniqueConstraint(fields=["pool", "index"], name="pool_image_index_once"),
        ]


class PoolCaption(models.Model):
    pool = models.ForeignKey(TestPool, on_delete=models.CASCADE, related_name="pool_captions")
    description = models.ForeignKey("annotation.Description", on_delete=models.PROTECT, related_name="+")
    image = models.ForeignKey("annotation.Image", on_delete=models.PROTECT, related_name="+",
                              help_text="The original image.")
    index = models.PositiveIntegerField()

    class Meta:
        ordering = ["pool_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "description"], name="pool_caption_once"),
            models.UniqueConstraint(fields=["pool", "index"], name="pool_caption_index_once"),
        ]


class RankingSubmission(models.Model):
    """A system's ranked output on a pool: rankings (per image a ranked list of caption ids, per caption a ranked
    list of image ids) or a score matrix, stored as uploaded; its metrics once evaluated."""

    class Status(models.TextChoices):
        EVALUATED = "evaluated"
        FAILED = "failed"

    pool = models.ForeignKey(TestPool, on_delete=models.CASCADE, related_name="submissions")
    system = models.CharField(max_length=200)
    file = models.FileField(upload_to="rankings/", max_length=255)
    original_name = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.EVALUATED)
    # The pool's pairs this system put in its top k, per direction: {"description": [[image index, caption
    # index], ...], "search": [...]} (what pooled judging queues), and the automatic metrics.
    top_pairs = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    # Its leaderboard figures on the pool's judgements of version `board_version` (selectors.system_figures).
    board = models.JSONField(default=dict, blank=True)
    board_version = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pool_id", "-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["pool", "system"], name="one_submission_per_system")]


class CaptionJudgement(models.Model):
    """One judgement of whether a caption describes an image: a crowd worker's (from an approved judge_caption
    assignment), an imported one (e.g. expert graded scores), or gold (known answers used to check workers)."""

    class Source(models.TextChoices):
        CROWD = "crowd"
        IMPORTED = "imported"
        GOLD = "gold"

    image = models.ForeignKey("annotation.Image", on_delete=models.CASCADE, related_name="caption_judgements")
    description = models.ForeignKey("annotation.Description", on_delete=models.CASCADE, related_name="judgements")
    source = models.CharField(max_length=10, choices=Source.choices)
    relevant = models.BooleanField(null=True, blank=True, help_text="Binary judgement: the caption describes it.")
    grade = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="Graded judgement on the Flickr8k release's scale: 4 describes the image without errors, "
                  "3 minor errors, 2 somewhat related, 1 unrelated.")
    assignment = models.ForeignKey("mturk.Assignment", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="caption_judgements")
    judge = models.CharField(max_length=200, blank=True, help_text="Who judged, for imported judgements.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["image_id", "description_id", "id"]
        indexes = [models.Index(fields=["image", "description"], name="judgement_pair")]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "image", "description"],
                                    condition=models.Q(assignment__isnull=False), name="one_judgement_per_pair"),
        ]


class QueuedPair(models.Model):
    """An image-caption pair shown for judging by a pool's judge_caption campaign (gold pairs aside): the unique
    key that keeps a pair from being queued twice, checked per chunk of a submission's pairs instead of reading
    every queued HIT."""

    campaign = models.ForeignKey("mturk.Campaign", on_delete=models.CASCADE, related_name="+")
    image = models.ForeignKey("annotation.Image", on_delete=models.CASCADE, related_name="+")
    description = models.ForeignKey("annotation.Description", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "image", "description"],
                                               name="pair_queued_once")]

"""Photo albums, and the stories, sequence descriptions and ratings workers write about them.

A photo sequence is identified by the storytelling (stage 1) story that created it: re-tellings,
sequence descriptions (DIS) and chosen sequences point at that story."""
from __future__ import annotations

from django.db import models


class Album(models.Model):
    external_id = models.CharField(max_length=100, unique=True)
    title = models.CharField(max_length=300, blank=True)
    description = models.TextField(blank=True)
    event_label = models.CharField(max_length=100, blank=True, help_text="Event category (VIST's vist_label).")
    owner = models.CharField(max_length=100, blank=True)
    flickr = models.JSONField(
        default=dict, blank=True,
        help_text=(
            "Optional Flickr album fields kept for the export: "
            "primary, date_create, date_update, farm, server, secret."
        ),
    )
    split = models.CharField(
        max_length=10, blank=True, choices=[("train", "train"), ("val", "val"), ("test", "test")],
        help_text="The released split of an imported album (VIST): exports keep it instead of the hashed split.")
    is_simulated = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title or self.external_id


class Photo(models.Model):
    album = models.ForeignKey(Album, on_delete=models.CASCADE, related_name="photos")
    image = models.ForeignKey("annotation.Image", on_delete=models.PROTECT, related_name="photos")
    external_id = models.CharField(max_length=100)
    datetaken = models.DateTimeField()
    title = models.CharField(max_length=300, blank=True)
    text = models.TextField(blank=True, help_text="The photo's own description (Flickr).")
    tags = models.JSONField(default=list, blank=True)
    licence = models.CharField(max_length=100, blank=True)
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    secret = models.CharField(max_length=100, blank=True)
    url = models.URLField(max_length=500, blank=True, help_text="URL of the original (VIST's url_o).")

    class Meta:
        ordering = ["album_id", "datetaken", "id"]
        constraints = [
            models.UniqueConstraint(fields=["album", "external_id"], name="photo_unique_in_album"),
        ]

    def __str__(self) -> str:
        return self.external_id


class Setting(models.TextChoices):
    """The collection stage a story comes from, with VIST's `setting` values."""

    TELL = "first-2-pick-and-tell", "storytelling"
    RETELL = "last-3-pick-old-and-tell", "re-telling"


class Story(models.Model):
    album = models.ForeignKey(Album, on_delete=models.CASCADE, related_name="stories")
    setting = models.CharField(max_length=40, choices=Setting.choices)
    sequence_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="retellings",
        help_text="For a re-telling: the storytelling story whose photo sequence was re-told.",
    )
    assignment = models.OneToOneField(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="story"
    )
    worker = models.ForeignKey("mturk.Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="stories")
    external_id = models.CharField(
        max_length=40, blank=True, help_text="The released story_id of an imported story (VIST), kept by exports.")
    worker_label = models.CharField(
        max_length=100, blank=True, help_text="The released (de-identified) worker_id of an imported story.")
    is_simulated = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["album_id", "setting", "id"]
        verbose_name_plural = "stories"
        constraints = [
            models.UniqueConstraint(fields=["external_id"], condition=~models.Q(external_id=""),
                                    name="story_external_id_once"),
        ]

    def __str__(self) -> str:
        return f"story {self.pk} of album {self.album_id}"

    @property
    def sequence_id(self) -> int:
        """The stage-1 story that identifies this story's photo sequence."""
        return self.sequence_of_id or self.pk


class Storylet(models.Model):
    """One card of a story: a photo and the sentence written on it."""

    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="storylets")
    order = models.PositiveSmallIntegerField()
    photo = models.ForeignKey(Photo, on_delete=models.PROTECT, related_name="storylets")
    original_text = models.TextField()
    text = models.TextField(help_text="Normalized: lowercased, PTB-tokenized, names anonymized.")
    external_id = models.CharField(max_length=40, blank=True,
                                   help_text="The released storylet_id of an imported story (VIST).")

    class Meta:
        ordering = ["story_id", "order"]
        constraints = [models.UniqueConstraint(fields=["story", "order"], name="storylet_order_unique")]


class SequenceDescription(models.Model):
    """DIS: a description of one photo written while seeing its whole sequence."""

    sequence = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="sequence_descriptions")
    order = models.PositiveSmallIntegerField()
    photo = models.ForeignKey(Photo, on_delete=models.PROTECT, related_name="sequence_descriptions")
    original_text = models.TextField()
    text = models.TextField()
    assignment = models.ForeignKey(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="sequence_descriptions"
    )
    worker = models.ForeignKey("mturk.Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    worker_label = models.CharField(
        max_length=100, blank=True, help_text="The released (de-identified) worker_id of an imported description.")

    class Meta:
        ordering = ["sequence_id", "assignment_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "order"], name="sequence_description_once"),
        ]


class IsolatedDescription(models.Model):
    """An imported DII record (VIST's description-in-isolation): the text is an annotation.Description of the
    photo's image (source "vist"); this row keeps what the released file says around it, in file order."""

    description = models.OneToOneField("annotation.Description", on_delete=models.CASCADE,
                                       related_name="isolated_description")
    album = models.ForeignKey(Album, on_delete=models.CASCADE, related_name="isolated_descriptions")
    photo = models.ForeignKey(Photo, on_delete=models.PROTECT, related_name="isolated_descriptions")
    order = models.PositiveSmallIntegerField(help_text="photo_order_in_story")
    worker_label = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["album_id", "id"]


class StoryRating(models.Model):
    """A judge's Likert ratings (1-5) of one story; `aspects` holds the optional six aspects."""

    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="ratings")
    rating = models.PositiveSmallIntegerField()
    aspects = models.JSONField(default=dict, blank=True)
    assignment = models.OneToOneField(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="story_rating"
    )
    worker = models.ForeignKey("mturk.Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["story_id", "id"]


class ChosenSequence(models.Model):
    """The photo sequence of an album that a majority of a re-telling campaign's workers chose: it
    gets DII and DIS. One per album and re-telling campaign (a pilot and a main run each have theirs)."""

    campaign = models.ForeignKey("mturk.Campaign", on_delete=models.CASCADE, related_name="chosen_sequences")
    album = models.ForeignKey(Album, on_delete=models.CASCADE, related_name="chosen_sequences")
    sequence = models.ForeignKey(Story, on_delete=models.PROTECT, related_name="chosen_for")
    votes = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "album"], name="one_chosen_sequence_per_album")]


class StoryAgreement(models.Model):
    """A story's METEOR against the other stories of its photo sequence (the stories report's agreement score),
    computed once and stored. `references_hash` is `metrics.meteor.pair_key` of the story's text and the texts
    it was scored against (and the METEOR setting): a score whose hash differs from the current one is stale.
    `whole_sequence` marks the scores of a story against every other story of its sequence (the background
    job's); an export limited to some campaigns stores its own. `meteor` is None when the sequence has no
    other story."""

    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="agreement_scores")
    references_hash = models.CharField(max_length=64)
    references = models.PositiveIntegerField()
    whole_sequence = models.BooleanField(default=False)
    meteor = models.FloatField(null=True, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["story", "references_hash"], name="one_score_per_reference_set")]

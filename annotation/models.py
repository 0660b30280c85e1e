"""Images, concepts, boxes and descriptions."""
from __future__ import annotations

from django.db import models


class Image(models.Model):
    """An imported image. Width and height are those of the EXIF-oriented image (what is shown)."""

    key = models.CharField(
        max_length=200, unique=True,
        help_text="Stable dataset id used in exports and imports (default: the file name without extension).",
    )
    sha256 = models.CharField(
        max_length=64, unique=True, null=True, blank=True,
        help_text="Digest of the stored file; empty for an image known only by reference (a COCO import without "
                  "its image files).",
    )
    original = models.FileField(upload_to="images/originals/", max_length=255, blank=True)
    source_url = models.URLField(
        max_length=500, blank=True,
        help_text="Where the image is published (COCO's coco_url): shown when the platform holds no file of it.",
    )
    original_name = models.CharField(max_length=255)
    format = models.CharField(max_length=10)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    file_size = models.PositiveIntegerField()
    thumb_small = models.FileField(upload_to="images/320/", max_length=255, blank=True)
    thumb_large = models.FileField(upload_to="images/1024/", max_length=255, blank=True)
    renditions_version = models.PositiveSmallIntegerField(
        default=0, db_index=True,
        help_text="Version of the recipe that made thumb_small and thumb_large (0: none yet, or older ones).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.original_name

    @property
    def has_file(self) -> bool:
        """False for an image known only by reference (imported annotations without the image file)."""
        return bool(self.original)

    @property
    def display_url(self) -> str:
        """The 1024 px rendition for task pages (the original only until thumbnails exist; the published
        address of an image known only by reference)."""
        stored = self.thumb_large or self.original
        return stored.url if stored else self.source_url

    @property
    def small_url(self) -> str:
        stored = self.thumb_small or self.thumb_large or self.original
        return stored.url if stored else self.source_url


class ImageOrigin(models.Model):
    """An imported image's id in a public dataset: COCO's image id and subset (train2014, val2014, ...).

    Systems' generated captions and the exported splits name COCO images by this id."""

    image = models.OneToOneField(Image, on_delete=models.CASCADE, related_name="origin")
    dataset = models.CharField(max_length=40, help_text='The dataset, e.g. "coco".')
    external_id = models.BigIntegerField(help_text="The image's id in that dataset.")
    subset = models.CharField(max_length=40, blank=True, help_text='e.g. "train2014", "val2014".')
    name = models.CharField(
        max_length=200, blank=True,
        help_text='The image\'s file name in the release when its id is not the whole name, e.g. Flickr8k\'s '
                  '"1000268201_693b08cb0e.jpg" (id 1000268201).')

    class Meta:
        ordering = ["dataset", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "external_id"], name="image_origin_once"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset}:{self.external_id}"


class RenditionJob(models.Model):
    """A background run that gives images made with an older recipe their new renditions.

    `last_image_id` is where the run has got to (in image id order): a run that was interrupted goes on
    from there. Images that could not be rendered are counted and listed in `failures` (the first 100)."""

    target_version = models.PositiveSmallIntegerField()
    total = models.PositiveIntegerField(help_text="Images to render when the run started.")
    done = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    failures = models.JSONField(default=list, blank=True)
    last_image_id = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"renditions v{self.target_version}: {self.done + self.failed}/{self.total}"


class Vocabulary(models.Model):
    """A named list of labels for boxes; a draw_boxes campaign offers one vocabulary's labels.

    A vocabulary owns its concepts: importing into it or editing it never changes another vocabulary's labels,
    synonyms or hierarchy."""

    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=300, blank=True, help_text="What the labels are for.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "vocabularies"

    def __str__(self) -> str:
        return self.name


class Concept(models.Model):
    """A label of one vocabulary: a name, its WordNet synset, synonyms and a parent in the same vocabulary.

    `offered` is False for a label the vocabulary keeps only for what refers to it (boxes, answers, the
    hierarchy) but no longer offers workers: one left out of a later import of the vocabulary."""

    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.CASCADE, related_name="concepts")
    name = models.CharField(max_length=100)
    synset = models.CharField(max_length=100, blank=True, help_text="WordNet synset id, e.g. woman.n.01")
    synonyms = models.JSONField(default=list, blank=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    offered = models.BooleanField(default=True, help_text="Offered to workers (else kept for what refers to it).")

    class Meta:
        ordering = ["name", "vocabulary_id"]
        constraints = [
            models.UniqueConstraint(fields=["vocabulary", "name"], name="concept_name_once_per_vocabulary"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if self.parent_id is not None and self.parent is not None and self.parent.vocabulary_id != self.vocabulary_id:
            raise ValidationError({"parent": "The parent must be a label of the same vocabulary."})


class Box(models.Model):
    """A labelled bounding box in image pixels (x, y = top-left corner).

    `number` is the box id within its image (0, 1, 2, ...): what workers see, what the
    correspondence markup `[woman]^2` and every export refer to."""

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="boxes")
    number = models.PositiveIntegerField()
    concept = models.ForeignKey(Concept, on_delete=models.PROTECT, related_name="boxes")
    x = models.PositiveIntegerField()
    y = models.PositiveIntegerField()
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    source = models.CharField(max_length=20, default="gold")
    assignment = models.ForeignKey(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="boxes"
    )
    external_id = models.BigIntegerField(
        null=True, blank=True, help_text="The annotation's id in the dataset it was imported from (COCO's id)."
    )

    class Meta:
        ordering = ["image_id", "number"]
        verbose_name_plural = "boxes"
        constraints = [
            models.UniqueConstraint(fields=["image", "number"], name="box_number_unique_per_image"),
            models.UniqueConstraint(fields=["source", "external_id"], condition=models.Q(external_id__isnull=False),
                                    name="box_external_id_once"),
        ]

    def __str__(self) -> str:
        return f"{self.image_id}#{self.number} {self.concept_id}"


class Description(models.Model):
    """A description of an image: from an approved describe_image assignment, or imported.

    `tokens` is fixed when the description is stored, so correspondence token indices stay valid."""

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="descriptions")
    text = models.TextField()
    tokens = models.JSONField(default=list)
    normalized_text = models.TextField(
        blank=True, help_text="Lowercased, PTB-tokenized, names anonymized (the VIST `text` field)."
    )
    assignment = models.OneToOneField(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="description"
    )
    source = models.CharField(max_length=20, default="crowd")
    external_id = models.BigIntegerField(
        null=True, blank=True, help_text="The caption's id in the dataset it was imported from (COCO's id)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["image_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["source", "external_id"], condition=models.Q(external_id__isnull=False),
                                    name="description_external_id_once"),
        ]


class Correspondence(models.Model):
    """One worker's (or the gold data's) word-to-box links for one description.

    The earliest correspondence of a description is the one exports and reports use; a later one
    (an optional second worker) measures agreement."""

    description = models.ForeignKey(Description, on_delete=models.CASCADE, related_name="correspondences")
    assignment = models.OneToOneField(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="correspondence"
    )
    source = models.CharField(max_length=20, default="crowd")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["description_id", "id"]


class WordLink(models.Model):
    """Token `token_index` of the description refers to `box` (a word links to at most one box)."""

    correspondence = models.ForeignKey(Correspondence, on_delete=models.CASCADE, related_name="links")
    token_index = models.PositiveIntegerField()
    box = models.ForeignKey(Box, on_delete=models.CASCADE, related_name="word_links")

    class Meta:
        ordering = ["correspondence_id", "token_index"]
        constraints = [
            models.UniqueConstraint(fields=["correspondence", "token_index"], name="one_box_per_token")
        ]

from .compositional import models as compositional_models  # noqa: E402,F401  (compositional generalization's models load with the app's)
from .image_sets.models import ImageSet, ImageSetMember, ImageSetTag  # noqa: E402,F401  (image sets: collections of images)
from .ranking import models as ranking_models  # noqa: E402,F401  (ranking evaluation: its models load with the app's)

"""Images, concepts, boxes and descriptions."""
from __future__ import annotations

from django.db import models


class Image(models.Model):
    """An imported image. Width and height are those of the EXIF-oriented image (what is shown)."""

    sha256 = models.CharField(max_length=64, unique=True)
    original = models.FileField(upload_to="images/originals/", max_length=255)
    original_name = models.CharField(max_length=255)
    format = models.CharField(max_length=10)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    file_size = models.PositiveIntegerField()
    thumb_small = models.FileField(upload_to="images/320/", max_length=255, blank=True)
    thumb_large = models.FileField(upload_to="images/1024/", max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.original_name

    @property
    def display_url(self) -> str:
        """The 1024 px rendition for task pages (the original only until thumbnails exist)."""
        return (self.thumb_large or self.original).url

    @property
    def small_url(self) -> str:
        return (self.thumb_small or self.thumb_large or self.original).url


class Concept(models.Model):
    """A label for boxes: a WordNet synset with its synonyms."""

    name = models.CharField(max_length=100, unique=True)
    synset = models.CharField(max_length=100, blank=True, help_text="WordNet synset id, e.g. woman.n.01")
    synonyms = models.JSONField(default=list, blank=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Box(models.Model):
    """A labelled bounding box in image pixels (x, y = top-left corner)."""

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="boxes")
    concept = models.ForeignKey(Concept, on_delete=models.PROTECT, related_name="boxes")
    x = models.PositiveIntegerField()
    y = models.PositiveIntegerField()
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    source = models.CharField(max_length=20, default="gold")

    class Meta:
        ordering = ["image_id", "id"]
        verbose_name_plural = "boxes"


class Description(models.Model):
    """A description of an image: from an approved describe_image assignment, or imported."""

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="descriptions")
    text = models.TextField()
    assignment = models.OneToOneField(
        "mturk.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="description"
    )
    source = models.CharField(max_length=20, default="crowd")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["image_id", "id"]

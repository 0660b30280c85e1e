"""Image sets ("collections" in the console): a named group of images with tags, how it was imported, and a
demo marker. An image may belong to several sets (many-to-many): images are deduplicated by content, so the
same photo imported by two studies is one Image in both studies' sets."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from ..models import Image


class ImageSet(models.Model):
    name = models.CharField(max_length=100, unique=True)
    source = models.CharField(
        max_length=40, blank=True,
        help_text='How its images came: "images" (files or a zip), "api", "coco", "imageclef", "flickr8k", '
                  '"flickr30k", "vist", "demo", "existing" (images stored before sets existed).')
    licence = models.TextField(
        blank=True, max_length=2000,
        help_text="The terms the images and their annotations were released under, as the source states them "
                  "(recorded by the public-dataset importers).")
    is_demo = models.BooleanField(
        default=False, help_text="The demo's images: left out of the wizard's choices unless this set is chosen.")
    images: models.ManyToManyField[Image, ImageSetMember] = models.ManyToManyField(
        "annotation.Image", through="ImageSetMember", related_name="sets")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["is_demo", "name"]

    def __str__(self) -> str:
        return self.name


class ImageSetTag(models.Model):
    """A free label of a set ("pilot", "kitchens", "2025"): the wizard selects images by tag."""

    image_set = models.ForeignKey(ImageSet, on_delete=models.CASCADE, related_name="tags")
    name = models.CharField(max_length=50, db_index=True)

    class Meta:
        ordering = ["image_set_id", "name"]
        constraints = [models.UniqueConstraint(fields=["image_set", "name"], name="image_set_tag_once")]

    def __str__(self) -> str:
        return self.name


class ImageSetMember(models.Model):
    image_set = models.ForeignKey(ImageSet, on_delete=models.CASCADE, related_name="members")
    image = models.ForeignKey("annotation.Image", on_delete=models.CASCADE, related_name="set_members")
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["image_set_id", "image_id"]
        constraints = [models.UniqueConstraint(fields=["image_set", "image"], name="image_in_set_once")]
        indexes = [models.Index(fields=["image", "image_set"], name="image_set_member_by_image")]

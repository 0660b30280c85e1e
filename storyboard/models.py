"""Photo albums: photos in time order, the material of storytelling tasks."""
from __future__ import annotations

from django.db import models


class Album(models.Model):
    external_id = models.CharField(max_length=100, unique=True)
    title = models.CharField(max_length=300, blank=True)
    description = models.TextField(blank=True)
    event_label = models.CharField(max_length=100, blank=True)
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
    tags = models.JSONField(default=list, blank=True)
    licence = models.CharField(max_length=100, blank=True)
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["album_id", "datetaken", "id"]
        constraints = [
            models.UniqueConstraint(fields=["album", "external_id"], name="photo_unique_in_album"),
        ]

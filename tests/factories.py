"""Test data builders (real images made with Pillow, real services)."""
from __future__ import annotations

import io
import itertools
from datetime import UTC
from decimal import Decimal
from typing import Any

from PIL import Image as PILImage

from annotation.models import Image, Vocabulary
from annotation.services.images import import_image_bytes
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from storyboard.models import Album, Photo

_colours = itertools.count(1)


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (64, 48), colour: tuple[int, int, int] | None = None,
                exif_orientation: int | None = None) -> bytes:
    """A small, unique image (each call draws a different colour unless one is given)."""
    if colour is None:
        n = next(_colours)
        colour = (n * 37 % 256, n * 91 % 256, n * 53 % 256 if n < 256 else n // 256)
    picture = PILImage.new("RGB", size, colour)
    buffer = io.BytesIO()
    kwargs: dict[str, Any] = {}
    if exif_orientation is not None:
        exif = PILImage.Exif()
        exif[0x0112] = exif_orientation
        kwargs["exif"] = exif
    picture.save(buffer, fmt, **kwargs)
    return buffer.getvalue()


def make_image(name: str = "picture.png", **kwargs: Any) -> Image:
    image, _ = import_image_bytes(name, image_bytes(**kwargs))
    return image


def make_campaign(images: int = 2, *, name: str | None = None, publish: bool = True, assignments: int = 2,
                  **fields: Any) -> Campaign:
    pictures = [make_image(f"img-{i}.png") for i in range(images)]
    campaign = create_campaign(
        name=name or f"campaign-{next(_colours)}",
        task_kind="describe_image",
        reward=fields.pop("reward", Decimal("0.10")),
        assignments_per_hit=assignments,
        items=[{"image": p.pk} for p in pictures],
        **fields,
    )
    if publish:
        publish_campaign(campaign)
        campaign.refresh_from_db()
    return campaign


GOOD_TEXT = "A woman in a red dress walks her brown dog along the beach."


def submitted(campaign: Campaign, text: str = GOOD_TEXT) -> Assignment:
    """A new local worker takes the campaign's next HIT and submits `text`."""
    worker = new_local_worker()
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer={"text": text}).assignment


def make_album(photos: int = 8, *, external_id: str | None = None, title: str = "A day out") -> Album:
    """An album of `photos` small unique photos, one hour apart, created out of time order."""
    from datetime import datetime, timedelta

    number = next(_colours)
    album = Album.objects.create(external_id=external_id or f"album-{number}", title=title, event_label="outing")
    start = datetime(2024, 5, 4, 9, 0, tzinfo=UTC)
    for index in reversed(range(photos)):
        Photo.objects.create(
            album=album, image=make_image(f"{album.external_id}-{index}.png"),
            external_id=f"{album.external_id}-p{index}",
            datetaken=start + timedelta(hours=index), title=f"Photo {index + 1} of the day", tags=["day", "out"],
        )
    return album


def label_vocabulary(name: str = "test labels") -> Vocabulary:
    """The vocabulary that tests' labels belong to when the vocabulary does not matter (a label has one)."""
    return Vocabulary.objects.get_or_create(name=name)[0]

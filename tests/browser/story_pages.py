"""Shared setup of the storyboard browser tests: albums of real (Pillow) photos, stage-1 stories,
published campaigns, and small page helpers."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from annotation.models import Image
from mturk.models import Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from storyboard.models import Album, Photo, Setting, Story, Storylet
from tests.factories import make_image

START = datetime(2016, 7, 2, 9, 30, tzinfo=UTC)


def make_album(photos: int = 8, title: str = "A day at the lake") -> tuple[Album, list[Photo]]:
    """An album whose photos were taken ten minutes apart (created in reverse to check the time order)."""
    album = Album.objects.create(external_id=f"album-{title}", title=title)
    made = []
    for n in reversed(range(photos)):
        image = make_image(f"{album.external_id}-{n}.png", size=(80, 60))
        made.append(Photo.objects.create(album=album, image=image, external_id=f"{album.pk}-{n}",
                                         datetaken=START + timedelta(minutes=10 * n), title=f"photo {n}"))
    return album, sorted(made, key=lambda p: p.datetaken)


def make_story(album: Album, photos: list[Photo], texts: list[str]) -> Story:
    """A stage-1 (storytelling) story: its cards are a photo sequence."""
    story = Story.objects.create(album=album, setting=Setting.TELL)
    Storylet.objects.bulk_create([
        Storylet(story=story, order=order, photo=photo, original_text=text, text=text.lower())
        for order, (photo, text) in enumerate(zip(photos, texts, strict=True))
    ])
    return story


def thumbnail_url(photo: Photo) -> str:
    """The 320 px rendition of a photo, as stored now (thumbnails are made after the import)."""
    return Image.objects.get(pk=photo.image_id).small_url


def large_url(photo: Photo) -> str:
    return Image.objects.get(pk=photo.image_id).display_url


def start_campaign(task_kind: str, items: list[dict[str, Any]], **fields: Any) -> Campaign:
    campaign = create_campaign(name=f"{task_kind} campaign", task_kind=task_kind, items=items,
                               assignments_per_hit=1, **fields)
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


def refused_by_server(page, answer: dict[str, Any]) -> dict[str, Any]:
    """Post `answer` with the page's token, bypassing the page's checks (as a tampered page would)."""
    token = page.locator("#task-form").get_attribute("data-token")
    return page.evaluate(
        """async ([token, answer]) => {
            const r = await fetch('/task/submit/', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                  body: JSON.stringify({token, answer})});
            return {status: r.status, body: await r.json()};
        }""",
        [token, answer],
    )


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")

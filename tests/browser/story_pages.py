"""Shared setup of the storyboard browser tests: albums of real (Pillow) photos, stage-1 stories,
published campaigns, and small page helpers."""
from __future__ import annotations

from typing import Any

from annotation.models import Image
from mturk.models import Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from storyboard.models import Album, Photo, Setting, Story, Storylet
from tests.factories import make_album


def album_and_photos(photos: int = 8) -> tuple[Album, list[Photo]]:
    """An album (tests.factories.make_album) and its photos in time order."""
    album = make_album(photos)
    return album, list(album.photos.order_by("datetaken"))


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

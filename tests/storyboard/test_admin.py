"""The storyboard admin: an album's photos (their images and their order in time) are what stories were told on,
read-only; only the album's descriptive fields can be corrected."""
from __future__ import annotations

import pytest
from django.urls import reverse

from storyboard.models import Album
from tests.factories import make_album

pytestmark = pytest.mark.django_db


def test_an_albums_title_can_be_corrected_but_not_its_photos_or_id(admin_client):
    album = make_album(photos=2, external_id="album-7")
    url = reverse("admin:storyboard_album_change", args=[album.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="photos-0-datetaken"' not in page and 'name="photos-0-image"' not in page
    response = admin_client.post(url, {
        "external_id": "album-8", "title": "A day at the sea", "description": "", "event_label": "beach",
        "owner": "", "flickr": "{}",
        "photos-TOTAL_FORMS": "0", "photos-INITIAL_FORMS": "0", "photos-MIN_NUM_FORMS": "0",
        "photos-MAX_NUM_FORMS": "1000",
    })
    assert response.status_code == 302
    stored = Album.objects.get(pk=album.pk)
    assert (stored.external_id, stored.title, stored.event_label) == ("album-7", "A day at the sea", "beach")
    assert stored.photos.count() == 2
    assert admin_client.get(reverse("admin:storyboard_album_add")).status_code == 403  # through the importers

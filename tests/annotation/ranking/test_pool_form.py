"""Creating a test pool from the console: the form on the Pools page (errors at their field, success, the pool in
the list), its campaign checkboxes, the Pools menu entry and the page's constant query count."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Description
from annotation.ranking.models import TestPool
from mturk.models import Campaign
from mturk.services.review import approve_assignment
from tests.annotation.ranking.pool import build_pool
from tests.factories import make_campaign, make_image, submitted
from tests.queries import queries_for

pytestmark = pytest.mark.django_db

URL = "/pools/"


def approved_campaign(name: str, images: int = 2) -> Campaign:
    campaign = make_campaign(images=images, name=name, assignments=1)
    for _ in range(images):
        approve_assignment(submitted(campaign))
    return campaign


def test_a_pool_is_created_from_checked_campaigns_and_appears_in_the_list(researcher_client, researcher):
    campaign = approved_campaign("street photos")
    approved_campaign("other photos")
    response = researcher_client.post(URL, {"name": " street pool ", "campaigns": [campaign.pk], "images": "1",
                                            "captions_per_image": ""})
    assert response.status_code == 302 and response["Location"] == URL
    pool = TestPool.objects.get()
    assert (pool.name, pool.created_by, pool.pool_images.count(), pool.pool_captions.count()) == (
        "street pool", researcher, 1, 1)
    assert set(pool.pool_captions.values_list("description__assignment__hit__campaign", flat=True)) == {campaign.pk}
    page = researcher_client.get(URL).content.decode()
    assert "Test pool &#x27;street pool&#x27; created." in page
    assert f'<a href="{reverse("pool-leaderboard", args=[pool.pk])}">street pool</a>' in page


def test_every_description_instead_of_campaigns(researcher_client):
    Description.objects.create(image=make_image(), text="an imported caption", source="imported")
    response = researcher_client.post(URL, {"name": "imported", "all_descriptions": "on"})
    assert response.status_code == 302
    assert TestPool.objects.get().pool_captions.count() == 1


def field_error(page: str, field: str) -> str:
    start = page.index(f'id="{field}-error"')
    return page[page.index(">", start) + 1: page.index("</p>", start)]


@pytest.mark.parametrize("data, field, message", [
    ({"name": "", "all_descriptions": "on"}, "id_name", "This field is required."),
    ({"name": "p"}, "pool-campaigns", "Choose at least one campaign, or every description."),
    ({"name": "p", "all_descriptions": "on", "campaigns": ["CAMPAIGN"]}, "pool-campaigns",
     "Choose campaigns or every description, not both."),
    ({"name": "p", "all_descriptions": "on", "images": "0"}, "id_images",
     "Ensure this value is greater than or equal to 1."),
    ({"name": "p", "all_descriptions": "on", "captions_per_image": "two"}, "id_captions_per_image",
     "Enter a whole number."),
    ({"name": "taken", "all_descriptions": "on"}, "id_name", "a test pool named &#x27;taken&#x27; already exists"),
    ({"name": "p", "campaigns": ["EMPTY"]}, "pool-campaigns", "no captions to pool"),
])
def test_errors_are_shown_at_their_field_and_nothing_is_created(researcher_client, data, field, message):
    Description.objects.create(image=make_image(), text="an imported caption", source="imported")
    TestPool.objects.create(name="taken")
    campaign = approved_campaign("real")
    empty = make_campaign(images=1, name="nothing approved")
    data = {**data, "campaigns": [{"CAMPAIGN": campaign.pk, "EMPTY": empty.pk}[c] for c in data.get("campaigns", [])]}
    response = researcher_client.post(URL, data)
    assert response.status_code == 400
    page = response.content.decode()
    assert field_error(page, field) == message
    assert 'aria-invalid="true"' in page or field == "pool-campaigns"
    assert TestPool.objects.count() == 1  # the one made above
    if data["campaigns"]:  # the ticks are kept, to be fixed
        assert f'value="{data["campaigns"][0]}" checked' in page


def test_campaigns_are_checkboxes_of_describe_image_campaigns_real_and_newest_first(researcher_client):
    old = approved_campaign("old real", images=1)
    new = make_campaign(images=1, name="new real")
    fake = make_campaign(images=1, name="demo simulated")
    Campaign.objects.filter(pk=fake.pk).update(is_simulated=True)
    page = researcher_client.get(URL).content.decode()
    assert "<select" not in page
    positions = [page.index(f'name="campaigns" value="{c.pk}"') for c in (new, old, fake)]
    assert positions == sorted(positions)
    assert "1 approved caption · created" in page and "0 approved captions" in page
    assert '<span class="tag simulated">simulated</span>' in page
    assert '<label for="pool-campaign-filter">Filter campaigns</label>' in page


def test_the_menu_has_a_pools_entry_on_every_console_page(researcher_client):
    for url in ("/", reverse("exports"), URL):
        nav = researcher_client.get(url).content.decode()
        nav = nav[nav.index('<nav class="console"'): nav.index("</nav>")]
        assert '<a href="/pools/">Pools</a>' in nav, url


def test_the_page_makes_the_same_queries_for_few_or_many_pools_and_campaigns(researcher_client):
    build_pool("first")
    approved_campaign("one", images=1)
    few = queries_for(researcher_client, URL)
    for n in range(6):
        build_pool(f"more {n}")
        approved_campaign(f"more {n}", images=1)
    assert queries_for(researcher_client, URL) == few

"""The visual review page: each kind's answers drawn, filters, the campaign page's summary, constant queries."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from mturk.models import Assignment
from mturk.services.review import approve_assignment
from mturk.states import AssignmentStatus
from tests.factories import make_campaign, submitted
from tests.mturk.review_builders import (
    STORY,
    answer,
    boxes_campaign,
    card_html,
    links_campaign,
    made_photos,
    stories_campaign,
    street_vocabulary,
)
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def review_url(campaign, query: str = "") -> str:
    return reverse("campaign-review", args=[campaign.pk]) + query


def page_of(client, campaign, query: str = "") -> str:
    response = client.get(review_url(campaign, query))
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_needs_a_staff_login(client, django_user_model):
    campaign = make_campaign(images=1)
    response = client.get(review_url(campaign))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(django_user_model.objects.create_user("bob", password="pw-123456"))
    assert client.get(review_url(campaign)).status_code == 302  # not staff


def test_draw_boxes_shows_every_workers_boxes_with_labels_and_their_agreement(researcher_client):
    campaign = boxes_campaign(images=1, workers=2)
    first, second = Assignment.objects.filter(hit__campaign=campaign).order_by("pk")
    page = page_of(researcher_client, campaign)
    mine = card_html(page, first.pk)
    assert '<svg viewBox="0 0 640 480"' in mine
    # this assignment's set first (the woman at x=20), the other worker's (shifted by 40 px) after it
    own, other = re.findall(r'<figure class="box-set[^"]*">(.*?)</figure>', mine, re.S)
    assert '<rect x="20" y="30" width="200" height="150"/>' in own and ">1 woman</text>" in own
    assert '<rect x="300" y="250" width="200" height="150"/>' in own and ">2 dog</text>" in own
    assert '<rect x="60" y="30"' in other and f"Worker {second.worker.external_id}" in other
    overlay = re.search(r'<figure class="box-overlay" id="overlay-\d+" hidden>(.*?)</figure>', mine, re.S)
    assert overlay and ">A1 woman</text>" in overlay.group(1) and ">B1 woman</text>" in overlay.group(1)
    assert 'aria-pressed="false"' in mine and "Overlay the 2 box sets" in mine
    # woman: IoU 160*150 / (2*200*150 - 160*150) = 2/3 both ways; dog: 1. All four boxes matched at >= 0.5.
    assert "mean best-match IoU 0.83, 100% of boxes matched (IoU ≥ 0.5, same label)" in mine


def test_box_agreement_is_matched_at_the_campaigns_iou_threshold(researcher_client):
    campaign = boxes_campaign(images=1, workers=2)
    campaign.options = {**campaign.options, "iou_threshold": 0.7}
    campaign.save(update_fields=["options"])
    first = Assignment.objects.filter(hit__campaign=campaign).order_by("pk").first()
    mine = card_html(page_of(researcher_client, campaign), first.pk)
    # the women overlap at IoU 2/3 < 0.7: only the two dogs match, 2 of 4 boxes
    assert "mean best-match IoU 0.83, 50% of boxes matched (IoU ≥ 0.7, same label)" in mine


def test_a_different_label_is_no_agreement(researcher_client):
    concepts = street_vocabulary()
    campaign = boxes_campaign(images=1, workers=1)
    campaign.hits.update(max_assignments=2)
    box = {"x": 20, "y": 30, "width": 200, "height": 150}
    extra = answer(campaign, {"boxes": [{**box, "concept": concepts["dog"].pk},
                                        {**box, "x": 300, "y": 250, "concept": concepts["dog"].pk}]})
    mine = card_html(page_of(researcher_client, campaign), extra.pk)
    assert "mean best-match IoU 0.50, 50% of boxes matched" in mine  # the dogs agree, the woman/dog box not


def test_link_words_colours_each_linked_word_like_its_box(researcher_client):
    """Boxes stored as 0 and 1 read 1 and 2, as on the worker page and the boxes review."""
    campaign = links_campaign(1)
    [assignment] = Assignment.objects.filter(hit__campaign=campaign)
    mine = card_html(page_of(researcher_client, campaign), assignment.pk)
    assert ('A <mark class="linked c0">woman<sup>1</sup></mark> walks her '
            '<mark class="linked c1">dog<sup>2</sup></mark>') in mine
    assert '<g class="c0"><rect x="20" y="30" width="200" height="300"/>' in mine and ">1 woman</text>" in mine
    assert '<g class="c1"><rect x="300" y="250"' in mine and ">2 dog</text>" in mine
    assert "2 words linked" in mine


def test_a_story_shows_its_photos_in_story_order_with_each_sentence(researcher_client):
    campaign = stories_campaign(1)
    [assignment] = Assignment.objects.filter(hit__campaign=campaign)
    mine = card_html(page_of(researcher_client, campaign), assignment.pk)
    chosen = list(reversed(made_photos(assignment.hit.items["album"])))[:5]
    from storyboard.models import Photo

    titles = dict(Photo.objects.filter(pk__in=chosen).values_list("pk", "title"))
    shown = re.findall(r'alt="Photo (\d): ([^"]+)"', mine)
    assert shown == [(str(n), titles[pk]) for n, pk in enumerate(chosen, start=1)]
    texts = re.findall(r'<span class="position">\d</span> ([^<]+)</figcaption>', mine)
    assert texts == STORY


def test_describe_image_shows_the_image_and_the_text_escaped(researcher_client):
    campaign = make_campaign(images=1)
    one = submitted(campaign, "<script>alert(1)</script> a man rides a red bicycle down the street")
    mine = card_html(page_of(researcher_client, campaign), one.pk)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; a man rides" in mine and "<script>alert(1)" not in mine
    assert re.search(r'<img src="[^"]+" alt="Image \d+"', mine)


def test_grid_layout_uses_the_thumbnails(researcher_client):
    campaign = boxes_campaign(images=1, workers=1)
    image = campaign.hits.get().items["image"]
    from annotation.models import Image

    picture = Image.objects.get(pk=image)
    picture.thumb_small.save("small.png", picture.original.open("rb"), save=True)
    assert f'src="{picture.small_url}"' in page_of(researcher_client, campaign, "?layout=grid")
    assert f'src="{picture.small_url}"' not in page_of(researcher_client, campaign)


def test_filters_by_status_and_by_check_flag(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    plain = submitted(campaign)
    shouting = submitted(campaign, "A WOMAN IN A RED DRESS WALKS HER BROWN DOG ALONG THE BEACH")
    done = submitted(campaign)
    approve_assignment(done)
    assert shouting.check_flags == ["mostly_uppercase"]

    def shown(query: str) -> set[int]:
        return {int(pk) for pk in re.findall(r'data-assignment="(\d+)"', page_of(researcher_client, campaign, query))}

    assert shown("") == {plain.pk, shouting.pk, done.pk}
    assert shown("?status=submitted") == {plain.pk, shouting.pk}
    assert shown("?status=approved") == {done.pk}
    assert shown("?flag=mostly_uppercase") == {shouting.pk}
    assert shown("?flag=any") == {shouting.pk}
    assert shown("?status=submitted&flag=none") == {plain.pk}
    assert shown("?flag=repeated_words") == set()
    assert shown("?status=nonsense&per_page=7") == {plain.pk, shouting.pk, done.pk}  # unknown values: defaults
    assert '<option value="mostly_uppercase">mostly_uppercase</option>' in page_of(researcher_client, campaign)


def test_pages_keep_the_filters(researcher_client):
    campaign = make_campaign(images=12, assignments=1)
    for _ in range(12):
        submitted(campaign)
    page = page_of(researcher_client, campaign, "?status=submitted&per_page=10&layout=grid")
    assert page.count('class="review-card"') == 10
    assert 'href="?status=submitted&amp;per_page=10&amp;layout=grid&amp;page=2" rel="next"' in page
    second = page_of(researcher_client, campaign, "?status=submitted&per_page=10&layout=grid&page=2")
    assert second.count('class="review-card"') == 2


def test_only_undecided_or_rejected_work_can_be_selected(researcher_client):
    campaign = make_campaign(images=2, assignments=1)
    one, two = submitted(campaign), submitted(campaign)
    approve_assignment(two)
    page = page_of(researcher_client, campaign)
    assert f'name="assignment" value="{one.pk}"' in card_html(page, one.pk)
    assert 'name="assignment"' not in card_html(page, two.pk)
    assert "Select all on this page" in page and "Keyboard shortcuts" in page


def test_campaign_page_summarises_and_links_to_the_review(researcher_client):
    campaign = make_campaign(images=3, assignments=1)
    submitted(campaign)
    submitted(campaign, "A WOMAN IN A RED DRESS WALKS HER BROWN DOG ALONG THE BEACH")
    approve_assignment(submitted(campaign))
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    review = review_url(campaign)
    assert f'<a href="{review}?status=submitted">2 submitted</a>, <a href="{review}?status=approved">1 approved</a>' \
        in page
    assert "1 submitted one(s) flagged by the automatic checks" in page
    assert f'href="{review}?status=submitted&amp;flag=any">Review the flagged ones</a>' in page
    assert 'class="review-card"' not in page  # the answers are on the review page only


@pytest.mark.parametrize("builder", [
    pytest.param(lambda n, name: boxes_campaign(images=n, workers=2, name=name), id="draw_boxes, 2 workers"),
    pytest.param(lambda n, name: links_campaign(n * 2, name=name), id="link_words"),
    pytest.param(lambda n, name: stories_campaign(n * 2, name=name), id="tell_story"),
])
def test_queries_do_not_grow_with_the_page_size(researcher_client, builder):
    small, large, query = builder(1, "few"), builder(10, "many"), "?per_page=50"
    assert Assignment.objects.filter(hit__campaign=small).count() == 2
    assert Assignment.objects.filter(hit__campaign=large).count() == 20
    few = queries_for(researcher_client, review_url(small, query))
    many = queries_for(researcher_client, review_url(large, query))
    assert few == many <= 12
    assert page_of(researcher_client, large, query).count('class="review-card"') == 20


def test_an_approved_and_a_rejected_story_kind_still_render(researcher_client):
    campaign = stories_campaign(2)
    first, second = Assignment.objects.filter(hit__campaign=campaign).order_by("pk")
    approve_assignment(first)
    Assignment.objects.filter(pk=second.pk).update(status=AssignmentStatus.REJECTED, feedback="Too short.")
    page = page_of(researcher_client, campaign)
    assert "Approved" in card_html(page, first.pk) and "Feedback: Too short." in card_html(page, second.pk)

"""Gold HITs mixed into a campaign at its gold rate: how many, where (random positions from a generator seeded
by the campaign), which items (cycled), in one insert in position order; refusals; HITs added later and by a
stage; the cost estimate and the wizard's review count them."""
from __future__ import annotations

import random
from decimal import Decimal

import pytest

from mturk.models import HIT, Campaign
from mturk.selectors.publication import preview_publication
from mturk.services.campaigns import CampaignError, add_hits, create_campaign
from mturk.services.gold import gold_share, set_gold_active
from tests.factories import make_image

from . import gold_kind
from .gold_kind import campaign_ids, gold_item

no_quality = gold_kind.no_quality  # fixture
required_words = gold_kind.required_words  # fixture

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("real, rate, gold", [
    (8, 0.2, 2),  # 8 * 0.2 / 0.8 = 2: 2 of 10 HITs
    (10, 0.2, 3),  # 2.5, a half rounded up: 3 of 13
    (3, 0.5, 3),  # half of the HITs
    (1, 0.2, 0),  # 0.25
    (7, 0.1, 1),  # 0.78
    (0, 0.3, 0),
    (9, 0.0, 0),
])
def test_how_many_gold_hits_make_the_rate(real, rate, gold):
    assert gold_share(real, rate) == gold


def gold_campaign(images: int, rate: float, name: str = "mixed", **fields) -> Campaign:
    pictures = [make_image() for _ in range(images)]
    return create_campaign(name=name, task_kind="describe_image", assignments_per_hit=3, gold_rate=rate,
                           items=[{"image": p.pk} for p in pictures], **fields)


def test_gold_hits_are_interleaved_at_seeded_random_positions_in_one_insert(required_words):
    golds = [gold_item(("dog",)), gold_item(("cat",)), gold_item(("sun",))]
    campaign = gold_campaign(8, 0.2)
    rows = campaign_ids(campaign)
    assert [position for _, position, _ in rows] == list(range(1, 11))
    assert [pk for pk, _, _ in rows] == sorted(pk for pk, _, _ in rows)  # ids follow the positions
    expected_slots = sorted(random.Random(f"gold:{campaign.pk}:1").sample(range(10), 2))
    assert [position - 1 for _, position, gold in rows if gold is not None] == expected_slots
    assert [gold for _, _, gold in rows if gold is not None] == [golds[0].pk, golds[1].pk]  # cycled in id order
    for hit in campaign.hits.exclude(gold_item=None):
        assert hit.gold_item is not None and hit.items == hit.gold_item.items
        assert hit.max_assignments == 3 and not hit.onboarding
    real = list(campaign.hits.filter(gold_item=None).order_by("position").values_list("items", flat=True))
    assert len(real) == 8


def test_hits_added_later_keep_the_rate_and_go_on_cycling(required_words):
    golds = [gold_item(("dog",)), gold_item(("cat",)), gold_item(("sun",))]
    campaign = gold_campaign(8, 0.2)
    added = add_hits(campaign, [{"image": make_image().pk} for _ in range(4)])
    # 12 real HITs now want 3 gold ones: one more, the third gold item
    assert len(added) == 5 and [h.position for h in added] == [11, 12, 13, 14, 15]
    assert [h.gold_item_id for h in added if h.gold_item_id] == [golds[2].pk]
    assert campaign.hits.exclude(gold_item=None).count() == 3


def test_a_real_item_equal_to_a_gold_items_items_is_still_added(required_words):
    image = make_image()
    known = gold_item(image=image.pk)
    campaign = create_campaign(name="same image", task_kind="describe_image", gold_rate=0.5,
                               items=[{"image": image.pk}])
    assert {(h.items["image"], h.gold_item_id) for h in campaign.hits.all()} == {(image.pk, None),
                                                                                 (image.pk, known.pk)}
    assert add_hits(campaign, [{"image": image.pk}]) == []  # the real item is known: skipped as before


def test_a_gold_rate_without_active_gold_items_is_refused(required_words):
    with pytest.raises(CampaignError) as refused:
        gold_campaign(2, 0.2)
    assert str(refused.value) == ("a gold rate of 0.2 needs active gold items of describe_image; there are none "
                                  "(add some under /api/gold-items/, with import_gold, or from the review)")
    set_gold_active(gold_item(purpose="onboarding"), True)  # onboarding items are not mixed in
    with pytest.raises(CampaignError, match="needs active gold items"):
        gold_campaign(2, 0.2)
    set_gold_active(gold_item(), False)
    with pytest.raises(CampaignError, match="needs active gold items"):
        gold_campaign(2, 0.2)
    assert not Campaign.objects.exists() and not HIT.objects.exists()


def test_a_gold_rate_for_a_kind_without_gold_scoring_is_refused(no_quality):
    with pytest.raises(CampaignError, match="task kind 'describe_image' has no gold scoring, so it cannot take gold"):
        gold_campaign(2, 0.2)


def test_a_gold_rate_above_a_half_is_refused(required_words):
    gold_item()
    with pytest.raises(CampaignError, match="gold_rate: Ensure this value is less than or equal to 0.5"):
        gold_campaign(2, 0.6)


def test_adding_hits_when_every_gold_item_was_switched_off(required_words):
    known = gold_item()
    campaign = gold_campaign(2, 0.5)
    set_gold_active(known, False)
    before = campaign.hits.count()
    with pytest.raises(CampaignError, match="has no active gold item left"):
        add_hits(campaign, [{"image": make_image().pk}])
    assert campaign.hits.count() == before
    # a stage feeding one item takes it without gold rather than losing it
    added = add_hits(campaign, [{"image": make_image().pk}], require_gold=False)
    assert [h.gold_item_id for h in added] == [None]


def test_the_estimate_and_the_wizard_review_count_the_gold_hits(required_words, researcher_client):
    gold_item()
    pictures = [make_image() for _ in range(4)]
    campaign = create_campaign(name="priced", task_kind="describe_image", assignments_per_hit=2,
                               reward=Decimal("0.10"), gold_rate=0.2, items=[{"image": p.pk} for p in pictures])
    preview = preview_publication(campaign)
    assert len(preview.drafts) == 5  # 4 real + round(4 * 0.25) = 1 gold
    assert preview.all_drafts.assignments == 10 and preview.all_drafts.rewards == Decimal("1.00")
    response = researcher_client.post("/campaigns/new/", {
        "step": "review", "flow": "campaign", "kind": "describe_image", "source": "images",
        "item-images": [str(p.pk) for p in pictures], "provider": "local", "name": "wizard gold",
        "reward": "0.10", "assignments_per_hit": "2", "gold_rate": "0.2"})
    page = response.content.decode()
    assert response.status_code == 200, page
    assert "<dt>HITs</dt><dd>5, of which 1 gold (known answers, share 0.2)" in page
    assert "5 HIT(s), 10 assignment(s)" in page and "$1.00" in page
    assert Campaign.objects.filter(name="wizard gold").count() == 0


def test_the_wizard_shows_the_gold_settings_and_their_errors(required_words, researcher_client):
    form = researcher_client.get("/campaigns/new/").content.decode()
    assert "Gold and onboarding (known answers)" in form
    assert 'id="f-gold_rate"' in form and 'aria-describedby="help-gold_rate"' in form
    assert 'id="f-onboarding_items"' in form and 'id="f-onboarding_pass"' in form
    response = researcher_client.post("/campaigns/new/", {
        "step": "review", "flow": "campaign", "kind": "describe_image", "source": "all_images",
        "provider": "local", "name": "too golden", "gold_rate": "0.7"})
    assert response.status_code == 400
    assert "Ensure this value is less than or equal to 0.5." in response.content.decode()


def test_a_workflow_stage_takes_a_gold_rate_as_a_setting(required_words):
    from mturk.services.chains import create_chain

    gold_item(("dog",))
    pictures = [make_image() for _ in range(4)]
    stages = {"describe": {"task_kind": "describe_image", "source": None}}
    chain = create_chain("chained", stages, [{"image": p.pk} for p in pictures],
                         settings={"describe": {"gold_rate": 0.2}})
    campaign = chain["describe"]
    assert campaign.gold_rate == 0.2
    assert campaign.hits.exclude(gold_item=None).count() == gold_share(4, 0.2) == 1

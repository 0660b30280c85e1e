"""Campaign creation, HIT items and publishing within the budget cap."""
from decimal import Decimal

import pytest

from mturk.models import HIT
from mturk.services.campaigns import CampaignError, add_hits, create_campaign, publish_campaign
from mturk.states import CampaignStatus, HITStatus
from mturk.task_kinds import UnknownTaskKind
from tests.factories import make_campaign, make_image

pytestmark = pytest.mark.django_db


def test_defaults_come_from_the_task_kind():
    campaign = create_campaign(name="c", task_kind="describe_image")
    assert campaign.reward == Decimal("0.05")
    assert campaign.assignments_per_hit == 5
    assert campaign.options == {"min_words": 8}
    assert "describe all the important parts of the scene" in campaign.instructions.lower()
    assert campaign.status == CampaignStatus.DRAFT


def test_bad_campaign_input_is_refused():
    with pytest.raises(UnknownTaskKind, match="unknown task kind 'paint'"):
        create_campaign(name="c", task_kind="paint")
    with pytest.raises(CampaignError, match="unknown option"):
        create_campaign(name="c", task_kind="describe_image", options={"colour": "red"})
    create_campaign(name="c", task_kind="describe_image")
    with pytest.raises(CampaignError, match="already exists"):
        create_campaign(name="c", task_kind="describe_image")


def test_items_are_validated_and_nothing_is_stored_on_error():
    image = make_image()
    with pytest.raises(CampaignError, match="unknown image id"):
        create_campaign(name="c", task_kind="describe_image", items=[{"image": image.pk}, {"image": 999}])
    with pytest.raises(CampaignError, match="expected"):
        create_campaign(name="d", task_kind="describe_image", items=[{"img": image.pk}])
    assert HIT.objects.count() == 0


def test_add_hits_skips_items_already_there():
    campaign = make_campaign(images=2, publish=False)
    items = list(campaign.hits.values_list("items", flat=True))
    assert add_hits(campaign, items) == []
    assert campaign.hits.count() == 2


def test_publish_stops_at_the_budget_cap():
    # 5 HITs x 2 assignments x $0.10 = $1.00; a cap of $0.45 allows 2 HITs ($0.40).
    campaign = make_campaign(images=5, assignments=2, publish=False, budget_cap=Decimal("0.45"))
    result = publish_campaign(campaign)
    assert (result.published, result.left_in_draft, result.stopped_by_budget) == (2, 3, True)
    assert result.cost.total == Decimal("0.40")
    assert campaign.hits.filter(status=HITStatus.PUBLISHED).count() == 2
    again = publish_campaign(campaign)  # committed spend counts: nothing more fits
    assert again.published == 0 and again.left_in_draft == 3


def test_publish_is_idempotent_and_gives_the_worker_link(settings):
    campaign = make_campaign(images=2, publish=False)
    first = publish_campaign(campaign)
    second = publish_campaign(campaign)
    assert (first.published, second.published) == (2, 0)
    assert first.worker_link.startswith(settings.PUBLIC_BASE_URL + "/w/")
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.ACTIVE


def test_assignments_added_everywhere_are_checked_against_the_budget_before_any_hit_changes():
    from decimal import Decimal

    from mturk.models import HIT
    from mturk.services.hits import HITError, add_assignments_everywhere
    from tests.factories import make_campaign

    campaign = make_campaign(images=3, assignments=1, reward=Decimal("1.00"), budget_cap=Decimal("5.00"))
    with pytest.raises(HITError, match="budget cap"):
        add_assignments_everywhere(campaign, 1)  # 3 published slots + 3 more = 6.00 > 5.00
    assert set(HIT.objects.filter(campaign=campaign).values_list("max_assignments", flat=True)) == {1}
    campaign.budget_cap = Decimal("6.00")
    campaign.save(update_fields=["budget_cap"])
    assert add_assignments_everywhere(campaign, 1) == 3
    assert set(HIT.objects.filter(campaign=campaign).values_list("max_assignments", flat=True)) == {2}

"""The grounded-descriptions workflow: three chained campaigns created together, or none."""
from __future__ import annotations

from decimal import Decimal

import pytest

from annotation.services.grounded_workflow import create_grounded_workflow
from mturk.models import Campaign
from mturk.services.campaigns import CampaignError
from mturk.states import CampaignStatus, HITStatus
from tests.factories import make_image

pytestmark = pytest.mark.django_db


def test_three_chained_stages_with_a_draw_boxes_hit_per_image():
    images = [make_image(f"g{n}.png") for n in range(3)]
    stages = create_grounded_workflow("G", images, settings={"link": {"assignments_per_hit": 2},
                                                             "boxes": {"reward": Decimal("0.20")}})
    assert list(stages) == ["boxes", "describe", "link"]
    assert [c.name for c in stages.values()] == ["G · boxes", "G · describe", "G · link"]
    assert [c.task_kind for c in stages.values()] == ["draw_boxes", "describe_image", "link_words"]
    assert stages["describe"].source_stage == stages["boxes"] and stages["link"].source_stage == stages["describe"]
    assert [h["image"] for h in stages["boxes"].hits.order_by("position").values_list("items", flat=True)] == \
        [i.pk for i in images]
    assert stages["boxes"].reward == Decimal("0.20") and stages["link"].assignments_per_hit == 2
    assert stages["describe"].assignments_per_hit == 5  # describe_image's default


def test_published_together():
    stages = create_grounded_workflow("P", [make_image("p.png")], publish=True)
    assert {c.status for c in stages.values()} == {CampaignStatus.ACTIVE}
    assert set(stages["boxes"].hits.values_list("status", flat=True)) == {HITStatus.PUBLISHED}


@pytest.mark.parametrize("stage_settings, message", [
    ({"rate": {"reward": Decimal("1")}}, "unknown stage(s) rate"),
    ({"link": {"colour": "red"}}, "unknown setting(s) colour"),
    ({"link": {"options": {"nope": 1}}}, "unknown option(s)"),
])
def test_a_refused_setting_creates_nothing(stage_settings, message):
    with pytest.raises(CampaignError, match=message.replace("(", r"\(").replace(")", r"\)")):
        create_grounded_workflow("R", [make_image("r.png")], settings=stage_settings)
    assert Campaign.objects.count() == 0


def test_needs_an_image():
    with pytest.raises(CampaignError, match="at least one image"):
        create_grounded_workflow("E", [])

"""Launch the grounded-descriptions workflow: one campaign per stage, chained (see README, "Stages chain").

    boxes (draw_boxes, per image) -> describe (describe_image, per image whose boxes were approved)
                                  -> link (link_words, per approved description of an image with boxes)

Each stage takes its task kind's defaults; every stage setting can be overridden as in the story workflow:
`settings={"link": {"assignments_per_hit": 2}}` (a second worker per description gives the agreement figure). The
boxes stage's labels are a vocabulary's: `vocabulary="kitchen"`, the same as
`settings={"boxes": {"options": {"vocabulary": "kitchen"}}}`."""
from __future__ import annotations

from typing import Any

from mturk.models import Campaign
from mturk.services.campaigns import CampaignError
from mturk.services.chains import create_chain

from ..models import Image

STAGES: dict[str, dict[str, Any]] = {
    "boxes": {"task_kind": "draw_boxes", "source": None},
    "describe": {"task_kind": "describe_image", "source": "boxes"},
    "link": {"task_kind": "link_words", "source": "describe"},
}


def create_grounded_workflow(
    name: str,
    images: list[Image],
    *,
    provider: str | None = None,  # None: the default provider (settings.DEFAULT_CROWD_PROVIDER)
    settings: dict[str, dict[str, Any]] | None = None,
    publish: bool = False,
    is_simulated: bool = False,
    created_by: Any = None,
    vocabulary: str = "",
) -> dict[str, Campaign]:
    """Create (and optionally publish) the chained campaigns, one draw_boxes HIT per image; returns them by
    stage name. Nothing is created when a setting is refused."""
    if not images:
        raise CampaignError("a grounded-descriptions workflow needs at least one image")
    if vocabulary:
        settings = {**(settings or {})}
        boxes = settings["boxes"] = {**settings.get("boxes", {})}
        boxes["options"] = {**boxes.get("options", {}), "vocabulary": vocabulary}
    return create_chain(name, STAGES, [{"image": image.pk} for image in images], provider=provider,
                        settings=settings, publish=publish, is_simulated=is_simulated, created_by=created_by)

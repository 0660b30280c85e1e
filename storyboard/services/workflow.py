"""Launch the visual-stories workflow: one campaign per stage, chained, with the defaults of Huang et al. (2016).

    tell (2 per album, $0.30) -> retell (3 per album, $0.25) -> dii (describe_image, 3 per photo, $0.05)
                                                             -> dis (describe_sequence, 3 per sequence, $0.07)
                                                             -> rate (rate_story, 5 per story), optional

Every stage setting can be overridden: `settings={"retell": {"assignments_per_hit": 5},
"tell": {"options": {"discard_after_skips": 1}}}`."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from mturk.models import Campaign
from mturk.services.campaigns import CampaignError
from mturk.services.chains import check_stage_settings, create_chain

from ..models import Album

STAGES: dict[str, dict[str, Any]] = {
    "tell": {"task_kind": "tell_story", "source": None},
    "retell": {"task_kind": "retell_story", "source": "tell"},
    "dii": {"task_kind": "describe_image", "source": "retell", "reward": Decimal("0.05"), "assignments_per_hit": 3,
            "title": "Describe a photo in one sentence"},
    "dis": {"task_kind": "describe_sequence", "source": "retell"},
    "rate": {"task_kind": "rate_story", "source": "retell"},
}


def create_story_workflow(
    name: str,
    albums: list[Album],
    *,
    ratings: bool = False,
    provider: str | None = None,  # None: the default provider (settings.DEFAULT_CROWD_PROVIDER)
    settings: dict[str, dict[str, Any]] | None = None,
    publish: bool = False,
    is_simulated: bool = False,
    created_by: Any = None,
) -> dict[str, Campaign]:
    """Create (and optionally publish) the chained campaigns; returns them by stage name."""
    wanted = [s for s in STAGES if s != "rate" or ratings]
    check_stage_settings(wanted, settings or {})
    if not albums:
        raise CampaignError("a story workflow needs at least one album")
    return create_chain(
        name, {stage: STAGES[stage] for stage in wanted}, [{"album": album.pk} for album in albums],
        provider=provider, settings=settings, publish=publish, is_simulated=is_simulated, created_by=created_by,
    )

"""The visual-stories workflow, as the campaign wizard offers it."""
from __future__ import annotations

from typing import Any

from mturk.models import Campaign
from mturk.workflows import Workflow, register_workflow

from .models import Album
from .services.workflow import STAGES, create_story_workflow


def _create(name: str, items: list[dict[str, Any]], **options: Any) -> dict[str, Campaign]:
    albums = list(Album.objects.filter(pk__in=[item["album"] for item in items]).order_by("pk"))
    return create_story_workflow(name, albums, **options)


register_workflow(Workflow(
    name="stories",
    label="Visual stories workflow",
    blurb="Workers tell a story about each album, others re-tell it, then describe the chosen photos alone and in "
          "sequence (and, optionally, rate the stories): one chained campaign per stage.",
    stages={stage: spec["task_kind"] for stage, spec in STAGES.items()},
    first_kind="tell_story",
    create=_create,
    switches={"ratings": ("rate", "Add the rating stage (rate: 5 judges per story)")},
))

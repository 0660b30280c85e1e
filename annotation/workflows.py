"""The grounded-descriptions workflow, as the campaign wizard offers it."""
from __future__ import annotations

from typing import Any

from mturk.models import Campaign
from mturk.workflows import Workflow, register_workflow

from .models import Image
from .services.grounded_workflow import STAGES, create_grounded_workflow


def _create(name: str, items: list[dict[str, Any]], **options: Any) -> dict[str, Campaign]:
    images = list(Image.objects.filter(pk__in=[item["image"] for item in items]).order_by("pk"))
    return create_grounded_workflow(name, images, **options)


register_workflow(Workflow(
    name="grounded",
    label="Grounded descriptions workflow",
    blurb="Workers draw and label boxes, then describe each image, then link the words of each description to "
          "the boxes: three chained campaigns.",
    stages={stage: spec["task_kind"] for stage, spec in STAGES.items()},
    first_kind="draw_boxes",
    create=_create,
))

"""describe_image: one sentence about one image (DII / COCO-style captioning)."""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from rest_framework import serializers

from metrics.text.markup import tokenize
from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, get_task_kind, register

from ..models import Description, Image
from ..review_data import review_images

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)


def words(text: str) -> list[str]:
    return WORD.findall(text)


class DescribeImageResult(StrictSerializer):
    text = serializers.CharField(max_length=1000, trim_whitespace=True)

    def validate_text(self, value: str) -> str:
        min_words = int(self.context["options"]["min_words"])
        count = len(words(value))
        if count < min_words:
            raise serializers.ValidationError(
                f"Please describe the image in at least {min_words} words (you wrote {count})."
            )
        return " ".join(value.split())


def image_payloads(image_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Task-page data for images, in one query."""
    images = Image.objects.in_bulk(image_ids)
    return {
        pk: {"id": pk, "url": image.display_url, "width": image.width, "height": image.height}
        for pk, image in images.items()
    }


def validate_image_items(items: list[dict[str, Any]]) -> None:
    """HIT items of the kinds that show one image: {"image": <existing image id>}."""
    for index, item in enumerate(items):
        if set(item) != {"image"} or not isinstance(item["image"], int):
            raise ValueError(f"item {index}: expected {{\"image\": <image id>}}, got {item!r}")
    wanted = {item["image"] for item in items}
    missing = wanted - set(Image.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    if missing:
        raise ValueError(f"unknown image id(s): {', '.join(map(str, sorted(missing)))}")


@register
class DescribeImage(TaskKind):
    name = "describe_image"
    label = "Describe an image"
    blurb = "The worker writes one sentence or more describing an image."
    template = "annotation/describe_image.html"
    review_template = "annotation/review_describe_image.html"
    result_serializer = DescribeImageResult
    answer_needs_payload = False  # the answer is checked against the options only
    defaults = TaskDefaults(
        reward=Decimal("0.05"),
        assignments_per_hit=5,
        time_limit_seconds=10 * 60,
        title="Describe an image in one sentence",
        description="Look at a picture and write one sentence that describes it.",
        instructions=(
            "Describe all the important parts of the scene in one sentence. "
            "Mention the people, animals and objects you see and what they are doing."
        ),
        options={"min_words": 8},
    )

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        validate_image_items(items)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        images = image_payloads([hit.items["image"] for hit in hits])
        return {hit.pk: {"image": images.get(hit.items["image"])} for hit in hits}

    def checks(self, campaign: Campaign, answer: dict[str, Any]) -> list[str]:
        tokens = [w.lower() for w in words(answer["text"])]
        flags = []
        if tokens and len(set(tokens)) / len(tokens) < 0.5:
            flags.append("repeated_words")
        letters = [c for c in answer["text"] if c.isalpha()]
        if letters and sum(c.isupper() for c in letters) / len(letters) > 0.6:
            flags.append("mostly_uppercase")
        return flags

    def summary(self, answer: dict[str, Any] | None) -> str:
        return "" if not answer else answer.get("text", "")

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The image and the text; one query (the image renditions)."""
        images = review_images(a.hit.items["image"] for a in assignments)
        return {a.pk: {"image": images.get(a.hit.items["image"]), "text": self.summary(a.answer)}
                for a in assignments}

    def items_from_stage(self, campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
        """The images the feeding stage made ready: an image whose boxes were accepted (draw_boxes),
        the photos of an album's chosen sequence (retell_story, for DII)."""
        source = get_task_kind(assignment.hit.campaign.task_kind)
        return [{"image": image} for image in source.ready_images(assignment)]

    def on_approved(self, assignment: Assignment) -> None:
        from metrics.text.normalize import normalize  # the VIST text normalization (DII)

        text = assignment.submitted_answer()["text"]
        Description.objects.get_or_create(
            assignment=assignment,
            defaults={
                "image_id": assignment.hit.items["image"],
                "text": text,
                "tokens": tokenize(text),
                "normalized_text": normalize(text),
                "source": "simulated" if assignment.is_simulated else "crowd",
            },
        )

"""describe_sequence (DIS): describe each photo of a fixed sequence, seeing the whole sequence."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, register

from ..review_data import answer_of, strip
from ..selectors import album_payload, stories_with_albums, story_sequences
from ..services.stages import choose_sequence
from ..services.stories import record_sequence_descriptions
from .common import check_texts, check_whole_numbers, clean_text, validate_story_items


class DescribeSequenceResult(StrictSerializer):
    texts = serializers.JSONField()

    def validate_texts(self, texts: Any) -> list[str]:
        count = len(self.context["payload"]["sequence"]["photos"])
        if not isinstance(texts, list) or len(texts) != count:
            raise serializers.ValidationError(f"Write one description for each of the {count} photos.")
        cleaned = [clean_text(t, f"Photo {i}") for i, t in enumerate(texts, start=1)]
        check_texts(cleaned, min_words_each=int(self.context["options"]["min_words"]), noun="description")
        return cleaned


@register
class DescribeSequence(TaskKind):
    name = "describe_sequence"
    label = "Describe photos in a sequence"
    blurb = "The worker describes each photo of a chosen sequence as part of the story it tells."
    template = "storyboard/describe_sequence.html"
    review_template = "storyboard/review_strip.html"
    result_serializer = DescribeSequenceResult
    defaults = TaskDefaults(
        reward=Decimal("0.07"),
        assignments_per_hit=3,
        time_limit_seconds=20 * 60,
        title="Describe each photo of a photo sequence",
        description="Write one sentence that describes each photo of a short sequence.",
        instructions=(
            "These photos form a sequence. For each photo, describe all the important parts of the "
            "scene in one sentence: the people, animals and objects you see and what they are doing. "
            "Describe what is in the photo; you may use the other photos to understand it."
        ),
        options={"min_words": 5},
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        check_whole_numbers(options, {"min_words": 0})

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        validate_story_items(items, storytelling_only=True)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        story_ids = {hit.items["sequence"] for hit in hits}
        stories = stories_with_albums(story_ids)
        cards = story_sequences(story_ids)
        payloads = {}
        for hit in hits:
            story = stories[hit.items["sequence"]]
            payloads[hit.pk] = {
                "album": album_payload(story.album),
                "sequence": {"id": story.pk, "photos": [photo for photo, _ in cards[story.pk]]},
            }
        return payloads

    def summary(self, answer: dict[str, Any] | None) -> str:
        return "" if not answer else " | ".join(answer["texts"])

    def items_from_stage(self, campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
        chosen = choose_sequence(assignment)
        return [] if chosen is None else [{"sequence": chosen.sequence_id}]

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The sequence in story order with each photo's description under it."""
        context = {}
        for a in assignments:
            photos = payloads.get(a.hit_id, {}).get("sequence", {}).get("photos", [])
            context[a.pk] = {"strip": strip(photos, answer_of(a.answer).get("texts") or [])}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        record_sequence_descriptions(assignment)

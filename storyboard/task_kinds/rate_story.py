"""rate_story: a judge rates one story on its photo sequence (Likert 1-5, optionally six aspects)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, register

from ..review_data import answer_of, strip
from ..selectors import album_payload, stories_with_albums, story_sequences
from ..services.stages import album_stories, retelling_complete
from ..services.stories import record_rating
from .common import integer, validate_story_items

QUESTION = (
    "If these were my photos, I would like using a story like this to share my experience with my friends."
)
ASPECTS = {
    "focused": "The story is focused.",
    "coherent": "The story is structured and coherent.",
    "would_share": "I would share this story with my friends.",
    "human_like": "This story sounds like it was written by a human.",
    "grounded": "This story is directly related to the photos.",
    "detail": "This story has the appropriate amount of detail.",
}


def likert(value: Any) -> bool:
    return integer(value) and 1 <= value <= 5


class RateStoryResult(StrictSerializer):
    rating = serializers.JSONField()
    aspects = serializers.JSONField(required=False)

    def validate_rating(self, value: Any) -> int:
        if not likert(value):
            raise serializers.ValidationError("Choose a rating from 1 (strongly disagree) to 5 (strongly agree).")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if not self.context["options"]["aspects"]:
            if "aspects" in attrs:
                raise serializers.ValidationError({"aspects": "This task does not ask about aspects."})
            return attrs
        aspects = attrs.get("aspects")
        if not isinstance(aspects, dict):
            raise serializers.ValidationError({"aspects": "Answer every question about the story."})
        problems = [f"Unknown aspect {name!r}." for name in sorted(set(aspects) - set(ASPECTS))]
        problems += [f"Rate \"{text}\" from 1 to 5." for name, text in ASPECTS.items() if not likert(aspects.get(name))]
        if problems:
            raise serializers.ValidationError({"aspects": problems})
        return attrs


@register
class RateStory(TaskKind):
    name = "rate_story"
    label = "Rate a story"
    blurb = "The worker rates a story told about a photo sequence from 1 to 5 and, optionally, on six aspects."
    template = "storyboard/rate_story.html"
    review_template = "storyboard/review_rate_story.html"
    result_serializer = RateStoryResult
    answer_needs_payload = False  # the answer is checked against the options only
    defaults = TaskDefaults(
        reward=Decimal("0.05"),
        assignments_per_hit=5,
        time_limit_seconds=10 * 60,
        title="Rate a short story about a photo sequence",
        description="Read a story written for a sequence of photos and say how much you agree with a statement.",
        instructions="Read the story under the photos, then say how much you agree with each statement.",
        options={"aspects": False},
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        if not isinstance(options["aspects"], bool):
            raise ValueError("option aspects must be true or false")

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        validate_story_items(items, storytelling_only=False)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        story_ids = {hit.items["story"] for hit in hits}
        stories = stories_with_albums(story_ids)
        cards = story_sequences(story_ids)
        payloads = {}
        for hit in hits:
            story = stories[hit.items["story"]]
            payloads[hit.pk] = {
                "album": album_payload(story.album),
                "story": {"id": story.pk, "cards": [
                    {"photo": photo, "text": storylet.original_text} for photo, storylet in cards[story.pk]
                ]},
            }
        return payloads

    def summary(self, answer: dict[str, Any] | None) -> str:
        return "" if not answer else f"rating {answer['rating']}"

    def items_from_stage(self, campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
        if not retelling_complete(assignment):
            return []
        return [{"story": story} for story in album_stories(assignment)]

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The rated story with its strip, the overall rating and every aspect with its value."""
        context = {}
        for a in assignments:
            answer = answer_of(a.answer)
            cards = payloads.get(a.hit_id, {}).get("story", {}).get("cards", [])
            aspects = answer.get("aspects") or {}
            context[a.pk] = {
                "strip": strip([c["photo"] for c in cards], [c["text"] for c in cards]),
                "ratings": [(QUESTION, answer.get("rating"))] + [(text, aspects.get(name)) for name, text in
                                                                  ASPECTS.items() if name in aspects],
            }
        return context

    def on_approved(self, assignment: Assignment) -> None:
        record_rating(assignment)

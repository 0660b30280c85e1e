"""tell_story (storytelling, stage 1): pick photos of an album, order them, write a story on them."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, register

from ..models import Album
from ..review_data import answer_of, strip
from ..selectors import album_payload, album_photos, storytelling_outcomes
from ..services.stories import record_story
from .common import check_texts, check_whole_numbers, clean_text, integer, validate_album_items


class TellStoryResult(StrictSerializer):
    cards = serializers.JSONField(required=False)
    skip = serializers.BooleanField(required=False, default=False)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if attrs.get("skip"):
            reason = " ".join(attrs.get("reason", "").split())
            if len(reason) < 3:
                raise serializers.ValidationError({"reason": "Please say why this album is not storyable."})
            if attrs.get("cards"):
                raise serializers.ValidationError({"skip": "Skip the album or submit a story, not both."})
            return {"skip": True, "reason": reason}
        if "cards" not in attrs:
            raise serializers.ValidationError({"cards": "Add photos to the storyboard and write your story."})
        return {"cards": self._clean_cards(attrs["cards"])}

    def _clean_cards(self, cards: Any) -> list[dict[str, Any]]:
        options, payload = self.context["options"], self.context["payload"]
        if not isinstance(cards, list) or not all(isinstance(c, dict) and set(c) == {"photo", "text"} for c in cards):
            raise serializers.ValidationError(
                {"cards": "Expected a list of cards, each {\"photo\": <id>, \"text\": <text>}."}
            )
        low, high = int(options["min_cards"]), int(options["max_cards"])
        if not low <= len(cards) <= high:
            wanted = f"exactly {low}" if low == high else f"between {low} and {high}"
            raise serializers.ValidationError({"cards": f"Your story needs {wanted} photos (you chose {len(cards)})."})
        album_photo_ids = {p["id"] for p in payload["photos"]}
        problems, seen = [], set()
        for index, card in enumerate(cards, start=1):
            photo = card["photo"]
            if not integer(photo) or photo not in album_photo_ids:
                problems.append(f"Card {index}: photo {photo!r} is not in this album.")
            elif photo in seen:
                problems.append(f"Card {index}: this photo is already on the storyboard; use each photo once.")
            seen.add(photo)
        if problems:
            raise serializers.ValidationError({"cards": problems})
        try:
            texts = [clean_text(c["text"], f"Card {i}") for i, c in enumerate(cards, start=1)]
            check_texts(texts, min_words_total=int(options["min_words"]))
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({"cards": exc.detail}) from None
        return [{"photo": c["photo"], "text": t} for c, t in zip(cards, texts, strict=True)]


@register
class TellStory(TaskKind):
    name = "tell_story"
    label = "Tell a story about an album"
    blurb = "The worker arranges photos from an album on a storyboard and writes a story, one line per card."
    template = "storyboard/tell_story.html"
    review_template = "storyboard/review_strip.html"
    result_serializer = TellStoryResult
    defaults = TaskDefaults(
        reward=Decimal("0.30"),
        assignments_per_hit=2,
        time_limit_seconds=30 * 60,
        title="Tell a story with photos from an album",
        description="Pick photos from an album, put them in order and write a short story.",
        instructions=(
            "Look through the album. Click the photos you want in your story; they appear as cards on "
            "the storyboard. Drag the cards into the order of your story and write one sentence or "
            "phrase on each card, so that together they tell a story. If the album cannot make a "
            "story, use \"This album is not storyable\" and say why."
        ),
        options={"min_cards": 5, "max_cards": 5, "min_words": 15, "discard_after_skips": 2},
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        check_whole_numbers(options, {"min_cards": 1, "max_cards": 1, "min_words": 0, "discard_after_skips": 1})
        if options["min_cards"] > options["max_cards"]:
            raise ValueError("option min_cards must not be more than max_cards")

    def progress_notes(self, campaign: Campaign) -> list[str]:
        outcome = storytelling_outcomes(campaign)
        return [f"{outcome['told']} album(s) told, {outcome['discarded']} discarded as not storyable, "
                f"{outcome['waiting']} waiting for storytellers"]

    def group_of(self, item: dict[str, Any]) -> str:
        return f"album:{item['album']}"

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        validate_album_items(items)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        album_ids = {hit.items["album"] for hit in hits}
        albums = Album.objects.in_bulk(album_ids)
        photos = album_photos(album_ids)
        return {
            hit.pk: {"album": album_payload(albums[hit.items["album"]]), "photos": photos[hit.items["album"]]}
            for hit in hits
        }

    def checks(self, campaign: Campaign, answer: dict[str, Any]) -> list[str]:
        return ["skipped"] if answer.get("skip") else []

    def summary(self, answer: dict[str, Any] | None) -> str:
        if not answer:
            return ""
        if answer.get("skip"):
            return f"(not storyable) {answer['reason']}"
        return " ".join(card["text"] for card in answer["cards"])

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The chosen photos in story order with each card's text, or the reason the album was skipped."""
        context = {}
        for a in assignments:
            answer = answer_of(a.answer)
            photos = {p["id"]: p for p in payloads.get(a.hit_id, {}).get("photos", [])}
            cards = answer.get("cards") or []
            context[a.pk] = {"strip": strip([photos.get(c["photo"]) for c in cards], [c["text"] for c in cards]),
                             "skip_reason": answer.get("reason", "") if answer.get("skip") else ""}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        if not assignment.submitted_answer().get("skip"):
            record_story(assignment)

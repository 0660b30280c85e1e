"""retell_story (re-telling, stage 2): choose one of the album's storytelling sequences, tell it anew."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, register

from ..models import Album, ChosenSequence
from ..review_data import answer_of, strip
from ..selectors import album_payload, storytelling_sequences
from ..services.stages import chosen_sequence_photos, ready_for_retelling
from ..services.stories import record_story
from .common import check_texts, check_whole_numbers, clean_text, integer, validate_album_items


class RetellStoryResult(StrictSerializer):
    sequence = serializers.JSONField()
    texts = serializers.JSONField()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        sequences = {s["id"]: s for s in self.context["payload"]["sequences"]}
        sequence = attrs["sequence"]
        if not integer(sequence) or sequence not in sequences:
            raise serializers.ValidationError({"sequence": "Choose one of the photo sequences shown."})
        texts = attrs["texts"]
        count = len(sequences[sequence]["photos"])
        if not isinstance(texts, list) or len(texts) != count:
            raise serializers.ValidationError({"texts": f"Write one sentence for each of the {count} photos."})
        try:
            cleaned = [clean_text(t, f"Card {i}") for i, t in enumerate(texts, start=1)]
            check_texts(cleaned, min_words_total=int(self.context["options"]["min_words"]))
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({"texts": exc.detail}) from None
        return {"sequence": sequence, "texts": cleaned}


@register
class RetellStory(TaskKind):
    name = "retell_story"
    label = "Re-tell a story"
    blurb = "The worker picks photos of an album, in order, and tells the story they make, one sentence per photo."
    template = "storyboard/retell_story.html"
    review_template = "storyboard/review_strip.html"
    result_serializer = RetellStoryResult
    defaults = TaskDefaults(
        reward=Decimal("0.25"),
        assignments_per_hit=3,
        time_limit_seconds=30 * 60,
        title="Write a story for a sequence of photos",
        description="Choose one of the photo sequences of an album and write a story on it.",
        instructions=(
            "Other people picked these photo sequences from an album. Choose the sequence you like, "
            "then write one sentence or phrase for each photo, so that together they tell a story."
        ),
        options={"min_words": 15},
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        check_whole_numbers(options, {"min_words": 0})

    def progress_notes(self, campaign: Campaign) -> list[str]:
        chosen = ChosenSequence.objects.filter(campaign=campaign).count()
        return [f"{chosen} album(s) with a sequence chosen by a majority of re-tellers (DII and DIS describe it)"]

    def group_of(self, item: dict[str, Any]) -> str:
        return f"album:{item['album']}"

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        validate_album_items(items)

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        album_ids = {hit.items["album"] for hit in hits}
        albums = Album.objects.in_bulk(album_ids)
        sequences = storytelling_sequences(campaign.source_stage_id, album_ids)
        return {
            hit.pk: {"album": album_payload(albums[hit.items["album"]]), "sequences": sequences[hit.items["album"]]}
            for hit in hits
        }

    def summary(self, answer: dict[str, Any] | None) -> str:
        return "" if not answer else " ".join(answer["texts"])

    def items_from_stage(self, campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
        album = ready_for_retelling(assignment)
        return [] if album is None else [{"album": album}]

    def ready_images(self, assignment: Assignment) -> list[int]:
        """DII follows a re-telling stage: the photos of the sequence a majority chose."""
        return [photo.image_id for photo in chosen_sequence_photos(assignment)]

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The sequence the worker chose, in story order, with a sentence under each photo."""
        context = {}
        for a in assignments:
            answer = answer_of(a.answer)
            sequences = {s["id"]: s["photos"] for s in payloads.get(a.hit_id, {}).get("sequences", [])}
            context[a.pk] = {"strip": strip(sequences.get(answer.get("sequence"), []), answer.get("texts") or [])}
        return context

    def on_approved(self, assignment: Assignment) -> None:
        record_story(assignment)

"""Writes: approved story, sequence-description and rating answers become dataset records.

Each function is idempotent (a second call for the same assignment changes nothing) and stores the
normalized text beside what the worker typed."""
from __future__ import annotations

from mturk.models import Assignment

from ..models import SequenceDescription, Setting, Story, Storylet, StoryRating
from .agreement_scores import queue_scoring


def normalize(text: str) -> str:
    from metrics.text.normalize import normalize as vist_normalize

    return vist_normalize(text)


def _storylets(story: Story, photos: list[int], texts: list[str]) -> None:
    Storylet.objects.bulk_create([
        Storylet(story=story, order=order, photo_id=photo, original_text=text, text=normalize(text))
        for order, (photo, text) in enumerate(zip(photos, texts, strict=True))
    ])


def sequence_photos(story_id: int) -> list[int]:
    return list(Storylet.objects.filter(story_id=story_id).order_by("order").values_list("photo_id", flat=True))


def record_story(assignment: Assignment) -> Story:
    """A storytelling answer {"cards": [...]} or a re-telling answer {"sequence", "texts"}."""
    existing = Story.objects.filter(assignment=assignment).first()
    if existing is not None:
        return existing
    answer, hit = assignment.submitted_answer(), assignment.hit
    common = {"album_id": hit.items["album"], "assignment": assignment, "worker_id": assignment.worker_id,
              "is_simulated": assignment.is_simulated}
    if "cards" in answer:
        story = Story.objects.create(setting=Setting.TELL, **common)
        _storylets(story, [c["photo"] for c in answer["cards"]], [c["text"] for c in answer["cards"]])
    else:
        story = Story.objects.create(setting=Setting.RETELL, sequence_of_id=answer["sequence"], **common)
        _storylets(story, sequence_photos(answer["sequence"]), answer["texts"])
    queue_scoring()  # the new story, and the references of the other stories of its sequence
    return story


def record_sequence_descriptions(assignment: Assignment) -> None:
    if SequenceDescription.objects.filter(assignment=assignment).exists():
        return
    sequence = assignment.hit.items["sequence"]
    photos = sequence_photos(sequence)
    SequenceDescription.objects.bulk_create([
        SequenceDescription(sequence_id=sequence, order=order, photo_id=photo, original_text=text,
                            text=normalize(text), assignment=assignment, worker_id=assignment.worker_id)
        for order, (photo, text) in enumerate(zip(photos, assignment.submitted_answer()["texts"], strict=True))
    ])


def record_rating(assignment: Assignment) -> StoryRating:
    answer = assignment.submitted_answer()
    rating, _ = StoryRating.objects.get_or_create(
        assignment=assignment,
        defaults={"story_id": assignment.hit.items["story"], "rating": answer["rating"],
                  "aspects": answer.get("aspects", {}), "worker_id": assignment.worker_id},
    )
    return rating

"""link_words: link the words of one description to the numbered boxes of its image (correspondence)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from mturk.models import HIT, Assignment, Campaign
from mturk.task_kinds import StrictSerializer, TaskDefaults, TaskKind, register

from ..models import Box, Correspondence, Description
from ..review_data import colour, place_labels, review_images
from ..services.boxes import add_correspondence
from .describe_image import image_payloads
from .draw_boxes import clean_fraction


class LinkWordsResult(StrictSerializer):
    links = serializers.DictField(child=serializers.JSONField(), allow_empty=True)

    def validate_links(self, links: dict[str, Any]) -> dict[str, int]:
        payload = self.context["payload"]
        token_count = len(payload["description"]["tokens"])
        numbers = {b["number"] for b in payload["boxes"]}
        problems, clean = [], {}
        for key, box in links.items():
            if not (key.isascii() and key.isdigit()) or int(key) >= token_count:  # "²".isdigit() is True
                problems.append(f"Word {key!r}: no such word in this description (it has {token_count}).")
            elif not isinstance(box, int) or isinstance(box, bool) or box not in numbers:
                problems.append(f"Word {key}: no box {box!r} in this image.")
            else:
                clean[str(int(key))] = box
        if problems:
            raise serializers.ValidationError(problems)
        return dict(sorted(clean.items(), key=lambda kv: int(kv[0])))


def links_of(answer: dict[str, Any]) -> dict[int, int]:
    return {int(k): v for k, v in answer["links"].items()}


@register
class LinkWords(TaskKind):
    name = "link_words"
    label = "Link words to boxes"
    blurb = "The worker links the words of an approved description to the image's boxes."
    template = "annotation/link_words.html"
    review_template = "annotation/review_link_words.html"
    result_serializer = LinkWordsResult
    option_help = {
        "quorum": "When the answers to a sentence are merged, the share of its workers who must link a word to "
                  "the same box for that link to be kept, above 0 and at most 1: at 0.5 with 3 workers, 2 must "
                  "agree; a tie links nothing.",
    }
    defaults = TaskDefaults(
        reward=Decimal("0.05"),
        assignments_per_hit=1,
        time_limit_seconds=10 * 60,
        title="Link the words of a sentence to the boxes in a picture",
        description="Click a word, then the box it talks about.",
        instructions=(
            "Each numbered box marks a person, animal or object. For every word of the sentence that "
            "names something in a box, click the word and then its box (or the box, then the word). "
            "A word links to one box at most; leave words that name no box unlinked."
        ),
        options={"quorum": 0.5},  # the share of a HIT's answers a word's box needs (annotation.quality.links)
    )

    def clean_options(self, options: dict[str, Any]) -> None:
        clean_fraction(options, "quorum")

    def validate_items(self, items: list[dict[str, Any]]) -> None:
        for index, item in enumerate(items):
            if set(item) != {"description"} or not isinstance(item["description"], int):
                raise ValueError(f"item {index}: expected {{\"description\": <description id>}}, got {item!r}")
        wanted = {item["description"] for item in items}
        found = dict(Description.objects.filter(pk__in=wanted).values_list("pk", "image_id"))
        missing = wanted - set(found)
        if missing:
            raise ValueError(f"unknown description id(s): {', '.join(map(str, sorted(missing)))}")
        boxed = set(Box.objects.filter(image_id__in=set(found.values())).values_list("image_id", flat=True))
        unboxed = sorted(pk for pk, image in found.items() if image not in boxed)
        if unboxed:
            raise ValueError(f"description(s) {', '.join(map(str, unboxed))}: their image has no boxes yet")

    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        descriptions = Description.objects.in_bulk([hit.items["description"] for hit in hits])
        image_ids = {d.image_id for d in descriptions.values()}
        images = image_payloads(list(image_ids))
        boxes: dict[int, list[dict[str, Any]]] = {pk: [] for pk in image_ids}
        for row in Box.objects.filter(image_id__in=image_ids).values(
            "image_id", "number", "concept__name", "x", "y", "width", "height"
        ).order_by("image_id", "number"):
            boxes[row["image_id"]].append({"number": row["number"], "x": row["x"], "y": row["y"],
                                           "width": row["width"], "height": row["height"],
                                           "concept": row["concept__name"]})
        payloads = {}
        for hit in hits:
            d = descriptions.get(hit.items["description"])
            if d is None:
                continue
            payloads[hit.pk] = {
                "image": images.get(d.image_id),
                "boxes": boxes[d.image_id],
                "description": {"id": d.pk, "tokens": d.tokens},
            }
        return payloads

    def checks(self, campaign: Campaign, answer: dict[str, Any]) -> list[str]:
        return [] if answer["links"] else ["no_links"]

    def summary(self, answer: dict[str, Any] | None) -> str:
        if not answer:
            return ""
        count = len(answer.get("links", {}))
        return f"{count} word{'s' if count != 1 else ''} linked"

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The sentence with each linked word coloured like its box and showing its number, the boxes drawn
        in the same colours; one query (the image renditions)."""
        images = review_images(p["image"]["id"] for p in payloads.values() if p.get("image"))
        context = {}
        for a in assignments:
            payload = payloads.get(a.hit_id)
            if payload is None:
                continue
            answer = a.answer if isinstance(a.answer, dict) else {}
            links = links_of(answer) if isinstance(answer.get("links"), dict) else {}
            image = images.get(payload["image"]["id"]) if payload.get("image") else None
            # numbered from 1 as on the worker page and the boxes review (stored from 0)
            boxes = [{**b, "number": b["number"] + 1, "label": b["concept"], "colour": colour(b["number"])}
                     for b in payload["boxes"]]
            place_labels(boxes, image)
            context[a.pk] = {
                "image": image,
                "boxes": boxes,
                "words": [{"text": token, "box": links[i] + 1 if i in links else None,  # as the boxes read
                           "colour": colour(links[i]) if i in links else None}
                          for i, token in enumerate(payload["description"]["tokens"])],
                "linked": len(links),
            }
        return context

    def on_approved(self, assignment: Assignment) -> None:
        if Correspondence.objects.filter(assignment=assignment).exists():
            return
        description = Description.objects.get(pk=assignment.hit.items["description"])
        add_correspondence(description, links_of(assignment.submitted_answer()),
                           source="simulated" if assignment.is_simulated else "crowd", assignment=assignment)

    def items_from_stage(self, campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
        """Every accepted description (describe_image) of an image with boxes gets its correspondence collected."""
        description = Description.objects.filter(assignment=assignment, image__boxes__isnull=False).values_list(
            "pk", flat=True).first()
        return [{"description": description}] if description else []

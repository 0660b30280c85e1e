"""Campaigns with submitted answers for the review page's tests (real services: create, publish, assign, submit)."""
from __future__ import annotations

from typing import Any

from annotation.models import Box, Concept, Description, Vocabulary
from metrics.text.markup import tokenize
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import make_album, make_image

SENTENCE = "A woman walks her dog on the beach ."  # woman = word 1, dog = word 4


def published(name: str, kind: str, items: list[dict[str, Any]], assignments: int = 1, **options: Any) -> Campaign:
    campaign = create_campaign(name=name, task_kind=kind, assignments_per_hit=assignments, items=items,
                               options=options)
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


def answer(campaign: Campaign, body: dict[str, Any]) -> Assignment:
    """A new local worker takes the campaign's next HIT and submits `body`."""
    worker = new_local_worker()
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer=body).assignment


def street_vocabulary() -> dict[str, Concept]:
    vocabulary, _ = Vocabulary.objects.get_or_create(name="street")
    woman, _ = Concept.objects.get_or_create(vocabulary=vocabulary, name="woman", defaults={"synset": "woman.n.01"})
    dog, _ = Concept.objects.get_or_create(vocabulary=vocabulary, name="dog", defaults={"synset": "dog.n.01"})
    return {"woman": woman, "dog": dog}


def box(concept: Concept, x: int, y: int, width: int = 200, height: int = 150) -> dict[str, int]:
    return {"concept": concept.pk, "x": x, "y": y, "width": width, "height": height}


def boxes_campaign(images: int, workers: int = 2, name: str = "boxes", size: tuple[int, int] = (640, 480)
                   ) -> Campaign:
    """draw_boxes, `workers` per image, every assignment answered: the first worker's set, later ones shifted."""
    concepts = street_vocabulary()
    pictures = [make_image(f"{name}-{i}.png", size=size) for i in range(images)]
    campaign = published(name, "draw_boxes", [{"image": p.pk} for p in pictures], assignments=workers,
                         vocabulary="street")
    for n in range(images * workers):
        shift = 40 * (n // images)  # the second worker of an image draws the woman 40 px to the right
        answer(campaign, {"boxes": [box(concepts["woman"], 20 + shift, 30), box(concepts["dog"], 300, 250)]})
    return campaign


def described_image(name: str, size: tuple[int, int] = (640, 480)) -> Description:
    image = make_image(name, size=size)
    concepts = street_vocabulary()
    Box.objects.create(image=image, number=0, concept=concepts["woman"], x=20, y=30, width=200, height=300)
    Box.objects.create(image=image, number=1, concept=concepts["dog"], x=300, y=250, width=200, height=150)
    return Description.objects.create(image=image, text=SENTENCE, tokens=tokenize(SENTENCE))


def links_campaign(count: int, name: str = "links") -> Campaign:
    descriptions = [described_image(f"{name}-{i}.png") for i in range(count)]
    campaign = published(name, "link_words", [{"description": d.pk} for d in descriptions])
    for _ in range(count):
        answer(campaign, {"links": {"1": 0, "4": 1}})
    return campaign


STORY = ["We arrived early in the morning.", "The whole family went for a long walk.",
         "Lunch was served under the trees.", "The children played in the lake.", "We drove home tired and happy."]


def stories_campaign(albums: int, name: str = "stories") -> Campaign:
    """tell_story, one storyteller per album, who picks the album's last five photos in reverse order."""
    made = [make_album(6) for _ in range(albums)]
    campaign = published(name, "tell_story", [{"album": a.pk} for a in made])
    for _ in range(albums):
        assignment = assign_next_hit(campaign, new_local_worker())
        photos = list(reversed(made_photos(assignment.hit.items["album"])))[:5]  # latest first: not time order
        submit_answer(assignment_id=assignment.pk, worker_external_id=assignment.worker.external_id,
                      answer={"cards": [{"photo": p, "text": t} for p, t in zip(photos, STORY, strict=True)]})
    return campaign


def made_photos(album_id: int) -> list[int]:
    from storyboard.models import Photo

    return list(Photo.objects.filter(album_id=album_id).order_by("datetaken").values_list("pk", flat=True))


def card_html(page: str, assignment_id: int) -> str:
    """The HTML of one assignment's card on the review page."""
    start = page.index(f'id="assignment-{assignment_id}"')
    end = page.find('<li class="review-card"', start)
    return page[start:end if end > 0 else len(page)]

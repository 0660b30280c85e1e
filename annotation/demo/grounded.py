"""A small completed grounded-descriptions campaign with simulated workers (marked as simulated).

It runs through the real pipeline: simulated workers take and submit describe_image HITs, the
approvals create the link_words stage's HITs, simulated workers link the words, and those are
approved too. The descriptions are generated from the demo scenes' objects: each simulated worker
mentions two to four objects, the large and central ones more often, as people tend to."""
from __future__ import annotations

import random
from dataclasses import dataclass

from mturk.models import Assignment, Campaign
from mturk.providers.registry import own_crowd
from mturk.services.campaigns import create_campaign, publish_campaign
from mturk.services.review import approve_submitted
from mturk.work.services.assignments import assign_next_hit, get_or_create_worker, submit_answer
from mturk.work.services.simulated import close_simulated

from ..models import Box, Concept, Description, Image

DESCRIBE = "Demo: grounded descriptions, 1 describe"  # marked simulated by the campaigns' flag, not their names
LINK = "Demo: grounded descriptions, 2 link words"
# The names a demo database seeded before carries (the flag alone marks them now): renamed, not seeded again.
EARLIER_NAMES = {f"{DESCRIBE} (simulated)": DESCRIBE, f"{LINK} (simulated)": LINK}
WORKERS = 5
VERBS = ("is next to", "stands near", "is beside", "can be seen with", "appears in front of")
SETTINGS = ("on a bright day", "in a quiet park", "in this colourful picture", "out in the open air")


@dataclass(frozen=True)
class SimulatedDescription:
    tokens: list[str]
    links: dict[int, int]  # token index -> box number


def _salience(box: Box, image: Image) -> float:
    area = box.width * box.height / (image.width * image.height)
    cx, cy = box.x + box.width / 2, box.y + box.height / 2
    off_centre = abs(cx / image.width - 0.5) + abs(cy / image.height - 0.5)
    return area + 0.05 * (1 - off_centre)


def simulated_description(image: Image, boxes: list[Box], names: dict[int, Concept], seed: str) -> SimulatedDescription:
    rng = random.Random(seed)
    by_concept: dict[int, Box] = {}
    for box in sorted(boxes, key=lambda b: -_salience(b, image)):
        by_concept.setdefault(box.concept_id, box)  # one box per concept: "a cloud", not every cloud
    ranked = sorted(by_concept.values(), key=lambda b: -_salience(b, image) * rng.uniform(0.5, 1.5))
    chosen = ranked[: rng.randint(2, 4)] if len(ranked) > 1 else ranked
    tokens: list[str] = []
    links: dict[int, int] = {}

    def mention(box: Box, article: str) -> None:
        concept = names[box.concept_id]
        words = [concept.name, *[s for s in concept.synonyms if " " not in s]]
        tokens.append(article)
        links[len(tokens)] = box.number
        tokens.append(rng.choice(words) if rng.random() < 0.3 else concept.name)

    mention(chosen[0], "A")
    if len(chosen) > 1:
        tokens.extend(rng.choice(VERBS).split())
        for i, box in enumerate(chosen[1:]):
            if i:
                tokens.append("and")
            mention(box, "a")
    tokens.extend(rng.choice(SETTINGS).split())
    tokens.append(".")
    return SimulatedDescription(tokens, links)


def seed_grounded_demo(images: list[Image]) -> tuple[Campaign, Campaign]:
    """Create (once) the two simulated campaigns over images that have boxes, work them and close them."""
    for earlier, name in EARLIER_NAMES.items():
        Campaign.objects.filter(name=earlier, is_simulated=True).update(name=name)
    existing = Campaign.objects.filter(name__in=[DESCRIBE, LINK]).order_by("name")
    if len(existing) == 2:
        close_simulated(existing)  # seeded before they were closed once done
        return existing[0], existing[1]
    describe = create_campaign(name=DESCRIBE, task_kind="describe_image", assignments_per_hit=WORKERS,
                               is_simulated=True, items=[{"image": image.pk} for image in images])
    link = create_campaign(name=LINK, task_kind="link_words", is_simulated=True, source_stage=describe)
    publish_campaign(describe)
    publish_campaign(link)  # no HITs yet: the approvals below create them
    describe.refresh_from_db()
    link.refresh_from_db()
    boxes: dict[int, list[Box]] = {image.pk: [] for image in images}
    for box in Box.objects.filter(image__in=images):
        boxes[box.image_id].append(box)
    names = {c.pk: c for c in Concept.objects.filter(pk__in={b.concept_id for found in boxes.values() for b in found})}
    planned: dict[int, SimulatedDescription] = {}
    for w in range(WORKERS):
        worker = get_or_create_worker(own_crowd().name, f"SIMULATED-{w + 1}")
        for _ in images:
            assignment = assign_next_hit(describe, worker)
            image = next(i for i in images if i.pk == assignment.hit.items["image"])
            plan = simulated_description(image, boxes[image.pk], names, f"{image.key}:{w}")
            Assignment.objects.filter(pk=assignment.pk).update(is_simulated=True)
            submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                          answer={"text": " ".join(plan.tokens)})
            planned[assignment.pk] = plan
    approve_submitted(describe)
    publish_campaign(link)  # publishes the new HITs now, whether or not a task queue is running
    linker = get_or_create_worker(own_crowd().name, "SIMULATED-LINKER")
    descriptions = {d.pk: d for d in Description.objects.filter(assignment_id__in=planned)}
    for _ in descriptions:
        assignment = assign_next_hit(link, linker)
        description = descriptions[assignment.hit.items["description"]]
        if description.assignment_id is None:  # the filter above selects by assignment
            raise ValueError(f"description {description.pk} has no assignment")
        plan = planned[description.assignment_id]
        Assignment.objects.filter(pk=assignment.pk).update(is_simulated=True)
        submit_answer(assignment_id=assignment.pk, worker_external_id=linker.external_id,
                      answer={"links": {str(i): n for i, n in plan.links.items()}})
    approve_submitted(link)
    close_simulated([describe, link])
    return describe, link

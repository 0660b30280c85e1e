"""Studies whose exports the card tests check, made with the real services (create, publish, assign, submit,
review): a draw_boxes campaign reviewed after its quality was computed, and the grounded workflow run to its link
stage."""
from __future__ import annotations

from typing import Any

from annotation.models import Concept
from annotation.services.grounded_workflow import create_grounded_workflow
from mturk.models import Assignment, Campaign
from mturk.quality.services.computation import compute_quality
from mturk.services.campaigns import publish_campaign
from mturk.services.review import approve_assignment, approve_submitted, grant_bonus, reject_assignment
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import make_image
from tests.mturk.review_builders import box, boxes_campaign, street_vocabulary

REJECTION = "The boxes do not cover the objects of the image."
SENTENCES = ["A woman walks her dog on the beach .", "The woman and the dog stand on wet sand ."]
LINKS = {"1": 0, "4": 1}  # "woman" -> box 0, "dog" -> box 1 in both sentences


def reviewed_boxes_campaign(images: int = 4, rejected: int = 2) -> Campaign:
    """draw_boxes, two workers per image (2 boxes each), quality computed, then reviewed: every answer approved
    but the last `rejected`, and a bonus to the first worker; so the quality snapshot predates the decisions."""
    from decimal import Decimal

    campaign = boxes_campaign(images, workers=2, name="street boxes")
    compute_quality(campaign)
    answers = list(Assignment.objects.filter(hit__campaign=campaign).order_by("pk"))
    for assignment in answers[:len(answers) - rejected]:
        approve_assignment(assignment)
    for assignment in answers[len(answers) - rejected:]:
        reject_assignment(assignment, REJECTION)
    grant_bonus(answers[0], Decimal("0.25"), "careful boxes")
    return campaign


def _answer(campaign: Campaign, body: Any) -> Assignment:
    worker = new_local_worker()
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer=body(assignment) if callable(body) else body).assignment


def grounded_workflow_run(images: int = 2, descriptions: int = 2, name: str = "street") -> dict[str, Campaign]:
    """The three chained stages, each answered and approved in turn: boxes (one worker per image), `descriptions`
    descriptions per image, one worker's links for each."""
    concepts: dict[str, Concept] = street_vocabulary()
    pictures = [make_image(f"{name}-{n}.png", size=(640, 480)) for n in range(images)]
    stages = create_grounded_workflow(name, pictures, publish=True, vocabulary="street", settings={
        "boxes": {"assignments_per_hit": 1}, "describe": {"assignments_per_hit": descriptions},
        "link": {"assignments_per_hit": 1}})
    for _ in pictures:
        _answer(stages["boxes"], {"boxes": [box(concepts["woman"], 20, 30), box(concepts["dog"], 300, 250)]})
    approve_submitted(stages["boxes"])
    for stage in ("describe", "link"):
        publish_campaign(stages[stage])  # the HITs the approvals made, published now (no task queue in tests)
        stages[stage].refresh_from_db()
        for n in range(images * descriptions):
            body = {"text": SENTENCES[n % len(SENTENCES)]} if stage == "describe" else {"links": LINKS}
            _answer(stages[stage], body)
        approve_submitted(stages[stage])
    for stage in stages.values():
        stage.refresh_from_db()
    return stages

"""Shared by the study, sync and end-to-end tests: prolific campaigns published through the services against
the fake Prolific, and participants who do their tasks through the services."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from mturk.models import Assignment, Campaign
from mturk.providers.prolific.arrivals import finish, next_task, start_session
from mturk.providers.prolific.models import ProlificStudy, ProlificSubmission
from mturk.services.campaigns import publish_campaign
from mturk.work.services.assignments import submit_answer
from tests.factories import GOOD_TEXT, make_campaign
from tests.prolific_fake.state import FakeProlific

# A rejection message Prolific accepts (at least 100 characters, telling the participant why).
WHY = ("The description does not mention what the photo shows: please describe the people, objects and "
       "actions that are visible, in one full sentence.")


def published_campaign(fake: FakeProlific, *, images: int = 4, assignments: int = 2, tasks: int = 2,
                       django_capture_on_commit_callbacks: Any = None, **fields: Any) -> Campaign:
    """A describe_image campaign on Prolific, published (the study job runs when the publish commits)."""
    campaign = make_campaign(images=images, publish=False, assignments=assignments, provider="prolific",
                             tasks_per_submission=tasks, reward=fields.pop("reward", Decimal("0.50")),
                             qualifications=fields.pop("qualifications", {"estimated_minutes": 2}), **fields)
    publish(campaign, django_capture_on_commit_callbacks)
    campaign.refresh_from_db()
    return campaign


def publish(campaign: Campaign, capture: Any) -> None:
    with capture(execute=True):
        publish_campaign(campaign)


def study_of(campaign: Campaign) -> ProlificStudy:
    return ProlificStudy.objects.get(campaign=campaign)


def work(fake: FakeProlific, campaign: Campaign, participant: str | None = None, *, tasks: int | None = None,
         enter_code: bool = True) -> ProlificSubmission:
    """A participant starts the study on Prolific, arrives on our page, submits up to `tasks` answers (the whole
    bundle by default), is sent back and enters the completion code on Prolific."""
    study = study_of(campaign)
    remote = fake.start(study.external_id, participant)
    submission = start_session(campaign, remote.participant_id, study.external_id, remote.id)
    done = 0
    while tasks is None or done < tasks:
        assignment = next_task(submission)
        if assignment is None:
            break
        submit_answer(assignment_id=assignment.pk, worker_external_id=remote.participant_id,
                      answer={"text": f"{GOOD_TEXT} ({done})"})
        done += 1
    if enter_code:
        url = finish(submission)
        fake.complete(remote.id, url.split("cc=", 1)[1])
    return submission


def tasks_of(submission: ProlificSubmission) -> list[Assignment]:
    return list(Assignment.objects.filter(external_id=submission.submission_id, worker=submission.worker)
                .order_by("pk"))

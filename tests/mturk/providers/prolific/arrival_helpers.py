"""Shared by the Prolific arrival tests (HTTP and browser): a published prolific campaign with its study,
set up through the ORM (no publish calls to stub), and the participant's study link."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from mturk.models import HIT, Campaign
from mturk.providers.prolific.models import ProlificStudy
from mturk.states import CampaignStatus, HITStatus
from mturk.work.tokens import campaign_token
from tests.factories import make_campaign

# Prolific's ids are 24 hex digits.
STUDY = "60d9aadeb86739de712faee0"
OTHER_STUDY = "60d9aadeb86739de712faee9"
PID = "5f1e2a3b4c5d6e7f8a9b0c1d"
OTHER_PID = "5f1e2a3b4c5d6e7f8a9b0c99"
SESSION = "611d60f6f0ec4d2f6d1c2e3a"


def prolific_campaign(images: int = 4, *, assignments: int = 1, tasks: int = 3, study: str = STUDY,
                      **fields: Any) -> Campaign:
    """An active prolific campaign whose study is published on Prolific as `study`."""
    campaign = make_campaign(images=images, publish=False, assignments=assignments, provider="prolific",
                             tasks_per_submission=tasks, **fields)
    now = timezone.now()
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, published_at=now, external_id=study)
    HIT.objects.filter(campaign=campaign).update(status=HITStatus.PUBLISHED, published_at=now)
    ProlificStudy.objects.create(campaign=campaign, external_id=study, status="ACTIVE", places=images,
                                 published_at=now)
    campaign.refresh_from_db()
    return campaign


def study_link(campaign: Campaign, pid: str = PID, study: str = STUDY, session: str = SESSION) -> str:
    """The study URL as Prolific opens it (external_study_url with the placeholders filled in)."""
    path = reverse("prolific-entry", kwargs={"token": campaign_token(campaign.pk)})
    return f"{path}?{urlencode({'PROLIFIC_PID': pid, 'STUDY_ID': study, 'SESSION_ID': session})}"


def remote_submission(session: str = SESSION, participant: str = PID, study: str = STUDY,
                      status: str = "ACTIVE") -> dict[str, Any]:
    """GET /submissions/{id}/ as Prolific documents it (the single-submission shape)."""
    return {"id": session, "participant": participant, "study_id": study, "status": status,
            "started_at": "2024-05-04T09:00:00.000000Z", "completed_at": None, "entered_code": None}

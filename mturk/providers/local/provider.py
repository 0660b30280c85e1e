"""The local crowd: self-hosted campaign links; no marketplace, no fees.

Every state change is made by the services in our database, so the local provider's operations
have nothing to hand off; answers arrive directly through our submission endpoint."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.urls import reverse

from ...work.tokens import campaign_token, worker_token
from ..base import CrowdProvider, PublishOutcome
from ..mturk.qualifications import clean_qualifications
from ..registry import register_provider

if TYPE_CHECKING:
    from ...models import HIT, Assignment, Bonus, Campaign, Worker


@register_provider
class LocalProvider(CrowdProvider):
    name = "local"
    label = "the local crowd"
    own_crowd = True
    can_return = True
    remembers_browser = True
    releases_idle_tasks = True

    def clean_qualifications(self, spec: Any) -> dict[str, Any]:
        return clean_qualifications(spec)  # the same requirement keys as MTurk's

    def after_answer_url(self, assignment: Assignment, worker_external_id: str) -> str:
        """The worker's next task."""
        campaign_id = assignment.hit.campaign_id
        path = reverse("campaign-entry", kwargs={"token": campaign_token(campaign_id)})
        return f"{path}?w={worker_token(campaign_id, worker_external_id)}"

    def publish(self, campaign: Campaign, hits: list[HIT]) -> PublishOutcome:
        return PublishOutcome(published=len(hits), worker_link=self.worker_link(campaign))

    def approve(self, assignment: Assignment, feedback: str, override_rejection: bool = False) -> None:
        pass

    def reject(self, assignment: Assignment, feedback: str) -> None:
        pass

    def bonus(self, bonus: Bonus) -> None:
        pass

    def block(self, worker: Worker, reason: str) -> None:
        pass

    def unblock(self, worker: Worker, reason: str) -> None:
        pass

    def expire(self, hit: HIT) -> None:
        pass

    def worker_link(self, campaign: Campaign) -> str:
        path = reverse("campaign-entry", kwargs={"token": campaign_token(campaign.pk)})
        return f"{settings.PUBLIC_BASE_URL}{path}"

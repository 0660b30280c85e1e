"""The periodic sync of one Prolific campaign: its study, every submission (sync.reconcile_submission), then the
decisions (decisions.push_decisions) and bonuses (bonuses.reconcile_bonuses) waiting to be sent."""
from __future__ import annotations

from typing import Any

from ...models import Campaign
from .bonuses import reconcile_bonuses
from .decisions import push_decisions
from .models import ProlificStudy
from .studies import ensure_study, provider
from .sync import StudySyncReport, reconcile_submission


def sync_study(campaign: Campaign) -> StudySyncReport:
    """The periodic sync of one prolific campaign: the study in step, every submission (all pages), then the
    decisions and bonuses waiting to be sent."""
    report = StudySyncReport()
    study = ProlificStudy.objects.filter(campaign=campaign).first()
    listing: list[dict[str, Any]] = []
    if study is not None and study.external_id:  # submissions first: returns free slots before the study is sized
        listing = list(provider().list_submissions(study.external_id))
        for remote in listing:
            reconcile_submission(study, remote, report)
    study = ensure_study(campaign)
    if not study.external_id:
        return report
    push_decisions(campaign)
    reconcile_bonuses(campaign, listing)
    return report

"""The crowd core's models, one module per concern, all loaded (and importable) from `mturk.models`: Django
finds an app's models here, so moving a model between these files needs no migration."""
from ..jobs.models import OPEN_STATUSES, BackgroundJob, JobStatus
from .campaigns import HIT, Assignment, Bonus, BonusState, Campaign, Worker, submitted_answer
from .exports import DatasetExport
from .imports import ImportJob
from .marketplace import (
    MarketplaceEvent,
    MarketplaceHITType,
    MarketplaceQualification,
    QualificationGrant,
)
from .quality import (
    CampaignQuality,
    DecisionAction,
    DecisionState,
    GoldItem,
    GoldPurpose,
    ItemAggregate,
    QualityDecision,
    QualityJob,
    QualityRule,
    WorkerScore,
)

__all__ = [
    "Assignment", "BackgroundJob", "Bonus", "BonusState", "Campaign", "CampaignQuality", "DatasetExport",
    "DecisionAction", "DecisionState", "GoldItem", "GoldPurpose", "HIT", "ImportJob", "ItemAggregate", "JobStatus",
    "MarketplaceEvent", "MarketplaceHITType", "MarketplaceQualification", "OPEN_STATUSES", "QualificationGrant",
    "QualityDecision", "QualityJob", "QualityRule", "Worker", "WorkerScore", "submitted_answer",
]

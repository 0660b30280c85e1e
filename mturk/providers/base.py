"""The provider interface: every crowd marketplace (or none) behind the same operations.

Services own our database; a provider only talks to its marketplace. Every operation is idempotent
on the marketplace side (tokens, "already done" recovered as success), because services call it
after storing their intent and may call it again after a crash."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..jobs import Handoff
    from ..models import HIT, Assignment, Bonus, Campaign, Worker

CENT = Decimal("0.01")


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class RequirementField:
    """One of a provider's worker requirements as a field of the campaign wizard (`q-<key>`)."""

    key: str
    label: str
    kind: str  # "number", "text" (comma-separated list), "check", "choices" (checkboxes), "json"
    help: str = ""
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class PublishOutcome:
    published: int
    worker_link: str | None = None
    # The background job that does the marketplace's half (mturk.jobs.Handoff): queued on the broker, or run
    # in-process once the publication commits (its failure then recorded in `job.error`).
    job: Handoff | None = None

    @property
    def queued(self) -> bool:
        """The marketplace's half waits on the task queue (not done yet)."""
        return self.job is not None and self.job.queued


@dataclass(frozen=True)
class MarketplaceAssignment:
    """One assignment as the marketplace reports it."""

    assignment_id: str
    worker_id: str
    status: str  # Submitted, Approved, Rejected
    answers: dict[str, str] = field(default_factory=dict)
    accepted_at: datetime | None = None
    submitted_at: datetime | None = None
    auto_approval_at: datetime | None = None
    approved_at: datetime | None = None
    feedback: str = ""


@dataclass(frozen=True)
class ParticipantSync:
    """What syncing a campaign's participants (marketplaces that send them to our server) changed."""

    new_submissions: int = 0
    returned: int = 0  # unanswered tasks given back (returned, timed out, screened out)
    approved_elsewhere: int = 0
    rejected_elsewhere: int = 0


class ProviderError(Exception):
    """A provider refused or failed an operation; the message is shown to the researcher."""


class ProviderUnavailable(ProviderError):
    """The marketplace could not be reached or kept failing past our retries: try again later (jobs retry)."""


class NotSupported(ProviderError):
    """The provider has no such operation (e.g. messaging workers of the local crowd)."""


class CrowdProvider(ABC):
    name: str
    label: str = ""  # the provider's name as a sentence writes it (e.g. "MTurk"); blank: its name
    # The platform's own crowd: workers come by a campaign's signed link, and our server names them (the local
    # crowd). Simulated demo workers belong to it too. One configured provider is (registry.own_crowd).
    own_crowd: bool = False
    has_marketplace: bool = False  # the work also lives on a remote marketplace (ids, decisions, payment)
    # Each HIT is created on the marketplace (MTurk). False for a marketplace that sends participants to our
    # server for one study (Prolific): our server hands out the HITs, so none is created, listed or synced.
    creates_hits: bool = False
    has_sandbox: bool = False  # campaigns can run in the marketplace's sandbox (MTurk)
    # ---- worker pages ----
    can_return: bool = False  # the worker may return (skip) a task on our page (else: on the marketplace's)
    return_note: str = ""  # how a worker stops or skips, shown on the task page
    per_session: bool = False  # a worker's tasks are counted per marketplace session (a Prolific submission)
    # Our server knows the worker by their browser (a signed cookie, the page's storage): the local crowd. A
    # marketplace names its workers itself.
    remembers_browser: bool = False
    # A task whose page shows no activity for TASK_INACTIVITY_SECONDS gives its slot back before the time limit
    # (services.activity). A marketplace keeps its own assignments until they are returned or time out.
    releases_idle_tasks: bool = False
    # ---- review ----
    rejection_categories: tuple[tuple[str, str], ...] = ()  # (code, label) a rejection must name one of
    min_rejection_feedback: int = 1  # characters a rejection's message needs
    # ---- researcher pages ----
    requirements_label: str = "QualificationRequirements"  # what the worker requirements are called
    participation_label: str = "Per HIT"  # what each participation rule applies to
    fee_source: str = "no marketplace is called"  # what a dry run asks for the fees
    add_assignments_note: str = ""  # said beside "More assignments per HIT" (where the places go)
    requirement_fields: tuple[RequirementField, ...] = ()  # the wizard's fields for clean_qualifications' keys

    def clean_qualifications(self, spec: Any) -> dict[str, Any]:
        """Check a campaign's worker requirements (raises ValueError naming the bad key)."""
        if spec:
            raise ValueError(f"the {self.name} provider takes no worker requirements")
        return {}

    def after_answer_url(self, assignment: Assignment, worker_external_id: str) -> str | None:
        """Where the worker goes after answering a task on our page (None: back to the marketplace)."""
        return None

    def submission_response(self, assignment: Assignment) -> dict[str, Any]:
        """What our task page's submission answer adds for the page (e.g. the marketplace hand-off)."""
        return {}

    def reward_text(self, campaign: Campaign) -> str:
        return f"${campaign.reward} per task"

    def most_tasks(self, campaign: Campaign) -> int | None:
        """How many tasks of the campaign one worker may do at most (None: no limit)."""
        return campaign.max_assignments_per_worker

    def currency_prefix(self, campaign: Campaign) -> str:
        """How pages write an amount of the campaign's money."""
        return "$"

    def fee_rule(self, fee: Decimal, campaign: Campaign | None = None) -> str:
        """The marketplace's fee, in words."""
        return "no fee" if not fee else f"the {self.name} provider's fee"

    def participation_rules(self, campaign: Campaign) -> list[str] | None:
        """Who publishing keeps out, in words, for providers with their own exclusions (None: the HITs'
        participation qualifications, services.participation)."""
        return None

    def campaign_facts(self, campaign: Campaign) -> dict[str, Any] | None:
        """For marketplaces that do not create HITs: what the campaign page shows of the marketplace's side,
        from our database only (None: the page shows the HITs' marketplace facts)."""
        return None

    def check_rejection(self, feedback: str, category: str) -> None:
        """Refuse (ProviderError) a rejection the marketplace would refuse, before anything is changed."""
        return None

    def fees_known(self, campaign: Campaign) -> bool:
        """Whether the fees can be worked out without asking the marketplace (pages and lists never ask it)."""
        return True

    def assignment_fee(self, campaign: Campaign, assignments_per_hit: int | None = None) -> Decimal:
        """The marketplace's commission on one assignment's reward."""
        return Decimal("0.00")

    def bonus_fee(self, amount: Decimal) -> Decimal:
        """The marketplace's commission on one bonus."""
        return Decimal("0.00")

    def check_campaign(self, campaign: Campaign) -> None:
        """Refuse (ProviderError) a campaign configuration the marketplace would refuse."""
        return None  # nothing to do without a marketplace

    @abstractmethod
    def publish(self, campaign: Campaign, hits: list[HIT]) -> PublishOutcome:
        """Make the HITs available to workers. The HITs are already marked published in our DB."""

    def resume_publishing(self, campaign: Campaign) -> PublishOutcome:
        """Queue again the marketplace's half of publishing for published HITs it does not have yet (a lost or
        failed job): how many HITs wait for it, and the job."""
        return PublishOutcome(published=0)

    def create_pending_hits(self, campaign: Campaign) -> int:
        """Create now the published HITs the marketplace does not have yet (the periodic sync); how many."""
        return 0

    def submissions(self, hit: HIT) -> list[MarketplaceAssignment]:
        """The HIT's submitted, approved and rejected assignments on the marketplace."""
        return []

    def reviewable_hit_ids(self, campaign: Campaign) -> set[str] | None:
        """External ids of the campaign's HITs the marketplace lists as reviewable (None: not applicable)."""
        return None

    def answer_counts(self, sandbox: bool) -> dict[str, tuple[int, int]] | None:
        """{HIT external id: (answered, decided)} for every HIT of the account, in few calls, so that a
        sync can skip HITs with nothing new (None: not available; every HIT is checked)."""
        return None

    def sync_participants(self, campaign: Campaign) -> ParticipantSync:
        """For a marketplace that sends participants to our server (creates_hits False): bring our records of
        the campaign's participants in step with it."""
        return ParticipantSync()

    def periodic_work(self) -> None:
        """What the periodic sync does first, once for the provider (e.g. handle stored webhook events whose
        handling job was lost)."""
        return None

    def mark_reviewed(self, hit: HIT) -> None:
        """Tell the marketplace a HIT's review is finished (it stops listing it as reviewable)."""
        return None  # nothing to do without a marketplace

    @abstractmethod
    def approve(self, assignment: Assignment, feedback: str, override_rejection: bool = False) -> None: ...

    @abstractmethod
    def reject(self, assignment: Assignment, feedback: str) -> None: ...

    def campaign_changed(self, campaign: Campaign) -> None:
        """The campaign was paused or closed, or its HITs got more slots (inside the transaction that stored it):
        for providers that keep one marketplace object per campaign (a Prolific study)."""
        return None

    def decisions_recorded(self, campaign: Campaign) -> None:
        """Approvals or rejections of the campaign were stored (for providers that send them in batches)."""
        return None

    @abstractmethod
    def bonus(self, bonus: Bonus) -> None: ...

    @abstractmethod
    def block(self, worker: Worker, reason: str) -> None: ...

    @abstractmethod
    def unblock(self, worker: Worker, reason: str) -> None: ...

    @abstractmethod
    def expire(self, hit: HIT) -> None: ...

    def extend(self, hit: HIT, expires_at: datetime) -> None:
        """Keep the HIT on offer until `expires_at` (also re-opens an expired HIT)."""
        return None  # nothing to do without a marketplace

    def add_assignments(self, hit: HIT, count: int, token: str) -> None:
        """Raise the HIT's maximum number of assignments by `count`."""
        return None  # nothing to do without a marketplace

    def delete(self, hit: HIT) -> None:
        """Remove a fully decided HIT from the marketplace."""
        return None  # nothing to do without a marketplace

    def notify(self, campaign: Campaign | None, worker_ids: Sequence[str], subject: str, text: str) -> list[str]:
        """Message workers; returns the ids the message could not reach."""
        raise NotSupported(f"the {self.name} provider cannot message workers")

    def balance(self, sandbox: bool = False) -> Decimal | None:
        """The account's available balance (None: the provider has no account)."""
        return None

    def grant_participation(self, qualification_id: str, worker: Worker, sandbox: bool) -> None:
        """Silently give a worker a private "already took part" qualification."""
        return None  # nothing to do without a marketplace

    def worker_link(self, campaign: Campaign) -> str | None:
        """The link to hand to workers, for providers that serve their own links."""
        return None

    def describe_requirements(self, campaign: Campaign) -> list[dict[str, Any]]:
        """The worker requirements publishing would send (for dry runs)."""
        return []

    # ---- marketplaces that create each HIT with its own call (the background publish job) ----
    def hit_type_params(self, campaign: Campaign, extra_requirements: list[dict[str, Any]]) -> dict[str, Any]:
        """The marketplace's parameters of the campaign's HIT type (with extra worker requirements)."""
        raise NotSupported(f"the {self.name} provider has no HIT types")

    def create_hit_type(self, campaign: Campaign, params: dict[str, Any]) -> str:
        """Create (or find: same parameters, same type) a HIT type; returns its marketplace id."""
        raise NotSupported(f"the {self.name} provider has no HIT types")

    def hit_params(self, hit: HIT, hit_type_id: str) -> dict[str, Any]:
        """The marketplace's parameters of one HIT under a HIT type (with its request token)."""
        raise NotSupported(f"the {self.name} provider does not create HITs one by one")

    def create_hit(self, hit: HIT, params: dict[str, Any]) -> tuple[str, datetime | None]:
        """Create one HIT exactly once in effect; returns (marketplace id, expiry)."""
        raise NotSupported(f"the {self.name} provider does not create HITs one by one")

    def create_participation_qualification(self, scope: str, label: str, sandbox: bool) -> str:
        """Create the private "took part in <scope>" qualification type; returns its marketplace id."""
        raise NotSupported(f"the {self.name} provider has no qualification types")

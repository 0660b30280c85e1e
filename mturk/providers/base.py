"""The provider interface: every crowd marketplace (or none) behind the same operations."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import HIT, Assignment, Bonus, Campaign, Worker

CENT = Decimal("0.01")


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class PublishOutcome:
    published: int
    worker_link: str | None = None


class ProviderError(Exception):
    """A provider refused or failed an operation; the message is shown to the researcher."""


class CrowdProvider(ABC):
    name: str

    def fee(self, amount: Decimal, assignments_per_hit: int = 1) -> Decimal:
        """The marketplace's commission on one payment of `amount`."""
        return Decimal("0.00")

    @abstractmethod
    def publish(self, campaign: Campaign, hits: list[HIT]) -> PublishOutcome:
        """Make the HITs available to workers. The HITs are already marked published in our DB."""

    @abstractmethod
    def sync(self, campaign: Campaign) -> int:
        """Pull new submissions from the marketplace; return how many were stored."""

    @abstractmethod
    def approve(self, assignment: Assignment, feedback: str) -> None: ...

    @abstractmethod
    def reject(self, assignment: Assignment, feedback: str) -> None: ...

    @abstractmethod
    def bonus(self, bonus: Bonus) -> None: ...

    @abstractmethod
    def block(self, worker: Worker, reason: str) -> None: ...

    @abstractmethod
    def unblock(self, worker: Worker, reason: str) -> None: ...

    @abstractmethod
    def expire(self, hit: HIT) -> None: ...

    def worker_link(self, campaign: Campaign) -> str | None:
        """The link to hand to workers, for providers that serve their own links."""
        return None

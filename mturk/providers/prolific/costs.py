"""Prolific's fees and VAT, from its cost calculator (never a hard-coded percentage: it depends on the
account). The calculator is asked once for a round reward; the share it adds is remembered on the campaign's
study (the figure its costs were planned with) and for an hour per process for other estimates."""
from __future__ import annotations

import threading
import time
from decimal import Decimal
from typing import TYPE_CHECKING

from ...models import Campaign
from ..base import ProviderError
from .client import ProlificError
from .models import ProlificStudy

if TYPE_CHECKING:
    from .provider import ProlificProvider

PROBE_CENTS = 10_000  # ask for the cost of one place at 100.00: the fee share to six decimals
REMEMBER_SECONDS = 3600

_lock = threading.Lock()
_cached: tuple[Decimal, float] | None = None


def forget_fee_ratio() -> None:
    global _cached
    with _lock:
        _cached = None


def _probe(provider: ProlificProvider) -> Decimal:
    global _cached
    with _lock:
        if _cached is not None and time.monotonic() - _cached[1] < REMEMBER_SECONDS:
            return _cached[0]
    try:
        total = provider.study_cost(PROBE_CENTS, 1)
    except ProlificError as exc:
        raise ProviderError(f"Prolific's cost calculator could not be asked for its fees and VAT ({exc}); "
                            "costs with fees cannot be shown or checked against the budget cap") from None
    ratio = (Decimal(total - PROBE_CENTS) / PROBE_CENTS).quantize(Decimal("0.000001"))
    if ratio < 0:
        raise ProviderError(f"Prolific's cost calculator answered a total ({total}) below the reward ({PROBE_CENTS})")
    with _lock:
        _cached = (ratio, time.monotonic())
    return ratio


def known_fee_ratio(campaign: Campaign) -> Decimal | None:
    """The fee share without asking Prolific: the campaign's study's, else the one this process remembers."""
    study = getattr(campaign, "prolific_study", None) if campaign.pk else None
    if study is not None and study.fee_ratio is not None:
        return study.fee_ratio
    with _lock:
        if _cached is not None and time.monotonic() - _cached[1] < REMEMBER_SECONDS:
            return _cached[0]
    return None


def fee_ratio(provider: ProlificProvider, campaign: Campaign | None = None) -> Decimal:
    """Fees and VAT as a share of a reward: the campaign's study's figure if it has one, else the calculator's."""
    study = getattr(campaign, "prolific_study", None) if campaign is not None and campaign.pk else None
    if study is not None and study.fee_ratio is not None:
        return study.fee_ratio
    ratio = _probe(provider)
    if study is not None:
        ProlificStudy.objects.filter(pk=study.pk, fee_ratio__isnull=True).update(fee_ratio=ratio)
        study.fee_ratio = ratio
    return ratio

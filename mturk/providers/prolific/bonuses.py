"""Prolific bonuses, paid exactly once.

Paying a bonus on Prolific takes two calls: setting it up (`POST /submissions/bonus-payments/`, which pays
nothing and answers with a bulk bonus id) and paying that bulk id (`POST /bulk-bonus-payments/{id}/pay/`),
which Prolific documents as NOT idempotent: each request pays again. So each bonus walks a ledger
(`Bonus.state`), every step stored and committed BEFORE the call that follows it:

    planned --set up--> set_up (bulk id stored) --> pay_requested (committed) --pay--> paid

- A crash during or after the set-up, before `set_up` is stored, leaves at most an unpaid set-up on
  Prolific: harmless, the next run sets up again.
- `pay` is sent only by the job that moved the bonus from `set_up` to `pay_requested` (under a lock on the
  bonus row, so two jobs never walk one bonus at once), right after committing that state.
- A bonus found in `pay_requested` by any later run is never paid again: it is confirmed from Prolific's own
  records (the `bonus_payments` of the study's submission list items), or left for a person with `problem`
  saying what to check.
- A refusal of `pay` (a 4xx, or a 429 that outlasted our retries: Prolific processed nothing) puts the bonus
  back to `set_up` (or `planned` when Prolific no longer knows the bulk id); a 5xx or a broken connection
  may have paid, so the bonus stays in `pay_requested` and is reconciled.

Amounts are Decimals in major units in our database and in the set-up CSV ("1.50"); Prolific's answers
(the set-up's `amount`, `bonus_payments`) are in minor units (cents, pence)."""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, cast

from django.db import transaction
from django.utils import timezone

from ...models import Bonus, BonusState, Campaign
from ..base import ProviderError
from ..registry import get_provider
from .client import ProlificError, ProlificUnavailable
from .models import ProlificStudy
from .terms import cents

if TYPE_CHECKING:
    from .provider import ProlificProvider

log = logging.getLogger(__name__)

CONFIRMABLE = (BonusState.PAY_REQUESTED, BonusState.PAID)


def _provider() -> ProlificProvider:
    return cast("ProlificProvider", get_provider("prolific"))


def _locked(bonus_id: int) -> Bonus:
    """The bonus row, locked until the surrounding transaction ends (only this row: no joined rows)."""
    return Bonus.objects.select_for_update().get(pk=bonus_id)


def _save(bonus: Bonus, *fields: str) -> None:
    bonus.save(update_fields=list(fields))


@dataclass(frozen=True)
class _Target:
    """Where a bonus goes on Prolific: the study and the submission (the assignment's external id)."""

    study_id: str
    submission_id: str


def _target(bonus: Bonus) -> _Target:
    """The bonus's study and submission; ProviderError (with the problem stored) when either is unknown."""
    assignment = bonus.assignment
    campaign = assignment.hit.campaign
    study = ProlificStudy.objects.filter(campaign=campaign).first()
    if study is None or not study.external_id:
        raise _Problem(f"Campaign {campaign.name!r} has no Prolific study yet: a bonus is paid on a study's "
                       "submission (publish the campaign first).")
    if not assignment.external_id:
        raise _Problem(f"Assignment {assignment.pk} carries no Prolific submission id: only work done through "
                       "a Prolific submission can get a Prolific bonus.")
    return _Target(study.external_id, assignment.external_id)


class _Problem(ProviderError):
    """Why a bonus cannot go further without a person: stored in `problem`, then raised."""


# ---- walking the ledger -------------------------------------------------------------------------------
def pay_prolific_bonus(bonus: Bonus) -> None:
    """Walk one bonus's ledger to `paid` (called by ProlificProvider.bonus, from review.pay_bonus, which marks
    the bonus paid when this returns). Raises ProviderError when the bonus is not paid (the reason is also
    stored in `problem` when it needs a person). Safe to call again at any time, after a crash at any point:
    `pay` is never sent twice for one bonus.

    Each step runs in its own durable transaction: called inside another transaction it raises RuntimeError
    (a rollback of the caller's transaction could otherwise forget that `pay` was sent)."""
    provider = _provider()
    state = _set_up(provider, bonus.pk)
    if state == BonusState.SET_UP:
        bulk_id = _request_pay(bonus.pk)
        if bulk_id is not None:
            _pay(provider, bonus.pk, bulk_id)
            return
        state = Bonus.objects.get(pk=bonus.pk).state
    if state == BonusState.PAID:
        return
    # pay_requested, by an earlier run (or by a job paying it right now): never paid again, confirmed instead
    campaign = Bonus.objects.select_related("assignment__hit__campaign").get(pk=bonus.pk).assignment.hit.campaign
    reconcile_bonuses(campaign)
    current = Bonus.objects.get(pk=bonus.pk)
    if current.state != BonusState.PAID:
        raise ProviderError(current.problem or "the payment was requested from Prolific but is not yet in its "
                                               "records; the next sync checks again")


def _set_up(provider: ProlificProvider, bonus_id: int) -> str:
    """planned -> set_up: the set-up call and the stored bulk id in one transaction (a crash between them
    rolls back to planned, and the next run sets up again: an unpaid set-up on Prolific pays nothing).
    Returns the bonus's state afterwards."""
    refusal: ProviderError | None = None
    with transaction.atomic(durable=True):
        bonus = _locked(bonus_id)
        if bonus.state != BonusState.PLANNED:
            return bonus.state
        try:
            target = _target(bonus)
            body = provider.set_up_bonuses(target.study_id, [(target.submission_id, bonus.amount)])
            bulk_id = _check_set_up(body, bonus)
        except ProlificUnavailable:
            raise  # unreachable, or a 5xx: the set-up may exist on Prolific, unpaid; the next run sets up again
        except (ProlificError, _Problem) as exc:  # refused (4xx): changes nothing until a person acts
            refusal = exc
            bonus.problem = str(exc) if isinstance(exc, _Problem) else f"Prolific did not set up this bonus: {exc}"
            _save(bonus, "problem")
        else:
            bonus.state = BonusState.SET_UP
            bonus.external_id = bulk_id
            bonus.problem = ""
            _store_set_up(bonus)
            log.info("bonus %s set up on Prolific as bulk bonus %s", bonus.pk, bulk_id)
            return bonus.state
    log.warning("bonus %s not set up: %s", bonus_id, refusal)
    raise ProviderError(bonus.problem) from refusal


def _store_set_up(bonus: Bonus) -> None:
    _save(bonus, "state", "external_id", "problem")


def _check_set_up(body: Any, bonus: Bonus) -> str:
    """The bulk id of a set-up answer ({id, study, amount, fees, vat, total_amount}, amounts in minor units),
    after checking that Prolific set up this bonus's amount (a different amount is never paid)."""
    bulk_id = str(body.get("id") or "") if isinstance(body, Mapping) else ""
    if not bulk_id:
        raise _Problem(f"Prolific's answer to setting up the bonus has no id: {body!r}")
    amount = body.get("amount")
    if amount is not None:
        reported = _minor_units(amount)
        if reported is not None and reported != cents(bonus.amount):
            raise _Problem(f"Prolific set up bulk bonus {bulk_id} for {amount} (minor units) instead of "
                           f"{cents(bonus.amount)} for this bonus of {bonus.amount}; it was not paid. Check the "
                           "study's bonus payments on Prolific.")
    return bulk_id


def _request_pay(bonus_id: int) -> str | None:
    """set_up -> pay_requested, committed before `pay` is sent. Returns the bulk id to pay, or None when the
    bonus is no longer in set_up (another job took it further: that job, and only that job, pays)."""
    with transaction.atomic(durable=True):
        bonus = _locked(bonus_id)
        if bonus.state != BonusState.SET_UP or not bonus.external_id:
            return None
        bonus.state = BonusState.PAY_REQUESTED
        bonus.problem = ""
        _store_pay_requested(bonus)
        return bonus.external_id


def _store_pay_requested(bonus: Bonus) -> None:
    _save(bonus, "state", "problem")


def _pay(provider: ProlificProvider, bonus_id: int, bulk_id: str) -> None:
    """Send `pay` once (this job stored pay_requested), then store paid. The row stays locked during the call,
    so a concurrent job waits and then finds the outcome."""
    failure: ProviderError | None = None
    with transaction.atomic(durable=True):
        bonus = _locked(bonus_id)
        if bonus.state != BonusState.PAY_REQUESTED or bonus.external_id != bulk_id:
            return  # confirmed from Prolific's records meanwhile
        try:
            provider.pay_bonuses(bulk_id)
        except ProlificError as exc:
            failure = exc
            _after_failed_pay(bonus, exc)
        else:
            bonus.state = BonusState.PAID
            bonus.paid = True
            bonus.problem = ""
            _store_paid(bonus)
            log.info("bonus %s paid on Prolific (bulk bonus %s)", bonus.pk, bulk_id)
            return
    log.warning("bonus %s: paying bulk bonus %s failed: %s", bonus_id, bulk_id, failure)
    raise ProviderError(bonus.problem) from failure


def _store_paid(bonus: Bonus) -> None:
    _save(bonus, "state", "paid", "problem")


def _after_failed_pay(bonus: Bonus, exc: ProlificError) -> None:
    """What a failed `pay` leaves. A refusal (4xx; or 429 still after our retries, which only ever repeat
    429s and connections never made) processed nothing: the bonus may be paid later. Anything else (5xx,
    a connection broken after the request was sent, a timeout) may have paid: pay_requested stays."""
    bulk_id = bonus.external_id
    refused = exc.status == 429 or (not isinstance(exc, ProlificUnavailable) and 400 <= exc.status < 500)
    if refused and exc.status == 404:  # Prolific no longer knows the set-up: set up again
        bonus.state = BonusState.PLANNED
        bonus.external_id = ""
        bonus.problem = (f"Prolific does not know bulk bonus {bulk_id} any more ({exc}); nothing was paid. "
                         "The next attempt sets the bonus up again.")
    elif refused:
        bonus.state = BonusState.SET_UP
        bonus.problem = (f"Prolific refused to pay bulk bonus {bulk_id} ({exc}); nothing was paid. The next "
                         "attempt asks again (top up the workspace's balance if that is the reason).")
    else:
        bonus.problem = (f"The request to pay bulk bonus {bulk_id} failed ({exc}) at "
                         f"{_now()}: Prolific may or may not have paid it. It is never sent again; the next sync "
                         "looks for the payment in Prolific's records. Do not pay it by hand before checking the "
                         "study's bonus payments on Prolific.")
    _save(bonus, "state", "external_id", "problem")


def _now() -> str:
    return timezone.now().strftime("%Y-%m-%d %H:%M UTC")


# ---- reconciling from Prolific's records -------------------------------------------------------------
def reconcile_bonuses(campaign: Campaign, submissions: Iterable[Mapping[str, Any]] | None = None) -> int:
    """Resolve the campaign's bonuses in pay_requested from Prolific's records: each submission list item's
    `bonus_payments` (minor units) is compared, as a multiset, with our bonuses of that submission that are
    paid or pay_requested. Found -> paid; not found -> left in pay_requested with `problem` telling the
    researcher what to check. One paged listing of the study (or `submissions`, a listing the caller already
    read). Returns how many bonuses were confirmed paid. Never pays anything."""
    pending = list(Bonus.objects.filter(assignment__hit__campaign=campaign, state=BonusState.PAY_REQUESTED)
                   .select_related("assignment").order_by("pk"))
    if not pending:
        return 0
    study = ProlificStudy.objects.filter(campaign=campaign).first()
    if study is None or not study.external_id:
        return 0
    wanted = {bonus.assignment.external_id for bonus in pending}
    listing = _provider().list_submissions(study.external_id) if submissions is None else submissions
    records = {str(item.get("id")): item for item in listing if str(item.get("id")) in wanted}
    confirmed = 0
    for submission_id in sorted(wanted):
        confirmed += _reconcile_submission(campaign, submission_id, records.get(submission_id))
    if confirmed:
        log.info("campaign %s: %d Prolific bonus(es) confirmed paid from Prolific's records", campaign.pk, confirmed)
    return confirmed


def _reconcile_submission(campaign: Campaign, submission_id: str, record: Mapping[str, Any] | None) -> int:
    ours = list(Bonus.objects.filter(assignment__hit__campaign=campaign, assignment__external_id=submission_id,
                                     state__in=CONFIRMABLE).order_by("pk"))
    payments, unreadable = _payments(record)
    remaining = Counter(payments)
    # Payments already accounted for by bonuses we know are paid are not evidence for another bonus.
    for bonus in ours:
        if bonus.state == BonusState.PAID and remaining[cents(bonus.amount)] > 0:
            remaining[cents(bonus.amount)] -= 1
    confirmed = 0
    for bonus in ours:
        if bonus.state != BonusState.PAY_REQUESTED:
            continue
        amount = cents(bonus.amount)
        if remaining[amount] > 0:
            remaining[amount] -= 1
            confirmed += _confirm(bonus.pk)
        else:
            _report_missing(bonus.pk, _missing_text(bonus, submission_id, record, unreadable))
    return confirmed


def _confirm(bonus_id: int) -> int:
    with transaction.atomic():  # may run inside a caller's transaction: confirming again later is harmless
        bonus = _locked(bonus_id)
        if bonus.state != BonusState.PAY_REQUESTED:
            return 0
        bonus.state = BonusState.PAID
        bonus.paid = True
        bonus.problem = ""
        _store_paid(bonus)
    log.info("bonus %s confirmed paid from Prolific's records (bulk bonus %s)", bonus_id, bonus.external_id)
    return 1


def _report_missing(bonus_id: int, text: str) -> None:
    with transaction.atomic():
        bonus = _locked(bonus_id)
        if bonus.state != BonusState.PAY_REQUESTED:
            return
        bonus.problem = text
        _save(bonus, "problem")
    log.warning("bonus %s: %s", bonus_id, text)


def _missing_text(bonus: Bonus, submission_id: str, record: Mapping[str, Any] | None, unreadable: int) -> str:
    where = f"bulk bonus {bonus.external_id}" if bonus.external_id else "its bulk bonus"
    if record is None:
        seen = f"submission {submission_id} is not in the study's submission list"
    elif "bonus_payments" not in record:
        seen = f"Prolific's record of submission {submission_id} shows no bonus payments field"
    else:
        seen = f"it is not yet in Prolific's records of submission {submission_id}"
        if unreadable:
            seen += f" ({unreadable} of its bonus payments could not be read)"
    return (f"Payment of {bonus.amount} requested from Prolific ({where}), but as of {_now()} {seen}. It is "
            "never requested again automatically, and each sync looks again (Prolific pays asynchronously). Check "
            "the study's bonus payments on Prolific before paying by hand.")


def _payments(record: Mapping[str, Any] | None) -> tuple[list[int], int]:
    """(amounts in minor units, how many entries could not be read) of a submission list item's
    `bonus_payments`: ints (minor units) or objects with an `amount` (minor units)."""
    if record is None:
        return [], 0
    raw = record.get("bonus_payments")
    if not isinstance(raw, list):
        return [], 0 if raw is None else 1
    amounts: list[int] = []
    unreadable = 0
    for entry in raw:
        value = entry.get("amount") if isinstance(entry, Mapping) else entry
        minor = _minor_units(value)
        if minor is None:
            unreadable += 1
        else:
            amounts.append(minor)
    return amounts, unreadable


def _minor_units(value: Any) -> int | None:
    """A whole number of minor units (int, integral float or numeric string), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    try:
        number = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    return int(number)

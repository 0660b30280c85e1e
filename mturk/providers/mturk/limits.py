"""What MTurk refuses but botocore does not check: lengths, money format, durations, sizes.

Checked before any call, so a bad campaign is refused with a clear message and nothing is created."""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from ..base import ProviderError

TITLE_MAX = 128
DESCRIPTION_MAX = 2000
KEYWORDS_MAX = 1000
ANNOTATION_MAX = 255
QUESTION_MAX_BYTES = 65_535
QUALIFICATIONS_MAX = 10
TOKEN_MAX = 64
DURATION_MIN = 30
DURATION_MAX = 365 * 24 * 3600
AUTO_APPROVAL_MAX = 30 * 24 * 3600
SUBJECT_MAX = 200
MESSAGE_MAX = 4096
NOTIFY_BATCH = 100
MONEY = re.compile(r"^[0-9]+(\.)?[0-9]{0,2}$")


class LimitError(ProviderError):
    """A value MTurk would refuse; the message names the field."""


def usd(amount: Decimal | str | int) -> str:
    """A USD amount as MTurk wants it ("0.15"): rounded half-up to the cent with Decimal, never a float."""
    if isinstance(amount, float):
        raise LimitError("money amounts must be Decimal or str, not float")
    try:
        value = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        if value.is_nan():  # a quiet NaN survives quantize but not the comparison below
            raise InvalidOperation
    except InvalidOperation:
        raise LimitError(f"'{amount}' is not an amount of money") from None
    text = f"{value:f}"
    if value < 0 or not MONEY.match(text):
        raise LimitError(f"'{amount}' is not a positive USD amount")
    return text


def check_length(field: str, value: str, maximum: int, *, required: bool = False) -> None:
    if required and not value.strip():
        raise LimitError(f"{field} is required by MTurk")
    if len(value) > maximum:
        raise LimitError(f"{field} is {len(value)} characters; MTurk allows at most {maximum}")


def check_duration(field: str, seconds: int, minimum: int = DURATION_MIN, maximum: int = DURATION_MAX) -> None:
    if not minimum <= seconds <= maximum:
        raise LimitError(f"{field} is {seconds} s; MTurk allows {minimum} s to {maximum} s")


def check_question(xml: str) -> None:
    size = len(xml.encode("utf-8"))
    if size > QUESTION_MAX_BYTES:
        raise LimitError(f"the question is {size} bytes; MTurk allows at most {QUESTION_MAX_BYTES}")


def check_token(token: str) -> None:
    if not 1 <= len(token) <= TOKEN_MAX:
        raise LimitError(f"UniqueRequestToken '{token}' must be 1 to {TOKEN_MAX} characters")


def check_requirements(requirements: list[dict]) -> None:
    if len(requirements) > QUALIFICATIONS_MAX:
        raise LimitError(
            f"{len(requirements)} qualification requirements; MTurk allows at most {QUALIFICATIONS_MAX}"
        )

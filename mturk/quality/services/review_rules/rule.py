"""Review rules: the rule's fields read from form or API data, checked and saved; its snapshot for the audit."""
from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.forms.models import model_to_dict

from ....models import Campaign, QualityRule
from ....providers.base import ProviderError
from ....providers.registry import get_provider

BOUNDS = ("approve_min_gold", "approve_min_agreement", "reject_below_gold", "reject_below_agreement")
RULE_FIELDS = ("enabled", *BOUNDS, "min_gold_items", "min_items", "reject_message", "reject_category",
               "bonus_top_share", "bonus_amount", "bonus_reason")


class RuleError(ValueError):
    """A refused rule or rule action; `field` names the rule field at fault (None: the rule as a whole)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no", ""}


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise RuleError("must be true or false.", name)


def _bound(name: str, value: Any, low: float, high: float) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise RuleError(f"must be a number from {low:g} to {high:g}.", name)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RuleError(f"must be a number from {low:g} to {high:g}.", name) from None
    if not low <= number <= high:  # NaN fails too
        raise RuleError(f"must be a number from {low:g} to {high:g} (got {value}).", name)
    return number


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise RuleError("must be a whole number of at least 1.", name)
    try:
        number = int(value)
    except ValueError:
        raise RuleError("must be a whole number of at least 1.", name) from None
    if not 1 <= number <= 32767:
        raise RuleError(f"must be a whole number from 1 to 32767 (got {value}).", name)
    return number


def _amount(name: str, value: Any) -> Decimal | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise RuleError("must be an amount such as 0.50.", name)
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise RuleError("must be an amount such as 0.50.", name) from None
    if not amount.is_finite() or amount < Decimal("0.01") or amount >= Decimal("1000000"):
        raise RuleError(f"must be at least 0.01 and below 1,000,000 (got {value}).", name)
    if amount != amount.quantize(Decimal("0.01")):
        raise RuleError(f"must be in cents, at most 2 decimals (got {value}).", name)
    return amount


def _text(name: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RuleError("must be a text.", name)
    return value.strip()


def _apply_data(rule: QualityRule, data: dict[str, Any]) -> None:
    unknown = sorted(set(data) - set(RULE_FIELDS))
    if unknown:
        raise RuleError(f"unknown rule field(s): {', '.join(unknown)} (known: {', '.join(RULE_FIELDS)}).",
                        unknown[0])
    for name, value in data.items():
        if name == "enabled":
            rule.enabled = _flag(name, value)
        elif name in ("approve_min_agreement", "reject_below_agreement"):
            setattr(rule, name, _bound(name, value, -1.0, 1.0))
        elif name in BOUNDS or name == "bonus_top_share":
            setattr(rule, name, _bound(name, value, 0.0, 1.0))
        elif name in ("min_gold_items", "min_items"):
            setattr(rule, name, _count(name, value))
        elif name == "bonus_amount":
            rule.bonus_amount = _amount(name, value)
        elif name == "reject_category":
            rule.reject_category = _text(name, value).upper()
        else:  # reject_message, bonus_reason
            setattr(rule, name, _text(name, value))


def check_rule(rule: QualityRule) -> None:
    """Refuse (RuleError naming the field) a rule that could not be applied as it stands."""
    campaign = rule.campaign
    for low, high in (("reject_below_gold", "approve_min_gold"), ("reject_below_agreement", "approve_min_agreement")):
        below, above = getattr(rule, low), getattr(rule, high)
        if below is not None and above is not None and below > above:
            raise RuleError(f"is above {high} ({below:g} > {above:g}): a worker could be approved and rejected "
                            "at once.", low)
    rejects = rule.reject_below_gold is not None or rule.reject_below_agreement is not None
    if rejects:
        if not rule.reject_message:
            raise RuleError("a rule that rejects needs the message the worker is sent.", "reject_message")
        try:
            get_provider(campaign.provider).check_rejection(rule.reject_message, rule.reject_category)
        except ProviderError as exc:
            raise RuleError(str(exc), "reject_category" if "category" in str(exc).lower() else "reject_message") \
                from None
    if rule.bonus_top_share or rule.bonus_amount is not None or rule.bonus_reason:
        if not rule.bonus_top_share:
            raise RuleError("a bonus needs the share of the best workers who get it (e.g. 0.1).", "bonus_top_share")
        if rule.bonus_amount is None:
            raise RuleError("a bonus needs an amount.", "bonus_amount")
        if not rule.bonus_reason:
            raise RuleError("a bonus needs a reason shown to the worker.", "bonus_reason")
    try:
        rule.full_clean(exclude=["campaign", "updated_by"])
    except ValidationError as exc:
        name, messages = next(iter(exc.message_dict.items()))
        raise RuleError(" ".join(messages), name) from None


def save_rule(campaign: Campaign, data: dict[str, Any], user: Any = None) -> QualityRule:
    """Create or update the campaign's rule from form/API data; ValueError names the bad field (a rejection
    message the campaign's marketplace would refuse is refused here).

    Fields missing from `data` keep their value (a new rule: the defaults); an empty bound clears it."""
    if not isinstance(data, dict):
        raise RuleError("a rule is an object of fields.")
    rule = QualityRule.objects.filter(campaign=campaign).first() or QualityRule(campaign=campaign)
    _apply_data(rule, data)
    check_rule(rule)
    rule.updated_by = user if getattr(user, "is_authenticated", False) else None
    rule.save()
    return rule


def rule_snapshot(rule: QualityRule) -> dict[str, Any]:
    """The rule as JSON, for the audit."""
    snapshot = model_to_dict(rule)
    snapshot["id"] = rule.pk
    snapshot["bonus_amount"] = None if rule.bonus_amount is None else str(rule.bonus_amount)
    snapshot["updated_at"] = rule.updated_at.isoformat() if rule.updated_at else None
    return snapshot

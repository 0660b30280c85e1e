"""A campaign's worker requirements in MTurk's QualificationRequirement shape.

A campaign stores them as a small dict (all keys optional):
    {"approval_rate_min": 95, "approved_min": 1000, "locales": ["US", "CA", "US-NY"],
     "masters": false, "adult": false}
Private "already participated" qualifications are added per HIT type (see providers.mturk.publish)."""
from __future__ import annotations

import re
from typing import Any

APPROVAL_RATE = "000000000000000000L0"
APPROVED_COUNT = "00000000000000000040"
LOCALE = "00000000000000000071"
ADULT = "00000000000000000060"
MASTERS = {False: "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", True: "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"}  # by sandbox

KEYS = ("approval_rate_min", "approved_min", "locales", "masters", "adult")
LOCALE_CODE = re.compile(r"^([A-Z]{2})(?:-([A-Z0-9]{1,3}))?$")


def clean_qualifications(spec: Any) -> dict[str, Any]:
    """Check a campaign's requirement dict; raises ValueError naming the bad key."""
    if spec in (None, ""):
        return {}
    if not isinstance(spec, dict):
        raise ValueError("qualifications must be an object, e.g. {\"approval_rate_min\": 95}")
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise ValueError(f"unknown qualification(s): {', '.join(unknown)} (known: {', '.join(KEYS)})")
    clean: dict[str, Any] = {}
    if spec.get("approval_rate_min") is not None:
        rate = spec["approval_rate_min"]
        if isinstance(rate, bool) or not isinstance(rate, int) or not 0 <= rate <= 100:
            raise ValueError("approval_rate_min must be a whole number from 0 to 100")
        clean["approval_rate_min"] = rate
    if spec.get("approved_min") is not None:
        count = spec["approved_min"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError("approved_min must be a whole number >= 0")
        clean["approved_min"] = count
    if spec.get("locales"):
        locales = spec["locales"]
        if not isinstance(locales, list) or not all(isinstance(x, str) and LOCALE_CODE.match(x) for x in locales):
            raise ValueError("locales must be a list of ISO 3166 codes such as \"US\" or \"US-NY\"")
        if len(locales) > 30:
            raise ValueError("at most 30 locales")
        clean["locales"] = list(dict.fromkeys(locales))
    for flag in ("masters", "adult"):
        if spec.get(flag) is not None:
            if not isinstance(spec[flag], bool):
                raise ValueError(f"{flag} must be true or false")
            if spec[flag]:
                clean[flag] = True
    return clean


def system_requirements(spec: dict[str, Any], sandbox: bool) -> list[dict[str, Any]]:
    """The QualificationRequirements for a campaign's dict, in a stable order."""
    requirements: list[dict[str, Any]] = []
    if "approval_rate_min" in spec:
        requirements.append({"QualificationTypeId": APPROVAL_RATE, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [spec["approval_rate_min"]], "ActionsGuarded": "Accept"})
    if "approved_min" in spec:
        requirements.append({"QualificationTypeId": APPROVED_COUNT, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [spec["approved_min"]], "ActionsGuarded": "Accept"})
    if spec.get("locales"):
        values = []
        for code in spec["locales"]:
            match = LOCALE_CODE.match(code)
            if match is None:  # clean_qualifications refuses such codes before anything is built
                raise ValueError(f"locale {code!r} is not a country code, optionally with a subdivision")
            country, subdivision = match.groups()
            values.append({"Country": country, **({"Subdivision": subdivision} if subdivision else {})})
        requirements.append({"QualificationTypeId": LOCALE, "Comparator": "In", "LocaleValues": values,
                             "ActionsGuarded": "Accept"})
    if spec.get("masters"):
        requirements.append({"QualificationTypeId": MASTERS[sandbox], "Comparator": "Exists",
                             "ActionsGuarded": "Accept"})
    if spec.get("adult"):
        requirements.append({"QualificationTypeId": ADULT, "Comparator": "EqualTo", "IntegerValues": [1],
                             "ActionsGuarded": "Accept"})
    return requirements


def not_participated(qualification_type_id: str) -> dict[str, Any]:
    """Keep out workers who hold our private participation qualification (they cannot even see the HIT)."""
    return {"QualificationTypeId": qualification_type_id, "Comparator": "DoesNotExist",
            "ActionsGuarded": "DiscoverPreviewAndAccept"}

"""A campaign's worker requirements: checked when stored, sent in MTurk's QualificationRequirement shape."""
from __future__ import annotations

import pytest

from mturk.providers.mturk.qualifications import clean_qualifications, not_participated, system_requirements
from mturk.services.campaigns import CampaignError, create_campaign

from .helpers import MASTERS_PRODUCTION, MASTERS_SANDBOX

FULL = {"approval_rate_min": 95, "approved_min": 1000, "locales": ["US", "CA", "US-NY"], "masters": True,
        "adult": True}


def requirements_for(masters_id: str) -> list[dict]:
    return [
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [95], "ActionsGuarded": "Accept"},
        {"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [1000], "ActionsGuarded": "Accept"},
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": "US"}, {"Country": "CA"}, {"Country": "US", "Subdivision": "NY"}],
         "ActionsGuarded": "Accept"},
        {"QualificationTypeId": masters_id, "Comparator": "Exists", "ActionsGuarded": "Accept"},
        {"QualificationTypeId": "00000000000000000060", "Comparator": "EqualTo", "IntegerValues": [1],
         "ActionsGuarded": "Accept"},
    ]


# ---- clean_qualifications --------------------------------------------------------------------

def test_a_full_spec_is_kept():
    assert clean_qualifications(dict(FULL)) == FULL


@pytest.mark.parametrize("empty", [None, "", {}])
def test_no_requirements(empty):
    assert clean_qualifications(empty) == {}


def test_false_flags_and_empty_locales_are_dropped_and_duplicate_locales_merged():
    spec = {"masters": False, "adult": False, "locales": [], "approval_rate_min": None}
    assert clean_qualifications(spec) == {}
    assert clean_qualifications({"locales": ["US", "GB", "US"]}) == {"locales": ["US", "GB"]}


@pytest.mark.parametrize(("spec", "named"), [
    ({"approval_rate": 95}, "unknown qualification(s): approval_rate"),
    ({"zzz": 1, "aaa": 2}, "unknown qualification(s): aaa, zzz"),
    ({"approval_rate_min": 101}, "approval_rate_min"),
    ({"approval_rate_min": -1}, "approval_rate_min"),
    ({"approval_rate_min": 95.5}, "approval_rate_min"),
    ({"approval_rate_min": True}, "approval_rate_min"),
    ({"approval_rate_min": "95"}, "approval_rate_min"),
    ({"approved_min": -1}, "approved_min"),
    ({"approved_min": False}, "approved_min"),
    ({"locales": "US"}, "locales"),
    ({"locales": ["us"]}, "locales"),
    ({"locales": ["USA"]}, "locales"),
    ({"locales": ["US-"]}, "locales"),
    ({"locales": [f"A{chr(65 + i % 26)}" for i in range(31)]}, "at most 30 locales"),
    ({"masters": "yes"}, "masters must be true or false"),
    ({"adult": 1}, "adult must be true or false"),
])
def test_errors_name_the_bad_key(spec, named):
    with pytest.raises(ValueError) as raised:
        clean_qualifications(spec)
    assert named in str(raised.value)


def test_a_non_object_is_refused():
    with pytest.raises(ValueError, match="qualifications must be an object"):
        clean_qualifications(["approval_rate_min"])


@pytest.mark.django_db
def test_create_campaign_refuses_bad_qualifications_naming_the_key():
    with pytest.raises(CampaignError, match="approved_min must be a whole number >= 0"):
        create_campaign(name="bad-quals", task_kind="describe_image", provider="mturk",
                        qualifications={"approved_min": -5})


# ---- system_requirements ---------------------------------------------------------------------

def test_full_spec_in_production():
    assert system_requirements(clean_qualifications(FULL), sandbox=False) == requirements_for(MASTERS_PRODUCTION)


def test_full_spec_in_the_sandbox_uses_the_sandbox_masters_id():
    assert system_requirements(clean_qualifications(FULL), sandbox=True) == requirements_for(MASTERS_SANDBOX)
    assert MASTERS_SANDBOX != MASTERS_PRODUCTION


def test_only_the_requirements_asked_for():
    assert system_requirements({}, sandbox=False) == []
    assert system_requirements(clean_qualifications({"locales": ["DE-BY"]}), sandbox=False) == [
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": "DE", "Subdivision": "BY"}], "ActionsGuarded": "Accept"},
    ]
    assert system_requirements(clean_qualifications({"approval_rate_min": 0}), sandbox=True) == [
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [0], "ActionsGuarded": "Accept"},
    ]


def test_not_participated_hides_the_hit_from_holders():
    assert not_participated("3QUALIFICATION") == {
        "QualificationTypeId": "3QUALIFICATION", "Comparator": "DoesNotExist",
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    }

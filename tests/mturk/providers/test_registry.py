"""The registry answers what provider-neutral code asks of the providers: their labels, the platform's own crowd,
the default provider, each provider's wizard requirement fields."""
from __future__ import annotations

import pytest
from django.test import override_settings

from mturk.providers.registry import (
    UnknownProvider,
    default_provider_name,
    get_provider,
    own_crowd,
    provider_label,
    provider_names,
)


def test_labels_come_from_the_providers_and_an_unknown_name_stays_itself():
    assert provider_label("mturk") == "MTurk"
    assert provider_label("prolific") == "Prolific"
    assert provider_label("local") == "the local crowd"
    assert provider_label("nowhere") == "nowhere"


def test_the_own_crowd_is_the_one_provider_that_says_so():
    assert own_crowd().name == "local"
    assert [name for name in provider_names() if get_provider(name).own_crowd] == ["local"]


def test_no_own_crowd_among_the_configured_providers_is_an_error(monkeypatch):
    from mturk.providers import registry

    monkeypatch.setattr(registry, "_PROVIDERS", {n: c for n, c in registry._PROVIDERS.items() if not c.own_crowd})
    with pytest.raises(UnknownProvider, match="own crowd"):
        own_crowd()


def test_the_default_provider_is_the_setting():
    assert default_provider_name() == "local"
    with override_settings(DEFAULT_CROWD_PROVIDER="prolific"):
        assert default_provider_name() == "prolific"


def test_requirement_fields_are_each_providers_own():
    keys = {name: [field.key for field in get_provider(name).requirement_fields] for name in provider_names()}
    assert keys == {
        "local": [],
        "mturk": ["approval_rate_min", "approved_min", "locales", "masters", "adult"],
        "prolific": ["devices", "estimated_minutes", "filters"],
    }


@pytest.mark.parametrize("name", ["mturk", "prolific"])
def test_every_requirement_field_is_a_key_the_provider_accepts(name):
    provider = get_provider(name)
    with pytest.raises(ValueError, match=r"\(known: ") as refused:
        provider.clean_qualifications({"zz_not_a_requirement": 1})
    known = str(refused.value).rsplit("(known: ", 1)[1].rstrip(")").split(", ")
    assert {field.key for field in provider.requirement_fields} <= set(known)

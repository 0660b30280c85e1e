"""The boto3 client (one per process and environment) and our retry policy around every call."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from mturk.providers.mturk import client as mturk_client
from mturk.providers.mturk.client import (
    MarketplaceError,
    MarketplaceUnavailable,
    call,
    get_client,
    hit_id_from_message,
    paginate,
    reset_clients,
    set_client,
)

from .helpers import add_request_error, add_throttling, hit_id


@pytest.fixture
def no_jitter(monkeypatch):
    """The backoff without its random jitter, so the delays are exact."""
    monkeypatch.setattr(mturk_client, "random", SimpleNamespace(random=lambda: 0.0))


@pytest.fixture
def fresh_clients():
    """Real (never called) boto3 clients built by get_client, dropped afterwards."""
    reset_clients()
    yield
    reset_clients()


# ---- retries ---------------------------------------------------------------------------------

def test_throttling_is_retried_with_exponentially_growing_delays(stub, sleeps, no_jitter):
    for _ in range(3):
        add_throttling(stub, "get_account_balance")
    stub.add_response("get_account_balance", {"AvailableBalance": "12.34"}, {})

    response = call(get_client(False), "get_account_balance")

    assert response["AvailableBalance"] == "12.34"
    # MTURK_RETRY_BASE_SECONDS = 0.5 (conftest): 0.5, 1, 2
    assert sleeps == [0.5, 1.0, 2.0]


def test_backoff_jitter_stays_within_half_a_delay_and_keeps_growing(stub, sleeps):
    for _ in range(3):
        add_throttling(stub, "get_account_balance")
    stub.add_response("get_account_balance", {"AvailableBalance": "1.00"}, {})

    call(get_client(False), "get_account_balance")

    assert len(sleeps) == 3
    for attempt, delay in enumerate(sleeps):
        base = 0.5 * 2 ** attempt
        assert base <= delay <= base * 1.5
    assert sleeps[0] < sleeps[1] < sleeps[2]


def test_a_service_fault_is_retried(stub, sleeps, no_jitter):
    stub.add_client_error("get_account_balance", service_error_code="ServiceFault",
                          service_message="Internal failure", http_status_code=500,
                          modeled_fields={"Message": "Internal failure", "TurkErrorCode": "AWS.ServiceFault"})
    stub.add_response("get_account_balance", {"AvailableBalance": "5.00"}, {})

    assert call(get_client(False), "get_account_balance") == {"AvailableBalance": "5.00"}
    assert sleeps == [0.5]


def test_exhausted_retries_raise_marketplace_unavailable(stub, sleeps, no_jitter):
    for _ in range(4):  # MTURK_MAX_ATTEMPTS = 4 (conftest)
        add_throttling(stub, "create_hit_type")
    params = {"AssignmentDurationInSeconds": 600, "Reward": "0.10", "Title": "T", "Description": "D"}

    with pytest.raises(MarketplaceUnavailable) as raised:
        call(get_client(False), "create_hit_type", **params)

    assert raised.value.code == "ThrottlingException"
    assert raised.value.operation == "create_hit_type"
    assert "after 4 attempts" in str(raised.value) and "Rate exceeded" in str(raised.value)
    assert sleeps == [0.5, 1.0, 2.0]  # no sleep after the last attempt


def test_a_request_error_is_not_retried_and_carries_the_turk_error_code(stub, sleeps):
    add_request_error(stub, "get_assignment", "Assignment ASSIGN1 does not exist.",
                      "AWS.MechanicalTurk.AssignmentDoesNotExist", expected_params={"AssignmentId": "ASSIGN1"})

    with pytest.raises(MarketplaceError) as raised:
        call(get_client(False), "get_assignment", AssignmentId="ASSIGN1")

    error = raised.value
    assert not isinstance(error, MarketplaceUnavailable)
    assert (error.code, error.turk_code, error.operation) == (
        "RequestError", "AWS.MechanicalTurk.AssignmentDoesNotExist", "get_assignment")
    assert str(error) == "MTurk refused get_assignment: Assignment ASSIGN1 does not exist."
    assert sleeps == []


def test_invalid_parameters_become_a_marketplace_error_without_a_request(fresh_clients, settings, sleeps):
    settings.MTURK_ENDPOINT_URL = "https://mturk.invalid"  # never reached: botocore refuses the parameters first
    with pytest.raises(MarketplaceError) as raised:
        call(get_client(False), "get_assignment", AssignmentId=123)
    assert raised.value.code == "ParamValidationError"
    assert sleeps == []


# ---- pagination ------------------------------------------------------------------------------

def test_paginate_follows_next_token_across_three_pages(stub):
    base = {"AssignmentStatuses": ["Submitted", "Approved", "Rejected"], "HITId": hit_id(1)}
    pages = [
        ({"Assignments": [{"AssignmentId": "A1"}, {"AssignmentId": "A2"}], "NextToken": "page-2", "NumResults": 2},
         {**base, "MaxResults": 100}),
        ({"Assignments": [{"AssignmentId": "A3"}], "NextToken": "page-3", "NumResults": 1},
         {**base, "MaxResults": 100, "NextToken": "page-2"}),
        ({"Assignments": [{"AssignmentId": "A4"}], "NumResults": 1},
         {**base, "MaxResults": 100, "NextToken": "page-3"}),
    ]
    for response, expected in pages:
        stub.add_response("list_assignments_for_hit", response, expected)

    found = paginate(get_client(False), "list_assignments_for_hit", "Assignments", **base)

    assert [a["AssignmentId"] for a in found] == ["A1", "A2", "A3", "A4"]


def test_paginate_stops_at_an_empty_page_even_with_a_token(stub):
    stub.add_response("list_hits", {"HITs": [], "NextToken": "more", "NumResults": 0}, {"MaxResults": 100})
    assert paginate(get_client(False), "list_hits", "HITs") == []


# ---- HIT ids in messages ---------------------------------------------------------------------

def test_hit_id_from_message():
    existing = hit_id(7)
    assert hit_id_from_message(f"The HIT with ID {existing} already exists.") == existing
    assert hit_id_from_message(f'MTurk refused create_hit_with_hit_type: HIT "{existing}" exists') == existing
    assert hit_id_from_message("There is already a HIT with the token t1-hit-12.") is None
    assert hit_id_from_message(existing + "X") is None  # 31 characters is not a HIT id


# ---- clients ---------------------------------------------------------------------------------

def test_production_client_is_pinned_to_us_east_1(fresh_clients, settings):
    settings.MTURK_ENDPOINT_URL = ""
    client = get_client(False)
    assert client.meta.endpoint_url == "https://mturk-requester.us-east-1.amazonaws.com"
    assert client.meta.region_name == "us-east-1"


def test_sandbox_client_uses_the_sandbox_endpoint(fresh_clients, settings):
    settings.MTURK_ENDPOINT_URL = ""
    client = get_client(True)
    assert client.meta.endpoint_url == "https://mturk-requester-sandbox.us-east-1.amazonaws.com"


def test_endpoint_url_setting_points_both_clients_at_a_compatible_service(fresh_clients, settings):
    settings.MTURK_ENDPOINT_URL = "https://mturk.example.net"
    for sandbox in (False, True):
        client = get_client(sandbox)
        assert client.meta.endpoint_url == "https://mturk.example.net"
        assert client.meta.region_name == "us-east-1"


def test_one_client_per_process_and_environment(fresh_clients):
    production = get_client(False)
    assert get_client(False) is production
    sandbox = get_client(True)
    assert get_client(True) is sandbox and sandbox is not production
    reset_clients()
    assert get_client(False) is not production


def test_set_client_installs_the_client_get_client_returns(fresh_clients):
    marker = object()
    set_client(True, marker)
    assert get_client(True) is marker
    assert get_client(False) is not marker


def test_botocore_makes_a_single_attempt_so_only_our_loop_retries(fresh_clients):
    # botocore's "max_attempts" counts retries; "total_max_attempts" counts the first call too.
    assert get_client(False).meta.config.retries["total_max_attempts"] == 1

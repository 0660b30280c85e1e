"""The Prolific HTTP client (mturk/providers/prolific/client.py) against `responses`, with payloads shaped like
Prolific's documentation: the two error shapes, which answers are retried for which calls, timeouts, both
paginations, and the token header. (`responses` replays urllib3's status retries without sleeping.)"""
from __future__ import annotations

import pytest
import requests
import responses
from responses import matchers

from mturk.providers.base import ProviderUnavailable
from mturk.providers.prolific.client import (
    ProlificAuthError,
    ProlificClient,
    ProlificError,
    ProlificUnavailable,
    describe_error,
    get_client,
    reset_client,
)

BASE = "https://api.prolific.com/api/v1/"
TOKEN = "wxyz-token-1234"
STUDY = "60d9aadeb86739de712faee0"
SUBMISSION = "60d9aadeb86739de712faee1"
PARTICIPANT = "60bf9310e8dec401be6e9615"
ATTEMPTS = 4

# GET /submissions/{id}/ (single shape, docs "Retrieve a submission").
SINGLE = {"id": SUBMISSION, "participant": PARTICIPANT, "study_id": STUDY, "status": "ACTIVE",
          "started_at": "2021-07-05T09:12:41.322000Z", "completed_at": None, "entered_code": None}
# {"error": {...}} (CLI JSONAPIError) and {"message", "detail"} (CLI SimpleAPIError).
NESTED_400 = {"error": {"status": 400, "title": "Bad Request", "error_code": 140001,
                        "detail": {"reward": ["A valid integer is required."],
                                   "completion_codes": ["This field is required."]},
                        "additional_information": "/api/v1/errors/140001"}}
SIMPLE_400 = {"message": "Invalid rejection", "detail": "A rejection needs a message of at least 100 characters."}
UNAUTHORISED = {"error": {"status": 401, "title": "Unauthorized", "error_code": 140100,
                          "detail": "Invalid token.", "additional_information": ""}}
THROTTLED = {"error": {"status": 429, "title": "Too Many Requests", "error_code": 142900,
                       "detail": "Request was throttled.", "additional_information": ""}}
SERVER_ERROR = {"error": {"status": 500, "title": "Internal Server Error", "error_code": 150000,
                          "detail": "Something went wrong.", "additional_information": ""}}


@pytest.fixture
def client() -> ProlificClient:
    return ProlificClient(BASE, TOKEN, timeout=1.0, attempts=ATTEMPTS, backoff=0)


@pytest.fixture
def mocked():
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        yield rsps


def list_item(number: int) -> dict:
    """An item of GET /studies/{id}/submissions/ (list shape, CLI model.Submission)."""
    return {"id": f"60d9aadeb86739de71{number:06x}", "participant_id": f"60bf9310e8dec401be{number:06x}",
            "started_at": "2021-07-05T09:12:41.322000Z", "completed_at": "2021-07-05T09:20:03.101000Z",
            "is_complete": True, "time_taken": 442, "reward": 150, "status": "AWAITING REVIEW", "strata": {},
            "study_code": "C1A2B3C4", "entered_code": "C1A2B3C4", "ip": "", "return_requested": None,
            "has_siblings": False, "star_awarded": False, "bonus_payments": []}


# ---- errors -------------------------------------------------------------------------------------------

def test_the_nested_error_shape_becomes_a_readable_message(client, mocked):
    mocked.post(BASE + "studies/", status=400, json=NESTED_400)

    with pytest.raises(ProlificError) as caught:
        client.post("studies/", {"name": "x"}, safe=False)

    error = caught.value
    assert error.status == 400 and error.code == "140001"
    assert type(error) is ProlificError  # neither "unavailable" nor an auth problem
    text = str(error)
    assert "POST studies/ (400)" in text
    assert "reward: A valid integer is required." in text
    assert "completion_codes: This field is required." in text
    assert error.detail == NESTED_400["error"]["detail"]


def test_the_message_and_detail_error_shape_becomes_a_readable_message(client, mocked):
    mocked.post(BASE + f"submissions/{SUBMISSION}/transition/", status=400, json=SIMPLE_400)

    with pytest.raises(ProlificError) as caught:
        client.post(f"submissions/{SUBMISSION}/transition/", {"action": "REJECT"})

    assert caught.value.status == 400
    assert "Invalid rejection: A rejection needs a message of at least 100 characters." in str(caught.value)


@pytest.mark.parametrize("body, expected", [
    (NESTED_400, ("Bad Request: reward: A valid integer is required.; completion_codes: This field is required.: "
                  "/api/v1/errors/140001")),
    (SIMPLE_400, "Invalid rejection: A rejection needs a message of at least 100 characters."),
    ({"detail": "Not found."}, "Not found."),
    ({"error": {"title": "Bad Request", "detail": ["one", "two"]}}, "Bad Request: one; two"),
    ("<html>Bad gateway</html>", "<html>Bad gateway</html>"),
])
def test_describe_error_reads_both_documented_shapes(body, expected):
    assert describe_error(body)[0] == expected


def test_a_401_is_an_authentication_error_and_is_not_retried(client, mocked):
    mocked.get(BASE + f"submissions/{SUBMISSION}/", status=401, json=UNAUTHORISED)

    with pytest.raises(ProlificAuthError) as caught:
        client.get(f"submissions/{SUBMISSION}/")

    assert caught.value.status == 401
    assert "Invalid token." in str(caught.value) and "PROLIFIC_TOKEN" in str(caught.value)
    assert len(mocked.calls) == 1


def test_a_missing_token_is_refused_before_any_request(mocked):
    with pytest.raises(ProlificAuthError, match="PROLIFIC_TOKEN is not set"):
        ProlificClient(BASE, "").get("studies/")
    assert len(mocked.calls) == 0


@pytest.mark.parametrize("status", [400, 403, 404, 409])
@pytest.mark.parametrize("safe", [True, False])
def test_4xx_answers_are_never_retried(client, mocked, status, safe):
    url = BASE + "submissions/bonus-payments/"
    mocked.post(url, status=status, json={"message": "Refused", "detail": f"status {status}"})
    mocked.post(url, status=201, json={"id": "b1"})  # would be the answer of a (wrong) second attempt

    with pytest.raises(ProlificError) as caught:
        client.post("submissions/bonus-payments/", {"study_id": STUDY, "csv_bonuses": f"{SUBMISSION},1.50"},
                    safe=safe)

    assert caught.value.status == status
    assert not isinstance(caught.value, ProlificUnavailable)
    assert len(mocked.calls) == 1
    mocked.assert_all_requests_are_fired = False


# ---- retries ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("safe", [True, False])
def test_429_then_success_is_retried_for_safe_and_unsafe_calls(client, mocked, safe):
    url = BASE + f"bulk-bonus-payments/{STUDY}/pay/"
    mocked.post(url, status=429, json=THROTTLED, headers={"Retry-After": "0"})
    mocked.post(url, status=429, json=THROTTLED)
    mocked.post(url, status=202, body=b"")

    assert client.post(f"bulk-bonus-payments/{STUDY}/pay/", {}, safe=safe) == {}

    assert len(mocked.calls) == 3


def test_429_until_the_attempts_run_out_is_unavailable(client, mocked):
    mocked.get(BASE + "studies/", status=429, json=THROTTLED)

    with pytest.raises(ProlificUnavailable) as caught:
        client.get("studies/")

    assert caught.value.status == 429
    assert isinstance(caught.value, ProviderUnavailable)
    assert "Request was throttled." in str(caught.value)
    assert len(mocked.calls) == ATTEMPTS


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_retried_for_safe_calls(client, mocked, status):
    url = BASE + f"submissions/{SUBMISSION}/"
    mocked.get(url, status=status, json=SERVER_ERROR)
    mocked.get(url, status=200, json=SINGLE)

    assert client.get(f"submissions/{SUBMISSION}/") == SINGLE

    assert len(mocked.calls) == 2


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_not_retried_for_unsafe_calls(client, mocked, status):
    url = BASE + "submissions/bonus-payments/"
    mocked.post(url, status=status, json=SERVER_ERROR)
    mocked.post(url, status=201, json={"id": "b1", "study": STUDY, "amount": 150, "fees": 50, "vat": 10,
                                       "total_amount": 210})

    with pytest.raises(ProlificUnavailable) as caught:
        client.post("submissions/bonus-payments/", {"study_id": STUDY, "csv_bonuses": f"{SUBMISSION},1.50"},
                    safe=False)

    assert caught.value.status == status
    assert len(mocked.calls) == 1  # exactly one request: the set-up may have been done
    mocked.assert_all_requests_are_fired = False


def test_a_safe_post_is_retried_after_a_server_error(client, mocked):
    url = BASE + f"submissions/{SUBMISSION}/transition/"
    mocked.post(url, status=502, body="<html>Bad gateway</html>")
    mocked.post(url, status=200, json={**SINGLE, "status": "APPROVED"},
                match=[matchers.json_params_matcher({"action": "APPROVE"})])

    assert client.post(f"submissions/{SUBMISSION}/transition/", {"action": "APPROVE"})["status"] == "APPROVED"
    assert len(mocked.calls) == 2


@pytest.mark.parametrize("error", [requests.exceptions.ConnectTimeout("connect timed out"),
                                   requests.exceptions.ReadTimeout("read timed out"),
                                   requests.exceptions.ConnectionError("connection refused")])
def test_a_timeout_or_broken_connection_is_unavailable(client, mocked, error):
    mocked.get(BASE + f"studies/{STUDY}/", body=error)

    with pytest.raises(ProlificUnavailable) as caught:
        client.get(f"studies/{STUDY}/")

    assert "could not be reached" in str(caught.value) and f"studies/{STUDY}/" in str(caught.value)


# ---- pagination ------------------------------------------------------------------------------------------

def links(path: str, limit: int, offset: int, count: int) -> dict:
    def href(at: int | None) -> str | None:
        return None if at is None else f"{BASE}{path}?limit={limit}&offset={at}"

    return {"self": {"href": href(offset), "title": "Current page"},
            "next": {"href": href(offset + limit if offset + limit < count else None), "title": "Next page"},
            "previous": {"href": href(offset - limit if offset else None), "title": "Previous page"},
            "last": {"href": href((count - 1) // limit * limit), "title": "Last page"}}


def test_pages_follows_limit_offset_pages_with_links_to_the_end(client, mocked):
    path = f"studies/{STUDY}/submissions/"
    items = [list_item(n) for n in range(5)]
    for offset in (0, 2, 4):
        mocked.get(BASE + path, json={"results": items[offset:offset + 2], "_links": links(path, 2, offset, 5),
                                      "meta": {"count": 5}},
                   match=[matchers.query_param_matcher({"limit": "2", "offset": str(offset)})])

    assert [item["id"] for item in client.pages(path, limit=2)] == [item["id"] for item in items]
    assert len(mocked.calls) == 3


def test_pages_keeps_going_when_prolific_answers_fewer_items_than_asked(client, mocked):
    """A server-side cap on `limit`: the next page starts after what was received, as `_links.next` says."""
    path = f"studies/{STUDY}/submissions/"
    items = [list_item(n) for n in range(5)]
    for offset in (0, 3):
        mocked.get(BASE + path, json={"results": items[offset:offset + 3], "_links": links(path, 3, offset, 5),
                                      "meta": {"count": 5}},
                   match=[matchers.query_param_matcher({"limit": "200", "offset": str(offset)})])

    assert len(list(client.pages(path))) == 5


def test_pages_follows_meta_count_when_there_are_no_links(client, mocked):
    """GET /hooks/subscriptions/ answers results + meta only (CLI ListHooksResponse)."""
    hooks = [{"id": f"hook{n}", "event_type": "submission.status.change", "target_url": "https://x.test/hooks/",
              "is_enabled": True, "workspace_id": "ws1"} for n in range(3)]
    for offset in (0, 2):
        mocked.get(BASE + "hooks/subscriptions/", json={"results": hooks[offset:offset + 2], "meta": {"count": 3}},
                   match=[matchers.query_param_matcher({"workspace_id": "ws1", "limit": "2",
                                                        "offset": str(offset)})])

    assert [h["id"] for h in client.pages("hooks/subscriptions/", {"workspace_id": "ws1"}, limit=2)] == [
        "hook0", "hook1", "hook2"]


def test_pages_follows_page_and_page_size_with_next(client, mocked):
    """GET /submissions/?study= pages by page/page_size (default 20) with a `next` link."""
    items = [{**list_item(n), "study_id": STUDY} for n in range(45)]
    for page in (1, 2, 3):
        nxt = f"{BASE}submissions/?study={STUDY}&page={page + 1}&page_size=20" if page < 3 else None
        mocked.get(BASE + "submissions/", json={"count": 45, "next": nxt, "previous": None,
                                                "results": items[(page - 1) * 20:page * 20]},
                   match=[matchers.query_param_matcher({"study": STUDY, "page": str(page), "page_size": "20"})])

    got = list(client.pages("submissions/", {"study": STUDY, "page_size": 20}))

    assert [item["id"] for item in got] == [item["id"] for item in items]
    assert len(mocked.calls) == 3


def test_page_numbers_stop_at_meta_count_without_asking_past_the_last_page(client, mocked):
    """A page/page_size list that reports meta.count but no `next`: the count is of all pages together."""
    items = [list_item(n) for n in range(25)]
    for page in (1, 2, 3):
        mocked.get(BASE + "submissions/", json={"results": items[(page - 1) * 10:page * 10], "meta": {"count": 25}},
                   match=[matchers.query_param_matcher({"page": str(page), "page_size": "10"})])

    assert len(list(client.pages("submissions/", {"page_size": 10}))) == 25
    assert len(mocked.calls) == 3  # page 4 (past the end) is never asked for


def test_pages_stops_on_an_empty_page_even_if_a_next_link_is_given(client, mocked):
    mocked.get(BASE + "filters/", json={"results": [], "_links": {"next": {"href": BASE + "filters/?offset=200"}},
                                        "meta": {"count": 7}})

    assert list(client.pages("filters/")) == []
    assert len(mocked.calls) == 1


# ---- headers, settings -------------------------------------------------------------------------------------

def test_every_request_carries_the_token_header(client, mocked):
    mocked.get(BASE + f"submissions/{SUBMISSION}/", json=SINGLE,
               match=[matchers.header_matcher({"Authorization": f"Token {TOKEN}"})])
    mocked.post(BASE + "studies/", status=201, json={"id": STUDY, "status": "UNPUBLISHED"},
                match=[matchers.header_matcher({"Authorization": f"Token {TOKEN}"})])

    client.get(f"submissions/{SUBMISSION}/")
    client.post("studies/", {"name": "x"}, safe=False)

    assert [call.request.headers["Authorization"] for call in mocked.calls] == [f"Token {TOKEN}"] * 2


def test_get_client_is_built_from_the_settings(settings, mocked):
    settings.PROLIFIC_API_URL = "https://prolific.example.test/api/v1"
    settings.PROLIFIC_TOKEN = "settings-token"
    settings.PROLIFIC_TIMEOUT_SECONDS = 7.5
    reset_client()
    try:
        mocked.get("https://prolific.example.test/api/v1/workspaces/ws1/balance/",
                   json={"currency_code": "GBP", "available_balance": 12345},
                   match=[matchers.header_matcher({"Authorization": "Token settings-token"}),
                          matchers.request_kwargs_matcher({"timeout": 7.5})])
        client = get_client()
        assert get_client() is client
        assert client.get("workspaces/ws1/balance/")["available_balance"] == 12345
    finally:
        reset_client()
    assert get_client() is not client
    reset_client()


def test_no_content_answers_read_as_an_empty_object(client, mocked):
    mocked.delete(BASE + "participant-groups/g1/participants/", status=204,
                  match=[matchers.json_params_matcher({"participant_ids": [PARTICIPANT]})])

    assert client.delete("participant-groups/g1/participants/", {"participant_ids": [PARTICIPANT]}) == {}

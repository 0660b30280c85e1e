"""The MTurk task page (/mt/task/, inside MTurk's iframe): preview, accept, forged or mismatched ids,
the turkSubmitTo allow-list, eligibility, the completion code and the hand-off, framing headers."""
from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from mturk.models import HIT, Assignment, Campaign, MarketplaceQualification, QualificationGrant, Worker
from mturk.providers.mturk.arrivals import accept_marketplace_assignment, completion_code
from mturk.providers.mturk.submit_hosts import allowed_origins, handoff_url, normalise_origin
from mturk.states import AssignmentStatus
from mturk.work.tokens import assignment_token, preview_token, read_assignment_token
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db

MTURK = "https://www.mturk.com"
HANDOFF = "https://www.mturk.com/mturk/externalSubmit"


def mturk_hits(images: int = 1, assignments: int = 2, **fields) -> list[HIT]:
    """A live MTurk campaign's HITs, set up in the database only (publishing would call MTurk)."""
    campaign = make_campaign(images=images, publish=False, assignments=assignments, provider="mturk",
                             description="Describe one photo in a sentence or two.", **fields)
    for hit in HIT.objects.filter(campaign=campaign):
        HIT.objects.filter(pk=hit.pk).update(status="published", external_id=f"3HIT{hit.pk:06d}")
    Campaign.objects.filter(pk=campaign.pk).update(status="active")
    return list(HIT.objects.select_related("campaign").filter(campaign=campaign).order_by("position", "pk"))


def mturk_hit(**fields) -> HIT:
    return mturk_hits(**fields)[0]


def link(hit: HIT, campaign_id: int | None = None, token: str | None = None, **params: str) -> str:
    """The ExternalURL of the HIT (see provider.task_url) with MTurk's parameters appended."""
    query = {"c": campaign_id if campaign_id is not None else hit.campaign_id,
             "h": token if token is not None else preview_token(hit.pk), **params}
    return reverse("mturk-task") + "?" + urlencode(query)


def preview_link(hit: HIT) -> str:
    return link(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId=hit.external_id)


def accept_link(hit: HIT, worker: str = "A1WORKER", assignment: str = "3ASSIGN1", submit_to: str = MTURK,
                **extra: str) -> str:
    return link(hit, assignmentId=assignment, hitId=hit.external_id, workerId=worker, turkSubmitTo=submit_to,
                **extra)


def page_token(response) -> str:
    match = re.search(r'data-token="([^"]+)"', response.content.decode())
    assert match, "the task page carries no token"
    return match.group(1)


def assert_frameable(response) -> None:
    assert response["Content-Security-Policy"].startswith("frame-ancestors ")
    assert "https://worker.mturk.com" in response["Content-Security-Policy"]
    assert "X-Frame-Options" not in response
    assert "Set-Cookie" not in response
    assert not response.cookies


# ---- preview -------------------------------------------------------------------------------------

@pytest.mark.parametrize("with_assignment_param", [True, False])
def test_preview_is_read_only(client, with_assignment_param):
    hit = mturk_hit()
    url = preview_link(hit) if with_assignment_param else link(hit)
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-preview="1"' in html
    assert 'id="submit-button"' not in html
    assert "data-token" not in html
    assert "data-handoff-url" not in html
    assert "Preview:" in html
    assert_frameable(response)
    assert not Assignment.objects.exists() and not Worker.objects.exists()


# ---- accepting ------------------------------------------------------------------------------------

def test_accept_creates_one_assignment_and_reload_is_idempotent(client):
    hit = mturk_hit()
    first = client.get(accept_link(hit))
    second = client.get(accept_link(hit))
    assert (first.status_code, second.status_code) == (200, 200)
    assignment = Assignment.objects.get()
    assert (assignment.hit_id, assignment.external_id, assignment.status) == (hit.pk, "3ASSIGN1", "accepted")
    assert (assignment.worker.provider, assignment.worker.external_id) == ("mturk", "A1WORKER")
    claim = read_assignment_token(page_token(first))
    assert (claim.assignment_id, claim.worker_external_id) == (assignment.pk, "A1WORKER")
    html = first.content.decode()
    assert f'data-handoff-url="{HANDOFF}"' in html
    assert 'data-assignment-id="3ASSIGN1"' in html
    assert 'id="submit-button"' in html and "data-preview" not in html
    assert "js/mturk_handoff.js" in html
    assert_frameable(first)


def test_submit_host_trailing_slash_is_normalised(client):
    hit = mturk_hit()
    response = client.get(accept_link(hit, submit_to="https://workersandbox.mturk.com/"))
    assert response.status_code == 200
    assert 'data-handoff-url="https://workersandbox.mturk.com/mturk/externalSubmit"' in response.content.decode()


@pytest.mark.parametrize("submit_to", [
    "https://evil.example",
    "https://www.mturk.com.evil.example",
    "https://user@www.mturk.com",
    "http://www.mturk.com",
    "https://www.mturk.com/mturk/externalSubmit",
    "https://www.mturk.com//",
    "https://www.mturk.com?x=1",
    "https://www.mturk.com#x",
    "//www.mturk.com",
    "javascript:alert(1)",
])
def test_submit_host_not_allow_listed_is_refused(client, submit_to):
    hit = mturk_hit()
    response = client.get(accept_link(hit, submit_to=submit_to))
    assert response.status_code == 400
    assert "turkSubmitTo" in response.content.decode()
    assert_frameable(response)
    assert not Assignment.objects.exists()


def test_hit_id_mismatch_is_refused_and_creates_nothing(client):
    hit, other = mturk_hits(images=2)
    response = client.get(link(hit, assignmentId="3ASSIGN1", hitId=other.external_id, workerId="A1WORKER",
                               turkSubmitTo=MTURK))
    assert response.status_code == 403
    assert "forged or mismatched" in response.content.decode()
    assert client.get(link(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId="3FORGED")).status_code == 403
    assert not Assignment.objects.exists() and not Worker.objects.exists()


@pytest.mark.parametrize("token", ["", "forged", "eyJoIjoxfQ:forgedsignature"])
def test_forged_or_absent_hit_token_is_refused(client, token):
    hit = mturk_hit()
    response = client.get(link(hit, token=token) if token else reverse("mturk-task") + f"?c={hit.campaign_id}")
    assert response.status_code == 403
    assert_frameable(response)


def test_token_from_another_signer_is_refused(client):
    hit = mturk_hit()
    response = client.get(link(hit, token=assignment_token(hit.pk, "A1WORKER")))  # right key, wrong salt
    assert response.status_code == 403


def test_campaign_mismatch_is_refused(client):
    hit = mturk_hit()
    assert client.get(link(hit, campaign_id=hit.campaign_id + 1)).status_code == 403
    response = client.get(accept_link(hit).replace(f"c={hit.campaign_id}", "c=x"))
    assert response.status_code == 403
    assert not Assignment.objects.exists()


def test_local_campaign_is_not_served_on_the_mturk_route(client):
    campaign = make_campaign(images=1)
    hit = HIT.objects.get(campaign=campaign)
    assert client.get(link(hit)).status_code == 403


@pytest.mark.parametrize("missing", ["workerId", "turkSubmitTo"])
def test_missing_parameters_are_refused(client, missing):
    hit = mturk_hit()
    params = {"assignmentId": "3ASSIGN1", "hitId": hit.external_id, "workerId": "A1WORKER", "turkSubmitTo": MTURK}
    del params[missing]
    response = client.get(link(hit, **params))
    assert response.status_code == 400
    assert_frameable(response)
    assert not Assignment.objects.exists()


def test_malformed_worker_id_is_refused(client):
    hit = mturk_hit()
    assert client.get(accept_link(hit, worker="A1<script>")).status_code == 400
    assert client.get(accept_link(hit, worker="A" * 101)).status_code == 400
    assert not Worker.objects.exists()


def test_reused_assignment_id_creates_a_record_for_the_new_worker(client):
    hit = mturk_hit()
    client.get(accept_link(hit, worker="A1FIRST", assignment="3SAMEID"))
    first = Assignment.objects.get()
    before = Assignment.objects.filter(pk=first.pk).values().get()
    response = client.get(accept_link(hit, worker="A2SECOND", assignment="3SAMEID"))
    assert response.status_code == 200
    second = Assignment.objects.exclude(pk=first.pk).get()
    assert (second.worker.external_id, second.external_id) == ("A2SECOND", "3SAMEID")
    assert Assignment.objects.filter(pk=first.pk).values().get() == before
    assert read_assignment_token(page_token(response)).assignment_id == second.pk


def test_blocked_worker_is_refused(client):
    hit = mturk_hit()
    Worker.objects.create(provider="mturk", external_id="A1BLOCKED", blocked=True)
    response = client.get(accept_link(hit, worker="A1BLOCKED"))
    assert response.status_code == 403
    assert "not eligible" in response.content.decode()
    assert_frameable(response)
    assert not Assignment.objects.exists()


def test_worker_who_did_the_group_in_another_campaign_is_refused(client):
    done, todo = mturk_hit(), mturk_hit()
    HIT.objects.filter(pk__in=[done.pk, todo.pk]).update(group="album:7")
    done.refresh_from_db()
    accept_marketplace_assignment(done, "A1WORKER", "3EARLIER")
    # reported by the marketplace (a sync confirmed it): only confirmed work counts
    Assignment.objects.filter(hit=done).update(status=AssignmentStatus.SUBMITTED, marketplace_status="Submitted",
                                               confirmed=True)
    response = client.get(accept_link(todo, worker="A1WORKER"))
    assert response.status_code == 403
    assert "another stage" in response.content.decode()
    assert not Assignment.objects.filter(hit=todo).exists()


def test_paused_campaign_refuses_new_workers(client):
    hit = mturk_hit()
    Campaign.objects.filter(pk=hit.campaign_id).update(status="paused")
    response = client.get(accept_link(hit))
    assert response.status_code == 403
    assert "not accepting work" in response.content.decode()
    assert not Assignment.objects.exists()


# ---- submitting -----------------------------------------------------------------------------------

def test_submit_with_the_token_of_another_worker_is_refused(client):
    hit = mturk_hit()
    client.get(accept_link(hit, worker="A1OWNER"))
    assignment = Assignment.objects.get()
    intruder = assignment_token(assignment.pk, "A2INTRUDER")
    response = submit(client, {"token": intruder, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 403
    tampered = page_token(client.get(accept_link(hit, worker="A1OWNER")))[:-2] + "xx"
    assert submit(client, {"token": tampered, "answer": {"text": GOOD_TEXT}}).status_code == 403
    assignment.refresh_from_db()
    assert (assignment.status, assignment.answer) == (AssignmentStatus.ACCEPTED, None)


def test_submit_response_carries_the_completion_code_for_mturk(client):
    hit = mturk_hit()
    token = page_token(client.get(accept_link(hit)))
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 201, response.json()
    body = response.json()
    assignment = Assignment.objects.get()
    assert body["completion_code"] == completion_code(assignment)
    assert re.fullmatch(r"[0-9A-F]{10}", body["completion_code"])
    assert body["answer"] == {"text": GOOD_TEXT} == assignment.answer
    assert body["next_url"] is None
    assert assignment.status == AssignmentStatus.SUBMITTED
    again = submit(client, {"token": token, "answer": {"text": GOOD_TEXT + " Changed my mind."}})
    assert again.status_code == 200
    assert (again.json()["completion_code"], again.json()["answer"]) == (body["completion_code"], {"text": GOOD_TEXT})
    assert "X-Frame-Options" in response and response["X-Frame-Options"] == "DENY"


def test_submit_response_has_no_completion_code_for_local_campaigns(client):
    campaign = make_campaign(images=1)
    response = submit(client, {"token": start_task(client, campaign), "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 201
    assert "completion_code" not in response.json() and "answer" not in response.json()


def test_a_page_submission_alone_earns_no_participation_qualification(client):
    """The ids of the page are unsigned: the grant waits for the marketplace's report (see the sync)."""
    hit = mturk_hit(max_assignments_per_worker=1)
    MarketplaceQualification.objects.create(
        provider="mturk", sandbox=hit.campaign.sandbox, scope=f"campaign:{hit.campaign_id}", external_id="3QUAL")
    token = page_token(client.get(accept_link(hit)))
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    assert response.status_code == 201
    assert not QualificationGrant.objects.exists()
    assert Assignment.objects.get().confirmed is False


# ---- already submitted: the hand-off again -----------------------------------------------------------

def test_already_submitted_page_offers_the_hand_off_again(client):
    hit = mturk_hit()
    token = page_token(client.get(accept_link(hit, assignment="3ASSIGN9")))
    assert submit(client, {"token": token, "answer": {"text": GOOD_TEXT}}).status_code == 201
    assignment = Assignment.objects.get()
    response = client.get(accept_link(hit, assignment="3ASSIGN9", submit_to="https://workersandbox.mturk.com"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Already submitted" in html
    assert completion_code(assignment) in html
    assert ('<form id="handoff-form" method="post" '
            'action="https://workersandbox.mturk.com/mturk/externalSubmit" target="_self">') in html
    assert '<input type="hidden" name="assignmentId" value="3ASSIGN9">' in html
    assert f'<input type="hidden" name="completion_code" value="{completion_code(assignment)}">' in html
    answer = re.search(r'name="answer" value="([^"]*)"', html).group(1)
    assert json.loads(answer.replace("&quot;", '"')) == {"text": GOOD_TEXT}
    assert "csrfmiddlewaretoken" not in html and "data-token" not in html
    assert_frameable(response)
    assert Assignment.objects.count() == 1


def test_another_assignment_id_under_the_same_worker_id_gets_its_own_task_and_no_code(client):
    hit = mturk_hit()
    token = page_token(client.get(accept_link(hit, assignment="3ASSIGN9")))
    submit(client, {"token": token, "answer": {"text": GOOD_TEXT}})
    stored = Assignment.objects.get()
    response = client.get(accept_link(hit, assignment="3GUESSED"))
    assert response.status_code == 200
    html = response.content.decode()
    assert completion_code(stored) not in html and GOOD_TEXT not in html
    assert page_token(response) != token
    stored.refresh_from_db()
    assert (stored.external_id, stored.answer) == ("3ASSIGN9", {"text": GOOD_TEXT})


# ---- headers and queries ----------------------------------------------------------------------------

def test_local_task_page_is_frameable_too(client):
    campaign = make_campaign(images=1)
    response = client.get(reverse("task-page") + "?t=" + start_task(client, campaign))
    assert response.status_code == 200
    assert_frameable(response)


@pytest.mark.parametrize("url", ["/", "/api/", "/accounts/login/", "/api/campaigns/"])
def test_other_pages_deny_framing(client, url):
    response = client.get(url)
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors" not in response.get("Content-Security-Policy", "")


def test_submit_endpoint_denies_framing(client):
    response = submit(client, {"token": "x", "answer": {}})
    assert response.status_code == 403
    assert response["X-Frame-Options"] == "DENY"


def test_task_page_query_count_is_small(client, django_assert_max_num_queries):
    """A constant number of queries (savepoints included): HIT, worker, assignment, the page's image, and the
    frame's count of the worker's answered tasks (not on a preview)."""
    hit = mturk_hit()
    with django_assert_max_num_queries(4):
        assert client.get(preview_link(hit)).status_code == 200
    with django_assert_max_num_queries(13):
        assert client.get(accept_link(hit)).status_code == 200
    with django_assert_max_num_queries(11):
        assert client.get(accept_link(hit)).status_code == 200


# ---- the turkSubmitTo allow-list ----------------------------------------------------------------------

ALLOWED = ["https://www.mturk.com", "https://workersandbox.mturk.com/", "http://127.0.0.1:8765"]


@pytest.mark.parametrize(("value", "expected"), [
    ("https://www.mturk.com", "https://www.mturk.com/mturk/externalSubmit"),
    ("https://www.mturk.com/", "https://www.mturk.com/mturk/externalSubmit"),
    ("https://WWW.MTurk.com", "https://www.mturk.com/mturk/externalSubmit"),
    ("https://workersandbox.mturk.com", "https://workersandbox.mturk.com/mturk/externalSubmit"),
    ("http://127.0.0.1:8765/", "http://127.0.0.1:8765/mturk/externalSubmit"),
])
def test_handoff_url_accepts_allow_listed_origins(value, expected):
    assert handoff_url(value, ALLOWED) == expected


@pytest.mark.parametrize("value", [
    "", "https://evil.example", "https://www.mturk.com.evil.example", "https://evil.example/https://www.mturk.com",
    "https://user@www.mturk.com", "https://user:pw@www.mturk.com", "http://www.mturk.com", "ftp://www.mturk.com",
    "https://www.mturk.com//", "https://www.mturk.com/mturk", "https://www.mturk.com?a=1", "https://www.mturk.com#a",
    "https://www.mturk.com:443", "https://www.mturk.com:99999", "https://www.mturk.com%2F", "https://www.mturk.com\\",
    " https://www.mturk.com", "https://www.mturk\n.com", "//www.mturk.com", "www.mturk.com", "https://[::1",
    "http://127.0.0.1:8766", "https://127.0.0.1:8765", "https://worker.mturk.com",
])
def test_handoff_url_refuses_anything_else(value):
    assert handoff_url(value, ALLOWED) is None


def test_allow_list_comes_from_settings(settings):
    settings.MTURK_SUBMIT_HOSTS = ["https://worker.mturk.com/", "not a url"]
    assert allowed_origins() == {"https://worker.mturk.com"}
    assert handoff_url("https://worker.mturk.com") == "https://worker.mturk.com/mturk/externalSubmit"
    assert handoff_url("https://www.mturk.com") is None


def test_normalise_origin_keeps_the_port():
    assert normalise_origin("http://LOCALHOST:8000/") == "http://localhost:8000"
    assert normalise_origin("https://www.mturk.com:8443") == "https://www.mturk.com:8443"

"""The local crowd's browser identity: a returning browser is the same worker (the signed cookie, or the identity
the task page keeps in its storage where cookies are blocked), so the per-worker limit holds across returns."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from mturk.models import Assignment, Worker
from mturk.work.tokens import identity_token, read_assignment_token
from mturk.work.views.identity import IDENTITY_COOKIE
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import campaign_link, press_start, start_task, submit, token_of

pytestmark = pytest.mark.django_db


def identity_on_page(client: Client, token: str) -> str:
    """The identity the task page hands its script to keep in the browser's storage."""
    html = client.get(reverse("task-page") + f"?t={token}").content.decode()
    return re.search(r'data-identity="([^"]+)"', html).group(1)


def do_one(client: Client, campaign, data: dict | None = None) -> str:
    """Open the link, press Start (with `data`: the start form's fields), answer the task; the identity its task
    page handed to the page's storage."""
    assert client.get(campaign_link(campaign)).status_code in (200, 303)
    response = client.post(campaign_link(campaign), data or {})
    assert response.status_code == 303, response.content
    token = token_of(response)
    identity = identity_on_page(client, token)
    assert submit(client, {"token": token, "answer": {"text": GOOD_TEXT}}).status_code == 201
    return identity


def test_a_returning_browser_is_the_same_worker_by_its_cookie(client):
    campaign = make_campaign(images=3)
    do_one(client, campaign)
    again = client.get(campaign_link(campaign))
    assert again.status_code == 200 and ">Start next task</button>" in again.content.decode()
    do_one(client, campaign)
    assert Worker.objects.count() == 1
    assert Assignment.objects.filter(status="submitted").values("worker").distinct().count() == 1
    assert Client().post(campaign_link(campaign)).status_code == 303  # another browser is another worker
    assert Worker.objects.count() == 2


def test_the_cookie_is_signed_httponly_and_cross_site_only_over_https(client):
    campaign = make_campaign(images=2)
    plain = press_start(client, campaign).cookies[IDENTITY_COOKIE]
    assert plain["httponly"] and plain["samesite"] == "Lax" and not plain["secure"]
    assert plain["max-age"] == 180 * 24 * 3600
    secure = Client().post(campaign_link(campaign), secure=True).cookies[IDENTITY_COOKIE]
    assert secure["httponly"] and secure["samesite"] == "None" and secure["secure"]
    assert secure.OutputString().endswith("; Partitioned") and "Partitioned" not in plain.OutputString()
    forged = Client()
    forged.cookies[IDENTITY_COOKIE] = plain.value[:-3] + "abc"  # a forged signature names nobody
    assert forged.post(campaign_link(campaign)).status_code == 303
    assert Worker.objects.count() == 3


def test_the_cookie_takes_a_returning_worker_straight_back_to_the_open_task(client):
    campaign = make_campaign(images=3)
    token = start_task(client, campaign)
    for _ in range(3):
        again = client.get(campaign_link(campaign))
        # the same assignment and worker (the signature's timestamp may be a second later)
        assert again.status_code == 303 and token_of(again).split(":")[0] == token.split(":")[0]
    assert Assignment.objects.count() == 1


def test_without_cookies_the_identity_kept_by_the_page_names_the_worker(client):
    """Inside an iframe whose browser blocks our cookie, the start page's script sends the identity the task
    page kept in the page's storage (the form field `i`)."""
    campaign = make_campaign(images=3)
    identity = do_one(client, campaign)
    no_cookies = Client()  # the same person, their browser sending no cookie
    do_one(no_cookies, campaign, {"i": identity})
    assert Worker.objects.count() == 1 and Assignment.objects.count() == 2
    start = no_cookies.get(campaign_link(campaign)).content.decode()
    assert 'name="i" id="identity-field"' in start and "js/worker_identity.js" in start
    Client().post(campaign_link(campaign), {"i": "forged"})  # a forged identity names nobody: a new worker
    assert Worker.objects.count() == 2


@pytest.mark.parametrize("way", ["cookie", "page storage"])
def test_the_limit_per_worker_holds_when_the_link_is_opened_again(client, way):
    campaign = make_campaign(images=5, max_assignments_per_worker=2)
    identity = do_one(client, campaign)
    browser, data = (client, {}) if way == "cookie" else (Client(), {"i": identity})
    do_one(browser, campaign, data)
    third = browser.post(campaign_link(campaign), data)
    assert third.status_code == 200 and "You have done the maximum of 2 tasks" in third.content.decode()
    assert Worker.objects.count() == 1 and Assignment.objects.count() == 2


def test_the_worker_link_comes_before_the_cookie(client):
    campaign = make_campaign(images=3)
    start_task(client, campaign)
    other = Client()
    token = start_task(other, campaign)
    next_url = other.get(reverse("task-page") + f"?t={token}").context["next_url"]
    assert submit(other, {"token": token, "answer": {"text": GOOD_TEXT}}).status_code == 201
    response = client.post(next_url)  # the other worker's "Next task" link, opened in the first browser
    claim = read_assignment_token(token_of(response))
    assert claim.worker_external_id == read_assignment_token(token).worker_external_id
    assert Worker.objects.count() == 2


def test_identity_tokens_are_not_worker_or_assignment_tokens(client):
    campaign = make_campaign(images=2)
    start_task(client, campaign)
    worker = Worker.objects.get()
    forged = submit(client, {"token": identity_token(worker.external_id), "answer": {"text": GOOD_TEXT}})
    assert forged.status_code == 403

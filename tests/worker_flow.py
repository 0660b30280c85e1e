"""Drive the worker side through HTTP as a browser would (shared by the worker tests)."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from django.test import Client
from django.urls import reverse

from mturk.models import Campaign
from mturk.work.tokens import campaign_token


def campaign_link(campaign: Campaign) -> str:
    return reverse("campaign-entry", kwargs={"token": campaign_token(campaign.pk)})


def start_task(client: Client, campaign: Campaign, worker_query: str = "") -> str:
    """Open the campaign link and press "Start task"; return the assignment token of the task page."""
    page = client.get(campaign_link(campaign) + worker_query)
    assert page.status_code == 200 and 'id="start-task"' in page.content.decode(), page.content
    response = press_start(client, campaign, worker_query)
    assert response.status_code == 303, response.content
    return token_of(response)


def press_start(client: Client, campaign: Campaign, worker_query: str = "", remote_addr: str = "127.0.0.1"):
    """The start page's form: a POST to the campaign link (with the worker token, if any), from `remote_addr`."""
    data = parse_qs(worker_query.lstrip("?"))
    return client.post(campaign_link(campaign), {key: values[0] for key, values in data.items()},
                       REMOTE_ADDR=remote_addr)


def token_of(task_redirect) -> str:
    """The assignment token in a redirect to the task page."""
    return parse_qs(urlsplit(task_redirect["Location"]).query)["t"][0]


def submit(client: Client, body: object, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(body)
    return client.post(reverse("task-submit"), data=data, content_type="application/json")
